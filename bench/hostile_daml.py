"""A create whose `ensure` never ends, against a real server: what it costs everyone else.

Prints the looping command's answer (and how long it took: the tolerance, `--ledger-time-tolerance`), the latency of
an Iou create submitted meanwhile against the same create on an idle server, the longest `/livez` probe during the
loop (goal <= 50 ms), the server's RSS growth (goal <= 300 MB), and, on a second server with Canton's default
tolerance of 60 s, the time from SIGTERM during the loop to the process's exit (goal <= 5 s).

The hostile DAR is `tests.engine.hostile_package.looping_ensure`, made from the richtypes DAR.

    python -m bench.hostile_daml [--tolerance 3] [--controls 20] [--dars ../shared/dars]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import Server, bearer, mb, median, percentile, setup_party, submit_body
from tests.engine.hostile_package import looping_ensure, marker_id

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DARS = REPO_ROOT / ".." / "shared" / "dars"
LOOP = "hostile-loop"
SUBMIT = "/v2/commands/submit-and-wait-for-transaction"
LIVEZ_EVERY_S = 0.01


def _loop_body(party: str) -> dict:
    return {
        "commands": {
            "commands": [
                {"CreateCommand": {"templateId": marker_id(LOOP), "createArguments": {"owner": party}}}
            ],
            "commandId": f"loop-{os.urandom(6).hex()}",
            "actAs": [party],
        }
    }


async def _control(http: httpx.AsyncClient, party: str) -> float:
    """One Iou create, submitted and waited for; its latency in ms."""
    body = submit_body(party, f"control-{os.urandom(6).hex()}")
    started = time.perf_counter()
    r = await http.post(SUBMIT, content=body, headers=bearer(party_user(party)))
    assert r.status_code == 200, r.text
    return (time.perf_counter() - started) * 1000


def party_user(party: str) -> str:
    return party.partition("::")[0]


async def _controls(http: httpx.AsyncClient, party: str, count: int) -> list[float]:
    return [await _control(http, party) for _ in range(count)]


async def _loop_run(server: Server, party: str, controls: int) -> dict:
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=120) as http,
        httpx.AsyncClient(base_url=server.url, timeout=120) as probe,
        httpx.AsyncClient(base_url=server.url, timeout=120) as loop_client,
    ):
        idle_task = asyncio.create_task(_controls(http, party, controls))
        idle_livez, _, _ = await _probe(probe, idle_task, 0.0)
        idle = await idle_task
        rss_before = server.rss()
        peak_rss = rss_before
        started = time.perf_counter()
        looping = asyncio.create_task(
            loop_client.post(SUBMIT, json=_loop_body(party), headers=bearer(party_user(party)))
        )
        loop_answered: list[float] = []
        looping.add_done_callback(lambda _: loop_answered.append((time.perf_counter() - started) * 1000))
        await asyncio.sleep(0.2)  # the loop is being interpreted
        during = asyncio.create_task(_controls(http, party, controls))
        livez, livez_at, peak = await _probe(probe, looping, started, server)
        peak_rss = max(peak_rss, peak)
        answer = await looping
        busy = await during
        return {
            "answer": answer,
            "answer_ms": loop_answered[0],
            "idle": idle,
            "busy": busy,
            "livez": livez,
            "idle_livez": idle_livez,
            "livez_at": livez_at,
            "rss_growth": peak_rss - rss_before,
        }


async def _probe(
    probe: httpx.AsyncClient, until: asyncio.Task, started: float, server: Server | None = None
) -> tuple[list[float], list[float], int]:
    """/livez every 10 ms until `until` is done: each probe's latency (ms), when it was sent (ms after `started`),
    and the server's largest RSS sampled with them (0 without `server`)."""
    latencies: list[float] = []
    sent_at: list[float] = []
    peak = 0
    while not until.done():
        t0 = time.perf_counter()
        r = await probe.get("/livez")
        latencies.append((time.perf_counter() - t0) * 1000)
        sent_at.append((t0 - started) * 1000)
        assert r.status_code == 200, r.text
        if server is not None:
            peak = max(peak, server.rss())
        await asyncio.sleep(LIVEZ_EVERY_S)
    return latencies, sent_at, peak


async def _sigterm_run(server: Server, party: str) -> float:
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        looping = asyncio.create_task(
            http.post(SUBMIT, json=_loop_body(party), headers=bearer(party_user(party)))
        )
        await asyncio.sleep(0.5)  # well into the loop
        assert server.process is not None
        sent = time.perf_counter()
        server.process.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.process.wait, 60)
        exited = (time.perf_counter() - sent) * 1000
        try:
            await looping
        except httpx.HTTPError:
            pass
        return exited


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tolerance", type=float, default=3.0, help="--ledger-time-tolerance (default 3 s)")
    parser.add_argument(
        "--controls", type=int, default=20, help="Iou creates timed, idle and during the loop"
    )
    parser.add_argument("--dars", type=Path, default=DEFAULT_DARS, help="the directory holding richtypes/")
    args = parser.parse_args()
    richtypes = (args.dars / "richtypes" / "richtypes.dar").read_bytes()
    with tempfile.TemporaryDirectory(prefix="hostile-daml-") as tmp:
        dar = Path(tmp) / "loop.dar"
        dar.write_bytes(looping_ensure(richtypes, LOOP))
        extra = ("--dar", str(dar))
        with Server(extra=(*extra, "--ledger-time-tolerance", str(args.tolerance))) as server:
            party = setup_party(server.url, "Alice")
            result = asyncio.run(_loop_run(server, party, args.controls))
        with Server(extra=extra) as server:
            party = setup_party(server.url, "Alice")
            exited = asyncio.run(_sigterm_run(server, party))
    answer = result["answer"]
    idle, busy, livez = result["idle"], result["busy"], result["livez"]
    code = (
        answer.json().get("code")
        if answer.headers.get("content-type", "").startswith("application/json")
        else ""
    )
    print(
        f"looping create: HTTP {answer.status_code} {code} after {result['answer_ms']:.0f} ms (tolerance {args.tolerance} s)"
    )
    print(
        f"control Iou create, {args.controls} one after another: idle p50 {median(idle):.1f} ms max {max(idle):.1f} ms; "
        f"during the loop p50 {median(busy):.1f} ms max {max(busy):.1f} ms"
    )
    print(
        f"/livez during the loop: {len(livez)} probes, p50 {median(livez):.1f} ms, p99 {percentile(livez, 99):.1f} ms, "
        f"max {max(livez):.1f} ms (goal <= 50 ms)"
    )
    idle_livez = result["idle_livez"]
    print(
        f"/livez during the idle creates (the machine's own noise): p50 {median(idle_livez):.1f} ms, "
        f"max {max(idle_livez):.1f} ms"
    )
    worst = max(range(len(livez)), key=livez.__getitem__)
    print(f"  the longest probe was sent {result['livez_at'][worst]:.0f} ms after the looping create")
    print(f"server RSS growth during the loop: {mb(result['rss_growth']):.1f} MB (goal <= 300 MB)")
    print(f"SIGTERM during a loop (tolerance 60 s) to exit: {exited:.0f} ms (goal <= 5000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
