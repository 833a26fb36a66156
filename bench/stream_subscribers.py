"""Many websocket subscribers reading the whole update stream at once: the server's memory and responsiveness.

A participant with a ledger of `--updates` transactions (one Iou each, seeded through the API), then
`--subscribers` websocket clients on `/v2/updates` at once, each reading from offset 0 without an end until it has
seen the last seeded offset, then closing. Every `--slow-every`-th one is slow: it pauses `--slow-pause` seconds
after every 100 messages, so the server has to hold or pause what it cannot send. The clients run in a process of
their own (bare-socket websocket clients that parse only what they check), so their work does not count as the
server's; every client checks that it received each seeded offset exactly once, in order.

Meanwhile this process samples the server's RSS (every 20 ms) and sends `GET /livez` every 20 ms on a connection of
its own. Prints the RSS at the start (after a single warm-up read of the stream), its peak during the read, and
after the subscribers left (the lowest of the samples in the `--settle` seconds after the last closed), and the
probe's p50 and max. Goals: growth <= 150 MB, back within 30 MB of the start, /livez max <= 100 ms.

    python -m bench.stream_subscribers [--updates 3000] [--subscribers 300] [--slow-every 10] [--slow-pause 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import http.client
import multiprocessing
import os
import struct
import threading
import time

import orjson

from bench.common import (
    Server,
    ledger_end,
    mb,
    median,
    percentile,
    seed_ious,
    setup_party,
    token,
    wildcard_event_format,
)

USER = "Reader"
READ_TIMEOUT_S = 300  # the whole read, every subscriber, bounded
GOAL_GROWTH_MB = 150
GOAL_RETURN_MB = 30
GOAL_LIVEZ_MS = 100


def request_body(party: str) -> bytes:
    return orjson.dumps(
        {
            "beginExclusive": 0,
            "updateFormat": {
                "includeTransactions": {
                    "eventFormat": wildcard_event_format(party),
                    "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
                }
            },
        }
    )


class Subscriber:
    """A bare websocket client: the upgrade, one request frame, then frames read until the last offset."""

    def __init__(self, host: str, port: int, body: bytes, last: int, pause_s: float) -> None:
        self.host, self.port, self.body, self.last, self.pause_s = host, port, body, last, pause_s
        self.offsets: list[int] = []

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port, limit=2**20)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                (
                    f"GET /v2/updates HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                    f"Sec-WebSocket-Protocol: jwt.token.{token(USER)}, daml.ws.auth\r\n\r\n"
                ).encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(f"upgrade refused: {head[:200]!r}")
            writer.write(_client_frame(0x1, self.body))
            read = 0
            while True:
                opcode, payload = await _read_frame(reader)
                if opcode == 0x8:
                    raise RuntimeError(f"closed by the server before the end: {payload[:200]!r}")
                if opcode == 0x9:  # a keepalive ping: answered as any client does
                    writer.write(_client_frame(0xA, payload))
                if opcode != 0x1:
                    continue
                read += 1
                if self.pause_s and read % 100 == 0:
                    await asyncio.sleep(self.pause_s)
                update = orjson.loads(payload)["update"]
                if "Transaction" not in update:
                    continue
                offset = update["Transaction"]["value"]["offset"]
                self.offsets.append(offset)
                if offset >= self.last:
                    break
            writer.write(_client_frame(0x8, struct.pack("!H", 1000)))
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass


def _client_frame(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", await reader.readexactly(2))
    elif n == 127:
        (n,) = struct.unpack("!Q", await reader.readexactly(8))
    return b0 & 0x0F, await reader.readexactly(n)


def read_all(
    url: str,
    body: bytes,
    last: int,
    count: int,
    slow_every: int,
    slow_pause: float,
    expected: list[int] | None,
) -> dict:
    """In the subscribers' process: `count` subscribers at once; how many got the `expected` offsets (those
    of the first, without them), each once and in order."""
    host, _, port = url.removeprefix("http://").partition(":")

    async def run() -> dict:
        subs = [
            Subscriber(host, int(port), body, last, slow_pause if slow_every and i % slow_every == 0 else 0.0)
            for i in range(count)
        ]
        started = time.perf_counter()
        async with asyncio.timeout(READ_TIMEOUT_S):
            results = await asyncio.gather(*(s.run() for s in subs), return_exceptions=True)
        errors = [repr(r) for r in results if isinstance(r, BaseException)]
        want = subs[0].offsets if expected is None else expected
        exact = sum(1 for s in subs if s.offsets == want and _once(s.offsets))
        return {
            "seconds": time.perf_counter() - started,
            "errors": errors[:5],
            "n_errors": len(errors),
            "exact": exact,
            "offsets": want,
        }

    return asyncio.run(run())


def _once(offsets: list[int]) -> bool:
    return all(b > a for a, b in zip(offsets, offsets[1:], strict=False))


class Sampler:
    """RSS every 20 ms and a `/livez` probe every 20 ms, each in a thread of this process."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.rss: list[tuple[float, int]] = []
        self.livez_ms: list[float] = []
        self.livez_at: list[float] = []  # when each probe was sent (monotonic)
        self.livez_failed = 0
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self._rss, daemon=True),
            threading.Thread(target=self._livez, daemon=True),
        ]

    def __enter__(self) -> Sampler:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(10)

    def _rss(self) -> None:
        while not self.stop.wait(0.02):
            self.rss.append((time.monotonic(), self.server.rss()))

    def _livez(self) -> None:
        """A probe that fails (its connection reset, a timeout, not 200) counts as the time it took, and the
        next one goes on a new connection."""
        host, _, port = self.server.url.removeprefix("http://").partition(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            while not self.stop.wait(0.02):
                sent = time.perf_counter()
                try:
                    conn.request("GET", "/livez")
                    answer = conn.getresponse()
                    answer.read()
                    ok = answer.status == 200
                except OSError:
                    ok = False
                self.livez_ms.append((time.perf_counter() - sent) * 1000)
                self.livez_at.append(time.monotonic())
                if not ok:
                    self.livez_failed += 1
                    conn.close()
                    conn = http.client.HTTPConnection(host, int(port), timeout=30)
        finally:
            conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=3000, help="transactions on the ledger (default 3000)")
    parser.add_argument(
        "--subscribers", type=int, default=300, help="websocket subscribers at once (default 300)"
    )
    parser.add_argument(
        "--slow-every", type=int, default=10, help="every n-th subscriber is slow (default 10)"
    )
    parser.add_argument(
        "--slow-pause", type=float, default=0.1, help="a slow one's pause per 100 messages (s)"
    )
    parser.add_argument(
        "--idle-probe", type=float, default=5.0, help="seconds of /livez probes before they start (default 5)"
    )
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds watched after they left (default 3)"
    )
    args = parser.parse_args(argv)
    if not (
        0 < args.updates <= 50_000
        and 0 < args.subscribers <= 900
        and 0 < args.settle <= 30
        and 0 < args.idle_probe <= 60
    ):
        parser.error("--updates in (0, 50000], --subscribers in (0, 900], --settle in (0, 30]")
    with Server() as server:
        party = setup_party(server.url, USER)
        seeded_s, _ = asyncio.run(seed_ious(server.url, party, USER, args.updates, per_tx=1, concurrency=8))
        last = ledger_end(server.url, USER)
        print(f"seeded {args.updates} transactions in {seeded_s:.1f} s (ledger end {last})")
        body = request_body(party)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(1) as pool:
            warm = pool.apply(read_all, (server.url, body, last, 1, 0, 0.0, None))
            if warm["n_errors"] or len(warm["offsets"]) != args.updates or not _once(warm["offsets"]):
                print(f"warm-up read failed: {len(warm['offsets'])} offsets, errors {warm['errors']}")
                return 1
            with Sampler(server) as idle:  # the reference: the same probe with nobody streaming
                time.sleep(args.idle_probe)
            start = server.rss()
            with Sampler(server) as sampler:
                began = time.monotonic()
                result = pool.apply(
                    read_all,
                    (
                        server.url,
                        body,
                        last,
                        args.subscribers,
                        args.slow_every,
                        args.slow_pause,
                        warm["offsets"],
                    ),
                )
                left = time.monotonic()
                time.sleep(args.settle)
            during = [rss for at, rss in sampler.rss if at <= left]
            after = [rss for at, rss in sampler.rss if at > left]
        peak = max(during, default=start)
        settled = min(after, default=server.rss())
        livez = sampler.livez_ms
        worst = sorted(zip(livez, sampler.livez_at, strict=True), reverse=True)[:5]
    growth, back = mb(peak - start), mb(settled - start)
    print(
        f"{args.subscribers} subscribers ({args.subscribers // args.slow_every if args.slow_every else 0} slow) "
        f"read {args.updates} updates each in {result['seconds']:.1f} s; "
        f"{result['exact']} got every offset once and in order; errors {result['n_errors']} {result['errors']}"
    )
    print(
        f"RSS: start {mb(start):.0f} MB, peak {mb(peak):.0f} MB (+{growth:.0f}, goal <= {GOAL_GROWTH_MB}), "
        f"after they left {mb(settled):.0f} MB ({back:+.0f}, goal <= {GOAL_RETURN_MB})"
    )
    print(
        f"/livez: {len(livez)} probes, p50 {median(livez):.1f} ms, p99 {percentile(livez, 99):.1f} ms, "
        f"max {max(livez, default=float('nan')):.1f} ms (goal <= {GOAL_LIVEZ_MS}), failed {sampler.livez_failed}"
    )
    print(
        f"/livez with nobody streaming (the machine's own noise): {len(idle.livez_ms)} probes, "
        f"p50 {median(idle.livez_ms):.1f} ms, p99 {percentile(idle.livez_ms, 99):.1f} ms, "
        f"max {max(idle.livez_ms, default=float('nan')):.1f} ms"
    )
    print(
        "slowest probes (ms @ s after the subscribers started): "
        + ", ".join(f"{ms:.0f} @ {at - began:.1f}" for ms, at in worst)
    )
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = (
        result["n_errors"] == 0
        and result["exact"] == args.subscribers
        and growth <= GOAL_GROWTH_MB
        and back <= GOAL_RETURN_MB
        and max(livez, default=0) <= GOAL_LIVEZ_MS
        and sampler.livez_failed == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
