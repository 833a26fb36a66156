"""Snapshots of each screen, from the real app against the deterministic in-process participant (pinned textual
and pytest-textual-snapshot; fixed terminal size). Regenerate with `pytest tests/tui/test_snapshots.py
--snapshot-update` after an intended change, and look at the report it writes."""

from __future__ import annotations

import pytest

from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import wait_for
from tests.tui.deterministic import FixedLedgerApp, deterministic

SIZE = (150, 42)


@pytest.fixture
def fixed_app(tmp_path, monkeypatch):
    with deterministic(monkeypatch):
        yield FixedLedgerApp(tmp_path)


async def _contracts_ready(pilot) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen) and not app.screen.loading
                   and app.screen.query_one(ContractTable).row_at(0) is not None, "the contracts")
    await wait_for(pilot, lambda: app.request_log.in_flight == 0, "quiet")
    await pilot.pause(0.2)


def test_contracts_at_the_ledger_end(snap_compare, fixed_app):
    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=_contracts_ready)


def test_contracts_one_change_earlier_with_the_difference_marked(snap_compare, fixed_app):
    async def step_back(pilot) -> None:
        await _contracts_ready(pilot)
        screen = pilot.app.screen
        end = screen.offset
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: screen.offset != end and not screen.loading
                       and screen.query_one(ContractTable).selected is not None, "the earlier offset")
        await wait_for(pilot, lambda: pilot.app.request_log.in_flight == 0, "quiet")
        await pilot.pause(0.2)

    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=step_back)


def test_inspector_of_a_contract(snap_compare, fixed_app):
    async def inspect(pilot) -> None:
        await _contracts_ready(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "InspectorScreen", "the inspector")
        await wait_for(pilot, lambda: pilot.app.request_log.in_flight == 0, "quiet")
        await pilot.pause(0.5)

    assert snap_compare(fixed_app, terminal_size=SIZE, run_before=inspect)
