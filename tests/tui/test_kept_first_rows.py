"""A cache too large to keep whole (a million contracts took a GB of the user's home, three times over) keeps only
the first rows of the offset viewed and how many there were: the next start shows them at once, said to be the
first of that many and the last session's, then reads a new snapshot (a part of the contracts cannot be brought up
to date by the updates since)."""

from __future__ import annotations

import sqlite3

from app.snapshot import CreatedRecord, Interval, Snapshot, ViewSpec
from app.workspace import kept
from app.workspace.kept import KEPT_TABLE, KeptKey, Whose, describe, find_kept
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_kept_rows import (
    SNAPSHOT_PATHS,
    NotAnsweringYet,
    _a_session,
    _app,
    _loaded,
    kept_rows_drawn,
)
from tests.tui.test_snapshot import _entry

FIRST = 3


async def test_the_store_keeps_the_first_contracts_of_the_offset_in_a_new_file(tmp_path):
    snapshot = await Snapshot.open(tmp_path / "123-1.db")
    key = KeptKey("http://participant", "Alice")
    path = key.path(tmp_path)
    await snapshot.store.reset(10)
    await snapshot.store.add_snapshot_entries([_entry(i) for i in range(50)])
    # at 12 the first contract is archived and one is created: the state at 12 starts at the second
    first_id = _entry(0)["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]
    created = CreatedRecord(
        "00" + "f" * 64, "pkg:Other:Thing", 12, "2025-01-02T00:00:00Z", ["Bob::2"], [], {"n": -1}
    )
    await snapshot.store.apply_forward(12, [created], [(first_id, 12)], [12])
    count = await snapshot.views.build_view(ViewSpec(offset=12))
    expected = [r.contract_id for r in await snapshot.views.window(0, FIRST)]
    assert first_id not in expected and count == 50
    whose = Whose(key, "participant::1", "Alice", ["Alice::1"], 12)
    await snapshot.store.keep_first(path, 12, FIRST, describe(whose, 12, 12))  # which closes the store
    assert not (tmp_path / "123-1.db").exists()  # the whole file is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # and nothing half-written is left
    found = find_kept(tmp_path, key)
    assert found is not None and (found.lo, found.hi, found.first_of) == (12, 12, count)
    reopened = await Snapshot.reopen(path, Interval(12, 12))
    try:
        assert await reopened.views.build_view(ViewSpec(offset=12)) == FIRST
        assert [r.contract_id for r in await reopened.views.window(0, FIRST)] == expected
        assert await reopened.store.template_ids() == ["pkg:Iou:Iou"]
    finally:
        await reopened.close()


async def test_a_large_cache_keeps_its_first_rows_shown_at_the_next_start_then_read_again(
    demo_writable, make_app, locations, monkeypatch
):
    monkeypatch.setattr(kept, "KEPT_WHOLE_AT_MOST", 0)  # every cache is too large to keep whole
    monkeypatch.setattr(kept, "KEPT_FIRST_ROWS", FIRST)
    count, offset, _ = await _a_session(make_app(demo_writable, "Alice"))
    assert count > FIRST
    files = list(locations.snapshots_dir.glob("kept-*.db"))
    assert len(files) == 1
    with sqlite3.connect(files[0]) as db:
        assert db.execute("SELECT count(*) FROM contracts").fetchone() == (FIRST,)
        assert db.execute(f"SELECT first_of, lo, hi FROM {KEPT_TABLE}").fetchone() == (count, offset, offset)

    held = NotAnsweringYet()
    app = _app(demo_writable, locations, "Alice", held)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await kept_rows_drawn(pilot, app, held)
        assert (table.count, screen.offset) == (FIRST, offset)
        text = screen_text(app)
        assert f"the first {FIRST} of {count} contracts" in text
        assert f"viewing {offset} cached, not current" in text

        held.answering.set()
        await wait_for(
            pilot,
            lambda: not app.status_stale and _loaded(app) and table.count == count,
            "the rows read again",
        )
        assert set(SNAPSHOT_PATHS) & set(held.paths)  # a new snapshot, not the updates since
        assert "/v2/updates" not in held.paths
        assert "the first" not in screen_text(app) and "cached" not in screen_text(app)
    # whole again: this session read every contract, and kept the first again
    with sqlite3.connect(files[0]) as db:
        assert db.execute(f"SELECT first_of FROM {KEPT_TABLE}").fetchone() == (count,)
