"""The packages screen's scripts against a real `--static-time` participant loaded with splice-amulet-test: the
scripts listed under their package's modules, and `r` on Canton Coin's `testTap` confirmed, run on the package's
code read from the participant, its progress and its passing shown in the details pane and a notification."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.screens.packages import PackagesScreen
from tests.conftest import SECRET, ServerProcess, start_server
from tests.daml_script.conftest import SPLICE_TEST
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_packages_screen import _nodes, _packages, _select
from tests.tui.test_parties_screen import choose

TEST_TAP = "Splice.Scripts.TestTap:testTap"


@pytest.fixture
def static(tmp_path, dars_dir) -> Iterator[ServerProcess]:
    s = start_server(
        tmp_path / "static.db",
        "--hs256-secret",
        SECRET,
        "--static-time",
        "--dar",
        str(dars_dir / SPLICE_TEST),
    )
    yield s
    s.stop()


async def test_r_runs_a_packages_script_against_the_participant(static, make_app) -> None:
    app = make_app(static, "participant_admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        scripts = {
            n.data.entity
            for n in _nodes(screen.package_tree.root)
            if n.data is not None and n.data.kind == "script" and n.data.package is not None
            if n.data.package.name == "splice-amulet-test"
        }
        assert TEST_TAP in scripts and "Splice.Scripts.Util:setupApp" in scripts
        await _select(pilot, screen, "splice-amulet-test", TEST_TAP)
        assert "A Daml Script that takes no argument" in screen_text(app)

        await pilot.press("r")
        await choose(app, pilot, "Cancel")  # asked first; cancelled, nothing runs
        await pilot.pause()
        assert isinstance(app.screen, PackagesScreen) and not screen.runs

        await pilot.press("r")
        await choose(app, pilot, "Run")
        key = next(iter(screen.runs), None) or (await _first_run(pilot, screen))
        await wait_for(pilot, lambda: "transactions so far" in screen.runs[key].plain, "the run's progress")
        await wait_for(pilot, lambda: not screen.runs[key].plain.startswith("Running"), "the run's end")
        state = screen.runs[key].plain
        assert state.startswith("Passed"), state
        assert "Result: {}" in state
        text = screen_text(app)
        assert "Passed" in text and "transactions in" in text
        assert any(f"{TEST_TAP} passed" in n.message for n in app._notifications)


async def _first_run(pilot, screen: PackagesScreen) -> tuple[str, str]:
    await wait_for(pilot, lambda: screen.runs, "the run's start")
    return next(iter(screen.runs))


async def test_a_script_that_fails_says_its_error_and_daml_location(tmp_path, dars_dir, make_app) -> None:
    # on a wall-clock participant testTap's setTime fails: the error and where in the script it failed
    server = start_server(
        tmp_path / "wall.db", "--hs256-secret", SECRET, "--dar", str(dars_dir / SPLICE_TEST)
    )
    try:
        app = make_app(server, "participant_admin")
        async with app.run_test(size=SIZE) as pilot:
            screen = await _packages(app, pilot)
            await _select(pilot, screen, "splice-amulet-test", TEST_TAP)
            await pilot.press("r")
            await choose(app, pilot, "Run")
            key = await _first_run(pilot, screen)
            await wait_for(pilot, lambda: screen.runs[key].plain.startswith("Failed"), "the run's failure")
            state = screen.runs[key].plain
            assert "setTime" in state and "Splice/Scripts" in state, state
            assert any("failed at" in n.message and "setTime" in n.message for n in app._notifications)
    finally:
        server.stop()
