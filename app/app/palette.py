"""The command palette's entries: every screen's keys, by screen, and the app's own."""

from __future__ import annotations

from collections.abc import Iterable

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen


class Palette(App):
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
            # the screens' keys (1 to 6) are the "open" entries above
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
    return []
