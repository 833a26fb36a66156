"""Failures the app must not swallow: an answer of an unexpected shape, an error a screen's worker raises, a participant
that answers nothing or only 500s. The real app under Pilot against a real participant; only the failure is faked,
by rewriting the participant's answers on their way back."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import httpx

from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.tokens import MintedToken
from tests.conftest import SECRET, ServerProcess
from tests.tui.conftest import SIZE, screen_text, wait_for

PAGE_PATH = "/v2/state/active-contracts-page"


class Rewriting(httpx.AsyncBaseTransport):
    """The real participant, with the JSON answers of some paths rewritten by `rewrite(path, body)`."""

    def __init__(self, rewrite: Callable[[str, object], object]) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.rewrite = rewrite

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        if response.status_code == 200 and "json" in response.headers.get("content-type", ""):
            body = self.rewrite(request.url.path, json.loads(content))
            return httpx.Response(200, json=body, request=request)
        return httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def app_with(server: ServerProcess, locations, transport: httpx.AsyncBaseTransport) -> LedgerApp:
    return LedgerApp(
        config=Config(),
        locations=locations,
        url=server.url,
        tokens=MintedToken(SECRET, "Alice"),
        label=server.url,
        transport=transport,
    )


def _first_created_event(body: dict) -> dict:
    return body["activeContracts"][0]["contractEntry"]["JsActiveContract"]["createdEvent"]


def said(app: LedgerApp, text: str) -> bool:
    return any(text in n.message for n in app._notifications)


async def _reading_failed(app: LedgerApp, pilot, text: str) -> None:
    await wait_for(pilot, lambda: said(app, text), "the notification")
    screen = app.screen
    assert isinstance(screen, AcsScreen)
    await wait_for(pilot, lambda: not screen.reading, "the screen no longer reading")
    assert "reading the snapshot" not in screen_text(app)


async def test_a_created_event_without_template_id_is_said_and_the_screen_is_not_stuck(
    demo_server, locations, caplog
):
    def drop_template(path: str, body):
        if path == PAGE_PATH and body["activeContracts"]:
            del _first_created_event(body)["templateId"]
        return body

    app = app_with(demo_server, locations, Rewriting(drop_template))
    with caplog.at_level(logging.WARNING, logger="ledger_tui"):
        async with app.run_test(size=SIZE) as pilot:
            await _reading_failed(
                app,
                pilot,
                "unexpected answer from the participant: "
                "contractEntry.JsActiveContract.createdEvent.templateId: missing",
            )
    assert any("templateId: missing" in r.getMessage() for r in caplog.records)


async def test_a_number_where_a_contract_id_belongs_is_said(demo_server, locations):
    def number_id(path: str, body):
        if path == PAGE_PATH and body["activeContracts"]:
            _first_created_event(body)["contractId"] = 12345
        return body

    app = app_with(demo_server, locations, Rewriting(number_id))
    async with app.run_test(size=SIZE) as pilot:
        await _reading_failed(app, pilot, "createdEvent.contractId: int where text belongs")


async def test_an_error_raised_in_a_screens_worker_is_notified_and_logged(demo_server, locations, caplog):
    """The contracts screen asks the ledger end in its worker and does not catch what that raises: the app
    still says what happened."""

    def bad_end(path: str, body):
        return {"offset": "soon"} if path == "/v2/state/ledger-end" else body

    app = app_with(demo_server, locations, Rewriting(bad_end))
    with caplog.at_level(logging.WARNING, logger="ledger_tui"):
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: said(app, "GetLedgerEndResponse"), "the notification")
            assert any(n.title == "unreadable answer" for n in app._notifications)
    assert any("GetLedgerEndResponse" in r.getMessage() for r in caplog.records)
