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
from filelock import FileLock

from app.bundled import BundledParticipant
from app.tokens import MintedToken
from tests.tui.conftest import known

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
        pid = known(bundled.process).pid
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
        # DARs to load need a participant started with them: the shared one is not.
        third = BundledParticipant(tmp_path / "data", tmp_path / "logs", extra_args=("--dar", "my.dar"))
        third.start()
        state = third.wait(BOUND)
        assert state.phase == "failed" and "already running" in state.error and "--dar my.dar" in state.error
        assert first.alive
    finally:
        first.stop()


def test_a_database_held_by_a_stopping_participant_is_waited_for_then_served(tmp_path):
    """A ledger-tui started while the previous one's participant still stops (it holds the database's lock, its
    serving file already gone) gets its own participant once the database is free."""
    data = tmp_path / "data"
    data.mkdir()
    holder = FileLock(f"{data / 'ledger.db'}.lock")
    holder.acquire()
    bundled = BundledParticipant(data, tmp_path / "logs")
    bundled.start()
    try:
        first = known(bundled.process)
        _wait(lambda: first.poll() is not None, "the first child refused the held database")
        holder.release()
        state = bundled.wait(BOUND)
        assert state.phase == "ready", state.error
        assert bundled.owned and bundled.process is not first
        assert httpx.get(f"{state.url}/v2/version").status_code == 200
    finally:
        holder.release()
        bundled.stop()


def test_a_database_freed_before_the_client_looks_is_served_too(tmp_path, monkeypatch):
    """The participant holding the database goes in the moment between the child's refusal and the client's look
    at the lock (a loaded machine): the client knew it was held from the child, and starts its own participant
    (it took the free lock for "never held" and failed)."""
    data = tmp_path / "data"
    data.mkdir()
    holder = FileLock(f"{data / 'ledger.db'}.lock", thread_local=False)  # released from the client's thread
    holder.acquire()
    looks = BundledParticipant._wait_for_other

    def freed_first(self, *args):
        holder.release()
        return looks(self, *args)

    monkeypatch.setattr(BundledParticipant, "_wait_for_other", freed_first)
    bundled = BundledParticipant(data, tmp_path / "logs")
    bundled.start()
    try:
        first = known(bundled.process)
        state = bundled.wait(BOUND)
        assert state.phase == "ready", state.error
        assert bundled.owned and bundled.process is not first
    finally:
        holder.release()
        bundled.stop()


def test_a_client_started_as_the_last_one_quits_gets_a_participant_that_answers(tmp_path):
    """Quitting does not wait for the bundled participant; the next start must not take the one going away."""
    first = BundledParticipant(tmp_path / "data", tmp_path / "logs")
    first.start()
    assert first.wait(BOUND).phase == "ready"
    first.stop()
    second = BundledParticipant(tmp_path / "data", tmp_path / "logs")
    second.start()
    try:
        state = second.wait(BOUND)
        assert state.phase == "ready", state.error
        assert httpx.get(f"{state.url}/v2/version").status_code == 200
    finally:
        second.stop()


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
        line = known(client.stdout).readline().split()
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
        # its participant is started once the first frame is drawn, not before: it would slow the frame down
        assert events().index("participant_spawned") > events().index("first_frame")
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


# --- ledger-tui --dar: the bundled participant loads the DARs as it starts


def test_dar_options_reach_the_bundled_participant(tmp_path, dars_dir, monkeypatch, capsys):
    from app import cli, options
    from tests.daml_lf.conftest import HOLDING

    monkeypatch.chdir(dars_dir)
    args = cli.parser().parse_args(["--dar", HOLDING, "--dar", str(dars_dir / HOLDING)])
    assert (
        options.bundled_flags(args) == ("--dar", str(dars_dir / HOLDING)) * 2
    )  # absolute: the child says which
    token_file = tmp_path / "t"
    token_file.write_text("x")
    r = cli.main(["--url", "http://localhost:7575", "--token-file", str(token_file), "--dar", HOLDING])
    assert r == 2 and "--dar needs the bundled participant" in capsys.readouterr().err
    r = cli.main(["--dar", str(tmp_path / "absent.dar")])
    assert r == 2 and "absent.dar does not exist" in capsys.readouterr().err


async def test_a_bundled_participant_started_with_dars_serves_their_packages(tmp_path, dars_dir):
    from participant.daml_lf.archive import read_dar
    from tests.daml_lf.conftest import HOLDING

    dar = dars_dir / HOLDING
    bundled = BundledParticipant(
        tmp_path / "data", tmp_path / "logs", demo=False, extra_args=("--dar", str(dar))
    )
    bundled.start()
    try:
        state = bundled.wait(BOUND)
        assert state.phase == "ready", state.error
        token = await MintedToken(bundled.secret(), "participant_admin").token()
        r = httpx.get(f"{state.url}/v2/packages", headers={"Authorization": f"Bearer {token}"})
        assert read_dar(dar.read_bytes()).main.package_id in r.json()["packageIds"], r.text
    finally:
        bundled.stop()


def test_a_bad_dar_fails_the_start_saying_why(tmp_path):
    bad = tmp_path / "bad.dar"
    bad.write_bytes(b"not a dar")
    bundled = BundledParticipant(
        tmp_path / "data", tmp_path / "logs", demo=False, extra_args=("--dar", str(bad))
    )
    bundled.start()
    try:
        state = bundled.wait(BOUND)
        assert state.phase == "failed"
        assert f"error: --dar {bad}: INVALID_DAR" in state.error and "exited with code 2" in state.error
    finally:
        bundled.stop()
