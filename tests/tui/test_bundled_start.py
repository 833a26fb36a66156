"""Starting with the bundled participant: the startup screen gives way to the contracts whenever it gets ready."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from app.app import LedgerApp
from app.bundled import BundledParticipant, StartupState
from app.config import Config
from app.screens.acs import AcsScreen
from app.screens.startup import StartupScreen
from app.widgets.contract_table import ContractTable
from tests.conftest import SECRET
from tests.tui.conftest import SIZE, wait_for


class ReadyJustAfterTheMount:
    """Stands in for the bundled participant (a real one on loopback behind it): starting when the app mounts (so
    the startup screen shows), ready from the next look on, as when the participant starts in about as long as the
    terminal takes to set up."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.db = Path("ledger.db")
        self.owned = False
        self.started = True
        self.alive = True
        self.process = None
        self._looks = 0

    @property
    def state(self) -> StartupState:
        self._looks += 1
        return StartupState() if self._looks == 1 else StartupState(phase="ready", url=self.url)

    def subscribe(self, listener) -> None:
        listener(self.state)

    def wait(self, timeout: float = 0) -> StartupState:
        return self.state

    def secret(self) -> str:
        return SECRET


def stand_in(participant: ReadyJustAfterTheMount) -> BundledParticipant:
    """The stand-in as the app takes it: it has the members of a bundled participant that the app reads."""
    return cast(BundledParticipant, participant)


async def test_the_contracts_show_when_the_participant_got_ready_during_the_startup_screen(
    demo_server, locations
):
    app = LedgerApp(
        config=Config(), locations=locations, bundled=stand_in(ReadyJustAfterTheMount(demo_server.url))
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen")
        table = app.screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "the first rows")


class StillStarting(ReadyJustAfterTheMount):
    @property
    def state(self) -> StartupState:
        return StartupState()


async def test_the_first_frame_is_the_startup_screen_alone(locations):
    """The contracts screen is built once the participant is ready, not under the startup screen: built there, it
    made the first frame cost four times as much."""
    app = LedgerApp(
        config=Config(), locations=locations, bundled=stand_in(StillStarting("http://127.0.0.1:9"))
    )
    drawn: list[bool] = []
    app._first_frame_drawn = lambda: drawn.append(  # type: ignore[method-assign]  # the frame's hook, recorded
        # what was built by the first frame, before connecting
        any(isinstance(s, AcsScreen) for stack in app._screen_stacks.values() for s in stack)
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: drawn, "the first frame")
        assert isinstance(app.screen, StartupScreen)
        assert drawn == [False]
