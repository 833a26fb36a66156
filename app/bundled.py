"""The bundled participant: `ledger-participant serve` as a child process of the terminal client.

Its database and the HS256 secret it verifies tokens with live in the data directory; the secret is generated once
and the client mints its own tokens with it. The child binds a free loopback port and reports it, with the demo
seeding's progress, as JSON lines on its stdout (`--announce json`). It stops when the client quits, and also when
the client dies: its stdin is a pipe from us (`--exit-on-stdin-eof`), and on Linux the kernel sends it SIGTERM when
we die (PR_SET_PDEATHSIG).

One database serves one participant process. A second ledger-tui finds the first one's participant through
`<db>.serving.json` (and the lock the server holds) and shares it instead of starting another.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.counting import count
from app.private_files import private_dir, private_opener, private_replacement
from app.trace import milestone
from app.untrusted import visible

START_TIMEOUT_S = 120.0


class BundledError(Exception):
    """The bundled participant could not be started or reached; the message says why and what to do."""


WITHDRAW_TIMEOUT_S = 2.0  # how long `stop` waits for the child to withdraw its serving file


@dataclass
class StartupState:
    phase: str = "starting"  # starting, seeding, init-script, ready, failed
    done: int = 0
    total: int = 0
    url: str = ""
    error: str = ""
    note: str = ""  # what the init script's run says (its text is the participant's, shown escaped)

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.phase == "seeding" and self.total else None

    def describe(self) -> str:
        if self.phase == "seeding":
            return f"Seeding the demo ledger: {self.done:,} of {count(self.total, 'transaction')}"
        if self.phase == "init-script":
            return f"Setting the ledger up: {visible(self.note)}"
        if self.phase == "ready":
            return f"Bundled participant ready at {self.url}"
        if self.phase == "failed":
            return self.error
        return "Starting the bundled participant…"


class BundledParticipant:
    """Start (or find) the bundled participant and stop it again."""

    def __init__(
        self, directory: Path, log_dir: Path, *, demo: bool = True, extra_args: tuple[str, ...] = ()
    ) -> None:
        self.directory = directory
        self.log_dir = log_dir
        self.demo = demo
        self.extra_args = extra_args
        self.db = directory / "ledger.db"
        self.secret_file = directory / "secret"
        self.state = StartupState()
        self.process: subprocess.Popen | None = None
        self.owned = False
        self.started = False  # the CLI hands the app a participant not yet started, which the app then starts
        self._log_start = 0  # where this start's lines begin in the participant's log
        self._ready = threading.Event()
        self._listeners: list[Callable[[StartupState], None]] = []

    # --- secret -------------------------------------------------------------------------------------------------

    def secret(self) -> str:
        """The HS256 secret, generated on first use and kept (readable by this user only)."""
        private_dir(self.directory)
        if not self.secret_file.exists():
            try:
                with private_replacement(self.secret_file, overwrite=False) as f:
                    f.write(secrets.token_urlsafe(48))
            except FileExistsError:  # another ledger-tui made one meanwhile: keep theirs
                pass
        return self.secret_file.read_text(encoding="utf-8").strip()

    # --- starting -----------------------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[StartupState], None]) -> None:
        self._listeners.append(listener)
        listener(self.state)

    def _set(self, **changes) -> None:
        for k, v in changes.items():
            setattr(self.state, k, v)
        if self.state.phase in ("ready", "failed"):
            self._ready.set()
        for listener in list(self._listeners):
            listener(self.state)

    def running_elsewhere(self) -> str | None:
        """The URL of a participant another process serves from this database, if one does."""
        serving = Path(f"{self.db}.serving.json")
        if not serving.exists():
            return None
        # imported here, not at the top: a start with no serving file never needs it
        from filelock import FileLock, Timeout

        lock = FileLock(f"{self.db}.lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:
            try:
                return json.loads(serving.read_text(encoding="utf-8"))["url"]
            except (OSError, ValueError, KeyError):
                return None
        lock.release()  # nobody holds it: the file is left over from a server that was killed
        return None

    def start(self) -> None:
        """Start the child (or attach to a running one); returns at once. `wait` for readiness."""
        self.started = True
        self._ready.clear()
        self.state = StartupState()
        url = self.running_elsewhere()
        if url is not None:
            self.owned = False
            if self.extra_args:  # what it was started with is not this start's to change
                self._set(
                    phase="failed",
                    error=f"the bundled participant is already running ({url}) for another ledger-tui, which "
                    f"does not take {' '.join(self.extra_args)}: quit it first",
                )
                return
            self._set(phase="ready", url=url)
            return
        self.secret()
        process = self._spawn()
        if process is None:
            return
        threading.Thread(
            target=self._read_announcements, args=(process,), daemon=True, name="bundled-announce"
        ).start()

    def _spawn(self) -> subprocess.Popen | None:
        """Start the child; it reports on its stdout. None (and the state failed) when it cannot be started."""
        private_dir(self.log_dir)
        log = open(self.log_dir / "participant.log", "ab", opener=private_opener)  # noqa: SIM115 - handed to the child
        self._log_start = log.seek(0, 2)  # what this start writes comes after
        args = [
            sys.executable,
            "-m",
            "participant",
            "serve",
            "--db",
            str(self.db),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--hs256-secret-file",
            str(self.secret_file),
            "--announce",
            "json",
            "--exit-on-stdin-eof",
            "--quiet",
            *(["--demo"] if self.demo else []),
            *self.extra_args,
        ]
        try:
            self.process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )
        except OSError as e:
            self._set(phase="failed", error=f"cannot start the bundled participant: {e}")
            return None
        finally:
            log.close()
        milestone("participant_spawned")
        self.owned = True
        return self.process

    def _read_announcements(self, process: subprocess.Popen) -> None:
        # this thread also starts the second child, if one is needed: the child's parent-death signal follows the
        # thread that started it, and this one lives as long as the child's output
        for attempt in range(2):
            assert process.stdout is not None
            held = False  # the child found the database held by another participant
            for raw in process.stdout:
                try:
                    event = json.loads(raw)
                except ValueError:
                    continue
                if event.get("event") == "seeding":
                    self._set(
                        phase="seeding", done=int(event.get("done", 0)), total=int(event.get("total", 0))
                    )
                elif event.get("event") == "init-script":
                    self._set(phase="init-script", note=str(event.get("message", "")))
                elif event.get("event") == "ready":
                    self._set(phase="ready", url=event["url"])
                elif event.get("event") == "database-in-use":
                    held = True
            code = process.wait()
            if self.state.phase == "ready":
                return
            other = self._wait_for_other(held)
            if other is True:
                return
            if other is None and attempt == 0 and self.process is process:
                # it found the database held by a participant that was stopping (a ledger-tui that had just
                # quit): the database is free now
                respawned = self._spawn()
                if respawned is None:
                    return
                process = respawned
                continue
            break
        said = _last_error(self.log_dir / "participant.log", self._log_start)
        self._set(
            phase="failed",
            error=f"the bundled participant exited with code {code} before it was ready"
            + (f" ({said})" if said else "")
            + f"; see {self.log_dir / 'participant.log'}",
        )

    def _wait_for_other(self, held: bool) -> bool | None:
        """Another ledger-tui started a participant on this database at the same moment: use that one (True).
        None: the database was held (`held`: the child said so, as the holder may have gone before this looks)
        and is free now, with nobody serving it; False: it was never held."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            url = self.running_elsewhere()
            if url is not None:
                self.owned = False
                self._set(phase="ready", url=url)
                return True
            if not Path(f"{self.db}.lock").exists():
                return None if held else False
            from filelock import FileLock, Timeout

            lock = FileLock(f"{self.db}.lock")
            try:
                lock.acquire(timeout=0)
            except Timeout:
                held = True
                time.sleep(0.05)  # held, starting or stopping: wait for its serving file or its end
                continue
            lock.release()
            return None if held else False
        return False

    def wait(self, timeout: float = START_TIMEOUT_S) -> StartupState:
        """Block until ready or failed (call from a thread)."""
        if not self._ready.wait(timeout):
            self._set(
                phase="failed", error=f"the bundled participant did not get ready within {timeout:.0f} s"
            )
        return self.state

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    # --- stopping -----------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Let the child we started go; leave a shared one alone. At the end of its standard input the child
        answers the requests in flight and stops by itself (the announcement thread reaps it): only its serving
        file's removal is waited for here (milliseconds), not its end, so the shell comes back at once."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        if process.stdin is not None:
            process.stdin.close()
        # The child removes its serving file as soon as it reads the end of its input (milliseconds): until then a
        # ledger-tui started right after this one would take the URL of a server that is going away.
        serving = Path(f"{self.db}.serving.json")
        deadline = time.monotonic() + WITHDRAW_TIMEOUT_S
        while serving.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)


def _last_error(log: Path, start: int) -> str:
    """The refusal the participant printed last in this start (`error: …`, one line: a bad --dar, say)."""
    try:
        with log.open("rb") as f:
            f.seek(max(start, f.seek(0, 2) - 4096))
            tail = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return next((line for line in reversed(tail) if line.startswith("error: ")), "")


def _die_with_parent() -> None:
    """In the child, before exec: ask the kernel for SIGTERM when the parent dies (Linux)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; the stdin pipe covers the rest
        pass
