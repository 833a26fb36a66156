"""Fixtures of the terminal client's tests: a real participant on a loopback port (with the demo ledger), and the
real app driven by Textual's Pilot against it, with its own config, data, cache and log directories."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from textual.app import App
from textual.screen import Screen

from app.app import LedgerApp
from app.config import Config
from app.locations import Locations
from app.screens.startup import StartupScreen
from app.tokens import MintedToken
from tests.conftest import SECRET, ServerProcess, start_demo_server

SIZE = (160, 45)
# a bound on how long a test waits for the app, not a timing assertion: five minutes (pytest's timeout is ten), as
# on a machine running eight suites at once a single step took over two
WAIT_SECONDS = 300.0
# how often a waiting test looks again: soon at first (most conditions hold within a few turns of the event loop),
# then every 50 ms, so that a costly predicate (the screen's text, a query over a large form) does not take the CPU
# the app needs to get there
FIRST_LOOK, LAST_LOOK = 0.001, 0.05
# Pilot waits after each key until the app's CPU time stops moving, looking every 20 ms (Textual's
# `SLEEP_GRANULARITY`): at least 40 ms a key however little the key does, most of a typed-form test's time. Looked
# at every 5 ms, with the same share of a slice counted as idle; a test waits for what it asserts (`wait_for`)
# rather than on Pilot's guess that the app has finished. The snapshots keep Textual's 20 ms: their pictures were
# taken with it (a screen scrolled to the focused field settles a few lines apart with 5 ms; composer-result at 80x24).
PILOT_IDLE_SLICE_S = 0.005
SLICE_AS_TEXTUAL = frozenset({"test_snapshots.py"})


@pytest.fixture(autouse=True)
def _pilot_looks_often(monkeypatch, request: pytest.FixtureRequest) -> None:
    import textual._wait

    if request.path.name in SLICE_AS_TEXTUAL:
        return

    monkeypatch.setattr(
        textual._wait,
        "SLEEP_IDLE",
        PILOT_IDLE_SLICE_S * textual._wait.SLEEP_IDLE / textual._wait.SLEEP_GRANULARITY,
    )
    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", PILOT_IDLE_SLICE_S)


@pytest.fixture(autouse=True)
def _tests_start_on_the_contracts_screen(monkeypatch) -> None:
    """Pilot in hand, a test finds the app by URL on its contracts screen, connecting: the app's first frame is the
    start-up screen, the contracts screen and then the connection's session come right after it
    (app.screens.startup), and most tests look at these from the start. Bundled, the start-up screen stays until
    the participant is ready: those tests wait for what they need."""
    run_test = LedgerApp.run_test

    @asynccontextmanager
    async def run_test_from_the_contracts_screen(app: LedgerApp, *args, **kwargs):
        async with run_test(app, *args, **kwargs) as pilot:
            if app.bundled is None:
                await wait_for(
                    pilot,
                    lambda: not isinstance(app.screen, StartupScreen) and app.workspace.session is not None,
                    "the contracts screen, connecting",
                )
            yield pilot

    monkeypatch.setattr(LedgerApp, "run_test", run_test_from_the_contracts_screen)


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory) -> Iterator[ServerProcess]:
    """One participant with the demo ledger for the tests of a module that only read."""
    s = start_demo_server(tmp_path_factory.mktemp("demo") / "ledger.db")
    yield s
    s.stop()


@pytest.fixture
def demo_writable(tmp_path) -> Iterator[ServerProcess]:
    """A participant with the demo ledger of its own, for tests that submit."""
    s = start_demo_server(tmp_path / "ledger.db")
    yield s
    s.stop()


@pytest.fixture
def locations(tmp_path) -> Locations:
    return Locations(
        config_file=tmp_path / "config" / "config.toml",
        data_dir=tmp_path / "data",
        cache_dir=tmp_path / "cache",
        log_dir=tmp_path / "logs",
    )


@pytest.fixture
def make_app(locations) -> Callable[..., LedgerApp]:
    """`make_app(server, user="Alice", **kw)`: the app against a participant, acting as `user`."""

    def make(
        server: ServerProcess, user: str = "Alice", *, config: Config | None = None, readonly: bool = False
    ) -> LedgerApp:
        return LedgerApp(
            config=config or Config(),
            locations=locations,
            url=server.url,
            tokens=MintedToken(SECRET, user),
            readonly=readonly,
            label=server.url,
        )

    return make


async def wait_for(pilot, predicate: Callable[[], object], what: str = "the condition") -> None:
    """Let the app run until `predicate()` holds (for at most WAIT_SECONDS).

    The app runs on this event loop: sleeping lets it go on, and the condition is looked at again soon after.
    Pilot's pause did more each time: it waits until every widget on the screen has emptied its message queue
    (a message to each, so the longer the more widgets: half a second each on a typed form of a few thousand),
    which a predicate on the app's state does not need, then sleeps 50 ms however soon the condition held.
    Once it holds, one pause lets the messages it set off be handled: what the test reads next (the screen's
    text, another widget) is drawn from the same state, as a person would see it a moment later."""
    deadline = time.monotonic() + WAIT_SECONDS
    look = FIRST_LOOK
    if predicate():
        return
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"the app never reached {what}")
        await asyncio.sleep(look)
        look = min(look * 2, LAST_LOOK)
        pilot.app.screen._on_timer_update()  # as Pilot's pause: the layout a refresh asked for, made now
    await pilot.pause()


def screen_text(app: App) -> str:
    """What the screen shows, as plain text lines (what a person reading the terminal sees)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def tmp_config(path: Path, text: str) -> Config:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return Config.load(path)


T = TypeVar("T")
S = TypeVar("S", bound=Screen)


def known(value: T | None, what: str = "the value") -> T:
    """`value`, which the test needs there at this point: the type checker's narrowing, and a failure that says
    what was missing rather than an AttributeError on None further on."""
    assert value is not None, f"{what} is missing"
    return value


def screen_of(app: App, kind: type[S]) -> S:
    """The screen on top, which the test expects to be a `kind`."""
    screen = app.screen
    assert isinstance(screen, kind), f"{type(screen).__name__} is shown, not {kind.__name__}"
    return screen
