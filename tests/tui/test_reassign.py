"""The reassignment screen against a real participant with the demo ledger: move a contract to the other
synchronizer and back, unassign only and complete the move from the in-flight list, a rejected assign, the
contracts screen following each step, and a read-only session."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select

from app.messages import OpenContract
from app.reassign import FAILED, SUCCEEDED
from app.screens.acs import AcsScreen
from app.screens.inspector import InspectorScreen
from app.screens.reassign import ReassignScreen
from app.snapshot import UNASSIGNED
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, known, screen_of, screen_text, wait_for
from tests.tui.helpers import views_of

SUBMIT_PATH = "/v2/commands/async/submit-reassignment"


async def contracts_ready(pilot, app) -> AcsScreen:
    await wait_for(pilot, lambda: app.connected, "a connection")
    acs = app.screen
    assert isinstance(acs, AcsScreen)
    await wait_for(pilot, lambda: acs.query_one(ContractTable).count > 0 and not acs.reading, "the contracts")
    return acs


async def move_selected(pilot, app, acs: AcsScreen) -> ReassignScreen:
    """`m` on the selected contract: the reassignment screen with it chosen and its synchronizer looked up."""
    table = acs.query_one(ContractTable)
    table.focus()
    await wait_for(pilot, lambda: table.selected is not None, "a selected contract")
    chosen = known(table.selected).contract_id
    await pilot.press("m")
    await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
    screen = screen_of(app, ReassignScreen)
    await wait_for(
        pilot,
        lambda: screen.contract is not None and screen.contract.contract_id == chosen,
        "the contract looked up",
    )
    assert screen.query_one("#move-contract", Input).value == chosen
    return screen


def synchronizer_ids(app) -> dict[str, str]:
    return {s.synchronizer_alias: s.synchronizer_id for s in app.session.synchronizers}


async def steps_done(pilot, screen: ReassignScreen, count: int) -> None:
    await wait_for(
        pilot,
        lambda: len(screen.steps) >= count and all(s.done for s in screen.steps[:count]) and not screen.busy,
        f"{count} finished steps",
    )


async def test_move_to_the_other_synchronizer_and_back(demo_writable, make_app):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        screen = await move_selected(pilot, app, acs)
        contract = known(screen.contract, "the contract")
        ids = synchronizer_ids(app)
        assert contract.synchronizer == ids["global"] and contract.counter == 0
        # the other synchronizer and a stakeholder we act as are chosen for us
        assert screen.query_one("#move-target", Select).value == ids["private"]
        assert screen.query_one("#move-submitter", Select).value in contract.signatories + contract.observers

        await pilot.press("ctrl+s")
        await steps_done(pilot, screen, 2)
        unassign, assign = screen.steps
        assert (unassign.kind, unassign.state, assign.kind, assign.state) == (
            "unassign",
            SUCCEEDED,
            "assign",
            SUCCEEDED,
        )
        assert (
            unassign.reassignment_id.startswith("00") and assign.reassignment_id == unassign.reassignment_id
        )
        assert unassign.offset is not None and assign.offset is not None
        assert unassign.offset < assign.offset
        # the contracts screen follows to the ledger end, where the contract is on private, counter 1
        await wait_for(
            pilot, lambda: acs.offset == assign.offset and not acs.reading, "the contracts at the end"
        )
        await wait_for(
            pilot,
            lambda: screen.contract is not None and screen.contract.synchronizer == ids["private"],
            "the contract seen on private",
        )
        assert known(screen.contract).counter == 1
        assert "on private" in screen_text(app)
        # the inspector says where it is now, beside where it was created
        await pilot.press("escape")
        app.post_message(OpenContract(contract.contract_id))
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, InspectorScreen)
                and app.screen.lookup is not None
                and app.screen.lookup.found
            ),
            "the inspector",
        )
        await wait_for(
            pilot, lambda: "on private since offset" in screen_text(app), "where the contract is now"
        )
        await pilot.press("m")
        await wait_for(pilot, lambda: app.screen is screen, "back on the reassignment screen")

        # and back: the target offered now is global
        assert screen.query_one("#move-target", Select).value == ids["global"]
        await pilot.press("ctrl+s")
        await steps_done(pilot, screen, 4)
        assert [s.state for s in screen.steps] == [SUCCEEDED] * 4
        await wait_for(
            pilot, lambda: known(screen.contract).synchronizer == ids["global"], "the contract back on global"
        )
        assert known(screen.contract).counter == 2
        submitted = [r for r in app.request_log.entries if r.path == SUBMIT_PATH]
        assert len(submitted) == 4 and all(r.status == 200 for r in submitted)


async def test_unassign_then_complete_from_the_in_flight_list(demo_writable, make_app):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        screen = await move_selected(pilot, app, acs)
        cid = known(screen.contract).contract_id
        before = len(screen.in_flight)
        await pilot.press("ctrl+b")
        await steps_done(pilot, screen, 1)
        (unassign,) = screen.steps
        assert unassign.state == SUCCEEDED and unassign.reassignment_id
        await wait_for(pilot, lambda: len(screen.in_flight) == before + 1, "the contract in flight")
        flying = next(r for r in screen.in_flight if r.contract_id == cid)
        assert flying.kind == UNASSIGNED and known(flying.move).reassignment_id == unassign.reassignment_id
        assert flying.counter == 1
        # the contracts screen marks it in flight, going to private
        table = acs.query_one(ContractTable)
        position = known(await views_of(acs).position_of(cid), "the contract's position")
        row = (await views_of(acs).window(position, 1))[0]
        assert (
            row.kind == UNASSIGNED
            and table.columns
            and "→private" in "".join(c.render(row) for c in table.columns)
        )

        flight = screen.query_one("#in-flight", DataTable)
        flight.focus()
        flight.move_cursor(row=screen.in_flight.index(flying))
        await pilot.press("enter")
        await steps_done(pilot, screen, 2)
        assert screen.steps[1].kind == "assign" and screen.steps[1].state == SUCCEEDED
        await wait_for(pilot, lambda: len(screen.in_flight) == before, "the in-flight list without it")
        latest = known(await views_of(acs).latest(cid))
        assert latest.kind != UNASSIGNED and latest.counter == 1


async def test_a_refused_assign_shows_cantons_error_and_keeps_the_form(demo_writable, make_app):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        await contracts_ready(pilot, app)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
        screen = screen_of(app, ReassignScreen)
        ids = synchronizer_ids(app)
        await wait_for(pilot, lambda: screen.ready, "the synchronizers to choose from")
        unknown = "00" + "ab" * 32
        screen.query_one("#assign-id", Input).value = unknown
        screen.query_one("#assign-source", Select).value = ids["global"]
        screen.query_one("#assign-target", Select).value = ids["private"]
        await wait_for(
            pilot, lambda: not screen.query_one("#assign-submitter", Select).is_blank(), "a submitter"
        )
        await pilot.press("ctrl+t")
        await steps_done(pilot, screen, 1)
        (step,) = screen.steps
        assert step.state == FAILED and step.error is not None and step.error_id
        notes = [n.message for n in app._notifications]
        assert any(step.error_id in n for n in notes), notes
        assert screen.query_one("#assign-id", Input).value == unknown  # what was typed stays


async def test_read_only_sessions_do_not_submit(demo_server, make_app):
    app = make_app(demo_server, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        screen = await move_selected(pilot, app, acs)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.steps == []
        assert not [r for r in app.request_log.entries if r.path == SUBMIT_PATH]
        assert "Read-only" in screen_text(app)


async def test_stepping_back_through_a_move_shows_each_state(demo_writable, make_app):
    app = make_app(demo_writable)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        screen = await move_selected(pilot, app, acs)
        cid = known(screen.contract).contract_id
        await pilot.press("ctrl+s")
        await steps_done(pilot, screen, 2)
        unassign, assign = screen.steps
        await wait_for(
            pilot, lambda: acs.offset == assign.offset and not acs.reading, "the contracts at the end"
        )
        await pilot.press("escape", "1")
        await wait_for(pilot, lambda: app.screen is acs, "the contracts screen")
        acs.query_one(ContractTable).focus()

        async def state_of_contract():
            position = await views_of(acs).position_of(cid)
            return None if position is None else (await views_of(acs).window(position, 1))[0]

        await pilot.press("left_square_bracket")  # the change before the assign: the unassign, in flight
        await wait_for(
            pilot, lambda: acs.offset == unassign.offset and not acs.reading, "the unassign's offset"
        )
        row = await state_of_contract()
        assert row is not None and row.kind == UNASSIGNED and row.counter == 1
        await pilot.press("left_square_bracket")  # before it: on global, as created
        await wait_for(
            pilot,
            lambda: acs.offset is not None and acs.offset < known(unassign.offset) and not acs.reading,
            "the offset before the move",
        )
        row = await state_of_contract()
        assert row is not None and row.kind != UNASSIGNED and row.counter == 0
        assert row.synchronizer == synchronizer_ids(app)["global"]
        await pilot.press("right_square_bracket", "right_square_bracket")
        await wait_for(
            pilot, lambda: acs.offset == assign.offset and not acs.reading, "the assign's offset again"
        )
        row = await state_of_contract()
        assert row is not None and row.synchronizer == synchronizer_ids(app)["private"] and row.counter == 1
