"""`ledger-participant prune` beside a running server, and what the Ledger API answers about pruned history
(docs/ledger-api.md §10): the pruning offset, the ACS before and after it, events of pruned contracts, updates."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.conftest import SECRET, LedgerApi, ServerProcess, start_server

IOU = "#model-tests:Iou:Iou"
WILDCARD = {
    "cumulative": [{"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}]
}


def prune(db, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "participant.server.cli", "prune", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def event_format(party: str) -> dict:
    return {"filtersByParty": {party: WILDCARD}, "verbose": False}


async def acs(ledger_api: LedgerApi, party: str, offset: int) -> httpx.Response:
    return await ledger_api.post(
        "/v2/state/active-contracts",
        {"eventFormat": event_format(party), "activeAtOffset": offset},
        user="Alice",
    )


def ids(r: httpx.Response) -> list[str]:
    assert r.status_code == 200, r.text
    return [e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] for e in r.json()]


async def events(ledger_api: LedgerApi, party: str, cid: str) -> httpx.Response:
    return await ledger_api.post(
        "/v2/events/events-by-contract-id",
        {"contractId": cid, "eventFormat": event_format(party)},
        user="Alice",
    )


async def updates(ledger_api: LedgerApi, party: str, begin: int) -> httpx.Response:
    return await ledger_api.post(
        "/v2/updates",
        {"beginExclusive": begin, "filter": {"filtersByParty": {party: WILDCARD}}, "verbose": False},
        user="Alice",
    )


async def pruned_offset(ledger_api: LedgerApi) -> int:
    r = await ledger_api.get("/v2/state/latest-pruned-offsets")
    assert r.status_code == 200, r.text
    return r.json()["participantPrunedUpToInclusive"]


def assert_pruned_error(r: httpx.Response, earliest: int) -> None:
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["code"] == "PARTICIPANT_PRUNED_DATA_ACCESSED", body
    assert body["context"]["earliest_offset"] == str(earliest)
    assert body["grpcCodeValue"] == 9  # FAILED_PRECONDITION


@pytest.fixture
async def history(server):
    """offset 1: Alice allocated (a topology transaction); 2: iou1 created; 3: iou2 created; 4: iou2 archived;
    5: iou3 created; 6: iou4 created; 7: iou4 archived."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        ledger_api = LedgerApi(http)
        alice = await ledger_api.party("Alice")
        cids = {}
        for name in ("iou1", "iou2"):
            cids[name] = (await ledger_api.create_iou(alice, alice, user="Alice"))["events"][0][
                "CreatedEvent"
            ]["contractId"]
        r = await ledger_api.exercise(IOU, cids["iou2"], "Archive", {}, act_as=[alice], user="Alice")
        assert r.status_code == 200, r.text
        for name in ("iou3", "iou4"):
            cids[name] = (await ledger_api.create_iou(alice, alice, user="Alice"))["events"][0][
                "CreatedEvent"
            ]["contractId"]
        r = await ledger_api.exercise(IOU, cids["iou4"], "Archive", {}, act_as=[alice], user="Alice")
        assert r.status_code == 200, r.text
        assert await ledger_api.ledger_end() == 7
        yield server, ledger_api, alice, cids


