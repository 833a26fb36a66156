"""Snapshots of every screen, from the real app against the deterministic in-process participant (pinned textual
and pytest-textual-snapshot; fixed terminal size). The scenarios are the screenshots' (`tests/tui/scenarios.py`).
After an intended change: `pytest tests/tui/test_snapshots.py --snapshot-update`, look at the report, and
regenerate the screenshots (`python screenshots/generate.py`)."""

from __future__ import annotations

import pytest

from tests.tui.deterministic import FixedLedgerApp, deterministic
from tests.tui.scenarios import NEEDS_DARS, SCREENS

SIZE = (160, 42)
SMALL = (80, 24)  # the smallest terminal every screen must be usable in
SMALL_SCREENS = [
    "contracts",
    "contracts-filtered",
    "inspector",
    "inspector-transaction",
    "composer",
    "composer-result",
    "composer-typed",
    "reassign",
    "requests",
    "request-detail",
    "packages",
    "transactions",
    "transaction",
    "help",
    "startup",
    "parties",
]


TALL = (160, 48)
TALL_SCREENS = ["transactions"]  # a screen that fills what height it has with rows


@pytest.fixture
def fixed_app(tmp_path, monkeypatch):
    with deterministic(monkeypatch) as sources:
        yield FixedLedgerApp(tmp_path, sources=sources)


def scenario_of(name: str, request: pytest.FixtureRequest):
    """The scenario of a screen; one that uploads a reference DAR skips, saying so, without them."""
    if name in NEEDS_DARS:
        request.getfixturevalue("dars_dir")
    return SCREENS[name][1]


@pytest.mark.parametrize("name", list(SCREENS))
def test_screen(snap_compare, fixed_app, name, request):
    scenario = scenario_of(name, request)
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=scenario)


@pytest.mark.parametrize("name", SMALL_SCREENS)
def test_screen_at_80x24(snap_compare, fixed_app, name, request):
    scenario = scenario_of(name, request)
    assert snap_compare(fixed_app, terminal_size=SMALL, run_before=scenario)


@pytest.mark.parametrize("name", TALL_SCREENS)
def test_screen_at_160x48(snap_compare, fixed_app, name, request):
    scenario = scenario_of(name, request)
    assert snap_compare(fixed_app, terminal_size=TALL, run_before=scenario)
