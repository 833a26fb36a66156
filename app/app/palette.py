"""The command palette: its entries (every screen's keys, by screen, and the app's own), and one palette at a time.

Textual keeps each mode's stack of screens when the mode is left, and gives its palette a fixed id. A palette left
under another screen (help, opened over it with `?`) stayed in its mode's stack when a number key switched modes; a
second ctrl+p then mounted a second palette with the same id (`DuplicateIds`, the app ended), and the first one,
dismissed later, popped a screen of the mode shown. So a palette closes when its mode is left, ctrl+p brings back the
palette of the current stack rather than opening another, and the palette dismisses only itself (`app.screens.
dismissal`)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from rich.align import Align
from rich.text import Text
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.events import Mount
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.widgets import Button, Input, LoadingIndicator, OptionList
from textual.widgets.option_list import Option

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


class Palette(App):
    def action_command_palette(self) -> None:
        held = self._palette_in(self.screen_stack)
        if held is not None:
            if held is not self.screen:
                held.pop_until_active()  # close what was opened over it (help)
            return
        if self.use_command_palette:
            # no id: a palette closed with its mode is removed a moment later, and a new one with Textual's fixed
            # id, opened meanwhile, raised DuplicateIds
            self.push_screen(LedgerPalette())

    def switch_mode(self, mode: str) -> AwaitMount:
        left = self.current_mode
        mounted = super().switch_mode(mode)
        if left != mode:
            self._close_palette_of(left)
        return mounted

    def _close_palette_of(self, mode: str) -> None:
        """Take the palette out of `mode`'s stack (no longer shown), with what was opened over it."""
        stack = self._screen_stacks.get(mode, [])
        palette = self._palette_in(stack)
        if palette is None:
            return
        closed = stack[stack.index(palette) :]
        del stack[stack.index(palette) :]
        palette._cancel_gather_commands()
        for screen in reversed(closed):
            screen._pop_result_callback()
            self.call_later(self._replace_screen, screen)  # removes it, as a pop does

    @staticmethod
    def _palette_in(stack: list[Screen]) -> CommandPalette | None:
        """Ours, or Textual's own (its theme picker, a system command, is a palette too)."""
        return next((s for s in stack if isinstance(s, CommandPalette)), None)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, factory in self.MODES.items():
            title = self.MODE_TITLES[mode]
            cls = factory if isinstance(factory, type) else None
            bindings = getattr(cls, "BINDINGS", []) if cls else _bindings_of(mode)
            yield SystemCommand(
                f"{title}: open",
                f"Go to the {title.lower()} screen · key {list(self.MODES).index(mode) + 1}",
                lambda mode=mode: self.action_mode(mode),
            )
            for binding in bindings:
                if not isinstance(binding, Binding) or not binding.description or binding.action == "escape":
                    continue
                yield SystemCommand(
                    f"{title}: {binding.description}",
                    f"key {self.key_names(binding)}",
                    lambda mode=mode, action=binding.action: self._run_in_mode(mode, action),
                )
        for binding in self.BINDINGS:
            # the screens' keys (1 to 7) are the "open" entries above
            if (
                isinstance(binding, Binding)
                and binding.description
                and not binding.action.startswith("mode(")
            ):
                yield SystemCommand(
                    binding.description,
                    f"key {self.key_names(binding)}",
                    lambda action=binding.action: self.run_action(action),
                )

    def key_names(self, binding: Binding) -> str:
        """The keys of a binding as the footer shows them ("[", "^s"), remapped ones included."""
        remapped = self._keymap.get(binding.id) if binding.id else None
        if binding.key_display and not remapped:
            return binding.key_display
        keys = (remapped or binding.key).split(",")
        return " ".join(self.get_key_display(Binding(key.strip(), binding.action)) for key in keys)

    @work(group="palette", exit_on_error=False)
    async def _run_in_mode(self, mode: str, action: str) -> None:
        if self.current_mode != mode:
            await self.switch_mode(mode)
        await self.screen.run_action(action)


def _bindings_of(mode: str) -> list:
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
