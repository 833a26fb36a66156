"""Keys typed at once into the composer's typed form, against a real participant running richtypes.dar: each key
lands where the keys before it left the focus (a tab's binding moves on before the characters behind it are typed),
↓ on a contract-id row opens its list at the first entry, and a variant's constructor chosen moves the focus on to
its first field."""

from __future__ import annotations

from textual.widgets import Select

from app.compose.form import TextNode, VariantNode
from app.screens.composer import ComposerScreen
from app.widgets.completing_input import CompletingInput
from tests.daml_lf.conftest import dars_dir  # noqa: F401
from tests.tui.conftest import SIZE, known, wait_for
from tests.tui.test_composer import outcome, submissions
from tests.tui.test_composer_keyboard import focused_row, type_at_once
from tests.tui.test_typed_form import (
    MARKER,
    RICH_RECORD,
    choose_template,
    field,
    open_composer,
    press_in,
    rich_server,  # noqa: F401
    row_of,
    type_into,
)


def text_of(screen, path: str) -> str:
    found = row_of(screen, path)
    assert found is not None
    node = found[1].node
    assert isinstance(node, TextNode)
    return node.text


async def test_a_burst_across_rows_lands_in_each_row(rich_server, make_app) -> None:  # noqa: F811
    """`Bob⇥42⇥3.25` typed at once in the owner row: Bob, 42 and 3.25 (not the owner `Bob423.25`)."""
    app = make_app(rich_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        owner = await field(pilot, screen, "createArguments.owner")
        found = row_of(screen, owner.path)
        assert found is not None
        found[0].focus_path(owner.path)
        await wait_for(pilot, lambda: focused_row(screen) is owner, "the focus in the owner")
        type_at_once(app, "B", "o", "b", "tab", "4", "2", "tab", "3", ".", "2", "5")
        names = ("owner", "count", "amount")
        await wait_for(
            pilot,
            lambda: any(text_of(screen, f"createArguments.{n}").endswith("5") for n in names),
            "the last key",
        )
        typed = [text_of(screen, f"createArguments.{name}") for name in names]
        assert typed == ["Bob", "42", "3.25"]
        assert focused_row(screen) is known(row_of(screen, "createArguments.amount"))[1]


async def test_down_on_an_unopened_contract_id_row_opens_its_list_at_the_first(rich_server, make_app) -> None:  # noqa: F811
    app = make_app(rich_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", MARKER)
        await type_into(pilot, screen, "createArguments.owner", "Alice")
        for made in range(1, 3):  # two Markers: the list has a second entry to pick by mistake
            await pilot.press("ctrl+s")
            if made == 2:  # the same command again: asked first
                await wait_for(pilot, lambda: not isinstance(app.screen, ComposerScreen), "the question")
                await pilot.press("down", "enter")

            def submitted(made: int = made) -> bool:
                return len(submissions(app)) == made

            await wait_for(pilot, submitted, "the Marker submitted")
            await outcome(pilot, screen, "-ok", "the Marker created")
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        marker = await type_into(pilot, screen, "createArguments.marker", "")  # its contracts read once
        found = row_of(screen, marker.path)
        assert found is not None
        form = found[0]
        assert form.editor is not None
        listed = form.editor.query_one(CompletingInput)
        await wait_for(pilot, lambda: len(listed.matches()) == 2, "the two Markers offered")
        form.focus_path("createArguments.label")
        await wait_for(pilot, lambda: getattr(focused_row(screen), "name", None) == "label", "label")
        for _ in range(20):  # tab on to the marker row
            if focused_row(screen) is marker:
                break
            await pilot.press("tab")
            # the next row's widgets are made after the key: no row has the focus for a moment, and a tab pressed
            # then went on past the marker (seen in a full run)
            await wait_for(pilot, lambda: focused_row(screen) is not None, "the next row focused")
        assert focused_row(screen) is marker
        await pilot.press("down")
        completing = form.editor.query_one(CompletingInput)
        await wait_for(pilot, lambda: completing.is_open, "the list open")
        assert completing._options().highlighted == 0


async def test_a_chosen_constructor_moves_the_focus_to_its_first_field(rich_server, make_app) -> None:  # noqa: F811
    app = make_app(rich_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        variant = await field(pilot, screen, "createArguments.outcome")
        chosen = variant.node
        assert isinstance(chosen, VariantNode)
        await press_in(pilot, screen, variant.path, Select, "enter", "down", "enter")
        await wait_for(pilot, lambda: chosen.constructor == "Pending", "Pending chosen")
        await pilot.press("enter", "up", "enter")
        await wait_for(pilot, lambda: chosen.constructor == "Win", "Win chosen")
        prize = await field(pilot, screen, "createArguments.outcome.Win.prize")
        await wait_for(pilot, lambda: focused_row(screen) is prize, "the focus in the prize")
