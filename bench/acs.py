"""Active contract set snapshots: websocket stream, POST list and GET page walk, at several ACS sizes.

For each size (ascending, on one server, topping up the contracts between sizes) the snapshot at the ledger end is
read three ways, one after another:

* ws:   the websocket form of /v2/state/active-contracts (subprotocols jwt.token.<JWT> + daml.ws.auth), one request
        message, one message per contract until the server closes;
* list: POST /v2/state/active-contracts, the whole snapshot as one JSON array (the server is started with
        --max-list-elements above the largest size);
* page: GET /v2/state/active-contracts-page with a body, maxPageSize 10000, following nextPageToken to the end.

Reported: contracts/s, and the server's RSS growth during the read: VmHWM after minus VmRSS before (VmHWM is reset
to the current RSS first through /proc/<pid>/clear_refs when allowed, so the seeding's own peak does not count).
Every form must return exactly the seeded number of contracts.

    python -m bench.acs [--sizes 10000,100000] [--per-tx 100] [--forms ws,list,page,ws-raw,list-raw] [--ws-deflate]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import struct
import time

import httpx
import orjson
from websockets.asyncio.client import connect

from bench.common import (
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
    count, bad = 0, []
    started = time.perf_counter()
    async with connect(url, subprotocols=[f"jwt.token.{token(user)}", "daml.ws.auth"],
                       compression="deflate" if deflate else None, max_size=None, max_queue=WS_MAX_QUEUE, open_timeout=30,
                       close_timeout=10) as ws:
        await ws.send(orjson.dumps(_request(party, offset)).decode())
        async with asyncio.timeout(TIMEOUT_S):
            async for message in ws:
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
    count, bad = 0, []
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, int(port), limit=2**22)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /v2/state/active-contracts HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Sec-WebSocket-Protocol: jwt.token.{token(user)}, daml.ws.auth\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            return {"count": 0, "seconds": time.perf_counter() - started, "bad": [head[:300].decode()]}
        payload = orjson.dumps(_request(party, offset))
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        n = len(payload)
        length = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n) if n < 65536 \
            else bytes([0x80 | 127]) + struct.pack("!Q", n)
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
                    bad.append(buf[body_start:body_start + min(n, 300)].decode(errors="replace"))
                pos = body_start + n
    finally:
        writer.close()
    return {"count": count, "seconds": time.perf_counter() - started, "bad": bad}


async def measure_list(server: Server, party: str, user: str) -> dict:
    async with httpx.AsyncClient(base_url=server.url, headers=bearer(user), timeout=TIMEOUT_S) as http:
        offset = await _ledger_end(http)
        started = time.perf_counter()
        r = await http.post("/v2/state/active-contracts", content=orjson.dumps(_request(party, offset)),
                            headers={"Content-Type": "application/json"})
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
        writer.write((f"POST /v2/state/active-contracts HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      f"Authorization: Bearer {token(user)}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1]
        tail = b""
        async with asyncio.timeout(TIMEOUT_S):
            while chunk := await reader.read(2**20):  # chunk framing bytes cannot contain the marker
                size += len(chunk)
                window = tail + chunk
                count += window.count(marker)
                tail = window[-(len(marker) - 1):]
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
            body = {"eventFormat": wildcard_event_format(party), "activeAtOffset": offset, "maxPageSize": PAGE_SIZE}
            if page_token:
                body["pageToken"] = page_token
            r = await http.request("GET", "/v2/state/active-contracts-page", content=orjson.dumps(body),
                                   headers={"Content-Type": "application/json"})
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


FORMS = {"ws": measure_ws, "ws-raw": measure_ws_raw, "list": measure_list, "list-raw": measure_list_raw,
         "page": measure_page}


async def _measured(server: Server, form: str, party: str, user: str, deflate: bool) -> dict:
    reset = server.reset_hwm()
    rss_before = server.rss()
    server_cpu, client_cpu = server.cpu_seconds(), client_cpu_seconds()
    if form == "ws":
        result = await measure_ws(server, party, user, deflate=deflate)
    else:
        result = await FORMS[form](server, party, user)
    result["server_cpu"] = (server.cpu_seconds() - server_cpu) / result["seconds"] * 100
    result["client_cpu"] = (client_cpu_seconds() - client_cpu) / result["seconds"] * 100
    result["growth"] = server.hwm() - rss_before
    result["hwm_reset"] = reset
    result["rss_before"] = rss_before
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated ACS sizes (default 10000,100000)")
    parser.add_argument("--forms", default="ws,list,page", help="which forms to read (default ws,list,page)")
    parser.add_argument("--per-tx", type=int, default=100, help="Ious created per seeding transaction")
    parser.add_argument("--concurrency", type=int, default=4, help="seeding submissions in flight")
    parser.add_argument("--repeat", type=int, default=1, help="reads per form and size (median reported)")
    parser.add_argument("--ws-deflate", action="store_true", help="offer permessage-deflate on the websocket")
    args = parser.parse_args(argv)
    sizes = sorted({int(x) for x in args.sizes.split(",") if x.strip()})
    forms = [f for f in args.forms.split(",") if f.strip()]
    if not sizes or sizes[0] < 1 or any(f not in FORMS for f in forms) or not 1 <= args.repeat <= 20:
        parser.error(f"sizes must be positive, forms among {','.join(FORMS)}, repeat 1..20")

    failures = 0
    summary = []
    with Server(extra=("--max-list-elements", str(sizes[-1] + 1))) as server:
        party = setup_party(server.url, "Bench")
        print(f"server pid {server.pid} at {server.url}; RSS after start {mb(server.rss()):.0f} MB")
        print(f"{'size':>8} {'form':>5} {'contracts/s':>12} {'seconds':>8} {'RSS before MB':>13} "
              f"{'growth MB':>9} {'srv CPU%':>8} {'cli CPU%':>8}  check")
        seeded = 0
        for size in sizes:
            took, _ = asyncio.run(seed_ious(server.url, party, "Bench", size - seeded, per_tx=args.per_tx,
                                            concurrency=args.concurrency))
            print(f"seeded {size - seeded} contracts in {took:.1f} s ({(size - seeded) / took:.0f} contracts/s, "
                  f"{args.per_tx} per tx); server RSS {mb(server.rss()):.0f} MB", flush=True)
            seeded = size
            for form in forms:
                runs = [asyncio.run(_measured(server, form, party, "Bench", args.ws_deflate))
                        for _ in range(args.repeat)]
                rates = [r["count"] / r["seconds"] for r in runs]
                rate = median(rates)
                growth = max(r["growth"] for r in runs)
                problems = [b for r in runs for b in r["bad"]]
                problems += [f"got {r['count']} contracts, expected {size}" for r in runs if r["count"] != size]
                ok = not problems
                failures += not ok
                targets = []
                if form == "ws" and rate < TARGET_RATE:
                    targets.append(f"below {TARGET_RATE} contracts/s")
                if mb(growth) >= TARGET_GROWTH_MB:
                    targets.append(f"growth >= {TARGET_GROWTH_MB} MB")
                note = "ok" if ok else "FAILED"
                if targets:
                    note += " (target missed: " + ", ".join(targets) + ")"
                if not runs[0]["hwm_reset"]:
                    note += " (VmHWM not resettable: growth includes earlier peaks)"
                print(f"{size:>8} {form:>5} {rate:>12.0f} {median([r['seconds'] for r in runs]):>8.2f} "
                      f"{mb(runs[0]['rss_before']):>13.0f} {mb(growth):>9.1f} {runs[0]['server_cpu']:>8.0f} "
                      f"{runs[0]['client_cpu']:>8.0f}  {note}", flush=True)
                for p in problems[:5]:
                    print(f"      problem: {p}")
                summary.append(f"{size} {form} {rate:.0f}/s +{mb(growth):.0f} MB")
    print("summary: ACS snapshot — " + ", ".join(summary) + f"; failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
