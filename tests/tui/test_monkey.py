"""Random keys on the real app against a real participant that commits meanwhile: nothing escapes, nothing is left
stuck. The monkey is `bench.tui_monkey` (the same one a long run by hand uses); the two crashes it first found are
also tested on their own, each with the keys that made it."""

from __future__ import annotations

from bench.tui_monkey import _app_caught_up, _send_key, palettes_held, run_monkey
from tests.conftest import SECRET
from tests.daml_lf.conftest import DARS_DIR, RICHTYPES
from tests.tui.conftest import SIZE, wait_for

MONKEY_SEED = 2  # before the palette was fixed, this sequence ended the app within its first 50 keys
MONKEY_KEYS = 300


async def test_random_keys_never_crash_the_app_nor_leave_it_stuck(demo_writable, locations):
    richtypes = DARS_DIR / RICHTYPES
    report = await run_monkey(
        url=demo_writable.url,
        secret=SECRET,
        locations=locations,
        seed=MONKEY_SEED,
        keys=MONKEY_KEYS,
        richtypes=richtypes if richtypes.is_file() else None,
    )
    crashes = "\n".join(
        f"key #{c.key_index} ({c.key}) after {' '.join(c.trail)}:\n{c.text}" for c in report.crashes
    )
    assert not report.crashes, crashes
    assert report.keys == MONKEY_KEYS
    assert report.stuck == ""
    assert report.commits > 0  # the participant committed while the keys were pressed
    # the screens opened over a mode's own (palette, help, dialogs, inspectors) are closed as they are left: a
    # few per mode at most, never a pile
    assert report.peak_screens <= 6 * 4


async def _contracts_shown(app, pilot) -> None:
    from app.screens.acs import AcsScreen

    await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen) and app.connected, "the contracts")


async def test_enter_pressed_twice_in_the_palette_runs_its_command_once(demo_server, make_app):
    """Enter twice before the palette handled the first: the list's selection and then the input's submission both
    dismissed it, the second popping the screen under it (`ScreenStackError: Can't pop screen` with only the
    composer on the stack), and the command ran twice."""
    from app.screens.composer import ComposerScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        await pilot.press("ctrl+p", *"Compose: open")
        await wait_for(
            pilot, lambda: app.screen.query("CommandList Option") or _hits(app), "the palette's hits"
        )
        await pilot.press("down")
        for key in ("enter", "enter"):  # as fast as a terminal hands them over
            _send_key(app, key)
            await _app_caught_up(app)
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        await pilot.pause()
        assert app._exception is None
        assert [type(s).__name__ for s in app.screen_stack] == ["ComposerScreen"]
        assert palettes_held(app) == 0


def _hits(app) -> bool:
    from textual.command import CommandList

    lists = app.screen.query(CommandList)
    return bool(lists) and lists.first().option_count > 0


async def test_ctrl_p_over_help_opened_from_the_palette_brings_that_palette_back(demo_server, make_app):
    """ctrl+p, F1 (help over the palette), ctrl+p: the second palette was mounted in the same stack with the same
    id (`DuplicateIds: '--command-palette'`, the app ended)."""
    from app.app.palette import LedgerPalette
    from app.screens.acs import AcsScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerPalette), "the palette")
        await pilot.press("f1")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerPalette), "the palette again")
        assert app._exception is None
        assert palettes_held(app) == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts again")
        assert app._exception is None
        assert len(app.screen_stack) == 1


async def test_a_palette_is_closed_when_its_mode_is_left(demo_server, make_app):
    """A palette entry switches modes from a worker, after the palette closed: a ctrl+p pressed in between opened
    a palette that the switch left behind in the contracts' stack, and the next ctrl+p in the new mode mounted a
    second one with the same id (`DuplicateIds`)."""
    from app.app.palette import LedgerPalette
    from app.screens.acs import AcsScreen
    from app.screens.composer import ComposerScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerPalette), "the palette")
        await pilot.press("f1")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        app.routes.go("compose")  # what the entry does (`Palette._in_mode`)
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        await pilot.pause()
        assert [type(s) for s in app._screen_stacks["contracts"]] == [AcsScreen]
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerPalette), "a palette in the composer")
        assert app._exception is None
        assert palettes_held(app) == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer again")
        assert app._exception is None
        assert len(app.screen_stack) == 1


async def test_a_page_key_on_a_closed_choice_list_does_nothing(demo_server, make_app):
    """pagedown with the focus on the composer's kind (a `Select`, its list of choices closed, so never laid out)
    looked up a line the list had not made yet: `KeyError` in Textual's `OptionList._move_page` ended the app."""
    from textual.widgets import Select

    from app.screens.composer import ComposerScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        await pilot.press("2")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        kind = app.screen.query_one("#kind", Select)
        kind.focus()
        await pilot.pause()
        for key in ("pagedown", "pageup", "pagedown"):
            overlay = kind.query_one("SelectOverlay")
            overlay.focus()  # as when the keys reach the list itself
            await pilot.press(key)
        await pilot.pause()
        assert app._exception is None
        assert isinstance(app.screen, ComposerScreen)


def test_a_choice_dialog_closed_before_it_mounted_stays_quiet():
    """A choice dialog whose mount ran after it had lost its list (closed by a key that came first) looked the list
    up and raised `NoMatches`, ending the app (found by a 25,000-key monkey run)."""
    from app.screens.dialogs import ChoiceDialog

    ChoiceDialog(
        "Pick", [("a", 1), ("b", 2)], selected=2
    ).on_mount()  # no list: nothing to highlight, no error


async def test_a_palette_that_lost_its_list_before_no_matches_was_shown_stays_quiet(demo_server, make_app):
    """A search with no hits shows "No matches found" half a second later, looking the palette's list up then; a
    palette whose parts were removed meanwhile (being closed) raised `NoMatches` there and the app ended (found by
    a monkey run on a loaded machine)."""
    from textual.command import CommandList

    from app.app.palette import LedgerPalette

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        await pilot.press("ctrl+p", *"qqzzqq")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerPalette), "the palette")
        palette = app.screen
        await wait_for(pilot, lambda: palette._no_matches_timer is not None, "the no-matches countdown")
        countdown = palette._no_matches_timer
        await palette.query_one(CommandList).remove()  # what closing it does first
        await wait_for(
            pilot, lambda: countdown._task is not None and countdown._task.done() or app._exception, "its end"
        )
        await pilot.pause()
        assert app._exception is None
