"""Startup of the terminal client: from spawning `ledger-tui` to its first frame and to the first rows on screen.

Each run starts the real CLI (`python -m app`) in a pseudo-terminal of 160x45, with its config, data, cache and log
directories in a fresh temp dir (LEDGER_TUI_CONFIG, LEDGER_TUI_DATA_DIR, LEDGER_TUI_CACHE_DIR, LEDGER_TUI_LOG_DIR)
and LEDGER_TUI_TRACE set: the app appends its milestones (`main` when the CLI's code starts, `first_frame`,
`participant_spawned` when the app has started the bundled participant (after its first frame, and after the kept
rows if there are some), `participant_ready` when it has announced itself, `connected`, `first_rows`, and
`current_rows`, `rows_read`) to that file as unix times. The first rows may be the last session's, which the app
keeps for the same participant and user and shows marked as not current until the participant answers: then
`first_rows` says `cached` and the run goes on until `current_rows`, the participant's rows on screen. A session
keeps only a whole snapshot: with a checkout whose app says `rows_read` (the whole snapshot in its cache), each run
quits after it, as a person would some time after the first rows, so that the next run finds them kept. Times are measured from just before the spawn. Then `q` goes through the terminal, the app must exit
with 0, and the bundled participant it started must be gone.

* bundled (default): `python -m app`, which starts the bundled participant as its child. A first run initialises
  its database (seeds the demo ledger) and is not counted; the runs after it find the database seeded, as a
  person's second and later starts do.
* url: a participant started by the bench with `--demo`, reached with `python -m app --url URL
  --hs256-secret-file FILE --user Alice`; a first run warms the caches and is not counted.

Reference, same run, runs interleaved: a minimal Textual app (a Static "hello"), spawned the same way, to its first
frame. The terminal's output is read and discarded all along, so the app never blocks on a full pty buffer.
Compiled modules are cached in the temp dir (PYTHONPYCACHEPREFIX) from the first run on, as an install has them.

    python -m bench.tui_startup [--runs 10] [--mode bundled|url] [--source DIR]

`--source` is the directory the app (and the bundled participant) is imported from (default: this checkout); the
processes run in the temp dir, so nothing else shadows it.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import SECRET, Server, percentile

ROOT = Path(__file__).resolve().parent.parent
COLUMNS, LINES = 160, 45
INIT_TIMEOUT_S = 300.0  # bounds on waiting, not targets
RUN_TIMEOUT_S = 60.0
EXIT_TIMEOUT_S = 30.0
POLL_S = 0.005
TARGET_FIRST_FRAME_S = 0.4
TARGET_FIRST_ROWS_S = 0.75

HELLO = """\
from app.trace import milestone

milestone("main")
from textual.app import App
from textual.widgets import Static


class Hello(App):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self):
        yield Static("hello")

    def on_mount(self):
        self.call_after_refresh(milestone, "first_frame")


Hello().run()
"""


@dataclass
class Run:
    milestones: dict[str, float] = field(default_factory=dict)  # seconds after the spawn
    exit_s: float | None = None  # from `q` to the process's exit
    code: int | None = None
    output_bytes: int = 0
    leftovers: list[int] = field(default_factory=list)  # children still alive after the exit
    cached: bool = False  # the first rows were the last session's (kept), not yet the participant's
    error: str = ""


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.extend(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _controlling_terminal() -> None:
    """In the child (a new session already): make the pty its controlling terminal, as a terminal emulator does."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def spawn_and_measure(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    trace: Path,
    until: str,
    timeout: float,
    failed: Callable[[], str] = lambda: "",
    then: str = "",
) -> Run:
    """Start `argv` in a pty, wait for milestone `until`, press q, wait for the exit; all times from the spawn."""
    trace.unlink(missing_ok=True)
    run = Run()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: every holder of the slave side is gone
                return
            if not data:
                return
            run.output_bytes += len(data)

    started = time.time()
    process = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=_controlling_terminal,
        close_fds=True,
    )
    os.close(slave)
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        # first rows that were the last session's (marked so) are not the end: the participant's rows are
        while (
            until not in run.milestones
            or (run.cached and "current_rows" not in run.milestones)
            or (then and then not in run.milestones)
        ):
            if process.poll() is not None:
                run.error = f"exited with {process.returncode} before {until}"
                break
            if time.monotonic() > deadline:
                run.error = f"no {until} within {timeout:.0f} s"
                break
            if why := failed():
                run.error = why
                break
            time.sleep(POLL_S)
            if trace.exists():
                for line in trace.read_text().splitlines():
                    event = json.loads(line)
                    run.milestones[event["event"]] = event["t"] - started
                    if event["event"] == "first_rows" and event.get("cached"):
                        run.cached = True
        children = _children(process.pid)
        quit_at = time.monotonic()
        os.write(master, b"q")
        try:
            run.code = process.wait(timeout=EXIT_TIMEOUT_S)
            run.exit_s = time.monotonic() - quit_at
        except subprocess.TimeoutExpired:
            run.error = run.error or f"still running {EXIT_TIMEOUT_S:.0f} s after q"
            os.killpg(process.pid, signal.SIGTERM)
            run.code = process.wait(timeout=EXIT_TIMEOUT_S)
        # a child the app stops is reaped by the app; one left behind is reparented and lives on
        settle = time.monotonic() + 2
        while any(_alive(c) for c in children) and time.monotonic() < settle:
            time.sleep(0.05)
        run.leftovers = [c for c in children if _alive(c)]
        for pid in run.leftovers:
            os.kill(pid, signal.SIGTERM)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=5)
        os.close(master)
    return run


