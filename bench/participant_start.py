"""The bundled participant's start, as `ledger-tui` starts it: from the spawn to its `ready` announcement and to the
answers a client asks first, in wall time and in the CPU the process took (user and system, its threads included,
from /proc): on a machine shared with other work the CPU is the steadier figure.

Each run starts `python -m participant serve --announce json --exit-on-stdin-eof --demo …` (the arguments of
`app.bundled`) on a demo ledger seeded once before the runs (a first start, not counted), reads its announcements,
then asks what `ledger-tui` asks on connecting and for its first rows (the version, the user and its rights, the
ledger end, a page of the ACS) and closes its standard input. Compiled modules are cached from the first start on,
as an installed participant has them.

    python -m bench.participant_start [--runs 10] [--source DIR ...]

With several `--source` directories (checkouts to import `participant` from) the runs alternate between them, so
that each sees the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.common import SECRET, percentile

ROOT = Path(__file__).resolve().parent.parent
FIRST_TIMEOUT_S = 600.0  # the first start seeds the demo ledger; bounds on waiting, not targets
RUN_TIMEOUT_S = 120.0


@dataclass
class Source:
    path: Path
    home: Path
    ready_s: list[float] = field(default_factory=list)
    answered_s: list[float] = field(default_factory=list)
    cpu_ready_s: list[float] = field(default_factory=list)
    cpu_answered_s: list[float] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEDGER_TUI")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(PYTHONPATH=str(self.path), PYTHONPYCACHEPREFIX=str(self.home / "pycache"))
        return env


def _cpu_s(pid: int) -> float:
    """User and system time of the process so far, every thread included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _first_answers(url: str) -> None:
    from participant.auth import mint_token

    alice = {"Authorization": "Bearer " + mint_token(hs256_secret=SECRET, user_id="Alice")}
    with httpx.Client(base_url=url, headers=alice, timeout=RUN_TIMEOUT_S) as http:
        for path in (
            "/v2/version",
            "/v2/authenticated-user",
            "/v2/users/Alice/rights",
            "/v2/state/ledger-end",
        ):
            http.get(path).raise_for_status()
        party = http.get("/v2/users/Alice").json()["user"]["primaryParty"]
        end = http.get("/v2/state/ledger-end").json()["offset"]
        body = {
            "activeAtOffset": end,
            "eventFormat": {"filtersByParty": {party: {}}, "verbose": True},
            "maxPageSize": 100,
        }
        page = http.request("GET", "/v2/state/active-contracts-page", json=body)
        page.raise_for_status()
        assert page.json()["activeContracts"], "the demo ledger answered no contracts"


def start(source: Source, timeout: float, counted: bool) -> None:
    secret = source.home / "secret"
    secret.write_text(SECRET)
    argv = [
        sys.executable,
        "-m",
        "participant",
        "serve",
        "--db",
        str(source.home / "ledger.db"),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--hs256-secret-file",
        str(secret),
        "--announce",
        "json",
        "--exit-on-stdin-eof",
        "--quiet",
        "--demo",
    ]
    with (source.home / "participant.log").open("ab") as log:
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=source.home,
            env=source.env(),
        )
    try:
        assert process.stdout is not None
        deadline = started + timeout
        for line in process.stdout:
            event = json.loads(line)
            if event.get("event") == "ready":
                ready, cpu_ready = time.monotonic() - started, _cpu_s(process.pid)
                _first_answers(event["url"])
                answered, cpu_answered = time.monotonic() - started, _cpu_s(process.pid)
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"{source.path}: not ready within {timeout:.0f} s")
        else:
            raise SystemExit(f"{source.path}: exited with {process.wait()} before ready; see {log.name}")
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=RUN_TIMEOUT_S)
    if counted:
        source.ready_s.append(ready)
        source.answered_s.append(answered)
        source.cpu_ready_s.append(cpu_ready)
        source.cpu_answered_s.append(cpu_answered)


def _p50(values: list[float]) -> str:
    return f"{percentile([v * 1000 for v in values], 50):>8.0f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.participant_start", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--runs", type=int, default=10)
    p.add_argument(
        "--source",
        type=Path,
        action="append",
        help="a checkout to import `participant` from (repeatable; default: this one)",
    )
    args = p.parse_args(argv)
    sources = [
        Source(path.resolve(), Path(tempfile.mkdtemp(prefix="participant-start-")))
        for path in (args.source or [ROOT])
    ]
    try:
        for source in sources:
            start(source, FIRST_TIMEOUT_S, counted=False)  # seeds the demo ledger, fills the bytecode cache
        for _ in range(args.runs):
            for source in sources:
                start(source, RUN_TIMEOUT_S, counted=True)
    finally:
        for source in sources:
            shutil.rmtree(source.home, ignore_errors=True)
    print(
        f"bundled participant start, {args.runs} runs each, alternating; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'source':<40} {'ready':>8} {'answered':>8} {'CPU at ready':>13} {'CPU answered':>13}  (p50, ms)")
    for s in sources:
        print(
            f"{str(s.path):<40} {_p50(s.ready_s)} {_p50(s.answered_s)} {_p50(s.cpu_ready_s):>13} "
            f"{_p50(s.cpu_answered_s):>13}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
