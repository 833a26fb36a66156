"""Starting with a participant reached by URL: the first frame is the start-up screen alone, the contracts screen
comes right after it, and then the connection; a mode's first screen takes the app's styles without parsing them
all again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from textual.css.stylesheet import Stylesheet

from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.screens.requests import RequestsScreen
from app.screens.startup import StartupScreen
from app.widgets.contract_table import ContractTable
from app.widgets.status_bar import StatusBar
from tests.tui.conftest import SIZE, screen_of, screen_text, wait_for

ROOT = Path(__file__).resolve().parents[2]


async def test_the_first_frame_is_the_startup_screen_then_the_contracts_then_the_connection(
    demo_server, make_app
):
    """Built for the first frame, the contracts screen made it cost about 1.5 times a bare Textual app's."""
    app: LedgerApp = make_app(demo_server, "Alice")
    first_frames: list[tuple[str, bool, bool]] = []
    drawn = app._first_frame_drawn

    def record_the_first_frame() -> None:
        # what the first frame showed, whether the contracts screen was built for it, whether connecting began
        built = any(isinstance(s, AcsScreen) for stack in app._screen_stacks.values() for s in stack)
        first_frames.append((type(app.screen).__name__, built, app.workspace.session is not None))
        drawn()

    app._first_frame_drawn = record_the_first_frame  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: first_frames, "the first frame")
        assert first_frames == [("StartupScreen", False, False)]
        screen = screen_of(app, AcsScreen)  # right after it, whatever the participant answers
        table = screen.query_one(ContractTable)
        await wait_for(pilot, lambda: table.row_at(0) is not None, "the first rows")
        assert app.connected


async def test_the_startup_screen_names_the_participant_it_opens(locations):
    label = "devnet\x1b[2J"  # a profile's name, from the config file
    app = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9", label=label)
    shown: list[str] = []
    drawn = app._first_frame_drawn

    def record_the_first_frame() -> None:
        screen_of(app, StartupScreen)
        shown.append(screen_text(app))  # what the first frame drew
        drawn()

    app._first_frame_drawn = record_the_first_frame  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: shown, "the first frame")
    assert "Opening devnet\\x1b[2J…" in shown[0]  # its control characters written out
    assert "ledger-tui" in shown[0]


async def test_a_modes_first_screen_does_not_parse_the_styles_again(locations, monkeypatch):
    """Textual refreshes a mode's new screen as a suspended one: two parses of every style sheet met so far."""
    app = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9")  # never connects
    reparsed: list[int] = []
    reparse = Stylesheet.reparse

    def counted(stylesheet: Stylesheet) -> None:
        reparsed.append(1)
        reparse(stylesheet)

    async with app.run_test(size=SIZE) as pilot:
        contracts = screen_of(app, AcsScreen)
        monkeypatch.setattr(Stylesheet, "reparse", counted)
        await pilot.press("3")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestsScreen), "the requests screen")
        requests = app.screen
        assert reparsed == []
        # its styles are the app's all the same, and a theme changed meanwhile reaches the screen shown next
        bar = requests.query_one(StatusBar)
        assert bar.styles.background == contracts.query_one(StatusBar).styles.background
        dark = bar.styles.background
        app.theme = "textual-light"
        await wait_for(pilot, lambda: bar.styles.background != dark, "the light theme")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.screen is contracts, "the contracts screen again")
        assert contracts.query_one(StatusBar).styles.background == bar.styles.background


# The app as `ledger-tui --url …` runs it (`run`, not Pilot's `run_test`, which gives the app a task of its own),
# until the contracts screen is shown and the connection starts.
RUN_BY_URL = """
import json, sys
from pathlib import Path
from app.app import LedgerApp
from app.config import Config
from app.locations import Locations

here = Path(sys.argv[1])
locations = Locations(here / "config.toml", here / "data", here / "cache", here / "logs")
ledger = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9")
show = ledger._show_contracts_then_connect


async def shown_then_exit(kept):
    try:
        await show(kept)
        outcome = "shown"
    except BaseException as e:
        outcome = repr(e)
    (here / "outcome.json").write_text(json.dumps([outcome, type(ledger.screen).__name__]))
    ledger.exit()


ledger._show_contracts_then_connect = shown_then_exit
ledger.run(headless=True)
"""


def test_run_as_the_command_line_runs_it_the_contracts_screen_follows_the_first_frame(tmp_path):
    subprocess.run([sys.executable, "-c", RUN_BY_URL, str(tmp_path)], cwd=ROOT, check=True, timeout=120)
    assert json.loads((tmp_path / "outcome.json").read_text()) == ["shown", "AcsScreen"]
