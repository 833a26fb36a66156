"""Exports of the contract browser: ledger text cannot act on the terminal or the spreadsheet that shows the file,
the file is readable by its owner only, and a file that exists is replaced only when the user says so."""

from __future__ import annotations

import csv
import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from app.screens.acs import AcsScreen
from app.screens.dialogs import ChoiceDialog, PromptDialog
from app.snapshot import Row, Snapshot, ViewSpec
from app.widgets.acs_columns import row_export_columns
from app.widgets.contract_table import Column
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_acs_browser import _loaded

pytestmark = pytest.mark.usefixtures("umask_022")

HOSTILE = {
    "title": "\x1b]0;owned\x07",
    "clipboard": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "csi": "\x1b[2J\x1b[31mred",
    "link": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "c1": "\x9b31mred",
    "bidi": "abc\u202egpj.exe",
    "del": "a\x7fb",
    "formula": '=HYPERLINK("https://evil.example")',
    "at": "@SUM(A1)",
    "plus": "+1+cmd|' /C calc'!A0",
    "minus": "-2+3",
    "tab": "\t=1",
    "amount": "-5.0000000000",
    "count": "+3",
}
# What a spreadsheet shows in each CSV cell: escapes for control characters, `'` before what would be a formula.
CSV_CELLS = {
    "title": "\\x1b]0;owned\\x07",
    "clipboard": "\\x1b]52;c;cm0gLXJmIH4=\\x07",
    "csi": "\\x1b[2J\\x1b[31mred",
    "link": "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\",
    "c1": "\\x9b31mred",
    "bidi": "abc\\u202egpj.exe",
    "del": "a\\x7fb",
    "formula": '\'=HYPERLINK("https://evil.example")',
    "at": "'@SUM(A1)",
    "plus": "'+1+cmd|' /C calc'!A0",
    "minus": "'-2+3",
    "tab": "'\\x09=1",
    "amount": "-5.0000000000",  # a number, negative or not, stays a number
    "count": "+3",
}
RAW_FORBIDDEN = ["\x1b", "\x07", "\x7f", "\x9b", "\u202e", "\t"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _entry(i: int, payload: dict) -> dict:
    event = {
        "contractId": f"00{i:064x}",
        "templateId": "pkg:Iou:Iou",
        "offset": 5,
        "createdAt": "2025-01-01T00:00:00Z",
        "signatories": ["Alice::1"],
        "observers": [],
        "createArgument": payload,
    }
    return {
        "workflowId": "",
        "contractEntry": {
            "JsActiveContract": {"createdEvent": event, "synchronizerId": "sync::1", "reassignmentCounter": 0}
        },
    }


@pytest.fixture
async def hostile_snapshot(tmp_path):
    snapshot = await Snapshot.open(tmp_path / "cache" / "view.db")
    await snapshot.store.reset(10)
    await snapshot.store.add_snapshot_entries([_entry(1, {**HOSTILE, "\x1b[8mhidden": "x"})])
    await snapshot.views.build_view(ViewSpec(offset=10))
    yield snapshot
    await snapshot.close()


def _columns(keys: list[str]) -> list[tuple[str, Callable[[Row], object]]]:
    return row_export_columns([Column(key, key, 10, str) for key in keys])


async def test_csv_cells_are_neutralised_and_numbers_kept(hostile_snapshot, tmp_path):
    path = tmp_path / "out.csv"
    keys = [f"payload.{name}" for name in HOSTILE] + ["payload.\x1b[8mhidden", "payload"]
    assert await hostile_snapshot.export.write(path, "csv", _columns(keys)) == 1
    raw = path.read_text(encoding="utf-8")
    assert not [c for c in RAW_FORBIDDEN if c in raw]
    with open(path, newline="", encoding="utf-8") as f:
        header, row = list(csv.reader(f))
    assert header[-2] == "payload.\\x1b[8mhidden"
    assert dict(zip(header[1 : len(HOSTILE) + 1], row[1 : len(HOSTILE) + 1], strict=True)) == {
        f"payload.{name}": cell for name, cell in CSV_CELLS.items()
    }
    # The whole payload, as JSON: escaped so that it stays the same JSON value.
    assert json.loads(row[-1]) == {**HOSTILE, "\x1b[8mhidden": "x"}
    assert mode(path) == 0o600


async def test_json_lines_escape_what_json_leaves_raw_and_keep_every_value(hostile_snapshot, tmp_path):
    path = tmp_path / "out.jsonl"
    assert await hostile_snapshot.export.write(path, "jsonl", []) == 1
    raw = path.read_text(encoding="utf-8")
    assert not [c for c in RAW_FORBIDDEN if c in raw]
    assert "\\u009b" in raw and "\\u202e" in raw and "\\u007f" in raw
    [line] = raw.splitlines()
    assert json.loads(line)["createArgument"] == {**HOSTILE, "\x1b[8mhidden": "x"}
    assert mode(path) == 0o600


async def test_an_export_replaces_a_file_only_when_told(hostile_snapshot, tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("kept\n")
    with pytest.raises(FileExistsError):
        await hostile_snapshot.export.write(path, "jsonl", [])
    assert path.read_text() == "kept\n" and mode(path) == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    await hostile_snapshot.export.write(path, "jsonl", [], overwrite=True)
    assert path.read_text() != "kept\n" and mode(path) == 0o600


async def test_the_export_asks_before_it_overwrites(demo_server, make_app, tmp_path):
    target = tmp_path / "view[b]1.csv"  # brackets are text, not markup
    target.write_text("kept\n")
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the export dialog")
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the overwrite question")
        assert f"{target} exists." in screen_text(app)
        app.screen.query_one(OptionList).highlighted = 1  # Cancel
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the export dialog again")
        assert app.screen.query_one(Input).value == str(target)  # the path typed is kept
        assert target.read_text() == "kept\n"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the overwrite question again")
        app.screen.query_one(OptionList).highlighted = 0  # Overwrite it
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.read_text() != "kept\n", "the file replaced")
        assert app.screen is screen
    with open(target, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:4] == ["status", "Template", "Payload", "Contract"] and len(rows) > 2
    assert mode(target) == 0o600
