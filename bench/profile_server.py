"""Profile the server process under a bench workload with py-spy, and print where its time goes.

    python -m bench.profile_server submit --level 8 --seconds 8
    python -m bench.profile_server acs --contracts 20000
    python -m bench.profile_server contract-by-id --contracts 20000 --requests 3000

Needs py-spy (`/work/venv/bin/pip install py-spy`). Samples every thread of the server (main event loop and
aiosqlite's threads); prints, per thread and overall, the functions with the most samples on top of the stack
(self) and anywhere on the stack (inclusive), as percentages of that thread's samples. With --idle, samples where
a thread waits are kept, which shows wall time instead of CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench import acs, contract_by_id, submit
from bench.common import Server, seed_ious, setup_party

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def _short(frame: str) -> str:
    """`func (path/to/module.py:12)` as `module.py:func`."""
    m = FRAME.match(frame)
    if not m:
        return frame
    return f"{Path(m['file']).name}:{m['func']}"


def summarize(raw: Path, top: int) -> None:
    """Self and inclusive sample counts per function, per thread, from py-spy's raw (collapsed stack) output."""
    per_thread: dict[str, list[tuple[list[str], int]]] = collections.defaultdict(list)
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        thread = frames[0] if frames[0].startswith(("thread", "process")) else "all"
        frames = [f for f in frames if not f.startswith(("thread", "process"))]
        per_thread[thread].append(([_short(f) for f in frames], int(count)))
    for thread, stacks in sorted(per_thread.items(), key=lambda kv: -sum(c for _, c in kv[1])):
        total = sum(c for _, c in stacks)
        self_counts: collections.Counter[str] = collections.Counter()
        incl_counts: collections.Counter[str] = collections.Counter()
        for stack_frames, samples in stacks:
            if stack_frames:
                self_counts[stack_frames[-1]] += samples
            for f in set(stack_frames):
                incl_counts[f] += samples
        print(f"\n== {thread}: {total} samples")
        print(f"  {'self %':>7}  function")
        for f, c in self_counts.most_common(top):
            print(f"  {100 * c / total:7.1f}  {f}")
        print(f"  {'incl %':>7}  function")
        for f, c in incl_counts.most_common(top):
            print(f"  {100 * c / total:7.1f}  {f}")


def start_spy(pid: int, seconds: float, out: Path, idle: bool, native: bool = False) -> subprocess.Popen:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    args = [
        spy,
        "record",
        "-p",
        str(pid),
        "-d",
        str(int(seconds)),
        "-r",
        "250",
        "-f",
        "raw",
        "-o",
        str(out),
        "--threads",
    ]
    if idle:
        args.append("--idle")
    args.append("--native" if native else "--nonblocking")
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=["submit", "acs", "contract-by-id"])
    parser.add_argument("--level", type=int, default=8, help="submit: concurrent clients")
    parser.add_argument("--procs", type=int, default=1, help="submit: client processes")
    parser.add_argument("--seconds", type=float, default=8.0, help="submit: seconds profiled")
    parser.add_argument("--contracts", type=int, default=20_000, help="acs/contract-by-id: contracts seeded")
    parser.add_argument("--form", choices=list(acs.FORMS), default="ws", help="acs: which form")
    parser.add_argument("--requests", type=int, default=3000, help="contract-by-id: requests")
    parser.add_argument("--idle", action="store_true", help="keep idle samples (wall time, not CPU time)")
    parser.add_argument("--native", action="store_true", help="include C frames (sqlite, uvloop)")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)

    out = Path(tempfile.mkdtemp(prefix="ledger-prof-")) / "profile.txt"
    extra = ("--max-list-elements", str(args.contracts + 1)) if args.workload == "acs" else ()
    with Server(extra=extra) as server:
        party = setup_party(server.url, "Bench")
        if args.workload == "submit":
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=args.procs, mp_context=ctx) as pool:
                spy = None

                def later() -> None:  # run_level starts 1 s from now and warms up 1 s: profile the window
                    nonlocal spy
                    time.sleep(2.0)
                    spy = start_spy(server.pid, args.seconds, out, args.idle, args.native)

                t = threading.Thread(target=later)
                t.start()
                row = submit.run_level(
                    pool, server, party, "Bench", args.level, args.procs, args.seconds, 1.0, False
                )
                t.join()
            print(
                f"level {row['level']}: {row['tx_s']:.0f} tx/s p50 {row['p50_ms']:.2f} ms "
                f"p99 {row['p99_ms']:.2f} ms errors {len(row['errors'])} server CPU {row['server_cpu']:.0f}% "
                f"client CPU {row['client_cpu']:.0f}%"
            )
        elif args.workload == "acs":
            took, _ = asyncio.run(seed_ious(server.url, party, "Bench", args.contracts))
            print(f"seeded {args.contracts} contracts in {took:.1f} s")
            spy = start_spy(server.pid, 600, out, args.idle, args.native)
            time.sleep(0.5)
            form = acs.FORMS[args.form]
            result = asyncio.run(form(server, party, "Bench"))
            print(
                f"{args.form}: {result['count']} contracts in {result['seconds']:.2f} s "
                f"= {result['count'] / result['seconds']:.0f} contracts/s"
            )
            spy.send_signal(2)  # SIGINT: py-spy writes what it has
        else:
            took, ids = asyncio.run(seed_ious(server.url, party, "Bench", args.contracts, collect_ids=True))
            print(f"seeded {args.contracts} contracts in {took:.1f} s")
            spy = start_spy(server.pid, 600, out, args.idle, args.native)
            time.sleep(0.5)
            lat, errors = asyncio.run(contract_by_id.measure(server.url, party, "Bench", ids, args.requests))
            print(f"{len(lat)} requests, errors {len(errors)}")
            spy.send_signal(2)
        assert spy is not None
        try:
            _, err = spy.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            spy.kill()
            _, err = spy.communicate(timeout=10)
    if not out.exists():
        print(f"py-spy wrote no profile: {err}")
        return 1
    summarize(out, args.top)
    print(f"\nraw profile: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
