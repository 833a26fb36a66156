"""Helpers of the terminal client's tests: a client of the test participant, contracts of the demo ledger found
through the API, and a transport that makes a participant look like one without some endpoints."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import httpx
from textual import events

from app.client import LedgerClient, event_format, update_format
from app.client.ledger import LEDGER_EFFECTS
from app.compose.form import TextNode
from app.daml import template_name
from app.tokens import MintedToken
from participant.api import ExercisedEvent
from tests.conftest import SECRET, ServerProcess
from tests.tui.conftest import known

if TYPE_CHECKING:  # annotations only: a module of helpers need not load the screens
    from app.compose.form_rows import FormRow
    from app.screens.acs import AcsScreen
    from app.snapshot.views import Views


def views_of(acs: AcsScreen) -> Views:
    """The views of the snapshot the contracts screen shows (it has read one by the time a test asks)."""
    return known(acs.snapshot, "the snapshot").views


def text_of(row: FormRow) -> str:
    """What a text field of the typed form holds."""
    assert isinstance(row.node, TextNode), f"{row.path} is not a text field"
    return row.node.text


async def paste(pilot, text: str) -> None:
    """`text` pasted into the focused widget: one event, as a terminal delivers a paste, taken whole by the input
    (app/app/keys.py). For the tests whose subject is not typing: each key Pilot presses is an idle wait and the
    app's work for a key (a render of the screen), a few hundred milliseconds on a loaded machine; a paste is one."""
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


def client_for(
    server: ServerProcess, user: str = "Alice", transport: httpx.AsyncBaseTransport | None = None
) -> LedgerClient:
    return LedgerClient(server.url, MintedToken(SECRET, user), transport=transport)


async def party_of(client: LedgerClient) -> str:
    return (await client.authenticated_user()).primary_party


async def archived_iou(client: LedgerClient, party: str) -> ExercisedEvent:
    """A consuming exercise on an Iou that `party` saw and that created contracts (a split, a transfer), among
    the demo ledger's last updates."""
    end = await client.ledger_end()
    fmt = update_format(event_format([party]), LEDGER_EFFECTS)
    for element in reversed(await client.updates(max(0, end - 100), end, fmt, limit=100)):
        tx = element.update.transaction if element.update else None
        for event in tx.value.events if tx else []:
            exercised = event.exercised_event
            if (
                exercised
                and exercised.consuming
                and template_name(exercised.template_id) == "Iou:Iou"
                and exercised.last_descendant_node_id > exercised.node_id
            ):
                return exercised
    raise AssertionError("the demo ledger has no archived Iou in its last updates")


async def contract_without(client: LedgerClient, party: str, absent: str) -> str:
    """An active contract of `party` that `absent` is no stakeholder of."""
    end = await client.ledger_end()
    for entry in await client.active_contracts(end, event_format([party]), limit=200):
        active = entry.contract_entry.js_active_contract if entry.contract_entry else None
        if active is None:
            continue
        event = active.created_event
        if absent not in [*event.signatories, *event.observers]:
            return event.contract_id
    raise AssertionError(f"every contract of {party} has {absent} among its stakeholders")


class WithoutEndpoints(httpx.AsyncBaseTransport):
    """The real participant, but the given paths answer as on a participant that does not have them: 404 with
    Canton's legacy body (docs/ledger-api.md §0)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = set(paths)
        self.inner = httpx.AsyncHTTPTransport()
        self.refused: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path in self.paths:
            self.refused.append(request.url.path)
            return httpx.Response(
                404, json={"errors": [f"{request.method}, uri: {request.url}"], "status": 404}
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
