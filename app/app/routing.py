"""The app's screens (its modes) and the routes between them: the number keys, the messages one screen sends for
another (open a contract, compose, show a template's contracts, move a contract), help and quitting."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.screen import Screen

from app.daml import looks_like_contract_id
from app.messages import ComposeCommand, MoveContract, OpenContract, ShowTemplateContracts
from app.screens.base import LedgerScreen

if TYPE_CHECKING:
    from app.screens.acs import AcsScreen


def _contracts():
    # imported when the screen is first made, not with the app: bundled, the first frame is the start-up screen,
    # and the contracts screen's modules load while the participant starts (`Connection._connect`)
    from app.screens.acs import AcsScreen

    return AcsScreen()


def _composer():
    from app.screens.composer import ComposerScreen

    return ComposerScreen()


def _requests():
    from app.screens.requests import RequestsScreen

    return RequestsScreen()


def _reassign():
    from app.screens.reassign import ReassignScreen

    return ReassignScreen()


def _packages():
    from app.screens.packages import PackagesScreen

    return PackagesScreen()


def _transactions():
    from app.screens.transactions import TransactionsScreen

    return TransactionsScreen()


def _parties():
    from app.screens.parties import PartiesScreen

    return PartiesScreen()


class Routing(App):
    MODES = {
        "contracts": _contracts,
        "compose": _composer,
        "requests": _requests,
        "reassign": _reassign,
        "packages": _packages,
        "transactions": _transactions,
        "parties": _parties,
    }
    MODE_TITLES = {
        "contracts": "Contracts",
        "compose": "Compose",
        "requests": "Requests",
        "reassign": "Reassign",
        "packages": "Packages",
        "transactions": "Transactions",
        "parties": "Parties & users",
    }

    def _mode_screens(self) -> Iterable[Screen]:
        for mode in self.MODES:
            stack = self._screen_stacks.get(mode) or []
            yield from stack

    async def _show_mode(self, mode: str) -> None:
        """A mode's own screen, above whatever was opened on top of it (an inspector opened there)."""
        if self.current_mode != mode:
            await self.switch_mode(mode)
        while len(self.screen_stack) > 1:
            await self.pop_screen()

    def _contracts_screen(self) -> AcsScreen | None:
        """The contracts screen, once it exists."""
        from app.screens.acs import AcsScreen

        for screen in self._screen_stacks.get("contracts", []):
            if isinstance(screen, AcsScreen):
                return screen
        return None

    def show_ledger_end(self) -> None:
        """Have the contracts screen show the ledger end (after a change made elsewhere, e.g. a move); the other
        screens follow the offset it shows through the workspace."""
        screen = self._contracts_screen()
        if screen is not None:
            screen.action_ledger_end()

    def action_mode(self, mode: str) -> None:
        """A number key: that mode's own screen, always (not an inspector or an update opened from it earlier,
        which the key would otherwise bring back); a dialog open there stays, as it waits for its answer."""
        if self.current_mode != mode:
            self.switch_mode(mode)
        while len(self.screen_stack) > 1 and isinstance(self.screen, LedgerScreen):
            self.pop_screen()

    def action_help(self) -> None:
        from app.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        """Quit, after asking when a screen holds work that quitting would lose (an unsent command)."""
        unsent = [
            text
            for screen in self._mode_screens()
            if isinstance(screen, LedgerScreen) and (text := screen.unsent())
        ]
        if not unsent:
            self.exit()
            return
        self._confirm_quit(unsent)

    @work(exclusive=True, group="quit", exit_on_error=False)
    async def _confirm_quit(self, unsent: list[str]) -> None:
        from app.screens.dialogs import ChoiceDialog

        quit_anyway = await self.push_screen_wait(
            ChoiceDialog(
                "Quit and lose the unsent command?",
                [("Stay", False), ("Quit and lose it", True)],
                selected=False,
                hint="\n".join(unsent),
            )
        )
        if quit_anyway:
            self.exit()

    @on(OpenContract)
    def _open_contract(self, message: OpenContract) -> None:
        from app.screens.inspector import InspectorScreen

        if not self.connected:
            return
        self.push_screen(InspectorScreen(message.contract_id))

    @on(ComposeCommand)
    async def _compose(self, message: ComposeCommand) -> None:
        if not self.connected:
            return
        await self._show_mode("compose")
        screen = self.screen
        prefill = getattr(screen, "prefill", None)
        if prefill is not None:
            prefill(message)

    @on(ShowTemplateContracts)
    async def _show_template_contracts(self, message: ShowTemplateContracts) -> None:
        if not self.connected:
            return
        await self._show_mode("contracts")
        screen = self._contracts_screen()
        if screen is not None:
            screen.show_templates(frozenset({message.template_id}))

    @on(MoveContract)
    async def _move_contract(self, message: MoveContract) -> None:
        if not self.connected:
            return
        await self._show_mode("reassign")
        choose = getattr(self.screen, "choose", None)
        if choose is not None:
            choose(message.contract_id)

    def action_open_contract(self) -> None:
        from app.screens.id_help import ask_contract_to_open

        ask_contract_to_open(self)

    def on_paste(self, event) -> None:
        text = event.text.strip()
        if looks_like_contract_id(text) and self.connected:
            self.post_message(OpenContract(text))