async def test_prune_and_read_around_it(history):
    server, ledger_api, alice, cids = history
    assert await pruned_offset(ledger_api) == 0
    ran = prune(server.db, "--up-to", "5")
    assert ran.returncode == 0, ran.stderr
    assert "5" in ran.stdout
    assert await pruned_offset(ledger_api) == 5
    assert (await ledger_api.get("/v2/state/latest-pruned-offsets")).json()[
        "allDivulgedContractsPrunedUpToInclusive"
    ] == 5

    # The ACS before the pruning offset is gone; at it and after it, active contracts created before it remain.
    for offset in (2, 4):
        assert_pruned_error(await acs(ledger_api, alice, offset), 5)
    assert ids(await acs(ledger_api, alice, 5)) == [cids["iou1"], cids["iou3"]]
    assert ids(await acs(ledger_api, alice, 6)) == [cids["iou1"], cids["iou3"], cids["iou4"]]
    assert ids(await acs(ledger_api, alice, 7)) == [cids["iou1"], cids["iou3"]]

    # A contract archived at or before the pruning offset has no events any more; others keep theirs.
    r = await events(ledger_api, alice, cids["iou2"])
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "CONTRACT_EVENTS_NOT_FOUND"
    r = await events(ledger_api, alice, cids["iou1"])
    assert r.status_code == 200, r.text
    assert r.json()["created"]["createdEvent"]["offset"] == 2 and r.json()["archived"] is None
    r = await events(ledger_api, alice, cids["iou4"])
    assert r.status_code == 200, r.text
    assert r.json()["archived"]["archivedEvent"]["offset"] == 7

    # Updates from before the pruning offset are refused; from it on they are served.
    for begin in (0, 4):
        assert_pruned_error(await updates(ledger_api, alice, begin), 5)
    r = await updates(ledger_api, alice, 5)
    assert r.status_code == 200, r.text
    assert [u["update"]["Transaction"]["value"]["offset"] for u in r.json()] == [6, 7]
    r = await ledger_api.post(
        "/v2/commands/completions", {"userId": "Alice", "parties": [alice], "beginExclusive": 3}, user="Alice"
    )
    assert_pruned_error(r, 5)

    # A pruned archived contract cannot be exercised; the ledger carries on after its end.
    r = await ledger_api.exercise(IOU, cids["iou2"], "Archive", {}, act_as=[alice], user="Alice")
    assert r.status_code == 404, r.text
    tx = await ledger_api.create_iou(alice, alice, user="Alice")
    assert tx["offset"] == 8


async def test_refused_prunes_change_nothing(history):
    server, ledger_api, alice, cids = history
    ran = prune(server.db, "--up-to", "8")  # beyond the ledger end (7)
    assert ran.returncode == 2
    assert "ledger end is 7" in ran.stderr and ran.stdout == ""
    assert await pruned_offset(ledger_api) == 0
    assert ids(await acs(ledger_api, alice, 3)) == [cids["iou1"], cids["iou2"]]
    assert (await events(ledger_api, alice, cids["iou2"])).status_code == 200

    for bad in ("0", "-1"):
        ran = prune(server.db, "--up-to", bad)
        assert ran.returncode == 2 and "error" in ran.stderr

    assert prune(server.db, "--up-to", "4").returncode == 0
    for again in ("4", "3"):  # not beyond the current pruning offset
        ran = prune(server.db, "--up-to", again)
        assert ran.returncode == 2
        assert "already pruned up to 4" in ran.stderr
    assert await pruned_offset(ledger_api) == 4
    assert ids(await acs(ledger_api, alice, 4)) == [cids["iou1"]]
    r = await events(ledger_api, alice, cids["iou2"])  # archived exactly at the pruning offset
    assert r.status_code == 404 and r.json()["code"] == "CONTRACT_EVENTS_NOT_FOUND", r.text
    assert prune(server.db, "--up-to", "6").returncode == 0
    assert await pruned_offset(ledger_api) == 6

    missing = server.db.parent / "missing.db"
    ran = prune(missing, "--up-to", "1")
    assert ran.returncode == 2 and str(missing) in ran.stderr
    assert not missing.exists()