class Startup:
    def __init__(self, mode: str, source: Path) -> None:
        self.mode = mode
        self.source = source
        self.home = Path(tempfile.mkdtemp(prefix="tui-startup-"))
        self.trace = self.home / "trace.jsonl"
        self.server: Server | None = None
        self.secret_file = self.home / "secret"
        # an app that says when its whole snapshot is read may keep it for the next run: quit after that
        acs = source / "app" / "screens" / "acs.py"
        self.then = "rows_read" if acs.is_file() and '"rows_read"' in acs.read_text() else ""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "LEDGER_TUI"))}
        env.update(
            {
                "HOME": str(self.home),
                "TERM": "xterm-256color",
                "COLORTERM": "truecolor",
                "PYTHONPATH": str(self.source),
                "LEDGER_TUI_TRACE": str(self.trace),
                "LEDGER_TUI_CONFIG": str(self.home / "config" / "config.toml"),
                "LEDGER_TUI_DATA_DIR": str(self.home / "data"),
                "LEDGER_TUI_CACHE_DIR": str(self.home / "cache"),
                "LEDGER_TUI_LOG_DIR": str(self.home / "logs"),
            }
        )
        env.pop("PYTHONSTARTUP", None)
        # compiled modules are kept (outside the checkout), as an installed ledger-tui has them: otherwise, with
        # PYTHONDONTWRITEBYTECODE set, every start would compile app/ and participant/ again (about 0.2 s here)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(self.home / "pycache")
        return env

    def app_argv(self) -> list[str]:
        argv = [sys.executable, "-m", "app"]
        if self.mode == "url":
            assert self.server is not None
            argv += [
                "--url",
                self.server.url,
                "--hs256-secret-file",
                str(self.secret_file),
                "--user",
                "Alice",
            ]
        return argv

    def __enter__(self) -> Startup:
        if self.mode == "url":
            self.secret_file.write_text(SECRET)
            self.server = Server(extra=("--demo",))
            self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.server is not None:
            self.server.stop()
        shutil.rmtree(self.home, ignore_errors=True)

    def tui(self, timeout: float = RUN_TIMEOUT_S) -> Run:
        log = self.home / "logs" / "participant.log"

        def failed() -> str:
            # the app itself stays up to show the error; the bundled participant's log tells at once
            if log.exists() and "unrecognized arguments" in log.read_text(errors="replace"):
                return (
                    "the bundled participant does not know the options ledger-tui starts it with (this "
                    "checkout's participant predates them): use --mode url, or --source with a newer one"
                )
            return ""

        run = spawn_and_measure(
            self.app_argv(), self.env(), self.home, self.trace, "first_rows", timeout, failed, self.then
        )
        if run.error and log.exists():
            run.error += "\n  participant log: " + "\n  ".join(
                log.read_text(errors="replace").splitlines()[-8:]
            )
        return run

    def hello(self) -> Run:
        return spawn_and_measure(
            [sys.executable, "-c", HELLO], self.env(), self.home, self.trace, "first_frame", RUN_TIMEOUT_S
        )


