"""The files the terminal client keeps are readable by their owner only, and the directories it makes for them
only by their owner, whatever the umask: the snapshot cache, the command history (also when it is rewritten to
keep the newest entries), the column choices and the log (also after a rotation)."""

from __future__ import annotations

import logging
import stat
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

from app.cli import _setup_logging
from app.compose.history import History, HistoryEntry
from app.locations import Locations
from app.snapshot import Snapshot
from app.widgets.acs_columns import ColumnChoices
from tests.tui.test_commands import form

pytestmark = pytest.mark.usefixtures("umask_022")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_snapshot_cache_is_private(tmp_path):
    path = tmp_path / "cache" / "snapshots" / "view.db"
    snapshot = await Snapshot.open(path)
    try:
        assert mode(path) == 0o600
        assert mode(path.parent) == mode(path.parent.parent) == 0o700
    finally:
        await snapshot.close()


def test_the_history_is_private_also_after_it_is_rewritten(tmp_path):
    history = History(tmp_path / "data" / "history.jsonl", keep=10)
    history.append(HistoryEntry.now(form(command_id="c0"), ok=True))
    assert mode(history.path) == 0o600 and mode(history.path.parent) == 0o700
    inode = history.path.stat().st_ino
    for i in range(1, 12):
        history.append(HistoryEntry.now(form(command_id=f"c{i}"), ok=True))
    assert history.path.stat().st_ino != inode  # rewritten, to keep the newest
    assert mode(history.path) == 0o600
    assert list(history.path.parent.iterdir()) == [history.path]  # no temporary file left


def test_a_history_left_readable_by_others_is_made_private(tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_bytes(b"")
    assert mode(path) == 0o644
    History(path).append(HistoryEntry.now(form(command_id="c0"), ok=True))
    assert mode(path) == 0o600


def test_the_column_choices_are_private(tmp_path):
    path = tmp_path / "data" / "columns.json"
    ColumnChoices(path).set("pkg:Iou:Iou", ["payload.amount"])
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


def test_the_log_is_private_also_after_a_rotation(tmp_path):
    locations = Locations(
        tmp_path / "c.toml", tmp_path / "data", tmp_path / "cache", tmp_path / "logs" / "app"
    )
    root = logging.getLogger("ledger_tui")
    before = list(root.handlers)
    _setup_logging(locations)
    [handler] = [h for h in root.handlers if h not in before]
    try:
        root.info("a line")
        log = locations.log_dir / "ledger-tui.log"
        assert mode(log) == 0o600
        assert mode(locations.log_dir) == mode(locations.log_dir.parent) == 0o700
        assert isinstance(handler, RotatingFileHandler)
        handler.doRollover()
        root.info("another line")
        assert mode(log) == 0o600 and mode(log.with_name("ledger-tui.log.1")) == 0o600
    finally:
        root.removeHandler(handler)
        handler.close()