async def test_prune_while_submitting(history):
    """Pruning beside a server that is writing: both go on, nothing is lost after the pruning offset."""
    server, ledger_api, alice, _ = history
    results: list[int] = []
    pruning = asyncio.create_task(asyncio.to_thread(prune, server.db, "--up-to", "7"))

    async def submit(n: int) -> None:
        for i in range(100):  # until the pruning is over, at most 100 each
            if pruning.done() and i >= 3:
                return
            r = await ledger_api.post(
                "/v2/commands/submit-and-wait",
                {
                    "commands": [
                        {
                            "CreateCommand": {
                                "templateId": IOU,
                                "createArguments": {
                                    "issuer": alice,
                                    "owner": alice,
                                    "currency": "USD",
                                    "amount": f"{n + 1}.{i:02d}",
                                    "observers": [],
                                },
                            }
                        }
                    ],
                    "commandId": f"p-{n}-{i}-{os.urandom(4).hex()}",
                    "actAs": [alice],
                },
                user="Alice",
            )
            results.append(r.status_code)

    await asyncio.gather(*(submit(n) for n in range(8)))
    ran = await pruning
    assert ran.returncode == 0, ran.stderr
    assert await pruned_offset(ledger_api) == 7
    assert results == [200] * len(results)
    end = await ledger_api.ledger_end()
    assert end == 7 + len(results)
    offsets: list[int] = []
    for _ in range(end):  # page by page, at most `end` pages
        begin = offsets[-1] if offsets else 7
        if begin >= end:
            break
        r = await ledger_api.post(
            "/v2/updates?limit=100",
            {"beginExclusive": begin, "filter": {"filtersByParty": {alice: WILDCARD}}, "verbose": False},
            user="Alice",
        )
        assert r.status_code == 200 and r.json(), r.text
        offsets += [u["update"]["Transaction"]["value"]["offset"] for u in r.json()]
    assert offsets == list(range(8, end + 1))
    token = ""
    acs_ids = []
    for _ in range(20):
        body = {"eventFormat": event_format(alice), "activeAtOffset": end, "maxPageSize": 100}
        if token:
            body["pageToken"] = token
        r = await ledger_api.call("GET", "/v2/state/active-contracts-page", json=body, user="Alice")
        assert r.status_code == 200, r.text
        acs_ids += [
            e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]
            for e in r.json()["activeContracts"]
        ]
        token = r.json()["nextPageToken"]
        if not token:
            break
    assert len(set(acs_ids)) == len(acs_ids) == 2 + len(results)


def _reassignment(party: str, command: dict) -> dict:
    return {
        "reassignmentCommands": {
            "commandId": f"r-{os.urandom(4).hex()}",
            "submitter": party,
            "commands": [{"command": command}],
        },
        "eventFormat": event_format(party),
    }


async def _reassign(ledger_api: LedgerApi, party: str, command: dict) -> dict:
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-reassignment", _reassignment(party, command), user="Alice"
    )
    assert r.status_code == 200, r.text
    return r.json()["reassignment"]


