"""`ledger-tui updates --follow | head -n 1` on a quiet ledger: how long the command lives after its reader goes away.

A participant (`ledger-participant serve`, its own process) and, per run, the real command (`python -m app updates
--follow`, from the ledger end, `--hs256-secret-file`), its stdout a pipe held by this process alone. One Iou is
submitted; once its line is read, the pipe's reading end is closed, as `head -n 1` closes it on exit, and nothing
more is committed. Timed: from that close to the command's exit (its exit code must be 0). Reference, same run:
from the spawn of the command to its first line (a start, a connection and one update), which the first number
should be a small part of.

    python -m bench.follow_reader_gone [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import SECRET, Server, bearer, ledger_end, median, setup_party, submit_body

ROOT = Path(__file__).resolve().parents[1]
USER = "FollowBench"
GIVE_UP_S = 120


def one_run(url: str, party: str, secret_file: Path, home: Path, n: int) -> tuple[float, float]:
    begin = ledger_end(url, USER)
    spawned = time.monotonic()
    follower = subprocess.Popen(
        [sys.executable, "-m", "app", "updates", "--follow", "--from", str(begin), "--url", url]
        + ["--hs256-secret-file", str(secret_file), "--user", USER],
        cwd=ROOT,
        env={**os.environ, "HOME": str(home)},
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert follower.stdout is not None
    try:
        r = httpx.post(
            f"{url}/v2/commands/submit-and-wait-for-transaction",
            content=submit_body(party, f"follow-bench-{os.getpid()}-{n}"),
            headers={**bearer(USER), "Content-Type": "application/json"},
            timeout=30,
        )
        r.raise_for_status()
        line = follower.stdout.readline()
        first_line_s = time.monotonic() - spawned
        assert json.loads(line)["Transaction"]["value"]["commandId"] == f"follow-bench-{os.getpid()}-{n}"
        closed = time.monotonic()
        follower.stdout.close()  # the reader goes away
        code = follower.wait(timeout=GIVE_UP_S)
        gone_s = time.monotonic() - closed
        assert code == 0, f"exit code {code}"
        return gone_s, first_line_s
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    with Server() as server, tempfile.TemporaryDirectory(prefix="follow-bench-") as tmp:
        party = setup_party(server.url, USER)
        secret_file = Path(tmp) / "secret"
        secret_file.write_text(SECRET)
        gone, first = [], []
        for n in range(args.runs):
            g, f = one_run(server.url, party, secret_file, Path(tmp), n)
            gone.append(g)
            first.append(f)
            print(
                f"run {n + 1}: exit {g * 1000:.0f} ms after its reader went away (first line {f * 1000:.0f} ms)"
            )
    print(
        f"reader gone -> exit: median {median(gone) * 1000:.0f} ms, max {max(gone) * 1000:.0f} ms "
        f"(goal: under 1 s); spawn -> first line: median {median(first) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
