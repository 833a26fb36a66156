"""The contracts kept for the next start, with the bundled participant: the second start shows the last session's
rows right after its first frame (the start-up screen), marked as not current, and only then starts its participant
(whose start would take the CPU the rows are read and drawn with), then shows the participant's rows."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from app.app import LedgerApp
from app.bundled import BundledParticipant
from app.config import Config
from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, screen_of, screen_text, wait_for

BOUND_S = 120.0  # a bound on the participant's start (seeding the demo ledger), not a target


class HeldBack(BundledParticipant):
    """The real bundled participant, which the test starts when the app has asked for it and the test lets go."""

    asked = 0
    rows_on_screen_when_asked: bool | None = None
    rows_on_screen: Callable[[], bool] = staticmethod(lambda: False)

    def start(self) -> None:
        self.asked += 1
        self.rows_on_screen_when_asked = self.rows_on_screen()
        self.started = True

    def let_go(self) -> None:
        super().start()


def _kept_row_drawn(app: LedgerApp) -> bool:
    screen = app.screen
    return (
        isinstance(screen, AcsScreen)
        and screen.kept_drawn.is_set()
        and screen.query_one(ContractTable).count > 0
    )


def _loaded(app: LedgerApp) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def test_a_second_bundled_start_opens_on_the_kept_rows_then_shows_the_participants(
    locations, monkeypatch
):
    first = BundledParticipant(locations.data_dir, locations.log_dir)
    first.start()  # started before the app, which waits for it
    try:
        assert first.wait(BOUND_S).phase == "ready", first.state.error
        app = LedgerApp(config=Config(), locations=locations, bundled=first)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: _loaded(app), "the first session's rows")
            screen = screen_of(app, AcsScreen)
            count, offset = screen.query_one(ContractTable).count, screen.offset
    finally:
        first.stop()
    assert offset is not None
    assert len(list(locations.snapshots_dir.glob("kept-*.db"))) == 1

    # the next start: the app starts its participant after the first frame; held back here until the kept rows
    # are on screen, so that they are seen while it is still starting
    second = HeldBack(locations.data_dir, locations.log_dir)
    # the app waits for the kept rows drawn 2 s at most before it starts the participant anyway: on a machine loaded
    # enough to take longer the order this test looks at is not the app's to keep
    monkeypatch.setattr("app.app.routing.KEPT_DRAWN_WITHIN_S", BOUND_S)
    app = LedgerApp(config=Config(), locations=locations, bundled=second)
    second.rows_on_screen = lambda: _kept_row_drawn(app)
    first_frames: list[tuple[str, int]] = []
    drawn = app._first_frame_drawn

    # the first frame's hook: what it shows and whether the participant was asked to start yet
    def record_the_first_frame() -> None:
        first_frames.append((type(app.screen).__name__, second.asked))
        app.post_message(events.Key("down", None))  # typed on the start-up screen: for the contracts screen
        drawn()

    app._first_frame_drawn = record_the_first_frame  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: first_frames, "the first frame")
            # the start-up screen (the contracts screen comes with the kept rows); the participant not asked to start
            # before it is drawn, nor before the kept rows are
            assert first_frames == [("StartupScreen", 0)]
            await wait_for(pilot, lambda: second.asked == 1, "the participant asked to start")
            assert second.rows_on_screen_when_asked is True
            screen = screen_of(app, AcsScreen)
            table = screen.query_one(ContractTable)
            assert second.state.phase != "ready"
            assert (table.count, screen.offset) == (count, offset)
            # the key typed on the start-up screen waited for the contracts screen and moved its cursor
            await wait_for(pilot, lambda: app.keys.idle, "the keys handled")
            assert table.cursor == 1
            assert f"viewing {offset} cached, not current" in screen_text(app)

            second.let_go()
            await wait_for(
                pilot,
                lambda: app.workspace.session is not None and not app.status_stale and _loaded(app),
                "the participant's rows",
            )
            assert second.state.phase == "ready"
            assert "cached" not in screen_text(app)
            assert table.count == count  # the same ledger: nothing changed meanwhile
            assert (screen.offset or 0) >= offset
    finally:
        second.stop()