async def test_prune_past_reassignments(server):
    """Completed reassignments' events go with the rest; moved, in-flight and archived-after-moving contracts
    show as before at the offsets that remain."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        ledger_api = LedgerApi(http)
        alice = await ledger_api.party("Alice")
        a, b = (
            s["synchronizerId"]
            for s in (await ledger_api.get("/v2/state/connected-synchronizers")).json()[
                "connectedSynchronizers"
            ]
        )
        moved, flying, gone = [
            (await ledger_api.create_iou(alice, alice, user="Alice"))["events"][0]["CreatedEvent"][
                "contractId"
            ]
            for _ in range(3)
        ]
        for cid in (moved, gone):
            out = await _reassign(
                ledger_api,
                alice,
                {"UnassignCommand": {"value": {"contractId": cid, "source": a, "target": b}}},
            )
            rid = out["events"][0]["JsUnassignedEvent"]["value"]["reassignmentId"]
            await _reassign(
                ledger_api,
                alice,
                {"AssignCommand": {"value": {"reassignmentId": rid, "source": a, "target": b}}},
            )
        await _reassign(
            ledger_api,
            alice,
            {"UnassignCommand": {"value": {"contractId": flying, "source": a, "target": b}}},
        )
        r = await ledger_api.exercise(IOU, gone, "Archive", {}, act_as=[alice], user="Alice")
        assert r.status_code == 200, r.text
        end = await ledger_api.ledger_end()
        before = (await acs(ledger_api, alice, end)).json()
        ran = prune(server.db, "--up-to", str(end))
        assert ran.returncode == 0, ran.stderr
        assert (await acs(ledger_api, alice, end)).json() == before
        kinds = {next(iter(e["contractEntry"])) for e in before}
        assert kinds == {"JsActiveContract", "JsIncompleteUnassigned"} and len(before) == 2
        # The in-flight contract can still be assigned, and the moved one moved back.
        (entry,) = [e for e in before if "JsIncompleteUnassigned" in e["contractEntry"]]
        rid = entry["contractEntry"]["JsIncompleteUnassigned"]["unassignedEvent"]["reassignmentId"]
        await _reassign(
            ledger_api, alice, {"AssignCommand": {"value": {"reassignmentId": rid, "source": a, "target": b}}}
        )
        await _reassign(
            ledger_api, alice, {"UnassignCommand": {"value": {"contractId": moved, "source": b, "target": a}}}
        )
        r = await events(ledger_api, alice, gone)
        assert r.status_code == 404, r.text
        counts = {
            e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]: e["contractEntry"][
                "JsActiveContract"
            ]["reassignmentCounter"]
            for e in (await acs(ledger_api, alice, await ledger_api.ledger_end())).json()
            if "JsActiveContract" in e["contractEntry"]
        }
        assert counts == {flying: 1}


@contextlib.asynccontextmanager
async def served(db) -> AsyncIterator[tuple[ServerProcess, LedgerApi]]:
    """A server on `db` for the time of the block (to stop it, and to serve the same file again)."""
    server = start_server(db, "--hs256-secret", SECRET)
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            yield server, LedgerApi(http)
    finally:
        server.stop()


def compact(db) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "participant.server.cli", "compact", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=300,
    )


async def test_compact_gives_back_what_pruning_freed_and_keeps_the_ledger(tmp_path):
    db = tmp_path / "ledger.db"
    async with served(db) as (server, ledger_api):
        alice = await ledger_api.party("Alice")
        for i in range(40):  # archived Ious with big payloads: history that pruning removes
            created = await ledger_api.create_iou(alice, alice, currency=f"{i:03}" + "X" * 4000, user="Alice")
            cid = created["events"][0]["CreatedEvent"]["contractId"]
            r = await ledger_api.exercise(IOU, cid, "Archive", {}, act_as=[alice], user="Alice")
            assert r.status_code == 200, r.text
        kept = (await ledger_api.create_iou(alice, alice, user="Alice"))["events"][0]["CreatedEvent"]
        end = await ledger_api.ledger_end()
        assert prune(db, "--up-to", str(end)).returncode == 0
        before = (await acs(ledger_api, alice, end)).json()
        ran = compact(db)  # refused: the server holds the database
        assert ran.returncode == 2 and ran.stdout == ""
        assert f"{db} is in use by a running ledger-participant (pid {server.process.pid}" in ran.stderr
        assert "stop it first" in ran.stderr
    size = db.stat().st_size
    ran = compact(db)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(f"compacted {db}: ") and "free pages" in ran.stdout
    assert db.stat().st_size < size / 2
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
    ran = compact(db)
    assert ran.returncode == 0 and "has no free pages: nothing to give back" in ran.stdout

    async with served(db) as (_, ledger_api):  # the same ledger, served again
        assert await ledger_api.ledger_end() == end
        assert await pruned_offset(ledger_api) == end
        after = (await acs(ledger_api, alice, end)).json()
        assert after == before and [
            e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] for e in after
        ] == [kept["contractId"]]
        created = await ledger_api.create_iou(alice, alice, user="Alice")  # and it takes new transactions
        assert created["offset"] == end + 1


@pytest.mark.parametrize("content", [None, b"", b"not a database at all, just some text" * 100])
def test_compact_refuses_what_is_not_a_participant_database(tmp_path, content):
    db = tmp_path / "ledger.db"
    if content is not None:
        db.write_bytes(content)
    ran = compact(db)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.startswith("error: ") and str(db) in ran.stderr and "Traceback" not in ran.stderr
    assert (db.read_bytes() == content) if content is not None else not db.exists()


async def test_pruned_up_to_the_ledger_end_the_next_offset_still_comes_after_it(tmp_path):
    db = tmp_path / "ledger.db"
    async with served(db) as (_, ledger_api):
        alice = await ledger_api.party("Alice")
        await ledger_api.create_iou(alice, alice, user="Alice")
        end = await ledger_api.ledger_end()
        assert prune(db, "--up-to", str(end)).returncode == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM updates").fetchone() == (0,)  # every update pruned
    async with served(db) as (_, ledger_api):
        assert await ledger_api.ledger_end() == end
        assert (await ledger_api.create_iou(alice, alice, user="Alice"))["offset"] == end + 1
        ran = prune(db, "--up-to", str(end))
        assert ran.returncode == 2 and f"already pruned up to {end}" in ran.stderr