def _stats(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    if not ms:
        return f"{'-':>8} {'-':>8} {'-':>8}"
    return f"{percentile(ms, 50):>8.0f} {percentile(ms, 90):>8.0f} {max(ms):>8.0f}"


def check(run: Run, what: str) -> list[str]:
    problems = []
    if run.error:
        problems.append(f"{what}: {run.error}")
    if run.code != 0:
        problems.append(f"{what}: exit code {run.code}")
    if run.leftovers:
        problems.append(f"{what}: child processes left running after the exit: {run.leftovers}")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tui_startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--mode", choices=("bundled", "url"), default="bundled")
    p.add_argument(
        "--source", type=Path, default=ROOT, help="where `app` and `participant` are imported from"
    )
    args = p.parse_args(argv)
    problems: list[str] = []
    with Startup(args.mode, args.source.resolve()) as bench:
        first = bench.tui(INIT_TIMEOUT_S)
        problems += check(first, "first run (initialising)")
        if first.error:
            print("\n".join(problems), file=sys.stderr)
            return 1
        print(
            f"first run (initialises{' and seeds the bundled database' if args.mode == 'bundled' else ''}; "
            f"not counted): first rows after {first.milestones['first_rows']:.2f} s",
            flush=True,
        )
        bench.hello()  # warm-up of the reference too
        tuis: list[Run] = []
        hellos: list[Run] = []
        for i in range(args.runs):
            run = bench.tui()
            problems += check(run, f"ledger-tui run {i + 1}")
            tuis.append(run)
            ref = bench.hello()
            problems += check(ref, f"hello run {i + 1}")
            hellos.append(ref)

    def col(runs: list[Run], key: str) -> list[float]:
        return [r.milestones[key] for r in runs if key in r.milestones]

    print()
    mode = (
        "bundled participant (python -m app)"
        if args.mode == "bundled"
        else "participant started by the bench (python -m app --url … --hs256-secret-file …)"
    )
    print(f"ledger-tui startup, {args.runs} runs, {COLUMNS}x{LINES} pty, {mode}; times from the spawn")
    print()
    print(f"{'milestone':<34} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}  target")
    print(f"{'hello: main (interpreter up)':<34} {_stats(col(hellos, 'main'))}")
    print(f"{'hello: first frame (reference)':<34} {_stats(col(hellos, 'first_frame'))}")
    print(f"{'ledger-tui: main':<34} {_stats(col(tuis, 'main'))}")
    print(
        f"{'ledger-tui: first frame':<34} {_stats(col(tuis, 'first_frame'))}  < {TARGET_FIRST_FRAME_S * 1000:.0f}"
    )
    # what the first rows wait for: the bundled participant's readiness, then the client's connection
    print(f"{'ledger-tui: participant spawned':<34} {_stats(col(tuis, 'participant_spawned'))}")
    print(f"{'ledger-tui: participant ready':<34} {_stats(col(tuis, 'participant_ready'))}")
    print(f"{'ledger-tui: connected':<34} {_stats(col(tuis, 'connected'))}")
    print(
        f"{'ledger-tui: first rows':<34} {_stats(col(tuis, 'first_rows'))}  < {TARGET_FIRST_ROWS_S * 1000:.0f}"
    )
    print(f"{'ledger-tui: current rows':<34} {_stats(col(tuis, 'current_rows'))}")
    print(f"{'ledger-tui: exit after q':<34} {_stats([r.exit_s for r in tuis if r.exit_s is not None])}")
    reference = percentile(col(hellos, "first_frame"), 50)
    print()
    print(
        f"ratios of p50s to the reference's first frame: first frame "
        f"{percentile(col(tuis, 'first_frame'), 50) / reference:.2f}, "
        f"first rows {percentile(col(tuis, 'first_rows'), 50) / reference:.2f}"
        + (
            f" ({sum(r.cached for r in tuis)} of {len(tuis)} the last session's), current rows "
            f"{percentile(col(tuis, 'current_rows'), 50) / reference:.2f}"
            if col(tuis, "current_rows")
            else ""
        )
    )
    print(
        f"exits: {sum(r.code == 0 for r in tuis)}/{len(tuis)} clean, "
        f"{sum(not r.leftovers for r in tuis)}/{len(tuis)} with no child left running"
    )
    if problems:
        print("\nproblems:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
