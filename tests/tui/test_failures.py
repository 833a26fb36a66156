"""Failures the app must not swallow: an answer of an unexpected shape, an error a screen's worker raises, a participant
that answers nothing or only 500s. The real app under Pilot against a real participant; only the failure is faked,
by rewriting the participant's answers on their way back."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable

import httpx
from rich.text import Text

from app.app import LedgerApp
from app.client.http import Timeouts
from app.config import Config
from app.screens.acs import AcsScreen
from app.tokens import MintedToken
from app.widgets.status_bar import StatusBar
from tests.client.conftest import raw_server, read_request_head
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


# --- a participant that does not answer, or answers only 500 ------------------------------------------------------


async def test_a_participant_that_never_answers_is_slow_then_reported_within_the_timeout(
    locations, monkeypatch
):
    async def silent(reader, writer):
        await read_request_head(reader)
        await asyncio.Event().wait()  # accepts, reads the request, never answers

    async with raw_server(silent) as (url, _):
        app = LedgerApp(
            config=Config(),
            locations=locations,
            url=url,
            tokens=MintedToken(SECRET, "Alice"),
            label=url,
            timeouts=Timeouts(read_s=1.5),
            slow_after_s=0.3,
        )
        async with app.run_test(size=SIZE) as pilot:
            # "slow" lasts from 0.3 s to the timeout: a test that looks at the screen now and then may come after
            # it is gone, so every line the status bar draws is kept
            drawn = status_lines_drawn(monkeypatch)
            await wait_for(
                pilot, lambda: any("● slow" in line for line in drawn), "the status line saying slow"
            )
            assert any("● slow" in line for line in drawn)
            await wait_for(pilot, lambda: said(app, "got no answer in 1.5 s"), "the timeout reported")
            await wait_for(pilot, lambda: app.status_health == "failing", "the status line saying failing")
            assert "failing: timed out" in screen_text(app)


def status_lines_drawn(monkeypatch) -> list[str]:
    """Each line a status bar (each screen has its own) draws from now on, as text, in order."""
    render = StatusBar.render
    drawn: list[str] = []

    def recorded(bar: StatusBar) -> Text:
        line = render(bar)
        drawn.append(line.plain)
        return line

    monkeypatch.setattr(StatusBar, "render", recorded)
    return drawn


class FailingSwitch(httpx.AsyncBaseTransport):
    """The real participant until `broken` is set; then a 500 with `body` (by default JSON that is not a Canton
    error)."""

    def __init__(self, body: object = None) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.broken = False
        self.body = body if body is not None else {"message": "boom"}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.broken:
            return httpx.Response(500, json=self.body, request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_participant_that_answers_only_500_shows_as_failing_until_it_answers_again(
    demo_server, locations
):
    switch = FailingSwitch()
    app = app_with(demo_server, locations, switch)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connected and app.status_ledger_end is not None, "the connection")
        assert app.status_health == "ok"
        switch.broken = True
        await wait_for(pilot, lambda: said(app, "The participant is failing"), "the failure notified")
        assert app.status_health == "failing" and app.status_health_cause == "HTTP 500"
        # also at 80 columns, where the cause is what gets cut (marked), never the user acting
        top = screen_text(app).splitlines()[0]
        assert "● failing: HTTP 500" in top or "● failing: HTTP…" in top, top
        assert "│ Alice │" in top, top
        switch.broken = False
        # any answer makes the line healthy (a contracts page asked for before the break may be the first); the
        # notification follows the next poll of the ledger end
        await wait_for(pilot, lambda: app.status_health == "ok", "the participant healthy again")
        await wait_for(
            pilot, lambda: said(app, "The participant answers again."), "the participant said back"
        )


async def test_a_participant_that_answers_500_from_the_start_cannot_be_connected_and_is_failing(locations):
    async def answer_500(reader, writer):
        while True:
            await read_request_head(reader)
            body = b'{"message":"boom"}'
            writer.write(
                b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()

    async with raw_server(answer_500) as (url, _):
        app = LedgerApp(
            config=Config(), locations=locations, url=url, tokens=MintedToken(SECRET, "Alice"), label=url
        )
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: said(app, f"Cannot connect to {url}"), "the failure notified")
            await wait_for(pilot, lambda: app.status_health == "failing", "the status line saying failing")
            assert not app.connected and app.status_health_cause == "HTTP 500"


async def test_a_participants_cause_is_shown_as_text_never_as_markup_or_terminal_control(
    demo_server, locations
):
    cause = "[bold red]disk[/] full \x1b]0;owned\x07 [/oops]"
    switch = FailingSwitch(
        {
            "code": "LEDGER_API_INTERNAL_ERROR",
            "cause": cause,
            "correlationId": None,
            "traceId": None,
            "context": {},
            "resources": [],
            "errorCategory": 4,
            "grpcCodeValue": 13,
            "retryInfo": None,
            "definiteAnswer": None,
        }
    )
    app = app_with(demo_server, locations, switch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected and app.status_ledger_end is not None, "the connection")
        switch.broken = True
        await wait_for(pilot, lambda: said(app, "The participant is failing"), "the failure notified")
        await pilot.pause(0.3)  # drawn
        message = next(n.message for n in app._notifications if "is failing" in n.message)
        assert "[bold red]disk[/] full \\x1b]0;owned\\x07 [/oops]" in message
        assert app.is_running
