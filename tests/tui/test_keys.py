"""The keys as a person meets them: `?` opens the help from a field unless the field's text may hold a `?`, escape on
a completion list, `q` with an unsent command, the footer on a narrow terminal, the palette's names of keys."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import TextArea

from app.screens.composer import ComposerScreen
from app.screens.dialogs import ChoiceDialog
from app.screens.help import HelpScreen
from app.screens.reassign import ReassignScreen
from app.widgets.completing_input import CompletingInput
from app.widgets.keys import FieldInput
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_reassign import contracts_ready


async def composer(pilot, app) -> ComposerScreen:
    await contracts_ready(pilot, app)
    await pilot.press("2")
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, ComposerScreen)
            and app.screen.catalog is not None
            and app.screen.catalog.template_refs()
        ),
        "the composer with the templates learned",
    )
    return app.screen


async def test_question_mark_opens_the_help_from_a_field_that_cannot_hold_it(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await contracts_ready(pilot, app)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
        field = app.screen.query_one("#move-contract", FieldInput)
        await wait_for(pilot, lambda: field.has_focus, "the contract field in focus")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert field.value == ""
        assert "Reassign" in screen_text(app)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the help closed by ?")


async def test_question_mark_is_typed_where_text_may_hold_it_and_f1_opens_the_help(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        acs = await contracts_ready(pilot, app)
        await pilot.press("slash")
        await wait_for(pilot, lambda: acs.query_one("#acs-filter").has_focus, "the filter in focus")
        await pilot.press("question_mark")
        await pilot.pause()
        assert acs.query_one("#acs-filter", FieldInput).value == "?"
        assert not isinstance(app.screen, HelpScreen)
        assert (
            "f1 More keys" in screen_text(app).splitlines()[-1]
        )  # the footer names the key that still works
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help by F1")


async def test_question_mark_is_typed_in_a_json_editor(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await composer(pilot, app)
        area = screen.query_one("#create-arguments").query_one(TextArea)
        area.focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert "?" in area.text
        assert isinstance(app.screen, ComposerScreen)


async def test_escape_closes_the_completion_list_until_asked_for_again(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await composer(pilot, app)
        template = screen.query_one("#template", CompletingInput)
        template.focus()
        await pilot.press(*"#mo")
        await wait_for(pilot, lambda: template.is_open, "the list of matches")
        await pilot.press("escape")
        await pilot.pause()
        assert not template.is_open and template.input.has_focus
        await pilot.press(*"de")  # still matches: the list the user closed stays closed, the keys are typed
        await pilot.pause()
        assert template.value == "#mode" and not template.is_open
        await pilot.press("down")
        await wait_for(pilot, lambda: template.is_open, "the list asked for again")
        await pilot.press("escape", "escape")  # the list, then the field
        await pilot.pause()
        assert app.focused is None and isinstance(app.screen, ComposerScreen)
        await pilot.press("1")  # out of the field, the keys are the screens' again
        await wait_for(pilot, lambda: app.current_mode == "contracts", "the contracts screen")


async def test_q_asks_before_losing_an_unsent_command(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await composer(pilot, app)
        screen.query_one("#template", CompletingInput).focus()
        await pilot.press(*"#model-tests:Iou:Iou", "escape", "escape")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.current_mode == "contracts", "the contracts screen")
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the question")
        assert "Quit and lose the unsent command?" in screen_text(app)
        await pilot.press("enter")  # the answer offered first is to stay
        await wait_for(pilot, lambda: not isinstance(app.screen, ChoiceDialog), "the question answered")
        assert app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the question again")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: not app.is_running, "the app quit")


async def test_q_quits_at_once_when_nothing_is_unsent(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await composer(pilot, app)  # opened, with the user's party filled in, but nothing typed
        await pilot.press("escape", "q")
        await wait_for(pilot, lambda: not app.is_running, "the app quit")


async def test_the_footer_at_80_columns_keeps_the_key_to_more_keys(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await contracts_ready(pilot, app)
        # the footer is drawn a refresh after the screen's bindings settle
        await wait_for(pilot, lambda: screen_text(app).splitlines()[-1].strip(), "the footer drawn")
        footer = screen_text(app).splitlines()[-1]
        assert footer.startswith("⏎ Inspect / Filter [] Earlier/later e Ledger end s Sort")
        assert "? More keys" in footer and footer.rstrip().endswith("^p palette")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        help_text = app.screen.query_one("Markdown").source
        for key, what in (
            ("c", "Columns"),
            ("o", "Offset…"),
            ("y", "Copy id"),
            ("n", "New from"),
            ("r", "Reload"),
        ):
            assert f"`{key}` **{what}**" in help_text


async def test_the_palette_names_keys_as_the_footer_does(demo_server, make_app):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await contracts_ready(pilot, app)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands["Contracts: Earlier"] == "key ["
        assert commands["Contracts: Later"] == "key ]"
        assert commands["Compose: Submit"] == "key ^s"
        assert commands["Contracts: open"] == "Go to the contracts screen · key 1"
        assert not any(help.startswith("key 1") for help in commands.values())
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"earlier")
        await wait_for(pilot, lambda: "key [" in screen_text(app), "the entry with its key")
        assert "left_square_bracket" not in screen_text(app)
