"""Durability: every submission acknowledged with HTTP 200 survives a `kill -9` of the server.

A real server process on a real SQLite file takes concurrent submissions; once enough are acknowledged it is
killed with SIGKILL while more are in flight. After a restart on the same file every acknowledged transaction
must be there (updates, ACS, events by contract id), offsets must have no holes, and the file must be intact.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import start_server
from tests.spec import validate_response

IOU = "#model-tests:Iou:Iou"
CLIENTS = 16
ITERATIONS = 150  # per client: at most 2400 submissions in all
KILL_AFTER = 200  # acknowledged submissions before the kill
ANY_PARTY = {
    "filtersByParty": {},
    "filtersForAnyParty": {
        "cumulative": [
            {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
        ]
    },
}
EVENT_FORMAT = {**ANY_PARTY, "verbose": False}
SERVER_ARGS = ("--no-auth", "--max-list-elements", "5000")


@dataclass(frozen=True)
class Ack:
    command_id: str
    update_id: str
    offset: int
    contract_id: str


async def checked(http: httpx.AsyncClient, method: str, path: str, body=None) -> httpx.Response:
    r = await http.request(method, path, json=body)
    if r.headers.get("content-type", "").startswith("application/json"):
        validate_response(method, path.split("?")[0], r.status_code, r.json())
    return r


async def allocate(http: httpx.AsyncClient, hint: str) -> str:
    r = await checked(http, "POST", "/v2/parties", {"partyIdHint": hint})
    assert r.status_code == 200, r.text
    return r.json()["partyDetails"]["party"]


def create_body(party: str, command_id: str, amount: str) -> dict:
    return {
        "commands": {
            "commands": [
                {
                    "CreateCommand": {
                        "templateId": IOU,
                        "createArguments": {
                            "issuer": party,
                            "owner": party,
                            "currency": "USD",
                            "amount": amount,
                            "observers": [],
                        },
                    }
                }
            ],
            "commandId": command_id,
            "userId": "crash-test",
            "actAs": [party],
        }
    }


async def client(
    n: int, http: httpx.AsyncClient, party: str, acks: list[Ack], killed: asyncio.Event, enough: asyncio.Event
) -> None:
    for i in range(ITERATIONS):
        if killed.is_set():
            return
        command_id = f"crash-{n}-{i}-{os.urandom(4).hex()}"
        try:
            r = await http.post(
                "/v2/commands/submit-and-wait-for-transaction",
                json=create_body(party, command_id, f"{n}.{i:03d}1"),
            )
        except httpx.HTTPError:
            return  # the server is gone: this submission is not acknowledged
        if r.status_code != 200:
            continue  # not acknowledged (e.g. a 5xx while the server dies)
        tx = r.json()["transaction"]
        created = tx["events"][0]["CreatedEvent"]
        acks.append(Ack(command_id, tx["updateId"], tx["offset"], created["contractId"]))
        if len(acks) >= KILL_AFTER:
            enough.set()


async def kill_when_enough(server, enough: asyncio.Event, killed: asyncio.Event) -> None:
    try:
        await asyncio.wait_for(enough.wait(), timeout=240)
    finally:
        server.stop(signal.SIGKILL)  # mid-flight: the other clients keep submitting until they see it
        killed.set()


def integrity_check(db: Path) -> None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


async def all_updates(http: httpx.AsyncClient, after: int, end: int) -> list[dict]:
    """Every transaction after `after` up to `end`, page by page (bounded by the number of offsets)."""
    out: list[dict] = []
    for _ in range(end + 1):
        if after >= end:
            break
        r = await checked(
            http,
            "POST",
            "/v2/updates?limit=1000",
            {"beginExclusive": after, "endInclusive": end, "filter": ANY_PARTY, "verbose": False},
        )
        assert r.status_code == 200, r.text
        page = [u["update"]["Transaction"]["value"] for u in r.json()]
        assert page, f"no updates after {after} although the ledger end is {end}"
        out += page
        after = page[-1]["offset"]
    return out


async def test_acknowledged_submissions_survive_sigkill(tmp_path):
    db = tmp_path / "ledger.db"
    server = start_server(db, *SERVER_ARGS)
    acks: list[Ack] = []
    try:
        limits = httpx.Limits(max_connections=CLIENTS)
        async with httpx.AsyncClient(base_url=server.url, timeout=30, limits=limits) as http:
            party = await allocate(http, "Crashy")
            allocated = (await checked(http, "GET", "/v2/state/ledger-end")).json()["offset"]  # its topology
            killed, enough = asyncio.Event(), asyncio.Event()
            killer = asyncio.create_task(kill_when_enough(server, enough, killed))
            await asyncio.gather(*(client(n, http, party, acks, killed, enough) for n in range(CLIENTS)))
            await killer
    finally:
        server.stop(signal.SIGKILL)
    assert server.process.returncode == -signal.SIGKILL
    assert len(acks) >= KILL_AFTER
    assert len({a.offset for a in acks}) == len(acks), "two acknowledgements share an offset"
    assert len({a.update_id for a in acks}) == len(acks)
    integrity_check(db)

    server = start_server(db, *SERVER_ARGS)
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            end = (await checked(http, "GET", "/v2/state/ledger-end")).json()["offset"]
            print(f"acknowledged {len(acks)} (max offset {max(a.offset for a in acks)}), recovered end {end}")
            assert end >= max(a.offset for a in acks)

            updates = await all_updates(http, allocated, end)
            offsets = [u["offset"] for u in updates]
            assert offsets == list(range(allocated + 1, end + 1)), "holes or duplicates in the offsets"
            by_offset = {u["offset"]: u for u in updates}
            for a in acks:
                u = by_offset[a.offset]
                assert u["updateId"] == a.update_id
                assert u["commandId"] == a.command_id
                assert u["events"][0]["CreatedEvent"]["contractId"] == a.contract_id

            r = await checked(
                http,
                "POST",
                "/v2/state/active-contracts",
                {"eventFormat": EVENT_FORMAT, "activeAtOffset": end},
            )
            assert r.status_code == 200, r.text
            active = {e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] for e in r.json()}
            assert len(active) == end - allocated  # every transaction created one Iou and none was archived
            assert {a.contract_id for a in acks} <= active

            sample = sorted(acks, key=lambda a: a.offset)
            for a in [*sample[:: max(1, len(sample) // 40)], sample[-1]]:
                r = await checked(
                    http,
                    "POST",
                    "/v2/events/events-by-contract-id",
                    {"contractId": a.contract_id, "eventFormat": EVENT_FORMAT},
                )
                assert r.status_code == 200, r.text
                assert r.json()["created"]["createdEvent"]["offset"] == a.offset
                assert r.json()["archived"] is None

            # The restarted participant carries on after the recovered end, without reusing an offset.
            party = updates[0]["events"][0]["CreatedEvent"]["signatories"][0]
            r = await checked(
                http,
                "POST",
                "/v2/commands/submit-and-wait-for-transaction",
                create_body(party, f"after-{os.urandom(4).hex()}", "1.0"),
            )
            assert r.status_code == 200, r.text
            assert r.json()["transaction"]["offset"] == end + 1
    finally:
        server.stop()
    integrity_check(db)
