"""The contracts screen against a real participant with the demo ledger."""

from __future__ import annotations

from functools import partial

from app.app import LedgerApp
from app.screens.acs import AcsScreen
from app.snapshot import ADDED, CHANGED, REMOVED
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, known, screen_text, wait_for
from tests.tui.helpers import views_of


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def test_browses_the_ledger_end_as_the_user(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen = app.screen
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "a rendered row")
        text = screen_text(app)
        assert "user Alice" in text
        assert f"ledger end {app.status_ledger_end}" in text
        assert "Iou:Iou" in text
        row = table.row_at(0)
        assert any(p.startswith("Alice::") for p in row.signatories + row.observers)


async def test_steps_back_to_the_previous_change_and_marks_the_difference(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        end = screen.offset
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: screen.offset != end and not screen.reading, "an earlier offset")
        assert screen.offset is not None and end is not None
        assert screen.offset < end
        table = screen.query_one(ContractTable)

        def moving() -> bool:
            return any(w.group == "acs-load" and w.is_running for w in screen.workers)

        await wait_for(pilot, lambda: not moving() and table.selected is not None, "the first changed row")
        assert known(table.selected).status in (ADDED, REMOVED, CHANGED)
        assert f"viewing {screen.offset}" in screen_text(app)
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.offset == app.status_ledger_end, "the ledger end again")


