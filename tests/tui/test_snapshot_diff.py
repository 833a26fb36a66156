"""The local snapshot cache through a ledger's history: the state at an offset is the same whichever way the cache
was filled, a move between synchronizers shows its contract once, and what is counted and exported is the state,
not the rows shown for comparison."""

from __future__ import annotations

import json

from app.snapshot import (
    ACTIVE,
    ADDED,
    CHANGED,
    REMOVED,
    SAME,
    UNASSIGNED,
    CreatedRecord,
    Move,
    Snapshot,
    ViewSpec,
)
from app.widgets.contract_table import row_mark

GLOBAL, PRIVATE = "global::1", "private::1"
MOVE = Move("00aa", GLOBAL, PRIVATE, "Alice::1")


def cid(name: str) -> str:
    return "00" + name.encode().hex().ljust(64, "0")


def created_event(name: str, offset: int) -> dict:
    return {
        "contractId": cid(name),
        "templateId": "pkg:Iou:Iou",
        "offset": offset,
        "createdAt": "2025-01-01T00:00:00Z",
        "signatories": ["Alice::1"],
        "observers": [],
        "createArgument": {"name": name},
    }


def active(name: str, offset: int, synchronizer: str = GLOBAL, counter: int = 0) -> dict:
    return {
        "workflowId": "",
        "contractEntry": {
            "JsActiveContract": {
                "createdEvent": created_event(name, offset),
                "synchronizerId": synchronizer,
                "reassignmentCounter": counter,
            }
        },
    }


def in_flight(name: str, created: int, unassigned: int) -> dict:
    return {
        "workflowId": "",
        "contractEntry": {
            "JsIncompleteUnassigned": {
                "createdEvent": created_event(name, created),
                "unassignedEvent": {
                    "offset": unassigned,
                    "reassignmentId": MOVE.reassignment_id,
                    "contractId": cid(name),
                    "source": MOVE.source,
                    "target": MOVE.target,
                    "submitter": MOVE.submitter,
                    "reassignmentCounter": 1,
                },
            }
        },
    }


def record(name: str, offset: int, synchronizer: str, counter: int) -> CreatedRecord:
    return CreatedRecord(
        cid(name),
        "pkg:Iou:Iou",
        offset,
        "2025-01-01T00:00:00Z",
        ["Alice::1"],
        [],
        {"name": name},
        synchronizer=synchronizer,
        counter=counter,
        kind=ACTIVE,
    )


async def stepped(tmp_path) -> Snapshot:
    """A cache read at offset 10 (a, b, c on global), then stepped through: 11 archives b and creates d, 12
    unassigns a (in flight to private), 13 assigns it on private."""
    snapshot = await Snapshot.open(tmp_path / "stepped.db")
    await snapshot.store.reset(10)
    await snapshot.store.add_snapshot_entries([active("a", 3), active("b", 4), active("c", 5)])
    await snapshot.store.index_ids()
    await snapshot.store.apply_forward(11, [record("d", 11, GLOBAL, 0)], [(cid("b"), 11)], [11])
    await snapshot.store.apply_reassignment(12, [(cid("a"), MOVE, 1)], [])
    await snapshot.store.apply_reassignment(13, [], [record("a", 13, PRIVATE, 1)])
    return snapshot


async def view(snapshot: Snapshot, offset: int, previous: int | None = None) -> dict[str, tuple]:
    """The view at `offset` marked against `previous`, by contract name: (status, mark, kind, synchronizer, counter).
    A contract in the view twice fails here."""
    count = await snapshot.views.build_view(ViewSpec(offset=offset, previous=previous))
    rows = await snapshot.views.window(0, count)
    names = [bytes.fromhex(r.contract_id[2:].rstrip("0")).decode() for r in rows]
    assert len(set(names)) == len(names), names
    return {
        name: (r.status, row_mark(r), r.kind, r.synchronizer, r.counter)
        for name, r in zip(names, rows, strict=True)
    }


async def test_an_unassign_shows_the_contract_in_flight_once_stepped_or_read_directly(tmp_path):
    snapshot = await stepped(tmp_path)
    direct = await Snapshot.open(tmp_path / "direct.db")
    try:
        step = await view(snapshot, 12, previous=11)
        assert step["a"] == (CHANGED, "~", UNASSIGNED, GLOBAL, 1)
        assert {n: v[0] for n, v in step.items()} == {"a": CHANGED, "c": SAME, "d": SAME}

        await direct.store.reset(12)
        await direct.store.add_snapshot_entries([in_flight("a", 3, 12), active("c", 5), active("d", 11)])
        read = await view(direct, 12)
        # the same rows with the same marks: the in-flight contract is `~` whichever way offset 12 was reached
        assert {n: v[1:] for n, v in read.items()} == {n: v[1:] for n, v in step.items()}
        assert {n: v[1:] for n, v in (await view(snapshot, 12)).items()} == {
            n: v[1:] for n, v in read.items()
        }
    finally:
        await snapshot.close()
        await direct.close()


async def test_an_assign_shows_the_contract_once_on_its_new_synchronizer(tmp_path):
    snapshot = await stepped(tmp_path)
    try:
        assert (await view(snapshot, 13, previous=12))["a"] == (CHANGED, "*", ACTIVE, PRIVATE, 1)
        # stepping over the whole move, either way: the contract once, in its state at the offset viewed
        assert (await view(snapshot, 13, previous=11))["a"] == (CHANGED, "*", ACTIVE, PRIVATE, 1)
        assert (await view(snapshot, 11, previous=13))["a"] == (CHANGED, "*", ACTIVE, GLOBAL, 0)
        assert (await view(snapshot, 12, previous=13))["a"][:3] == (CHANGED, "~", UNASSIGNED)
        assert snapshot.views.view_removed == 0 and snapshot.views.view_contracts == 3
    finally:
        await snapshot.close()


async def test_counts_and_exports_hold_the_state_not_the_struck_out_rows(tmp_path):
    snapshot = await stepped(tmp_path)
    try:
        rows = await view(snapshot, 11, previous=10)
        assert {n: v[0] for n, v in rows.items()} == {"a": SAME, "b": REMOVED, "c": SAME, "d": ADDED}
        assert (snapshot.views.view_count, snapshot.views.view_removed, snapshot.views.view_contracts) == (
            4,
            1,
            3,
        )
        written = await snapshot.export.write(tmp_path / "state.jsonl", "jsonl", [])
        exported = [json.loads(line) for line in (tmp_path / "state.jsonl").read_text().splitlines()]
        assert written == 3
        assert sorted(e["contractId"] for e in exported) == sorted(cid(n) for n in "acd")

        back = await view(snapshot, 10, previous=13)  # the other way: d is gone at 10, b is back
        assert {n: v[0] for n, v in back.items()} == {"a": CHANGED, "b": ADDED, "c": SAME, "d": REMOVED}
        written = await snapshot.export.write(
            tmp_path / "state.csv", "csv", [("id", lambda r: r.contract_id)]
        )
        lines = (tmp_path / "state.csv").read_text().splitlines()
        assert written == 3 and sorted(lines[1:]) == sorted(cid(n) for n in "abc")
    finally:
        await snapshot.close()
