"""The local snapshot cache on its own: where a contract sits in a view, whatever the order."""

from __future__ import annotations

from app.snapshot import Snapshot, ViewSpec


def _entry(i: int) -> dict:
    event = {
        "contractId": f"00{i:064x}",
        "templateId": "pkg:Iou:Iou",
        "offset": 5,
        "createdAt": f"2025-01-01T00:00:{i % 60:02d}Z",
        "signatories": ["Alice::1"],
        "observers": [],
        "createArgument": {"amount": str(1000 - i), "n": i},
    }
    return {
        "workflowId": "",
        "contractEntry": {
            "JsActiveContract": {"createdEvent": event, "synchronizerId": "sync::1", "reassignmentCounter": 0}
        },
    }


async def test_finds_each_contract_in_views_of_every_order(tmp_path):
    snapshot = await Snapshot.open(tmp_path / "cache.db")
    try:
        await snapshot.store.reset(10)
        await snapshot.store.add_snapshot_entries([_entry(i) for i in range(257)])
        for sort, descending in (
            ("arrival", False),
            ("arrival", True),
            ("payload.amount", False),
            ("contract", True),
        ):
            count = await snapshot.views.build_view(ViewSpec(offset=10, sort=sort, descending=descending))
            rows = await snapshot.views.window(0, count)
            for row in rows[::7] + rows[-1:]:
                assert await snapshot.views.position_of(row.contract_id) == row.position, (sort, descending)
        await snapshot.views.build_view(ViewSpec(offset=10, text=f"{7:064x}"))
        assert await snapshot.views.position_of(f"00{3:064x}") is None  # not in this view
        assert await snapshot.views.position_of("00" + "f" * 64) is None  # not in the cache
    finally:
        await snapshot.close()


async def test_a_large_view_hands_over_its_first_rows_before_the_rest(tmp_path, monkeypatch):
    import app.snapshot.views

    # "large" from 100 contracts on, for the test
    monkeypatch.setattr(app.snapshot.views, "QUICK_VIEW_ABOVE", 100)
    monkeypatch.setattr(app.snapshot.views, "FIRST_ROWS", 20)
    snapshot = await Snapshot.open(tmp_path / "cache.db")
    try:
        await snapshot.store.reset(10)
        await snapshot.store.add_snapshot_entries([_entry(i) for i in range(257)])
        for spec in (
            ViewSpec(offset=10, sort="payload.amount"),
            ViewSpec(offset=10, sort="contract", descending=True),
            ViewSpec(offset=10, text="9", sort="created_at"),
        ):
            early: list = []
            count = await snapshot.views.build_view(spec, early.append)
            (first,) = early
            final = await snapshot.views.window(0, count)
            assert [(r.position, r.contract_id, r.status) for r in first] == [
                (r.position, r.contract_id, r.status) for r in final[:20]
            ], spec
        small: list = []
        await snapshot.views.build_view(ViewSpec(offset=10, sort="arrival"), small.append)
        await snapshot.views.build_view(
            ViewSpec(offset=10, sort="arrival"), small.append
        )  # only new rows: no early ones
        assert len(small) == 1
    finally:
        await snapshot.close()
