"""The bundled participant as the terminal client runs it: a child process on a free port, its secret kept in the
data directory, progress while the demo ledger is seeded, shared by a second client, gone with its parent."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import jwt

from app.bundled import BundledParticipant
from app.tokens import MintedToken

BOUND = 120.0  # seconds: how long these tests wait for a process at most


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie is gone for our purposes
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] == "Z"
    except OSError:
        return True


def _wait(predicate, what: str) -> None:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"never saw {what}")


async def test_starts_seeds_serves_with_minted_tokens_and_stops(tmp_path, umask_022):
    bundled = BundledParticipant(tmp_path / "data", tmp_path / "logs")
    phases: list[str] = []
    bundled.subscribe(lambda state: phases.append(state.phase))
    bundled.start()
    try:
        state = bundled.wait(BOUND)
        assert state.phase == "ready", state.error
        assert "seeding" in phases  # progress reported while the demo ledger was seeded
        secret = bundled.secret()
        # Readable by this user only, whatever the umask: the secret, the database and the log, and their directories.
        for path in (
            "data/secret",
            "data/ledger.db",
            "data/ledger.db-wal",
            "data/ledger.db-shm",
            "logs/participant.log",
        ):
            assert stat.S_IMODE((tmp_path / path).stat().st_mode) == 0o600, path
        for path in ("data", "logs"):
            assert stat.S_IMODE((tmp_path / path).stat().st_mode) == 0o700, path
        token = await MintedToken(secret, "Alice").token()
        assert jwt.decode(token, secret, algorithms=["HS256"])["sub"] == "Alice"
        r = httpx.get(f"{state.url}/v2/authenticated-user", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json()["user"]["id"] == "Alice"
        assert (
            httpx.get(
                f"{state.url}/v2/state/ledger-end", headers={"Authorization": f"Bearer {token}"}
            ).json()["offset"]
            > 0
        )
        pid = bundled.process.pid
    finally:
        bundled.stop()
    _wait(lambda: _gone(pid), "the participant stop")
    assert bundled.secret() == secret  # kept for the next start


def test_a_second_client_shares_the_running_participant(tmp_path):
    first = BundledParticipant(tmp_path / "data", tmp_path / "logs")
    first.start()
    try:
        assert first.wait(BOUND).phase == "ready"
        second = BundledParticipant(tmp_path / "data", tmp_path / "logs")
        second.start()
        state = second.wait(BOUND)
        assert state.phase == "ready" and state.url == first.state.url
        assert not second.owned and second.process is None
        second.stop()  # leaves the shared one alone
        assert first.alive
    finally:
        first.stop()


def test_the_participant_does_not_outlive_a_killed_client(tmp_path):
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from app.bundled import BundledParticipant
        b = BundledParticipant(Path({str(tmp_path / "data")!r}), Path({str(tmp_path / "logs")!r}))
        b.start()
        state = b.wait(120)
        print(b.process.pid, state.phase, flush=True)
        time.sleep(600)
    """)
    client = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        line = client.stdout.readline().split()
        child, phase = int(line[0]), line[1]
        assert phase == "ready"
        client.send_signal(signal.SIGKILL)
        client.wait(timeout=BOUND)
        _wait(lambda: _gone(child), "the participant end with its parent")
    finally:
        if client.poll() is None:
            client.kill()


def test_ledger_tui_without_arguments_opens_the_demo_ledger_and_quits_cleanly(tmp_path):
    """The README's first command, in a real pseudo-terminal: first frame, first rows, `q`, no child left."""
    trace = tmp_path / "trace.jsonl"
    env = {
        **os.environ,
        "LEDGER_TUI_DATA_DIR": str(tmp_path / "data"),
        "LEDGER_TUI_CACHE_DIR": str(tmp_path / "c"),
        "LEDGER_TUI_LOG_DIR": str(tmp_path / "logs"),
        "LEDGER_TUI_CONFIG": str(tmp_path / "config.toml"),
        "LEDGER_TUI_TRACE": str(trace),
        "TERM": "xterm-256color",
        "COLUMNS": "160",
        "LINES": "45",
    }
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(Path(__file__).resolve().parents[2])
        os.execve(sys.executable, [sys.executable, "-m", "app"], env)
    output = bytearray()

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    output.extend(os.read(fd, 65536))
                except OSError:
                    return

    def events() -> list[str]:
        try:
            return [json.loads(line)["event"] for line in trace.read_text().splitlines()]
        except FileNotFoundError:
            return []

    try:
        deadline = time.monotonic() + BOUND
        while "first_rows" not in events() and time.monotonic() < deadline:
            pump(0.1)
        assert events()[:1] == ["main"] and "first_frame" in events() and "first_rows" in events()
        serving = json.loads((tmp_path / "data" / "bundled" / "ledger.db.serving.json").read_text())
        child = serving["pid"]
        deadline = time.monotonic() + BOUND
        while b"Iou:Iou" not in output and time.monotonic() < deadline:
            pump(0.1)  # the rows' frame may still be on its way through the terminal
        assert b"Iou:Iou" in output
        os.write(fd, b"q")
        deadline = time.monotonic() + BOUND
        status = None
        while time.monotonic() < deadline:
            pump(0.1)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        assert status is not None and os.waitstatus_to_exitcode(status) == 0
        _wait(lambda: _gone(child), "the bundled participant stop with ledger-tui")
        assert b"Traceback" not in output
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(fd)
