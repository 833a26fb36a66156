"""The app's screens (its modes) and the routes between them: the number keys, the messages one screen sends for
another (open a contract, compose, show a template's contracts, move a contract), help and quitting."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.screen import Screen

from app.messages import ComposeCommand, IdentityChanged, MoveContract, OpenContract, ShowTemplateContracts
from app.screens.base import LedgerScreen
from app.screens.startup import StartupScreen

if TYPE_CHECKING:
    from app.screens.acs import AcsScreen


def _contracts() -> Screen:
    # imported when the screen is first made, not with the app: bundled, the first frame is the start-up screen,
    # and the contracts screen's modules load while the participant starts (`Connection.connect`)
    from app.screens.acs import AcsScreen

    return AcsScreen()


def _composer() -> Screen:
    from app.screens.composer import ComposerScreen

    return ComposerScreen()


def _requests() -> Screen:
    from app.screens.requests import RequestsScreen

    return RequestsScreen()


def _reassign() -> Screen:
    from app.screens.reassign import ReassignScreen

    return ReassignScreen()


def _packages() -> Screen:
    from app.screens.packages import PackagesScreen

    return PackagesScreen()


def _transactions() -> Screen:
    from app.screens.transactions import TransactionsScreen

    return TransactionsScreen()


def _parties() -> Screen:
    from app.screens.parties import PartiesScreen

    return PartiesScreen()


def _styled_as_made(make: Callable[[], Screen]) -> Callable[[], Screen]:
    """`make`, whose screen counts as up to date with the app's styles as it is made.

    Textual refreshes the styles of a mode's first screen as a suspended one's (`App._init_mode`, then
    `switch_mode` again): twice a new parse of every style sheet met so far and a pass over every widget, about
    40 ms each for the contracts screen. A screen not yet mounted has no styles to refresh: it takes the current
    ones as it mounts, as a pushed screen does. A later theme change still refreshes it when it is next shown."""

    def made() -> Screen:
        screen = make()
        screen._css_update_count = screen.app._css_update_count
        return screen

    return made


MODES: dict[str, str | Callable[[], Screen]] = {
    mode: _styled_as_made(make)
    for mode, make in {
        "contracts": _contracts,
        "compose": _composer,
        "requests": _requests,
        "reassign": _reassign,
        "packages": _packages,
        "transactions": _transactions,
        "parties": _parties,
    }.items()
}
"""Each mode's screen, made when the mode is first shown (the app's `MODES`, in the order of the number keys)."""

MOUNTED_WITHIN_S = 5.0  # how long a number key waits for the screen shown to finish mounting, at most
KEPT_DRAWN_WITHIN_S = 2.0  # how long connecting waits for the kept rows to be drawn, at most

MODE_TITLES = {
    "contracts": "Contracts",
    "compose": "Compose",
    "requests": "Requests",
    "reassign": "Reassign",
    "packages": "Packages",
    "transactions": "Transactions",
    "parties": "Parties & users",
}


class Routes:
    """Which screen is shown, and the way to another. Its face: `go` (a number key), `show` (a mode's own screen,
    awaited), `screens` (every mode's), `contracts_screen`, `announce_identity`, and one method for
    each message a screen sends for another (`open_contract`, `compose`, `show_template_contracts`,
    `move_contract`); the app's key actions and message handlers call these. A route to a screen that needs the
    participant is taken only while `connected()`."""

    def __init__(self, app: App, *, connected: Callable[[], bool]) -> None:
        self._app = app
        self._connected = connected

    def screens(self) -> Iterable[Screen]:
        """Every screen on every mode's stack (a mode's own and what was opened over it)."""
        stacks = self._app._screen_stacks
        for mode in MODES:
            yield from stacks.get(mode) or []

    async def show(self, mode: str) -> None:
        """A mode's own screen, above whatever was opened on top of it (an inspector opened there)."""
        app = self._app
        if app.current_mode != mode:
            await app.switch_mode(mode)
        while len(app.screen_stack) > 1:
            await app.pop_screen()

    async def go_once_mounted(self, mode: str) -> None:
        """`go`, once the screen shown has finished mounting (a number key right after the key that opened it): left
        halfway, its widgets were removed while they mounted, and their own mounts raised (Textual's `Tabs`: "No Tab
        with id"). Awaited by the key's action, so the keys after it wait too and keep their order."""
        try:
            await asyncio.wait_for(self._app.screen._mounted_event.wait(), MOUNTED_WITHIN_S)
        except TimeoutError:
            pass  # a screen that never finishes mounting must not keep the user there
        if (
            self._app.is_running
        ):  # not while the app shuts down (it ended the wait): a new mode then broke its close
            self.go(mode)

    def go(self, mode: str) -> None:
        """A number key: that mode's own screen, always (not an inspector or an update opened from it earlier,
        which the key would otherwise bring back); a dialog open there stays, as it waits for its answer."""
        app = self._app
        if app.current_mode != mode:
            app.switch_mode(mode)
        while len(app.screen_stack) > 1 and isinstance(app.screen, LedgerScreen):
            app.pop_screen()

    async def leave_startup(self) -> None:
        """The contracts screen in place of the start-up screen, if that is still shown (the bundled participant is
        ready, or the participant is reached by URL)."""
        if isinstance(self._app.screen, StartupScreen):
            await self._app.switch_mode("contracts")

    async def show_kept(self) -> None:
        """The contracts screen, showing the rows the last session kept, in place of the start-up screen."""
        if isinstance(self._app.screen, StartupScreen):
            await self._app.switch_mode("contracts")  # which shows them as it mounts
        elif (screen := self.contracts_screen()) is not None:
            screen.show_kept()
        screen = self.contracts_screen()
        if screen is not None:
            # until they are drawn: what comes next (the client's modules, loaded to connect) holds the loop
            try:
                await asyncio.wait_for(screen.kept_drawn.wait(), KEPT_DRAWN_WITHIN_S)
            except TimeoutError:
                pass

    def contracts_screen(self) -> AcsScreen | None:
        """The contracts screen, once it exists."""
        from app.screens.acs import AcsScreen

        for screen in self._app._screen_stacks.get("contracts", []):
            if isinstance(screen, AcsScreen):
                return screen
        return None

    def announce_identity(self) -> None:
        """Tell every screen that the user, or what the user may do, changed."""
        for screen in self.screens():
            screen.post_message(IdentityChanged())

    def help(self) -> None:
        """Help for the screen shown, or closed if it is the one shown."""
        from app.screens.help import HelpScreen

        app = self._app
        if isinstance(app.screen, HelpScreen):
            app.screen.dismiss(None)
        else:
            app.push_screen(HelpScreen(app.screen))

    async def quit(self) -> None:
        """Quit, after asking when a screen holds work that quitting would lose (an unsent command)."""
        unsent = [
            text
            for screen in self.screens()
            if isinstance(screen, LedgerScreen) and (text := screen.unsent())
        ]
        if not unsent:
            self._app.exit()
            return
        confirm: Callable[[], Any] = partial(self._confirm_quit, unsent)  # a coroutine function to Textual
        self._app.run_worker(confirm, group="quit", exclusive=True, exit_on_error=False)

    async def _confirm_quit(self, unsent: list[str]) -> None:
        from app.screens.dialogs import ChoiceDialog

        quit_anyway = await self._app.push_screen_wait(
            ChoiceDialog(
                "Quit and lose the unsent command?",
                [("Stay", False), ("Quit and lose it", True)],
                selected=False,
                hint="\n".join(unsent),
            )
        )
        if quit_anyway:
            self._app.exit()

    def open_contract(self, message: OpenContract) -> None:
        from app.screens.inspector import InspectorScreen

        if not self._connected():
            return
        self._app.push_screen(InspectorScreen(message.contract_id))

    async def compose(self, message: ComposeCommand) -> None:
        if not self._connected():
            return
        await self.show("compose")
        prefill = getattr(self._app.screen, "prefill", None)
        if prefill is not None:
            prefill(message)

    async def show_template_contracts(self, message: ShowTemplateContracts) -> None:
        if not self._connected():
            return
        await self.show("contracts")
        screen = self.contracts_screen()
        if screen is not None:
            screen.show_templates(frozenset({message.template_id}))

    async def move_contract(self, message: MoveContract) -> None:
        if not self._connected():
            return
        await self.show("reassign")
        choose = getattr(self._app.screen, "choose", None)
        if choose is not None:
            choose(message.contract_id)

    def ask_contract_to_open(self) -> None:
        """The open-a-contract prompt (ctrl+o)."""
        from app.screens.id_help import ask_contract_to_open

        ask_contract_to_open(self._app)

    def pasted(self, text: str) -> None:
        """A contract id pasted anywhere opens it."""
        from app.daml import looks_like_contract_id  # with its patterns, not before the first frame

        text = text.strip()
        if looks_like_contract_id(text) and self._connected():
            self._app.post_message(OpenContract(text))
