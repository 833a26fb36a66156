"""The contracts screen around a move between synchronizers, against a real participant: the state at an offset
is the same stepped to, gone to with `o` or read directly; the moved contract shows once; the count and the export
say what they hold."""

from __future__ import annotations

import json

from textual.widgets import DataTable, Input, Label

from app.counting import count
from app.screens.acs import AcsScreen
from app.snapshot import ACTIVE, CHANGED, UNASSIGNED
from app.widgets.contract_table import ContractTable, row_mark
from tests.tui.conftest import SIZE, known, wait_for
from tests.tui.helpers import views_of
from tests.tui.test_reassign import contracts_ready, move_selected, steps_done, synchronizer_ids


async def shown(acs: AcsScreen) -> dict[str, tuple]:
    """Every row in view, by contract id: (mark, kind, synchronizer, counter). A contract twice fails here."""
    rows = await views_of(acs).window(0, acs.query_one(ContractTable).count)
    ids = [r.contract_id for r in rows]
    assert len(set(ids)) == len(ids), "a contract shown twice"
    return {r.contract_id: (row_mark(r), r.kind, r.synchronizer, r.counter) for r in rows}


def count_text(acs: AcsScreen) -> str:
    return str(acs.query_one("#acs-count", Label).content)


async def settled(pilot, acs: AcsScreen, offset: int, what: str) -> None:
    await wait_for(pilot, lambda: acs.offset == offset and not acs.reading, what)
    await pilot.pause()


async def goto(pilot, app, acs: AcsScreen, offset: int) -> None:
    await pilot.press("o")
    await wait_for(pilot, lambda: app.screen is not acs, "the offset dialog")
    app.screen.query_one(Input).value = str(offset)
    await pilot.press("enter")
    await settled(pilot, acs, offset, f"offset {offset}")


async def test_a_move_shows_its_contract_once_however_its_offsets_are_reached(demo_writable, make_app):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        before = known(acs.offset, "the ledger end shown")
        screen = await move_selected(pilot, app, acs)
        cid = known(screen.contract).contract_id
        await pilot.press("ctrl+b")  # unassign only: the contract in flight
        await steps_done(pilot, screen, 1)
        unassigned = known(screen.steps[0].offset, "the unassign's offset")
        await pilot.press("escape", "1")
        await wait_for(pilot, lambda: app.screen is acs, "the contracts screen")

        # stepped to from the offset before the unassign
        await goto(pilot, app, acs, before)
        await pilot.press("right_square_bracket")
        await settled(pilot, acs, unassigned, "the unassign's offset")
        assert acs.previous == before
        stepped = await shown(acs)
        assert stepped[cid][:2] == ("~", UNASSIGNED)
        assert (
            known(acs.query_one(ContractTable).selected).contract_id == cid
        )  # the change, not a struck-out twin
        stepped_count = count_text(acs)
        assert "struck out" not in stepped_count

        # read directly at that offset: the same rows, the same marks
        await pilot.press("r")
        await settled(pilot, acs, unassigned, "the snapshot read again")
        assert acs.previous is None
        assert await shown(acs) == stepped
        assert count_text(acs) == stepped_count
        # and gone to with `o`, from further back
        await goto(pilot, app, acs, before - 1)
        await goto(pilot, app, acs, unassigned)
        assert await shown(acs) == stepped

        # the assign: the contract once, on its new synchronizer, marked as moved
        await pilot.press("4")
        await wait_for(pilot, lambda: app.screen is screen, "the reassignment screen")
        await wait_for(
            pilot, lambda: any(r.contract_id == cid for r in screen.in_flight), "the move in flight"
        )
        flight = screen.query_one("#in-flight", DataTable)
        flight.focus()
        flight.move_cursor(row=next(i for i, r in enumerate(screen.in_flight) if r.contract_id == cid))
        await pilot.press("enter")
        await steps_done(pilot, screen, 2)
        assigned = known(screen.steps[1].offset, "the assign's offset")
        await settled(pilot, acs, assigned, "the assign's offset")
        assert acs.previous == unassigned
        rows = await shown(acs)
        private = synchronizer_ids(app)["private"]
        assert rows[cid] == ("*", ACTIVE, private, 1)
        (row,) = await views_of(acs).window(known(await views_of(acs).position_of(cid)), 1)
        assert row.status == CHANGED
        assert count_text(acs) == f"{len(rows):,} contracts"


async def test_the_count_and_the_export_leave_out_the_struck_out_rows(demo_writable, make_app, tmp_path):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        table = acs.query_one(ContractTable)
        # back through the history to a step that created contracts (seen from before it, they are not yet here)
        while True:
            here = acs.offset
            await pilot.press("left_square_bracket")

            def stepped_back(here: int | None = here) -> bool:
                return acs.offset != here and not acs.reading

            await wait_for(pilot, stepped_back, "a step back")
            await pilot.pause()
            if views_of(acs).view_removed:
                break
            assert known(acs.offset) > 0, "no archive in the demo ledger's history"
        gone = views_of(acs).view_removed
        contracts = table.count - gone
        assert (
            count_text(acs)
            == f"{contracts:,} contracts · {gone:,} not yet created at {acs.offset}, active at {acs.previous}, "
            "shown struck out"
        )

        await pilot.press("w")
        await wait_for(pilot, lambda: app.screen is not acs, "the export dialog")
        app.screen.query_one(Input).value = str(tmp_path / "state.jsonl")
        await pilot.press("enter")
        await wait_for(pilot, lambda: (tmp_path / "state.jsonl").exists(), "the export written")
        lines = [json.loads(line) for line in (tmp_path / "state.jsonl").read_text().splitlines()]
        assert len(lines) == contracts and all(line["status"] != "removed" for line in lines)
        await wait_for(
            pilot, lambda: any("Wrote" in n.message for n in app._notifications), "the confirmation"
        )
        note = next(n.message for n in app._notifications if "Wrote" in n.message)
        assert f"the {contracts:,} contracts at offset {acs.offset}" in note
        struck_out = count(gone, "struck-out row")
        assert f"not in it: {struck_out} (not yet created at {acs.offset}, active at {acs.previous})" in note