async def test_filters_rows_by_text_across_the_payload(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        table = screen.query_one(ContractTable)
        everything = table.count
        await pilot.press("slash", *"GBP", "enter")
        await wait_for(pilot, lambda: screen.text == "GBP" and table.count < everything, "the filtered view")
        await wait_for(pilot, lambda: table.row_at(0) is not None, "a filtered row")
        rows = [table.row_at(i) for i in range(min(table.count, 20))]
        assert all(r is not None and "GBP" in str(r.payload) for r in rows)
        assert "matching “GBP”" in screen_text(app)
        await pilot.press("slash", "escape")
        await wait_for(pilot, lambda: table.count == everything, "the unfiltered view")


async def test_clearing_a_filter_of_a_few_rows_scrolls_back_to_the_cursor(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        table = screen.query_one(ContractTable)
        everything = table.count
        await pilot.press("end")
        await wait_for(
            pilot, lambda: table.selected is not None and table.cursor == everything - 1, "the last row"
        )
        assert table.scroll_y > 0
        last = known(table.selected).contract_id
        await pilot.press("slash", *last, "enter")  # one row left: nothing to scroll
        await wait_for(
            pilot, lambda: table.count == 1 and table.row_at(0) is not None, "the one matching row"
        )
        await pilot.press("escape")
        # the count comes back before the scroll to the cursor is painted: wait for both
        await wait_for(
            pilot,
            lambda: (
                table.count == everything
                and table.selected is not None
                and table.selected.contract_id == last
                and table.selected in table.visible_rows()
            ),
            "the cursor's row, on screen",
        )


async def test_sorts_by_a_column_and_reverses(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        table = screen.query_one(ContractTable)
        screen.sort, screen.descending = "offset", True
        screen.rebuild()
        await wait_for(
            pilot, lambda: table.sort_key == "offset" and table.row_at(1) is not None, "sorted rows"
        )
        first, second = known(table.row_at(0)), known(table.row_at(1))
        assert first.created_offset >= second.created_offset
        assert "Offset ▼" in screen_text(app)
        await pilot.press("s")
        await wait_for(
            pilot,
            lambda: app.screen is not screen and app.focused is not None and app.focused.screen is app.screen,
            "the sort dialog",
        )
        selected = known(table.selected).contract_id
        await pilot.press("enter")  # the dialog opens on the current column: choosing it again reverses
        await wait_for(
            pilot, lambda: not table.descending and len(table.visible_rows()) > 2, "ascending rows"
        )
        offsets = [r.created_offset for r in table.visible_rows()]
        assert offsets == sorted(offsets)
        assert known(table.selected).contract_id == selected  # the cursor stays on the contract it was on


async def test_reads_a_snapshot_past_the_list_limit_page_by_page(tmp_path, make_app):
    from tests.conftest import start_demo_server

    server = start_demo_server(tmp_path / "ledger.db", "--max-list-elements", "20")
    try:
        for websocket in (False, True):
            app = make_app(server, "Alice")
            async with app.run_test(size=SIZE) as pilot:
                if websocket:
                    await wait_for(pilot, partial(_loaded, app), "the first read")
                    app.session.client.capabilities.acs_page = False
                    app.screen.action_reload()

                    def websocket_read(app: LedgerApp = app) -> bool:
                        return any(r.path.endswith("(websocket)") and r.done for r in app.request_log.entries)

                    await wait_for(pilot, websocket_read, "the websocket")
                await wait_for(pilot, partial(_loaded, app), "all rows")
                screen: AcsScreen = app.screen
                total = await views_of(screen).count()
                assert total > 20  # more than the participant's list limit
                assert screen.query_one(ContractTable).count == total
                paths = [r.path for r in app.request_log.entries]
                form = (
                    "/v2/state/active-contracts (websocket)"
                    if websocket
                    else "/v2/state/active-contracts-page"
                )
                assert form in paths
                assert not any(r.status == 413 for r in app.request_log.entries)
    finally:
        server.stop()


async def test_exports_the_view_as_json_lines_and_csv(demo_server, make_app, tmp_path):
    import csv
    import json

    from textual.widgets import Input

    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        count = screen.query_one(ContractTable).count
        for name in ("view.jsonl", "view.csv"):
            await pilot.press("w")
            await wait_for(pilot, lambda: app.screen is not screen, "the export dialog")
            app.screen.query_one(Input).value = str(tmp_path / name)
            await pilot.press("enter")
            await wait_for(pilot, (tmp_path / name).exists, f"{name} written")
    lines = (tmp_path / "view.jsonl").read_text().splitlines()
    assert len(lines) == count
    first = json.loads(lines[0])
    assert first["contractId"].startswith("00") and "createArgument" in first and "signatories" in first
    with open(tmp_path / "view.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert len(rows) == count + 1
    assert rows[0][:4] == ["status", "Template", "Payload", "Contract"]  # the view's columns, in its order
    assert rows[1][3].startswith("00") and len(rows[1][3]) > 60  # full ids in the file, not the short ones


async def test_switching_user_shows_that_users_contracts(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "Alice's rows")
        screen: AcsScreen = app.screen
        assert all(p.startswith("Alice::") for p in known(screen.parties))
        await pilot.press("U")
        await wait_for(pilot, lambda: app.screen is not screen, "the user picker")
        assert "Bob" in screen_text(app) and "participant_admin" in screen_text(app)
        from textual.widgets import OptionList

        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        options.highlighted = next(i for i, label in enumerate(labels) if label.startswith("Bob"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.status_user == "Bob", "acting as Bob")
        await wait_for(
            pilot,
            lambda: screen.parties and screen.parties[0].startswith("Bob::") and _loaded(app),
            "Bob's rows",
        )
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "a row of Bob's")
        row = known(table.row_at(0))
        assert any(p.startswith("Bob::") for p in row.signatories + row.observers)


async def test_a_pruned_offset_is_reported_with_cantons_error(demo_writable, make_app):
    import subprocess
    import sys

    from textual.widgets import Input

    app = make_app(demo_writable, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        subprocess.run(
            [
                sys.executable,
                "-m",
                "participant.server.cli",
                "prune",
                "--db",
                str(demo_writable.db),
                "--up-to",
                "100",
            ],
            check=True,
            capture_output=True,
        )
        await pilot.press("o")
        await wait_for(pilot, lambda: app.screen is not screen, "the offset dialog")
        app.screen.query_one(Input).value = "50"
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: any("PARTICIPANT_PRUNED_DATA_ACCESSED" in n.message for n in app._notifications),
            "the error notification",
        )
        assert screen.offset != 50


async def test_a_large_view_shows_its_first_rows_then_the_rest(demo_server, make_app, monkeypatch):
    import app.snapshot.views

    monkeypatch.setattr(app.snapshot.views, "QUICK_VIEW_ABOVE", 0)  # every view counts as large here
    app_ = make_app(demo_server, "Alice")
    async with app_.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app_), "the first rows")
        screen: AcsScreen = app_.screen
        table = screen.query_one(ContractTable)
        everything = table.count
        screen.sort, screen.descending = "payload.amount", True
        screen.rebuild()
        await wait_for(
            pilot,
            lambda: (
                table.sort_key == "payload.amount"
                and not screen.building
                and table.count == everything
                and len(table.visible_rows()) > 2
            ),
            "the whole sorted view",
        )
        amounts = [float(r.payload["amount"]) for r in table.visible_rows() if "amount" in r.payload]
        assert amounts == sorted(amounts, reverse=True)
        await pilot.press("end")
        await wait_for(
            pilot, lambda: table.selected is not None and table.cursor == everything - 1, "the last row"
        )


async def test_a_party_the_user_cannot_read_is_named_and_refused_with_the_403(demo_server, make_app):
    """participant_admin may list the parties but read none of them: choosing one shows that choice and Canton's
    refusal, not an empty view that looks like no choice was made."""
    from textual.widgets import Label, SelectionList

    app = make_app(demo_server, "participant_admin")
    async with app.run_test(size=SIZE) as pilot:
        screen: AcsScreen = app.screen
        await wait_for(
            pilot,
            lambda: "no parties" in str(screen.query_one("#acs-scope", Label).content),
            "the empty scope",
        )
        await pilot.press("p")
        await wait_for(pilot, lambda: app.screen is not screen, "the parties dialog")
        choices = app.screen.query_one(SelectionList)
        alice = next(
            i
            for i in range(choices.option_count)
            if str(choices.get_option_at_index(i).prompt).startswith("Alice")
        )
        choices.select(choices.get_option_at_index(alice).value)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: any("(403)" in (n.title or "") or "403" in n.message for n in app._notifications),
            "the 403 notification",
        )
        scope = str(screen.query_one("#acs-scope", Label).content)
        assert scope.startswith("Alice") and "no parties" not in scope


async def test_one_contract_is_counted_as_one_contract(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "a rendered row")
        start = known(table.row_at(0)).contract_id[:20]  # the id's start: one contract's
        await pilot.press("slash", *start, "enter")
        await wait_for(pilot, lambda: screen.text == start and table.count == 1, "the one contract")
        await pilot.pause()
        assert f"1 contract matching “{start}”" in screen_text(app)
