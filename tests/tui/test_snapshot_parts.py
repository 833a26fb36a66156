"""The snapshot cache's three parts through their faces: the store tells the views of each change, which drops the
view built before it; the views hand their rows to the export a window at a time."""

from __future__ import annotations

from app.snapshot import CreatedRecord, Export, Store, Views, ViewSpec
from tests.tui.test_snapshot import _entry


def _created(i: int, offset: int) -> CreatedRecord:
    return CreatedRecord(
        f"00{i:064x}", "pkg:Iou:Iou", offset, "2025-01-01T00:00:00Z", ["Alice::1"], [], {"n": i}, "sync::1", 0
    )


async def test_the_store_tells_of_each_change_and_the_views_drop_the_view_built_before_it(tmp_path):
    store = await Store.open(tmp_path / "cache.db")
    views = Views(store)
    told: list[bool] = []
    store.when_changed(told.append)
    try:
        await store.reset(10)
        await store.add_snapshot_entries([_entry(i) for i in range(5)])
        assert told == [True]  # emptied for a snapshot; storing its entries is part of it
        assert await views.build_view(ViewSpec(offset=10)) == 5
        assert len(await views.window(0, 10)) == 5

        await store.apply_forward(11, [_created(5, 11)], [(f"00{0:064x}", 11)], [11])
        assert told == [True, False]
        assert await views.window(0, 10) == []  # the view of before the change is gone until built again
        assert await views.position_of(f"00{1:064x}") is None
        assert await views.build_view(ViewSpec(offset=11)) == 5
        assert [r.contract_id for r in await views.window(0, 10)][-1] == f"00{5:064x}"

        await store.apply_backward(9, [], [10])
        await store.apply_reassignment(12, [], [])
        assert told == [True, False, False, False]
        assert (store.interval.lo, store.interval.hi) == (9, 12)

        await store.reset(20)
        assert told[-1] is True
        assert (views.view_count, views.view_removed, views.view_contracts) == (0, 0, 0)
        assert await views.window(0, 10) == []
    finally:
        await store.close()


async def test_the_views_hand_the_export_their_rows_a_window_at_a_time(tmp_path):
    store = await Store.open(tmp_path / "cache.db")
    views = Views(store)
    export = Export(views)
    try:
        await store.reset(10)
        await store.add_snapshot_entries([_entry(i) for i in range(7)])
        await views.build_view(ViewSpec(offset=10, sort="offset", descending=True))
        windows = await views.in_worker(lambda: list(views.windows(3)))
        assert [len(w) for w in windows] == [3, 3, 1]
        assert [r.position for w in windows for r in w] == list(range(7))
        written = await export.write(tmp_path / "out.csv", "csv", [("id", lambda r: r.contract_id)])
        assert written == 7
        lines = (tmp_path / "out.csv").read_text().splitlines()
        assert lines[0] == "id" and lines[1:] == [r.contract_id for w in windows for r in w]
    finally:
        await store.close()
