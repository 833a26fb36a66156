"""The transactions screen against a real participant: the newest updates, paging back through a long history, a
command submitted elsewhere appearing live, the stream resumed across a participant restart, filters, and the way
from a transaction to a contract and back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from app.daml_values import show_party
from app.screens.inspector import InspectorScreen
from app.screens.transactions import LIVE, RECONNECTING, TransactionsScreen
from app.screens.update_detail import UpdateScreen
from app.update_reading import PAGE
from app.update_window import CAPACITY
from app.widgets.transaction_view import TransactionTree
from tests.conftest import SECRET, LedgerApi, ServerProcess, start_server
from tests.history import allocate, submit_ious
from tests.tui.conftest import SIZE, screen_text, wait_for

# The screen's window and pages, a tenth of the app's (CAPACITY, PAGE) for the paging test: the same walk (two and a
# half windows, paging down lets go of the newest rows more than once, two dozen pages) through a tenth of the
# transactions to submit (2,500 took 20 s of the module's setup)
WINDOW = CAPACITY // 10
READ_PAGE = PAGE // 10
HISTORY = WINDOW * 5 // 2
LIVE_STEPS = 100  # pauses of 50 ms


async def transactions(app, pilot) -> TransactionsScreen:
    await wait_for(pilot, lambda: app.connected, "the connection")
    await pilot.press("6")
    await wait_for(pilot, lambda: isinstance(app.screen, TransactionsScreen), "the transactions screen")
    screen = app.screen
    await wait_for(pilot, lambda: not screen.reading and len(screen.window) > 0, "the newest updates")
    return screen


async def follow(pilot, screen: TransactionsScreen) -> None:
    await pilot.press("f")
    await wait_for(pilot, lambda: screen.stream == LIVE and not screen.reading, "the stream live")


def offsets(screen: TransactionsScreen) -> list[int]:
    return [r.offset for r in screen.window.rows]


def commands(screen: TransactionsScreen) -> list[str]:
    """The command ids of the transactions in the window (the user's party allocation is a topology event)."""
    return [r.command_id for r in screen.window.rows if r.kind == "transaction"]


@pytest.fixture(scope="module")
def long_history(tmp_path_factory) -> Iterator[tuple[ServerProcess, list[str]]]:
    """A participant whose user Dora has a history of HISTORY one-Iou transactions."""
    s = start_server(tmp_path_factory.mktemp("long") / "ledger.db", "--hs256-secret", SECRET)

    async def make() -> list[str]:
        party = await allocate(s.url, "Dora")
        return await submit_ious(s.url, "Dora", party, HISTORY)

    ids = asyncio.run(make())
    yield s, ids
    s.stop()


@pytest.fixture
def writable(tmp_path) -> Iterator[tuple[ServerProcess, str]]:
    """A participant of its own with a user Erin, for tests that submit (and restart it)."""
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    party = asyncio.run(allocate(s.url, "Erin"))
    yield s, party
    s.stop()


async def test_the_newest_updates_of_the_demo_ledger(demo_server, make_app) -> None:
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        rows = screen.window.rows
        assert offsets(screen) == sorted(offsets(screen), reverse=True)
        assert {r.kind for r in rows} >= {"transaction", "assign", "unassign"}
        text = screen_text(app)
        assert "offset" in text and "record time" in text and "○ paused" in text
        assert str(rows[0].offset) in text
        # a transfer's row: its templates, its choice, one created and one archived, and who acted
        transfer = next(r for r in rows if "Iou_Transfer" in r.choices)
        assert transfer.created == 1 and transfer.archived == 1 and transfer.acting


async def test_paging_back_through_a_history_longer_than_the_window(
    long_history, make_app, monkeypatch
) -> None:
    monkeypatch.setattr(TransactionsScreen, "window_capacity", WINDOW)
    monkeypatch.setattr(TransactionsScreen, "read_page", READ_PAGE)
    server, ids = long_history
    app = make_app(server, "Dora")
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        seen: dict[int, str] = {}
        while True:
            assert len(screen.window) <= WINDOW
            for row in screen.window.rows:
                assert seen.setdefault(row.offset, row.command_id) == row.command_id
            if screen.window.at_begin and screen.table.cursor == len(screen.window) - 1:
                break
            await pilot.press("end")
            await wait_for(pilot, lambda: not screen.reading, "the next page")
        # every transaction once, none missing (and the topology event that gave Dora her party)
        assert sorted(c for c in seen.values() if c) == sorted(ids)
        assert len(seen) == HISTORY + 1
        assert screen.window.rows[-1].command_id == seen[min(seen)]
        # and back up to the newest, which the window let go of on the way down
        assert not screen.window.at_head
        await pilot.press("home")
        await wait_for(pilot, lambda: screen.window.at_head and not screen.reading, "the newest again")
        assert offsets(screen)[0] == max(seen)


async def test_a_command_submitted_elsewhere_appears_live(writable, make_app) -> None:
    server, party = writable
    await submit_ious(server.url, "Erin", party, 3, prefix="before")
    app = make_app(server, "Erin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        await follow(pilot, screen)
        assert "● live" in screen_text(app)
        await submit_ious(server.url, "Erin", party, 1, prefix="elsewhere")
        await wait_for(
            pilot, lambda: screen.window.rows[0].command_id == "elsewhere-0", "the new update on top"
        )
        assert screen.table.cursor == 0  # the cursor on the newest row follows the newest
        assert "elsewhere-0" in screen_text(app)
        await pilot.press("f")
        await wait_for(pilot, lambda: "○ paused" in screen_text(app), "the stream paused")
        await submit_ious(server.url, "Erin", party, 1, prefix="while-paused")
        await pilot.press("f")  # resumes from the last update shown: the one made while paused comes
        await wait_for(
            pilot, lambda: screen.window.rows[0].command_id == "while-paused-0", "what came meanwhile"
        )
        assert [r.command_id for r in screen.window.rows][:2] == ["while-paused-0", "elsewhere-0"]


async def test_following_resumes_after_a_participant_restart_without_gap_or_repeat(
    writable, make_app
) -> None:
    server, party = writable
    await submit_ious(server.url, "Erin", party, 5, prefix="start")
    app = make_app(server, "Erin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        await follow(pilot, screen)
        await submit_ious(server.url, "Erin", party, 20, prefix="before-restart", concurrency=4)
        await wait_for(pilot, lambda: len(commands(screen)) == 25, "the updates before the restart")
        server.stop()
        await wait_for(pilot, lambda: screen.stream == RECONNECTING, "the stream reconnecting")
        assert "reconnecting" in screen_text(app)
        port = int(server.url.rsplit(":", 1)[1])
        restarted = start_server(server.db, "--hs256-secret", SECRET, port=port)
        server.process = restarted.process  # the fixture stops it
        await submit_ious(server.url, "Erin", party, 20, prefix="after-restart", concurrency=4)
        await wait_for(pilot, lambda: len(commands(screen)) == 45, "the updates after the restart")
        await wait_for(pilot, lambda: screen.stream == LIVE, "the stream live again")
        assert len(set(offsets(screen))) == len(offsets(screen))
        assert sorted(commands(screen)) == sorted(
            [f"start-{n}" for n in range(5)]
            + [f"before-restart-{n}" for n in range(20)]
            + [f"after-restart-{n}" for n in range(20)]
        )


async def test_offset_checkpoints_move_the_screen_on_when_none_of_its_updates_come(
    tmp_path, make_app
) -> None:
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, "--offset-checkpoint-interval", "0.2")
    try:
        erin = await allocate(s.url, "Erin")
        frank = await allocate(s.url, "Frank")
        await submit_ious(s.url, "Erin", erin, 2, prefix="erin")
        app = make_app(s, "Erin")
        async with app.run_test(size=SIZE) as pilot:
            screen = await transactions(app, pilot)
            await follow(pilot, screen)
            await submit_ious(s.url, "Frank", frank, 5, prefix="frank")  # not Erin's to see
            end = await app.session.client.ledger_end()
            # the window takes it at its next flush: it is where the stream resumes from after a break
            await wait_for(
                pilot,
                lambda: screen.last_seen == end and screen.window.high == end,
                "the checkpoint at the ledger end",
            )
            assert sorted(commands(screen)) == ["erin-0", "erin-1"]
            assert f"at offset {end}" in screen_text(app)
    finally:
        s.stop()


async def test_filters(demo_server, make_app) -> None:
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        command = next(r.command_id for r in screen.window.rows[5:] if r.command_id)
        await pilot.press("slash", *f"command:{command}", "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.filter.commands, "the filter")
        assert [r.command_id for r in screen.window.rows] == [command]
        assert f"command:{command}" in screen_text(app)
        await pilot.press("escape")  # clears the filter
        await wait_for(pilot, lambda: not screen.reading and len(screen.window) > 1, "the whole list")

        await pilot.press("slash", *"template:#model-tests:Iou:IouTransfer", "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.filter.templates, "the template filter")
        assert screen.window.rows
        assert all(any(t.endswith(":Iou:IouTransfer") for t in r.templates) for r in screen.window.rows)

        await pilot.press("escape")
        await pilot.press("slash", *"party:Alice Iou_Transfer", "enter")  # a party by its hint, and text
        await wait_for(pilot, lambda: not screen.reading and screen.filter.parties, "the party filter")
        rows = screen.window.rows
        assert rows and all("Iou_Transfer" in r.choices for r in rows)
        assert all(any(p.startswith("Alice::") for p in r.parties) for r in rows)

        await pilot.press("escape")
        await pilot.press(
            "slash", *"party:Bob", "enter"
        )  # a party Alice may not read: the participant says no
        await wait_for(pilot, lambda: not screen.reading and screen.filter.parties, "the refused filter")
        assert not screen.window.rows  # not the rows of another filter
        assert any(n.severity == "error" for n in app._notifications)


async def test_a_party_allocated_from_here_is_found_by_its_hint(writable, make_app) -> None:
    """A party's hint in the filter is looked up in the workspace's directory, which a party allocated from here
    joins: also when a filter before it read the participant's parties (the screen kept a copy of its own, read
    once, and took the new party's hint for a party id: none of its updates were shown)."""
    server, erin = writable
    await submit_ious(server.url, "Erin", erin, 1, prefix="erin")
    await _user(server, "auditor", {"ParticipantAdmin": {"value": {}}}, {"CanReadAsAnyParty": {"value": {}}})
    app = make_app(server, "auditor")
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        await pilot.press("slash", *"party:Erin", "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.filter.parties, "the filter on Erin")
        assert screen.window.rows and all(
            any(p.startswith("Erin::") for p in r.parties) for r in screen.window.rows
        )

        frank = await app.workspace.directory.allocate_party("Frank")  # as the parties screen does
        # a transaction of Frank's, submitted elsewhere (a user changed from here would read the parties again)
        await _user(server, "Frank", {"CanActAs": {"value": {"party": frank.party}}})
        await submit_ious(server.url, "Frank", frank.party, 1, prefix="frank")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.reading and not screen.filter.parties, "the whole list")
        await pilot.press("slash", *"party:Frank", "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.filter.parties, "the filter on Frank")
        assert not [n.message for n in app._notifications if n.severity == "error"]
        assert screen.window.rows and all(frank.party in r.parties for r in screen.window.rows)


async def _user(server: ServerProcess, user_id: str, *kinds: dict) -> None:
    """A user with these rights, made by the participant's administrator."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        rights = [{"kind": kind} for kind in kinds]
        r = await LedgerApi(http, check_spec=False).post(
            "/v2/users", {"user": {"id": user_id}, "rights": rights}
        )
        assert r.status_code == 200, r.text


async def test_opening_a_transaction_a_contract_of_it_and_back(writable, make_app) -> None:
    server, party = writable
    await submit_ious(server.url, "Erin", party, 30, prefix="iou")
    app = make_app(server, "Erin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        await follow(pilot, screen)
        await pilot.press("down", "down", "down")
        chosen = screen.table.selected
        assert chosen is not None
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, UpdateScreen) and app.screen.view.transaction is not None,
            "the transaction",
        )
        assert app.screen.view.transaction.offset == chosen.offset
        text = screen_text(app)
        assert "Created" in text and "Iou:Iou" in text
        tree = app.screen.query_one(TransactionTree)
        tree.focus()
        await pilot.press("home", "o")  # the created contract, first node
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        assert app.screen.contract_id == chosen.contracts[0]
        # updates keep coming while the list is out of sight
        await submit_ious(server.url, "Erin", party, 2, prefix="meanwhile")
        await wait_for(pilot, lambda: screen.window.rows[0].command_id.startswith("meanwhile"), "new updates")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, UpdateScreen), "the transaction again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the list again")
        assert screen.table.selected == chosen  # the same row, though two joined on top


async def test_going_to_an_offset_and_an_update_id(demo_server, make_app) -> None:
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        target = screen.window.rows[150]
        await pilot.press("o", *str(target.offset), "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.table.selected == target, "the offset")
        await pilot.press("home")
        await wait_for(pilot, lambda: screen.table.cursor == 0 and not screen.reading, "the top")
        other = screen.window.rows[40]
        await pilot.press("o", *other.update_id, "enter")
        await wait_for(pilot, lambda: not screen.reading and screen.table.selected == other, "the update id")


async def test_six_shows_the_list_even_after_an_update_was_opened_from_it(demo_server, make_app) -> None:
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await transactions(app, pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, UpdateScreen), "the update")
        update = app.screen
        # what f does there, said in its footer (drawn once the screen has mounted: waited for)
        await wait_for(pilot, lambda: "f Full ids" in screen_text(app), "the update's footer")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.current_mode == "contracts", "the contracts screen")
        await pilot.press("6")
        await wait_for(pilot, lambda: app.current_mode == "transactions", "the transactions mode")
        await pilot.pause()
        assert app.screen is screen and not update.is_attached  # the list, not the update opened from it
        await pilot.press("6")  # again, on the list: still the list
        assert app.screen is screen
        await follow(pilot, screen)  # live follow: one key from the list


async def test_f_shows_a_reassignments_ids_short_and_whole(demo_server, make_app) -> None:
    """An unassignment opened from the list: its ids short as a transaction's header shows them (the party as
    `Alice::1220…`), and `f`, offered in the footer, shows them whole (it did nothing there)."""
    app = make_app(demo_server)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await transactions(app, pilot)
        unassign = next(r for r in screen.window.rows if r.kind == "unassign")
        while screen.table.selected != unassign:
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, UpdateScreen), "the unassignment")
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert f"submitter {show_party(unassign.submitter)}" in text, text
        assert unassign.contracts[0] not in text.replace(" ", "")
        assert "f Full ids" in screen_text(app).splitlines()[-1]
        await pilot.press("f")
        await pilot.pause()
        text = "".join(screen_text(app).split())  # whole ids wrap at 80 columns
        assert f"submitter{unassign.submitter}" in text
        assert unassign.contracts[0] in text
