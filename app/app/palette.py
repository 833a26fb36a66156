"""The command palette: its entries (every screen's keys, by screen, and the app's own), and one palette at a time.

Textual keeps each mode's stack of screens when the mode is left, and gives its palette a fixed id. A palette left
under another screen (help, opened over it with `?`) stayed in its mode's stack when a number key switched modes; a
second ctrl+p then mounted a second palette with the same id (`DuplicateIds`, the app ended), and the first one,
dismissed later, popped a screen of the mode shown. So a palette closes when its mode is left, ctrl+p brings back the
palette of the current stack rather than opening another, and the palette dismisses only itself (`app.screens.
dismissal`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from rich.align import Align
from rich.text import Text
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette
from textual.events import Mount
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, LoadingIndicator, OptionList
from textual.widgets.option_list import Option

from app.app.routing import MODE_TITLES, MODES, Routes
from app.screens.dismissal import DismissesOnlyItself
from app.widgets.option_lists import laid_out


class LedgerPalette(CommandPalette, DismissesOnlyItself):
    """Textual's palette, dismissed once and its command run once: enter pressed twice (the list's selection, then
    the input's submission, both handled) dismissed it twice, the second popping the screen under it, and ran the
    command twice."""

    def _on_mount(self, event: Mount) -> None:
        # closed before it was mounted (its mode left at once): Textual's palette would take the screen under it
        # in the mode shown now, where there may be none (IndexError)
        if not self.is_shown():
            event.prevent_default()

    async def _on_message(self, message: Message) -> None:
        # a choice that reaches the palette once it is closed (queued before it closed) is not made again
        if isinstance(message, CHOICES) and not self.is_shown():
            return
        await super()._on_message(message)

    def _action_command_list(self, action: str) -> None:
        if action in ("page_up", "page_down") and not laid_out(self.query_one(CommandList)):
            return  # the list is not drawn yet (app.widgets.option_lists)
        super()._action_command_list(action)

    # The search for commands runs in a worker that may end after the palette closed and its parts were removed
    # (leaving the mode, a route that pops every screen over a mode's own): what it would show has nowhere to go.
    def _watch__list_visible(self) -> None:
        if self._parts_present():
            super()._watch__list_visible()

    async def _watch__show_busy(self) -> None:
        if self._parts_present():
            await super()._watch__show_busy()

    def _start_no_matches_countdown(self, search_value: str) -> None:
        # Textual's countdown looks its list up when it ends, half a second on, when the palette may have lost its
        # parts (`NoMatches`, the app ended; found by a monkey run on a loaded machine)
        self._stop_no_matches_countdown()
        self._no_matches_timer = self.set_timer(
            self._NO_MATCHES_COUNTDOWN, partial(self._show_no_matches, search_value)
        )

    def _show_no_matches(self, search_value: str) -> None:
        if not self._parts_present():
            return
        if search_value:
            self.query_one(CommandList).add_option(
                Option(
                    Align.center(Text("No matches found", style="not bold")),
                    disabled=True,
                    id=self._NO_MATCHES,
                )
            )
            self._list_visible = True
        else:
            self._list_visible = False  # discovering, not searching: no commands is nothing to point out

    def _parts_present(self) -> bool:
        return bool(self.query(CommandList)) and bool(self.query(LoadingIndicator))


CHOICES = (Input.Submitted, Button.Pressed, OptionList.OptionSelected)


class Palette:
    """One command palette at a time, and its entries. Its face: `open` (ctrl+p), `mode_left` (the app calls it as a
    mode is left), `commands` (the entries the app adds to Textual's own) and `key_names` (a binding's keys as the
    footer shows them, also for help)."""

    def __init__(self, app: App, routes: Routes) -> None:
        self._app = app
        self._routes = routes

    def open(self) -> None:
        """The palette of the stack shown, brought back if it is there (under help), else a new one."""
        app = self._app
        held = _palette_in(app.screen_stack)
        if held is not None:
            if held is not app.screen:
                held.pop_until_active()  # close what was opened over it (help)
            return
        if app.use_command_palette:
            # no id: a palette closed with its mode is removed a moment later, and a new one with Textual's fixed
            # id, opened meanwhile, raised DuplicateIds
            app.push_screen(LedgerPalette())

    def mode_left(self, mode: str) -> None:
        """Take the palette out of `mode`'s stack (no longer shown), with what was opened over it."""
        app = self._app
        stack = app._screen_stacks.get(mode, [])
        palette = _palette_in(stack)
        if palette is None:
            return
        closed = stack[stack.index(palette) :]
        del stack[stack.index(palette) :]
        palette._cancel_gather_commands()
        for screen in reversed(closed):
            screen._pop_result_callback()
            app.call_later(app._replace_screen, screen)  # removes it, as a pop does

    def commands(self, bindings: Iterable[BindingType]) -> Iterable[SystemCommand]:
        """The palette's entries beside Textual's own: each screen's keys, by screen, and `bindings` (the app's)."""
        for mode, factory in MODES.items():
            title = MODE_TITLES[mode]
            cls = factory if isinstance(factory, type) else None
            mode_bindings = getattr(cls, "BINDINGS", []) if cls else _bindings_of(mode)
            yield SystemCommand(
                f"{title}: open",
                f"Go to the {title.lower()} screen · key {list(MODES).index(mode) + 1}",
                lambda mode=mode: self._routes.go(mode),
            )
            for binding in mode_bindings:
                if not isinstance(binding, Binding) or not binding.description or binding.action == "escape":
                    continue
                yield SystemCommand(
                    f"{title}: {binding.description}",
                    f"key {self.key_names(binding)}",
                    lambda mode=mode, action=binding.action: self._run_in_mode(mode, action),
                )
        for binding in bindings:
            # the screens' keys (1 to 7) are the "open" entries above
            if (
                isinstance(binding, Binding)
                and binding.description
                and not binding.action.startswith("mode(")
            ):
                yield SystemCommand(
                    binding.description,
                    f"key {self.key_names(binding)}",
                    lambda action=binding.action: self._app.run_action(action),
                )

    def key_names(self, binding: Binding) -> str:
        """The keys of a binding as the footer shows them ("[", "^s"), remapped ones included."""
        app = self._app
        remapped = app._keymap.get(binding.id) if binding.id else None
        if binding.key_display and not remapped:
            return binding.key_display
        keys = (remapped or binding.key).split(",")
        return " ".join(app.get_key_display(Binding(key.strip(), binding.action)) for key in keys)

    def _run_in_mode(self, mode: str, action: str) -> None:
        run: Callable[[], Any] = partial(self._in_mode, mode, action)  # a coroutine function to Textual
        self._app.run_worker(run, group="palette", exit_on_error=False)

    async def _in_mode(self, mode: str, action: str) -> None:
        app = self._app
        if app.current_mode != mode:
            await app.switch_mode(mode)
        await app.screen.run_action(action)


def _palette_in(stack: list[Screen]) -> CommandPalette | None:
    """Ours, or Textual's own (its theme picker, a system command, is a palette too)."""
    return next((s for s in stack if isinstance(s, CommandPalette)), None)


def _bindings_of(mode: str) -> Sequence[BindingType]:
    if mode == "contracts":
        from app.screens.acs import AcsScreen

        return AcsScreen.BINDINGS
    if mode == "compose":
        from app.screens.composer import ComposerScreen

        return ComposerScreen.BINDINGS
    if mode == "requests":
        from app.screens.requests import RequestsScreen

        return RequestsScreen.BINDINGS
    if mode == "reassign":
        from app.screens.reassign import ReassignScreen

        return ReassignScreen.BINDINGS
    if mode == "packages":
        from app.screens.packages import PackagesScreen

        return PackagesScreen.BINDINGS
    if mode == "transactions":
        from app.screens.transactions import TransactionsScreen

        return TransactionsScreen.BINDINGS
    if mode == "parties":
        from app.screens.parties import PartiesScreen

        return PartiesScreen.BINDINGS
    return []
