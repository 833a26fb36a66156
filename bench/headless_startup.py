"""Start of a headless command against the TUI's: from spawn to the first contracts shown.

A participant with the demo ledger (`ledger-participant serve --demo`, its own process). Runs interleaved:

* headless: `python -m app acs --url URL --token-file F` (Alice), timed from the spawn to its first line on stdout;
* TUI: `python -m app --url URL --token-file F` in a 160x45 pseudo-terminal, timed from the spawn to its
  `first_rows` milestone (LEDGER_TUI_TRACE, as `bench.tui_startup` reads it), then killed.

The first run of each warms the caches and is not counted; medians of the rest.

    python -m bench.headless_startup [--runs 8]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

from bench.common import Server, token

TIMEOUT_S = 60.0


def tui_first_rows(args: list[str], home: Path) -> float:
    trace = home / "trace.jsonl"
    trace.unlink(missing_ok=True)
    env = {**os.environ, "HOME": str(home), "TERM": "xterm-256color", "LEDGER_TUI_TRACE": str(trace)}
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    started = time.time()
    child = subprocess.Popen(args, env=env, stdin=slave, stdout=slave, stderr=slave, cwd=home)
    os.close(slave)
    done = threading.Event()

    def drain() -> None:  # the terminal's output, read and discarded so that the app never blocks on it
        while not done.is_set():
            try:
                os.read(master, 65536)
            except OSError:
                return

    threading.Thread(target=drain, daemon=True).start()
    try:
        deadline = started + TIMEOUT_S
        while time.time() < deadline:
            time.sleep(0.005)
            if trace.exists():
                for line in trace.read_text().splitlines():
                    event = json.loads(line)
                    if event["event"] == "first_rows":
                        return event["t"] - started
        raise RuntimeError("the TUI showed no rows in time")
    finally:
        child.kill()
        child.wait()
        done.set()
        os.close(master)


def headless_first_line(args: list[str], home: Path) -> float:
    started = time.time()
    child = subprocess.Popen(
        args, env={**os.environ, "HOME": str(home)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=home
    )
    assert child.stdout is not None and child.stderr is not None
    line = child.stdout.readline()
    took = time.time() - started
    child.kill()
    child.wait()
    if not line.startswith(b"{"):
        raise RuntimeError(f"headless acs printed no contract: {child.stderr.read()[-500:]!r}")
    return took


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=8)
    runs = p.parse_args().runs
    home = Path(tempfile.mkdtemp(prefix="headless-startup-"))
    try:
        (home / "alice.jwt").write_text(token("Alice"))
        with Server(extra=("--demo",)) as server:
            where = ["--url", server.url, "--token-file", str(home / "alice.jwt")]
            headless, tui = [], []
            for _ in range(runs):
                headless.append(headless_first_line([sys.executable, "-m", "app", "acs", *where], home))
                tui.append(tui_first_rows([sys.executable, "-m", "app", *where], home))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    h = statistics.median(headless[1:]) * 1000
    t = statistics.median(tui[1:]) * 1000
    print(
        f"headless `acs`, spawn to the first contract printed: median {h:.0f} ms {[round(x * 1000) for x in headless]}"
    )
    print(f"TUI --url, spawn to the first rows on screen: median {t:.0f} ms {[round(x * 1000) for x in tui]}")
    print(f"ratio headless / TUI: {h / t:.2f}")


if __name__ == "__main__":
    main()
