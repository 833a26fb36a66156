"""Daml Script: the Canton Coin test suite's time under `ledger-participant test`, and the runner's cost per
submission.

    python -m bench.script_suite [--dar FILE] [--script Module:name] [--runs 3] [--jobs N] [--skip-suite]

1. The suite: ``ledger-participant test --dar FILE --json`` in a subprocess (each script on a fresh in-process
   ledger, in worker processes), its wall time and summary, and the machine's load average before and after (the
   machine may be shared: a loaded one stretches the wall time), and the CPU time its processes took (what a
   loaded machine does not stretch much). Goal: at most 60 s on a 2-core machine.
2. The runner's cost per submission: ``--script`` run ``--runs`` times, each on a fresh ledger in this process.
   Per submission, the runner's submit (the commands' values encoded to JSON, the call, the transaction's tree and
   results decoded back to Daml values) against the same commands' call alone to the in-process service
   (``submit-and-wait-for-transaction`` through ``httpx.ASGITransport``, the JSON as sent). Goal: within 1.5x.
   Also printed: the whole script's wall time per submission (its own evaluation and every other question in it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import median
from participant.daml_script import run_script
from participant.daml_script.dars import Dars, read_dars
from participant.daml_script.json_ledger import JsonLedger
from participant.server.script_tests import fresh_ledger, prepare_database

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DAR = (REPO / "../shared/dars/splice/test/splice-amulet-test-0.1.8.dar").resolve()
SUBMIT = "/v2/commands/submit-and-wait-for-transaction"


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (5 min: {five:.1f})"


def suite(dar: Path, jobs: int | None) -> None:
    command = [sys.executable, "-m", "participant", "test", "--dar", str(dar), "--json"]
    if jobs:
        command += ["--jobs", str(jobs)]
    load_before = _load()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env={**os.environ})
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    summary = lines[-1].get("summary", {}) if lines else {}
    slowest = sorted((line for line in lines if "script" in line), key=lambda line: -line["seconds"])[:3]
    print(f"suite: {summary.get('passed')} passed, {summary.get('failed')} failed, exit {done.returncode}")
    cores = os.cpu_count() or 1
    print(
        f"suite: {seconds:.1f} s wall on {cores} cores (goal <= 60 s); load {load_before} before, {_load()} after"
    )
    print(
        f"suite: {cpu:.1f} s of CPU in its processes (their write processes included): {cpu / cores:.1f} s of wall "
        f"time on {cores} idle cores at best"
    )
    for line in slowest:
        print(f"  slowest: {line['script']} {line['seconds']:.1f} s, {line['transactions']} transactions")
    for line in lines:
        if line.get("status") == "failed":
            print(f"  FAILED {line['script']}: {line['error']} at {line['location']}")


class TimedLedger(JsonLedger):
    """The runner's ledger, timing its calls to the service's submit endpoint."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.submit_seconds: list[float] = []  # the service's submit calls
        self.runner_seconds: list[float] = []  # the runner's submits, conversions included

    async def submit(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await super().submit(*args, **kwargs)
        finally:
            self.runner_seconds.append(time.perf_counter() - started)

    async def _call(self, method: str, path: str, body: Any = None, missing: str | None = None) -> Any:
        if path != SUBMIT:
            return await super()._call(method, path, body, missing)
        started = time.perf_counter()
        try:
            return await super()._call(method, path, body, missing)
        finally:
            self.submit_seconds.append(time.perf_counter() - started)


async def per_submission(dars: Dars, db: Path, script: str, runs: int) -> None:
    runner, direct, whole = [], [], []
    for _ in range(runs):
        async with fresh_ledger(dars.code, db) as ledger:
            timed = TimedLedger(ledger.http, dars.code)
            started = time.perf_counter()
            outcome = await run_script(dars.code, script, timed)
            seconds = time.perf_counter() - started
        if not outcome.passed:
            print(f"{script} failed: {outcome.error} at {outcome.location}")
            return
        count = len(timed.submit_seconds)
        runner.append(sum(timed.runner_seconds) / count)
        direct.append(sum(timed.submit_seconds) / count)
        whole.append(seconds / count)
        print(
            f"  run: {count} submissions: {runner[-1] * 1000:.1f} ms each through the runner, "
            f"{direct[-1] * 1000:.1f} ms each in the service's call; the whole script {seconds:.2f} s"
        )
    ratio = median(runner) / median(direct)
    print(
        f"per submission ({script}, median of {runs}): runner {median(runner) * 1000:.1f} ms, direct "
        f"{median(direct) * 1000:.1f} ms: {ratio:.2f}x (goal <= 1.5x); the whole script per submission "
        f"{median(whole) * 1000:.0f} ms; load {_load()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--script", default="Splice.Scripts.TestTap:testTap")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--skip-suite", action="store_true")
    args = parser.parse_args()
    if not args.skip_suite:
        suite(args.dar, args.jobs)
    dars = read_dars([args.dar])
    with tempfile.TemporaryDirectory() as directory:
        db = Path(directory) / "dars.db"
        asyncio.run(prepare_database(dars, db))
        asyncio.run(per_submission(dars, db, args.script, args.runs))


if __name__ == "__main__":
    main()
