"""Every screen at 80×24: the status line keeps the ledger end and the offset in view, panes stack rather than shrink
to a sliver, details wrap between words, a sorted column keeps its arrow, and a dialog's text is shown whole."""

from __future__ import annotations

import re

from app.screens.dialogs import ChoiceDialog
from app.screens.inspector import InspectorScreen
from app.screens.reassign import ReassignScreen
from app.widgets.contract_details import ContractDetails
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import known, screen_text, wait_for
from tests.tui.helpers import views_of
from tests.tui.test_keys import composer
from tests.tui.test_reassign import contracts_ready

SMALL = (80, 24)


async def test_the_status_line_at_80_columns_keeps_the_ledger_end_and_the_offset_in_view(
    demo_server, make_app
):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        acs = await contracts_ready(pilot, app)
        # at rest (a request in flight takes room of its own, and the user's name gives way to it, marked `…`)
        await wait_for(
            pilot,
            lambda: app.status_ledger_end is not None and not app.status_in_flight,
            "the ledger end, at rest",
        )
        await pilot.pause()
        top = screen_text(app).splitlines()[0]
        assert f"end {app.status_ledger_end}" in top
        assert f"view {acs.offset}" in top
        assert "Contracts" in top  # the screen one is on keeps its name
        assert "…" not in top  # and nothing of it is cut


async def test_the_reassign_panes_stack_when_narrow(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        await contracts_ready(pilot, app)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
        await pilot.pause()
        form, side = app.screen.query_one("#reassign-form"), app.screen.query_one("#reassign-side")
        assert side.size.width >= 70 and form.size.width >= 70
        assert side.region.y >= form.region.bottom  # under the form, reached by scrolling


async def test_the_compose_preview_goes_under_the_form_when_narrow(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        screen = await composer(pilot, app)
        await pilot.pause()
        output = screen.query_one("#composer-output")
        assert output.size.width >= 70
        assert output.region.y > screen.query_one("#composer-form").region.y


async def test_contract_details_wrap_between_words_at_80_columns(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        acs = await contracts_ready(pilot, app)
        table = acs.query_one(ContractTable)
        table.focus()
        await wait_for(pilot, lambda: table.selected is not None and table.has_focus, "a selected contract")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        details = app.screen.query_one(ContractDetails)
        await wait_for(pilot, lambda: details.lookup is not None, "the contract")
        await pilot.pause()
        text = screen_text(app)
        assert "none in the transactions read so far" in text
        assert "representative pkg    the template's package" in text


async def test_a_truncated_sorted_column_keeps_its_arrow(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SMALL) as pilot:
        acs = await contracts_ready(pilot, app)
        iou = next(t for t, _ in await views_of(acs).templates(known(acs.offset)) if t.endswith(":Iou:Iou"))
        acs.templates = frozenset({iou})
        acs.sort, acs.descending = "payload.amount", True
        acs.action_reload()
        table = acs.query_one(ContractTable)

        def header() -> str:
            return screen_text(app).splitlines()[table.region.y]

        # the view of one template is built in steps (its columns may come from its declaration before its
        # contracts are read): wait for the sorted amount column itself, on screen, not for any sorted view
        await wait_for(
            pilot,
            lambda: (
                table.sort_key == "payload.amount"
                and any(c.key == "payload.amount" for c in table.columns)
                and table.row_at(0) is not None
                and "▼" in header()
            ),
            "the sorted amount column",
        )
        assert re.search(r"amo\w*… ▼", header()), header()


async def test_a_dialog_shows_its_whole_text(demo_server, make_app):
    hint = (
        "The user's rights do not include acting (or reading) as these parties; "
        "the participant will likely answer 403 PERMISSION_DENIED."
    )
    app = make_app(demo_server)
    async with app.run_test(size=(160, 48)) as pilot:
        await contracts_ready(pilot, app)
        app.push_screen(ChoiceDialog("Not in your rights: Bob", [("Go back", False)], hint=hint))
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the dialog")
        await pilot.pause()
        shown = " ".join(" ".join(line.strip(" █▌▐▊▎").split()) for line in screen_text(app).splitlines())
        assert "will likely answer 403 PERMISSION_DENIED." in shown
