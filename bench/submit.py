"""Submit-and-wait-for-transaction throughput and latency at several client concurrencies.

Every request creates one Iou through POST /v2/commands/submit-and-wait-for-transaction with a unique commandId.
Clients run in separate processes from the server (and, with --procs N, split over N client processes, to see
whether one Python client process is the bottleneck). Per level: a warm-up, then a fixed measuring window;
throughput counts the answers completed inside the window.

Checks on the way: every answer must be 200 with one CreatedEvent and our commandId, and the ledger end must have
moved by exactly the number of successful submissions.

The reference, measured in the same run on the same disk: raw SQLite commits from one Python thread, one single-row
INSERT per transaction, WAL and synchronous=FULL as the participant's writer uses them. It is measured right before
each level (the machine's load changes from minute to minute), and the level's throughput is printed as a ratio to
it. The server's CPU time per transaction (µs) is printed too, in all (with its write process) and in the main thread
alone (the event loop every request passes through, whose time per request bounds the throughput): unlike
wall-clock throughput, they barely move when other processes compete for the cores.

    python -m bench.submit [--seconds 10] [--warmup 2] [--levels 1,8,32] [--procs 1] [--client raw|httpx]
                           [--reference-seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sqlite3
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import httpx
import orjson

from bench.common import (
    RawHttp,
    Server,
    bearer,
    client_cpu_seconds,
    ledger_end,
    median,
    percentile,
    setup_party,
    submit_body,
)

PATH = "/v2/commands/submit-and-wait-for-transaction"
REQUEST_TIMEOUT_S = 60


def _client_process(
    url: str,
    party: str,
    user: str,
    concurrency: int,
    measure_start: float,
    measure_end: float,
    warmup_start: float,
    tag: str,
    use_uvloop: bool,
    client: str = "raw",
) -> dict:
    """One client process: `concurrency` tasks on one pooled httpx.AsyncClient, from warmup_start to measure_end
    (wall clock, shared by all processes)."""
    if use_uvloop:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
    return asyncio.run(
        _client(url, party, user, concurrency, measure_start, measure_end, warmup_start, tag, client)
    )


async def _client(
    url: str,
    party: str,
    user: str,
    concurrency: int,
    measure_start: float,
    measure_end: float,
    warmup_start: float,
    tag: str,
    client: str,
) -> dict:
    headers = {**bearer(user), "Content-Type": "application/json"}
    latencies: list[float] = []
    ok_total = 0
    errors: list[str] = []
    cpu_at_start = cpu_at_end = 0.0
    hard_stop = measure_end + REQUEST_TIMEOUT_S

    async def worker(post, w: int) -> None:
        nonlocal ok_total
        n = 0
        while time.time() < measure_end and time.time() < hard_stop:
            n += 1
            command_id = f"{tag}-{w}-{n}"
            t0 = time.time()
            try:
                status, content = await post(submit_body(party, command_id))
            except (httpx.HTTPError, OSError, asyncio.IncompleteReadError) as e:
                errors.append(f"{type(e).__name__}: {e}")
                continue
            t1 = time.time()
            if status != 200:
                errors.append(f"{status} {content[:300]!r}")
                continue
            tx = orjson.loads(content)["transaction"]
            events = tx["events"]
            if tx["commandId"] != command_id or len(events) != 1 or "CreatedEvent" not in events[0]:
                errors.append(f"wrong answer for {command_id}: {content[:300]!r}")
                continue
            ok_total += 1
            if measure_start <= t1 < measure_end:
                latencies.append(t1 - t0)

    async def raw_worker(w: int) -> None:
        async with RawHttp(url, bearer(user)) as http:

            async def post(body: bytes) -> tuple[int, bytes]:
                return await http.request("POST", PATH, body)

            await worker(post, w)

    async def cpu_marks() -> None:
        nonlocal cpu_at_start, cpu_at_end
        await asyncio.sleep(max(0.0, measure_start - time.time()))
        cpu_at_start = client_cpu_seconds()
        await asyncio.sleep(max(0.0, measure_end - time.time()))
        cpu_at_end = client_cpu_seconds()

    await asyncio.sleep(max(0.0, warmup_start - time.time()))
    if client == "raw":
        await asyncio.gather(cpu_marks(), *(raw_worker(w) for w in range(concurrency)))
    else:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=REQUEST_TIMEOUT_S) as http:

            async def post(body: bytes) -> tuple[int, bytes]:
                r = await http.post(PATH, content=body, headers=headers)
                return r.status_code, r.content

            await asyncio.gather(cpu_marks(), *(worker(post, w) for w in range(concurrency)))
    return {"latencies": latencies, "ok_total": ok_total, "errors": errors, "cpu": cpu_at_end - cpu_at_start}


def raw_sqlite_commits_per_s(seconds: float) -> float:
    """Single-row commits per second into a fresh WAL database with synchronous=FULL, in a temp dir (the same
    file system as the server's database, which `Server` also puts under the temp dir)."""
    with tempfile.TemporaryDirectory(prefix="ledger-bench-raw-") as tmp:
        conn = sqlite3.connect(os.path.join(tmp, "raw.db"), isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
            payload = "x" * 200
            for _ in range(50):  # warm-up
                conn.execute("BEGIN")
                conn.execute("INSERT INTO t (payload) VALUES (?)", (payload,))
                conn.execute("COMMIT")
            n = 0
            start = time.perf_counter()
            end = start + seconds
            while (now := time.perf_counter()) < end:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO t (payload) VALUES (?)", (payload,))
                conn.execute("COMMIT")
                n += 1
            return n / (now - start)
        finally:
            conn.close()


def run_level(
    pool: ProcessPoolExecutor,
    server: Server,
    party: str,
    user: str,
    level: int,
    procs: int,
    seconds: float,
    warmup: float,
    use_uvloop: bool,
    client: str = "raw",
) -> dict:
    procs = max(1, min(procs, level))
    shares = [level // procs + (1 if i < level % procs else 0) for i in range(procs)]
    end_before = ledger_end(server.url, user)
    warmup_start = time.time() + 1.0  # time for the client processes to be ready
    measure_start = warmup_start + warmup
    measure_end = measure_start + seconds
    tag = f"c{level}-{os.urandom(3).hex()}"
    futures = [
        pool.submit(
            _client_process,
            server.url,
            party,
            user,
            share,
            measure_start,
            measure_end,
            warmup_start,
            f"{tag}-p{i}",
            use_uvloop,
            client,
        )
        for i, share in enumerate(shares)
    ]
    # server CPU over the measuring window, sampled from this (idle) process
    time.sleep(max(0.0, measure_start - time.time()))
    server_cpu0, loop_cpu0 = server.cpu_seconds(), server.main_thread_cpu_seconds()
    time.sleep(max(0.0, measure_end - time.time()))
    server_cpu1, loop_cpu1 = server.cpu_seconds(), server.main_thread_cpu_seconds()
    results = [f.result(timeout=seconds + warmup + REQUEST_TIMEOUT_S + 30) for f in futures]
    latencies = [x for r in results for x in r["latencies"]]
    errors = [e for r in results for e in r["errors"]]
    ok_total = sum(r["ok_total"] for r in results)
    end_after = ledger_end(server.url, user)
    return {
        "level": level,
        "procs": procs,
        "tx_s": len(latencies) / seconds,
        "p50_ms": median(latencies) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "errors": errors,
        "ok_total": ok_total,
        "ledger_delta": end_after - end_before,
        "server_cpu": (server_cpu1 - server_cpu0) / seconds * 100,
        "server_us_per_tx": (server_cpu1 - server_cpu0) / max(1, len(latencies)) * 1e6,
        "loop_us_per_tx": (loop_cpu1 - loop_cpu0) / max(1, len(latencies)) * 1e6,
        "client_cpu": sum(r["cpu"] for r in results) / seconds * 100,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring window per level (default 10)")
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="warm-up per level, not measured (default 2)"
    )
    parser.add_argument("--levels", default="1,8,32", help="comma-separated client concurrencies")
    parser.add_argument(
        "--procs",
        type=int,
        default=1,
        help="client processes to split each level over (default 1; never more than the level)",
    )
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="raw: a minimal keep-alive HTTP/1.1 client (default); httpx: httpx.AsyncClient pool",
    )
    parser.add_argument("--uvloop", action="store_true", help="run the client event loops on uvloop")
    parser.add_argument(
        "--reference-seconds",
        type=float,
        default=3.0,
        help="how long to measure the raw SQLite commit rate before each level (default 3)",
    )
    args = parser.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    if not levels or any(n < 1 for n in levels) or args.seconds <= 0 or args.seconds > 600:
        parser.error("levels must be positive and --seconds in (0, 600]")

    with Server() as server:
        party = setup_party(server.url, "Bench")
        print(
            f"server pid {server.pid} at {server.url}; {args.seconds:g} s per level after {args.warmup:g} s "
            f"warm-up; client processes per level: up to {args.procs}"
            f"{' (uvloop)' if args.uvloop else ''}; client {args.client}"
        )
        print("raw: SQLite commits/s of one row each (WAL, synchronous=FULL), measured just before the level")
        print(
            f"{'level':>5} {'procs':>5} {'raw':>6} {'tx/s':>8} {'ratio':>6} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} "
            f"{'server CPU%':>11} {'µs/tx':>6} {'loop µs/tx':>10} {'client CPU%':>11}"
        )
        rows = []
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=max(1, min(args.procs, max(levels))), mp_context=ctx) as pool:
            for level in levels:
                reference = raw_sqlite_commits_per_s(args.reference_seconds)
                row = run_level(
                    pool,
                    server,
                    party,
                    "Bench",
                    level,
                    args.procs,
                    args.seconds,
                    args.warmup,
                    args.uvloop,
                    args.client,
                )
                row["raw"] = reference
                rows.append(row)
                print(
                    f"{row['level']:>5} {row['procs']:>5} {reference:>6.0f} {row['tx_s']:>8.0f} "
                    f"{row['tx_s'] / reference:>6.2f} {row['p50_ms']:>8.2f} "
                    f"{row['p99_ms']:>8.2f} {len(row['errors']):>6} {row['server_cpu']:>11.0f} "
                    f"{row['server_us_per_tx']:>6.0f} {row['loop_us_per_tx']:>10.0f} {row['client_cpu']:>11.0f}",
                    flush=True,
                )
                for e in row["errors"][:5]:
                    print(f"      error: {e}")
                if row["ledger_delta"] != row["ok_total"]:
                    print(
                        f"      MISMATCH: ledger end moved by {row['ledger_delta']} but {row['ok_total']} "
                        "submissions succeeded"
                    )
        peak = server.hwm()
    errors = sum(len(r["errors"]) for r in rows)
    summary = ", ".join(
        f"{r['level']}: {r['tx_s']:.0f} tx/s = {r['tx_s'] / r['raw']:.2f} x raw {r['raw']:.0f}, "
        f"p50 {r['p50_ms']:.1f} ms p99 {r['p99_ms']:.1f} ms, {r['server_us_per_tx']:.0f} µs server "
        f"CPU/tx ({r['loop_us_per_tx']:.0f} in the event loop's thread)"
        for r in rows
    )
    print(
        f"summary: submit-and-wait-for-transaction (1 Iou per tx, {args.client} client, procs<={args.procs}) — "
        f"{summary}; errors {errors}; server peak RSS {peak / 2**20:.0f} MB"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
