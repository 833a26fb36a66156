"""The contracts a session read, kept for the next session of the same participant and user: shown at once on the
next start, marked as not current until the participant answers, then brought up to date by the updates since (not
another snapshot); never shown to another user."""

from __future__ import annotations

import asyncio

import httpx

from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.snapshot import ADDED
from app.tokens import MintedToken
from app.widgets.contract_table import ContractTable
from tests.conftest import SECRET, LedgerApi
from tests.tui.conftest import SIZE, known, screen_of, screen_text, wait_for

SNAPSHOT_PATHS = ("/v2/state/active-contracts-page", "/v2/state/active-contracts")


class NotAnsweringYet(httpx.AsyncBaseTransport):
    """The real participant, which answers only once `answering` is set (a participant still starting)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.answering = asyncio.Event()
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self.answering.wait()
        self.paths.append(request.url.path)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def kept_rows_drawn(pilot, app: LedgerApp, held: NotAnsweringYet) -> tuple[AcsScreen, ContractTable]:
    """The kept rows loaded and one drawn, the participant having said nothing yet."""
    await wait_for(pilot, lambda: _loaded(app), "the kept rows")
    screen = screen_of(app, AcsScreen)
    table = screen.query_one(ContractTable)
    await wait_for(pilot, lambda: table.row_at(0) is not None, "a kept row drawn")
    assert held.paths == []
    return screen, table


def _app(server, locations, user: str, transport: httpx.AsyncBaseTransport) -> LedgerApp:
    return LedgerApp(
        config=Config(),
        locations=locations,
        url=server.url,
        tokens=MintedToken(SECRET, user),
        label=server.url,
        transport=transport,
    )


async def _a_session(app) -> tuple[int, int, str]:
    """Run `app` until its contracts are read, and quit: the count, the offset, the user's party."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen = screen_of(app, AcsScreen)
        assert screen.offset is not None
        return screen.query_one(ContractTable).count, screen.offset, app.session.identity.primary_party


async def test_a_start_shows_the_last_sessions_rows_as_not_current_then_brings_them_up_to_date(
    demo_writable, make_app, locations
):
    count, offset, alice = await _a_session(make_app(demo_writable, "Alice"))
    assert len(list(locations.snapshots_dir.glob("kept-*.db"))) == 1
    async with httpx.AsyncClient(base_url=demo_writable.url) as http:  # the ledger moves on meanwhile
        created = await LedgerApi(http, check_spec=False).create_iou(
            alice, alice, "123.45", "CHF", user="Alice"
        )
    new_id = created["events"][0]["CreatedEvent"]["contractId"]

    held = NotAnsweringYet()
    app = _app(demo_writable, locations, "Alice", held)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await kept_rows_drawn(pilot, app, held)
        assert (table.count, screen.offset) == (count, offset)
        assert f"viewing {offset} cached, not current" in screen_text(app)

        held.answering.set()
        moving = lambda: any(w.group == "acs-load" and w.is_running for w in screen.workers)  # noqa: E731
        await wait_for(
            pilot,
            lambda: not app.status_stale and (screen.offset or 0) > offset and not moving(),
            "the rows brought up to date",
        )
        await wait_for(pilot, lambda: table.count == count + 1, "the new contract among the rows")
        assert "cached" not in screen_text(app)
        position = await known(screen.snapshot).views.position_of(new_id)
        assert position is not None
        await wait_for(pilot, lambda: table.row_at(position) is not None, "the new row drawn")
        assert known(table.row_at(position)).status == ADDED  # since the offset the last session read
        assert "/v2/updates" in held.paths
        assert not set(SNAPSHOT_PATHS) & set(held.paths)  # brought up to date, not read again


async def test_another_user_never_sees_them(demo_writable, make_app, locations):
    await _a_session(make_app(demo_writable, "Alice"))
    held = NotAnsweringYet()
    app = _app(demo_writable, locations, "Bob", held)
    async with app.run_test(size=SIZE) as pilot:
        # the connection starts once what was kept for this participant and user is shown (none for Bob)
        await wait_for(pilot, lambda: any(w.name == "_connect_once" for w in app.workers), "the connection")
        assert app.screen.query_one(ContractTable).count == 0
        assert not app.status_stale and "cached" not in screen_text(app)
        held.answering.set()
        await wait_for(pilot, lambda: _loaded(app), "Bob's own rows")
        assert app.session.identity.user_id == "Bob"
        assert "cached" not in screen_text(app)


async def test_rows_the_participant_does_not_confirm_as_the_users_are_dropped_at_once(
    demo_writable, make_app, locations
):
    count, _, _ = await _a_session(make_app(demo_writable, "Alice"))
    async with httpx.AsyncClient(base_url=demo_writable.url) as http:  # Alice may read as Bob now
        api = LedgerApi(http, check_spec=False)
        bob = (await api.get("/v2/users/Bob", user="Bob")).json()["user"]["primaryParty"]
        right = {"kind": {"CanReadAs": {"value": {"party": bob}}}}
        granted = await api.post(
            "/v2/users/Alice/rights", {"userId": "Alice", "rights": [right], "identityProviderId": ""}
        )
        assert granted.status_code == 200, granted.text

    held = NotAnsweringYet()
    app = _app(demo_writable, locations, "Alice", held)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app) and app.status_stale, "the kept rows")
        screen = screen_of(app, AcsScreen)
        table = screen.query_one(ContractTable)
        rows_when_no_longer_kept: list[int] = []

        def note_rows_when_no_longer_kept(_: int | None) -> None:
            if app.workspace.acs.kept is None:
                rows_when_no_longer_kept.append(table.count)

        app.workspace.acs.subscribe(note_rows_when_no_longer_kept)
        held.answering.set()
        # the participant names other parties for Alice: the kept rows go before anything else is read
        await wait_for(pilot, lambda: not app.status_stale, "the kept rows dropped")
        assert rows_when_no_longer_kept[0] == 0
        await wait_for(pilot, lambda: _loaded(app), "Alice's rows, read again")
        assert sorted(screen.parties or []) == sorted(app.session.identity.readable() or [])
        assert bob in (screen.parties or [])
        assert table.count > count  # Bob's contracts too
        assert set(SNAPSHOT_PATHS) & set(held.paths)  # a new snapshot, not the kept one brought up to date
