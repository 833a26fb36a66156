"""Active contract set snapshots: websocket stream, POST list and GET page walk, at several ACS sizes.

For each size (ascending, on one server, topping up the contracts between sizes) the snapshot at the ledger end is
read several ways, one after another:

* ws:   the websocket form of /v2/state/active-contracts (subprotocols jwt.token.<JWT> + daml.ws.auth), one request
        message, one message per contract until the server closes (the `websockets` client);
* list: POST /v2/state/active-contracts, the whole snapshot as one JSON array parsed by the client (the server is
        started with --max-list-elements above the largest size);
* page: GET /v2/state/active-contracts-page with a body, maxPageSize 10000, following nextPageToken to the end, each
        page parsed by the client;
* ws-raw, list-raw, page-raw: the same three read by bare-socket clients that only count entries, to tell the
        server's speed from the cost of a client that parses 100 MB of JSON.

The reference, measured in the same run before the forms of each size: the bench process itself reads the same
contracts straight from the server's SQLite file (stdlib sqlite3, read-only, while the server runs): one SELECT of
the party's stakeholder index joined to the contracts active at the offset, in activation order, fetching the two
stored text columns an entry is made of (`workflow_id` and the pre-rendered created event `acs_event`, about 90% of
an entry's bytes), in a plain Python loop that writes them to an in-memory buffer. No HTTP, no JSON framing, no
witnesses or tokens: what copying the stored JSON out of SQLite costs one Python thread. Each form is reported as
a ratio to it (1.0: as fast as that loop).

Reported per form: contracts/s, the ratio to the reference, the server's CPU seconds per 100,000 contracts (robust
on a busy machine, unlike wall-clock rates), and the server's RSS growth during the read: VmHWM after minus VmRSS
before (VmHWM is reset to the current RSS first through /proc/<pid>/clear_refs when allowed, so the seeding's own
peak does not count). Every form must return exactly the seeded number of contracts.

    python -m bench.acs [--sizes 10000,100000] [--forms ws,list,page,...] [--per-tx 100] [--repeat 1]
                        [--ws-deflate] [--db PATH]

`--db` keeps the participant's database in PATH and reuses it (topped up to the first size) on the next run.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import os
import sqlite3
import struct
import time
from pathlib import Path

import httpx
import orjson
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from bench.common import (
    ADMIN_USER,
    RawHttp,
    Server,
    bearer,
    client_cpu_seconds,
    mb,
    median,
    seed_ious,
    setup_party,
    token,
    wildcard_event_format,
)

TARGET_RATE = 150_000
TARGET_GROWTH_MB = 64
PAGE_SIZE = 10_000
TIMEOUT_S = 600
USER = "Bench"
WS_MAX_QUEUE = 4096  # messages the client buffers before it stops reading (websockets default: 16)


def _request(party: str, offset: int) -> dict:
    return {"activeAtOffset": offset, "eventFormat": wildcard_event_format(party), "verbose": False}


async def _ledger_end(http: httpx.AsyncClient) -> int:
    r = await http.get("/v2/state/ledger-end")
    r.raise_for_status()
    return r.json()["offset"]


async def measure_ws(server: Server, party: str, user: str, *, deflate: bool = False) -> dict:
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
    url = server.url.replace("http://", "ws://") + "/v2/state/active-contracts"
    count = 0
    bad: list[str] = []
    started = time.perf_counter()
    async with connect(
        url,
        subprotocols=[Subprotocol(f"jwt.token.{token(user)}"), Subprotocol("daml.ws.auth")],
        compression="deflate" if deflate else None,
        max_size=None,
        max_queue=WS_MAX_QUEUE,
        open_timeout=30,
        close_timeout=10,
    ) as ws:
        await ws.send(orjson.dumps(_request(party, offset)).decode())
        async with asyncio.timeout(TIMEOUT_S):
            async for message in ws:
                if isinstance(message, bytes):  # the server sends text frames only
                    message = message.decode()
                if message.startswith('{"workflowId"'):
                    count += 1
                elif len(bad) < 5:
                    bad.append(message[:300])
    seconds = time.perf_counter() - started
    return {"count": count, "seconds": seconds, "bad": bad}


async def measure_ws_raw(server: Server, party: str, user: str) -> dict:
    """The websocket form read by a bare-socket client: handshake by hand, then frames are only counted (text
    frames whose payload starts like an ACS entry), to tell the server's speed from the websockets client's."""
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
    host, port = server.url.removeprefix("http://").split(":")
    count = 0
    bad: list[str] = []
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, int(port), limit=2**22)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /v2/state/active-contracts HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: jwt.token.{token(user)}, daml.ws.auth\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            return {"count": 0, "seconds": time.perf_counter() - started, "bad": [head[:300].decode()]}
        payload = orjson.dumps(_request(party, offset))
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        n = len(payload)
        length = (
            bytes([0x80 | n])
            if n < 126
            else bytes([0x80 | 126]) + struct.pack("!H", n)
            if n < 65536
            else bytes([0x80 | 127]) + struct.pack("!Q", n)
        )
        writer.write(b"\x81" + length + mask + masked)
        buf = b""
        pos = 0
        async with asyncio.timeout(TIMEOUT_S):
            while True:
                need = 2 if len(buf) - pos < 2 else {126: 4, 127: 10}.get(buf[pos + 1] & 0x7F, 2)
                if len(buf) - pos < need:
                    chunk = await reader.read(2**20)
                    if not chunk:
                        break
                    buf = buf[pos:] + chunk
                    pos = 0
                    continue
                opcode = buf[pos] & 0x0F
                n = buf[pos + 1] & 0x7F
                header = 2
                if n == 126:
                    n, header = struct.unpack_from("!H", buf, pos + 2)[0], 4
                elif n == 127:
                    n, header = struct.unpack_from("!Q", buf, pos + 2)[0], 10
                while len(buf) - pos < header + n:
                    chunk = await reader.read(2**20)
                    if not chunk:
                        raise ConnectionError("connection closed inside a frame")
                    buf = buf[pos:] + chunk
                    pos = 0
                body_start = pos + header
                if opcode == 0x8:  # close
                    break
                if opcode == 0x1 and buf.startswith(b'{"workflowId"', body_start):
                    count += 1
                elif opcode == 0x1 and len(bad) < 5:
                    bad.append(buf[body_start : body_start + min(n, 300)].decode(errors="replace"))
                pos = body_start + n
    finally:
        writer.close()
    return {"count": count, "seconds": time.perf_counter() - started, "bad": bad}


async def measure_list(server: Server, party: str, user: str) -> dict:
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
        started = time.perf_counter()
        r = await http.post(
            "/v2/state/active-contracts",
            content=orjson.dumps(_request(party, offset)),
            headers={"Content-Type": "application/json"},
        )
        body = r.content
        seconds = time.perf_counter() - started
    if r.status_code != 200:
        return {"count": 0, "seconds": seconds, "bad": [f"{r.status_code} {r.text[:300]}"]}
    entries = orjson.loads(body)
    bad = [orjson.dumps(e)[:300].decode() for e in entries if "contractEntry" not in e][:5]
    return {"count": len(entries), "seconds": seconds, "bad": bad, "bytes": len(body)}


async def measure_list_raw(server: Server, party: str, user: str) -> dict:
    """The list form read by a bare-socket client that only counts entries as the chunks stream in (the start of
    each entry, `{"workflowId"`), to tell the server's speed from the cost of parsing 100 MB of JSON in a client."""
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
    host, port = server.url.removeprefix("http://").split(":")
    marker = b'{"workflowId"'
    count, size, status = 0, 0, b""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, int(port), limit=2**22)
    try:
        body = orjson.dumps(_request(party, offset))
        writer.write(
            (
                f"POST /v2/state/active-contracts HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Authorization: Bearer {token(user)}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode()
            + body
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        tail = b""
        async with asyncio.timeout(TIMEOUT_S):
            while chunk := await reader.read(2**20):  # chunk framing bytes cannot contain the marker
                size += len(chunk)
                window = tail + chunk
                count += window.count(marker)
                tail = window[-(len(marker) - 1) :]
    finally:
        writer.close()
    bad = [] if status == b"200" else [head[:300].decode()]
    return {"count": count, "seconds": time.perf_counter() - started, "bad": bad, "bytes": size}


async def measure_page(server: Server, party: str, user: str) -> dict:
    count, pages, bad = 0, 0, []
    seen_last = None
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
        started = time.perf_counter()
        page_token = None
        for _ in range(10_000_000 // PAGE_SIZE + 2):  # bounded: at most 10 M contracts
            body = {
                "eventFormat": wildcard_event_format(party),
                "activeAtOffset": offset,
                "maxPageSize": PAGE_SIZE,
            }
            if page_token:
                body["pageToken"] = page_token
            r = await http.request(
                "GET",
                "/v2/state/active-contracts-page",
                content=orjson.dumps(body),
                headers={"Content-Type": "application/json"},
            )
            if r.status_code != 200:
                bad.append(f"{r.status_code} {r.text[:300]}")
                break
            answer = orjson.loads(r.content)
            page = answer["activeContracts"]
            pages += 1
            count += len(page)
            if page:
                seen_last = page[-1]["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]
            page_token = answer.get("nextPageToken")
            if not page_token:
                break
        seconds = time.perf_counter() - started
    return {"count": count, "seconds": seconds, "bad": bad, "pages": pages, "last": seen_last}


async def measure_page_raw(server: Server, party: str, user: str) -> dict:
    """The page form read by a bare keep-alive client: each answer is read whole, its entries counted (the start of
    each entry, `{"workflowId"`) and only its tail parsed for the next page's token."""
    count, pages, bad = 0, 0, []
    marker, tail_key = b'{"workflowId"', b'"nextPageToken":'
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
    started = time.perf_counter()
    async with RawHttp(server.url, bearer(user)) as raw:
        page_token = None
        for _ in range(10_000_000 // PAGE_SIZE + 2):  # bounded: at most 10 M contracts
            body = {
                "eventFormat": wildcard_event_format(party),
                "activeAtOffset": offset,
                "maxPageSize": PAGE_SIZE,
            }
            if page_token:
                body["pageToken"] = page_token
            status, content = await raw.request("GET", "/v2/state/active-contracts-page", orjson.dumps(body))
            if status != 200:
                bad.append(f"{status} {content[:300].decode(errors='replace')}")
                break
            pages += 1
            count += content.count(marker)
            at = content.rfind(tail_key)
            if at < 0 or not content.endswith(b"}"):
                bad.append(f"no nextPageToken at the end of page {pages}: {content[-300:]!r}")
                break
            page_token = orjson.loads(content[at + len(tail_key) : -1])
            if not page_token:
                break
    return {"count": count, "seconds": time.perf_counter() - started, "bad": bad, "pages": pages}


REFERENCE_SQL = (
    "SELECT c.workflow_id, c.acs_event FROM stakeholders s JOIN contracts c ON c.seq = s.seq "
    "WHERE s.party = ? AND c.create_offset <= ? AND (c.archive_offset IS NULL OR c.archive_offset > ?) "
    "ORDER BY s.seq"
)


def measure_reference(db: Path, party: str, offset: int) -> dict:
    """The raw SQLite reference (see the module's docstring), in this process."""
    conn = sqlite3.connect(f"file:{db.as_posix()}?mode=ro", uri=True)
    try:
        buf = io.BytesIO()
        count = 0
        cpu = time.process_time()
        started = time.perf_counter()
        for workflow_id, event in conn.execute(REFERENCE_SQL, (party, offset, offset)):
            buf.write(workflow_id.encode())
            buf.write(event.encode())
            count += 1
        seconds = time.perf_counter() - started
        return {"count": count, "seconds": seconds, "cpu": time.process_time() - cpu, "bytes": buf.tell()}
    finally:
        conn.close()


FORMS = {
    "ws": measure_ws,
    "ws-raw": measure_ws_raw,
    "list": measure_list,
    "list-raw": measure_list_raw,
    "page": measure_page,
    "page-raw": measure_page_raw,
}


async def _measured(server: Server, form: str, party: str, user: str, deflate: bool) -> dict:
    reset = server.reset_hwm()
    rss_before = server.rss()
    server_cpu, client_cpu = server.cpu_seconds(), client_cpu_seconds()
    if form == "ws":
        result = await measure_ws(server, party, user, deflate=deflate)
    else:
        result = await FORMS[form](server, party, user)
    result["server_cpu_s"] = server.cpu_seconds() - server_cpu
    result["server_cpu"] = result["server_cpu_s"] / result["seconds"] * 100
    result["client_cpu"] = (client_cpu_seconds() - client_cpu) / result["seconds"] * 100
    result["growth"] = server.hwm() - rss_before
    result["hwm_reset"] = reset
    result["rss_before"] = rss_before
    return result


def bench_party(url: str) -> str:
    """The bench user's party: allocated with the user on a fresh database, read back from a reused one."""
    r = httpx.get(f"{url}/v2/users/{USER}", headers=bearer(ADMIN_USER), timeout=30)
    if r.status_code == 200:
        return r.json()["user"]["primaryParty"]
    return setup_party(url, USER)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="10000,100000", help="comma-separated ACS sizes (default 10000,100000)"
    )
    parser.add_argument(
        "--forms",
        default="ws,list,page",
        help=f"which forms to read, among {','.join(FORMS)} (default ws,list,page)",
    )
    parser.add_argument("--per-tx", type=int, default=100, help="Ious created per seeding transaction")
    parser.add_argument("--concurrency", type=int, default=4, help="seeding submissions in flight")
    parser.add_argument("--repeat", type=int, default=1, help="reads per form and size (median reported)")
    parser.add_argument("--ws-deflate", action="store_true", help="offer permessage-deflate on the websocket")
    parser.add_argument(
        "--db", type=Path, help="the participant's database file, kept and reused (topped up)"
    )
    args = parser.parse_args(argv)
    sizes = sorted({int(x) for x in args.sizes.split(",") if x.strip()})
    forms = [f for f in args.forms.split(",") if f.strip()]
    if not sizes or sizes[0] < 1 or any(f not in FORMS for f in forms) or not 1 <= args.repeat <= 20:
        parser.error(f"sizes must be positive, forms among {','.join(FORMS)}, repeat 1..20")

    failures = 0
    summary = []
    db = None if args.db is None else args.db.expanduser().resolve()
    with Server(extra=("--max-list-elements", str(sizes[-1] + 1)), db_file=db) as server:
        party = bench_party(server.url)
        seeded = measure_reference(server.db, party, 1 << 62)["count"]
        print(
            f"server pid {server.pid} at {server.url}; RSS after start {mb(server.rss()):.0f} MB; "
            f"{seeded} contracts there already"
        )
        if seeded > sizes[0]:
            parser.error(f"the database holds {seeded} contracts, more than the smallest size")
        print(
            f"{'size':>8} {'form':>8} {'contracts/s':>11} {'x ref':>6} {'seconds':>7} {'srv CPU s/100k':>14} "
            f"{'srv CPU%':>8} {'cli CPU%':>8} {'RSS MB':>6} {'growth MB':>9}  check"
        )
        for size in sizes:
            if size > seeded:
                took, _ = asyncio.run(
                    seed_ious(
                        server.url,
                        party,
                        USER,
                        size - seeded,
                        per_tx=args.per_tx,
                        concurrency=args.concurrency,
                    )
                )
                print(
                    f"seeded {size - seeded} contracts in {took:.1f} s ({(size - seeded) / took:.0f} "
                    f"contracts/s, {args.per_tx} per tx); server RSS {mb(server.rss()):.0f} MB",
                    flush=True,
                )
                seeded = size
            offset = asyncio.run(_end(server))
            refs = [measure_reference(server.db, party, offset) for _ in range(args.repeat)]
            ref_rate = median([r["count"] / r["seconds"] for r in refs])
            ref_ok = all(r["count"] == size for r in refs)
            failures += not ref_ok
            ref_note = "ok" if ref_ok else f"FAILED: got {refs[0]['count']} contracts"
            print(
                f"{size:>8} {'ref':>8} {ref_rate:>11.0f} {1:>6.2f} {median([r['seconds'] for r in refs]):>7.2f} "
                f"{'':>14} {'':>8} {100 * refs[0]['cpu'] / refs[0]['seconds']:>8.0f} {'':>6} {'':>9}  "
                f"{ref_note} ({mb(refs[0]['bytes']):.0f} MB read)",
                flush=True,
            )
            for form in forms:
                runs = [
                    asyncio.run(_measured(server, form, party, USER, args.ws_deflate))
                    for _ in range(args.repeat)
                ]
                rate = median([r["count"] / r["seconds"] for r in runs])
                cpu_per_100k = median([r["server_cpu_s"] / max(1, r["count"]) * 100_000 for r in runs])
                growth = max(r["growth"] for r in runs)
                problems = [b for r in runs for b in r["bad"]]
                problems += [
                    f"got {r['count']} contracts, expected {size}" for r in runs if r["count"] != size
                ]
                ok = not problems
                failures += not ok
                targets = []
                if rate < TARGET_RATE:
                    targets.append(f"below {TARGET_RATE} contracts/s")
                if mb(growth) >= TARGET_GROWTH_MB:
                    targets.append(f"growth >= {TARGET_GROWTH_MB} MB")
                note = "ok" if ok else "FAILED"
                if targets:
                    note += " (target missed: " + ", ".join(targets) + ")"
                if not runs[0]["hwm_reset"]:
                    note += " (VmHWM not resettable: growth includes earlier peaks)"
                print(
                    f"{size:>8} {form:>8} {rate:>11.0f} {rate / ref_rate:>6.2f} "
                    f"{median([r['seconds'] for r in runs]):>7.2f} {cpu_per_100k:>14.2f} "
                    f"{runs[0]['server_cpu']:>8.0f} {runs[0]['client_cpu']:>8.0f} {mb(runs[0]['rss_before']):>6.0f} "
                    f"{mb(growth):>9.1f}  {note}",
                    flush=True,
                )
                for p in problems[:5]:
                    print(f"      problem: {p}")
                summary.append(
                    f"{size} {form} {rate:.0f}/s = {rate / ref_rate:.2f} x ref, "
                    f"{cpu_per_100k:.2f} CPU s/100k, +{mb(growth):.0f} MB"
                )
            summary.append(f"{size} ref {ref_rate:.0f}/s")
    print("summary: ACS snapshot — " + "; ".join(summary) + f"; failures {failures}")
    return 1 if failures else 0


async def _end(server: Server) -> int:
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(USER), timeout=TIMEOUT_S) as http:
        return await _ledger_end(http)


if __name__ == "__main__":
    raise SystemExit(main())
