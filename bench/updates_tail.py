"""Submit throughput with and without a tailing `/v2/updates` websocket, and how far behind the tail runs.

One level of `bench.submit` (submit-and-wait-for-transaction, one Iou per transaction) runs twice on the same
server: first with nobody streaming, then with one websocket client tailing `/v2/updates` (no `endInclusive`) from
the ledger end, in a thread of this process. The tail must receive every update of the second run exactly once,
in offset order; its lag is the time from an update's record time to its arrival at the client (same machine, same
clock).

    python -m bench.updates_tail [--seconds 10] [--warmup 2] [--level 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime

from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from bench.common import Server, ledger_end, median, percentile, setup_party, token, wildcard_event_format
from bench.submit import run_level

CATCH_UP_S = 60


class Tail:
    """A websocket client tailing the updates from `begin`, in its own thread and event loop."""

    def __init__(self, url: str, party: str, user: str, begin: int) -> None:
        self.url = url.replace("http://", "ws://") + "/v2/updates"
        self.body = {
            "beginExclusive": begin,
            "updateFormat": {
                "includeTransactions": {
                    "eventFormat": wildcard_event_format(party),
                    "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
                }
            },
        }
        self.protocols = [Subprotocol(f"jwt.token.{token(user)}"), Subprotocol("daml.ws.auth")]
        self.offsets: list[int] = []
        self.lags: list[float] = []
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._read())
        except BaseException as e:  # reported by the main thread
            self.error = e
            self.ready.set()

    async def _read(self) -> None:
        async with connect(self.url, subprotocols=self.protocols, max_size=None) as ws:
            await ws.send(json.dumps(self.body))
            self.ready.set()
            while not self.stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 0.2)
                except TimeoutError:
                    continue
                arrived = time.time()
                update = json.loads(text)["update"]
                if "OffsetCheckpoint" in update:  # clients skip these
                    continue
                tx = update["Transaction"]["value"]
                self.offsets.append(tx["offset"])
                recorded = datetime.fromisoformat(tx["recordTime"].replace("Z", "+00:00")).timestamp()
                self.lags.append(arrived - recorded)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window per run (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up per run, not measured (default 2)")
    parser.add_argument("--level", type=int, default=8, help="submissions in flight (default 8)")
    args = parser.parse_args(argv)
    if args.level < 1 or not 0 < args.seconds <= 600:
        parser.error("--level must be positive and --seconds in (0, 600]")
    failures = 0
    with Server() as server:
        party = setup_party(server.url, "Bench")
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            alone = run_level(pool, server, party, "Bench", args.level, 1, args.seconds, args.warmup, False)
            begin = ledger_end(server.url, "Bench")
            tail = Tail(server.url, party, "Bench", begin)
            tail.thread.start()
            tail.ready.wait(30)
            streamed = run_level(
                pool, server, party, "Bench", args.level, 1, args.seconds, args.warmup, False
            )
            end = ledger_end(server.url, "Bench")
            deadline = time.monotonic() + CATCH_UP_S
            while len(tail.offsets) < end - begin and time.monotonic() < deadline and tail.error is None:
                time.sleep(0.05)
            tail.stop.set()
            tail.thread.join(10)
    for name, row in (("no stream", alone), ("one tailing websocket", streamed)):
        failures += len(row["errors"])
        print(
            f"{name:>22}: {row['tx_s']:.0f} tx/s, p50 {row['p50_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms, "
            f"server CPU {row['server_cpu']:.0f}%, errors {len(row['errors'])}"
        )
    expected = list(range(begin + 1, end + 1))
    exact = tail.offsets == expected
    failures += 0 if exact and tail.error is None else 1
    print(
        f"tail: {len(tail.offsets)} updates received of {len(expected)} committed, "
        f"{'each once and in order' if exact else 'NOT each once in order'}; lag from record time "
        f"p50 {median(tail.lags) * 1000:.1f} ms, p99 {percentile(tail.lags, 99) * 1000:.1f} ms"
        + (f"; error {tail.error!r}" if tail.error else "")
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
