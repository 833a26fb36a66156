"""Shared fixtures: a fresh participant per test, in-process (ASGI) or as a real server on a loopback port."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from filelock import FileLock
from websockets.typing import Subprotocol

from participant.auth import mint_token
from participant.base.settings import Settings
from participant.server.app import create_app
from tests.daml_lf.conftest import (  # noqa: F401  (the real DARs, for every test)
    DARS_DIR,
    dar_bytes,
    dars_dir,
    dars_missing_reason,
)
from tests.scheduling import ModuleScheduling, longest_modules_first, read_durations
from tests.spec import missing_reason, spec_available, validate_response

SECRET = "test-secret-with-enough-bytes-for-hs256!"


def _absent_references() -> list[str]:
    """What of ../shared (the official spec, the reference DARs) this run goes without, with the reason."""
    absent = []
    if not spec_available():
        absent.append(f"answers not checked against the spec: {missing_reason()}")
    if not DARS_DIR.is_dir():
        absent.append(f"tests of real DARs skipped: {dars_missing_reason()}")
    return absent


# ledger-tui's config, data, cache and log directories (app/locations.py), moved by these variables
LOCATION_VARS = {
    "LEDGER_TUI_CONFIG": "config/config.toml",
    "LEDGER_TUI_DATA_DIR": "data",
    "LEDGER_TUI_CACHE_DIR": "cache",
    "LEDGER_TUI_LOG_DIR": "logs",
}


def pytest_configure(config: pytest.Config) -> None:
    # CI sets it: there the spec and the DARs must be present, never silently skipped
    if os.environ.get("LEDGER_REQUIRE_REFERENCES") == "1" and (absent := _absent_references()):
        raise pytest.UsageError("LEDGER_REQUIRE_REFERENCES=1 but " + "; ".join(absent))
    # A test that runs ledger-tui without naming its directories (in this process or a child) must read neither the
    # user's config nor a directory that another test process (a parallel worker, another run) writes at once: each
    # process of the run gets directories of its own, removed at its end. Tests that set a HOME of their own drop
    # these variables.
    own = Path(tempfile.mkdtemp(prefix="ledger-tui-tests-"))
    config.add_cleanup(lambda: shutil.rmtree(own, ignore_errors=True))
    # Where bytecode is not written (PYTHONDONTWRITEBYTECODE), every server and CLI a test starts compiled the whole
    # project from source again: a third of a server's start. The run's processes share one bytecode cache instead,
    # in a directory of the run (the first process to get here makes it; parallel workers inherit it), so nothing
    # is written beside the sources still.
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = Path(tempfile.mkdtemp(prefix="ledger-tui-tests-bytecode-"))
        config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))
        os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
        del os.environ["PYTHONDONTWRITEBYTECODE"]
    for var, relative in LOCATION_VARS.items():
        os.environ[var] = str(own / relative)
    # The demo ledgers start_demo_server seeds, one per set of DARs, are seeded once per run and copied by every
    # process of it: the first process to get here makes the directory, the parallel workers inherit it.
    if not os.environ.get(SEEDED_LEDGERS_VAR):
        seeded = Path(tempfile.mkdtemp(prefix="ledger-demo-templates-"))
        config.add_cleanup(lambda: shutil.rmtree(seeded, ignore_errors=True))
        os.environ[SEEDED_LEDGERS_VAR] = str(seeded)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): two workers a core. Most of a test's time is waiting (a participant's answer,
    the TUI settling between keys: Pilot sleeps in 20 ms slices until the app's CPU time stops moving), so with one
    worker a core the cores sat half idle (tests/tui's composer-focus and typed-form-view modules on 2 cores: 73 % of
    one core with 2 workers in 159 s, 130 % with 4 in 96 s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 2 * cores


@pytest.hookimpl(trylast=True)  # after pytest's own ordering by fixture
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    longest_modules_first(items, read_durations())  # tests/scheduling.py says why


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> ModuleScheduling | None:
    return ModuleScheduling(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    for line in _absent_references():
        terminalreporter.write_line(line, yellow=True)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, which leaves new files readable by everyone: private modes must not depend on a stricter
    one."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def token(user: str, **kwargs) -> str:
    return mint_token(hs256_secret=SECRET, user_id=user, **kwargs)


def ws_protocols(jwt: str) -> list[Subprotocol]:
    """The subprotocols a websocket client of the JSON API offers: its token, then `daml.ws.auth`."""
    return [Subprotocol(f"jwt.token.{jwt}"), Subprotocol("daml.ws.auth")]


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(user)}"}


ADMIN = bearer("participant_admin")


@dataclass
class LedgerApi:
    """A client of one participant with helpers for the common setup steps; checks every JSON answer
    against the official spec."""

    http: httpx.AsyncClient
    check_spec: bool = True

    async def call(
        self,
        method: str,
        path: str,
        *,
        user: str | None = "participant_admin",
        json=None,
        headers: dict | None = None,
        params=None,
        content=None,
    ) -> httpx.Response:
        h = dict(headers or {})
        if user is not None:
            h.update(bearer(user))
        r = await self.http.request(method, path, json=json, headers=h, params=params, content=content)
        if self.check_spec and r.headers.get("content-type", "").startswith("application/json"):
            validate_response(method, path.split("?")[0], r.status_code, r.json())
        return r

    async def post(self, path: str, body, **kw) -> httpx.Response:
        return await self.call("POST", path, json=body, **kw)

    async def get(self, path: str, **kw) -> httpx.Response:
        return await self.call("GET", path, **kw)

    async def party(self, hint: str, *, user: bool = True) -> str:
        """Allocate a party and a user of the same name acting and reading as it."""
        r = await self.post("/v2/parties", {"partyIdHint": hint})
        assert r.status_code == 200, r.text
        party = r.json()["partyDetails"]["party"]
        if user:
            rights = [
                {"kind": {"CanActAs": {"value": {"party": party}}}},
                {"kind": {"CanReadAs": {"value": {"party": party}}}},
            ]
            r = await self.post("/v2/users", {"user": {"id": hint, "primaryParty": party}, "rights": rights})
            assert r.status_code == 200, r.text
        return party

    async def create_iou(
        self,
        issuer: str,
        owner: str,
        amount: str = "100.0",
        currency: str = "USD",
        *,
        user: str,
        observers: list[str] | None = None,
        act_as: list[str] | None = None,
    ) -> dict:
        body = {
            "commands": {
                "commands": [
                    {
                        "CreateCommand": {
                            "templateId": "#model-tests:Iou:Iou",
                            "createArguments": {
                                "issuer": issuer,
                                "owner": owner,
                                "currency": currency,
                                "amount": amount,
                                "observers": observers or [],
                            },
                        }
                    }
                ],
                "commandId": f"create-{os.urandom(6).hex()}",
                "actAs": act_as or [issuer, owner],
            }
        }
        r = await self.post("/v2/commands/submit-and-wait-for-transaction", body, user=user)
        assert r.status_code == 200, r.text
        return r.json()["transaction"]

    async def exercise(
        self,
        template: str,
        cid: str,
        choice: str,
        argument: dict,
        *,
        act_as: list[str],
        user: str,
        transaction_format: dict | None = None,
    ) -> httpx.Response:
        body: dict = {
            "commands": {
                "commands": [
                    {
                        "ExerciseCommand": {
                            "templateId": template,
                            "contractId": cid,
                            "choice": choice,
                            "choiceArgument": argument,
                        }
                    }
                ],
                "commandId": f"ex-{os.urandom(6).hex()}",
                "actAs": act_as,
            }
        }
        if transaction_format is not None:
            body["transactionFormat"] = transaction_format
        return await self.post("/v2/commands/submit-and-wait-for-transaction", body, user=user)

    async def ledger_end(self) -> int:
        return (await self.get("/v2/state/ledger-end")).json()["offset"]


def settings_for(db: Path, **overrides: Any) -> Settings:
    return Settings(**{"db": db, "hs256_secret": SECRET, "log_requests": False, **overrides})


@pytest.fixture
async def participant_app(tmp_path):
    """The participant app with its lifespan running, on a fresh database."""
    app = create_app(settings_for(tmp_path / "ledger.db"))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def ledger_api(participant_app) -> AsyncIterator[LedgerApi]:
    transport = httpx.ASGITransport(app=participant_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield LedgerApi(http)


@pytest.fixture
async def alice_bob(ledger_api) -> tuple[str, str]:
    return await ledger_api.party("Alice"), await ledger_api.party("Bob")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ServerProcess:
    url: str
    db: Path
    process: subprocess.Popen
    args: list[str]

    def stop(self, sig: int | None = None) -> None:
        if self.process.poll() is None:
            if sig is None:
                self.process.terminate()
            else:
                self.process.send_signal(sig)
            self.process.wait(timeout=20)


def start_server(db: Path, *extra: str, port: int | None = None) -> ServerProcess:
    """`ledger-participant serve` as a subprocess on loopback; returns once it answers. Without `port` it binds a
    port the system chooses and says which in its port file: a port picked here and bound later could be taken in
    between by another test process."""
    port_file = db.parent / f"{db.name}.port"
    args = [
        sys.executable,
        "-m",
        "participant.server.cli",
        "serve",
        "--db",
        str(db),
        "--port",
        str(port or 0),
        *(() if port else ("--port-file", str(port_file))),
        "--quiet",
        *extra,
    ]
    port_file.unlink(missing_ok=True)  # one left by a server killed before on this database names its port
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = process.stdout.read() if process.stdout is not None else ""
            raise RuntimeError(f"server exited with {process.returncode}: {said}")
        if not port:
            written = port_file.read_text().strip() if port_file.exists() else ""
            port = int(written) if written else None  # the file is written whole (atomically) once serving
        if port:
            url = f"http://127.0.0.1:{port}"
            try:
                if httpx.get(f"{url}/v2/version", timeout=1).status_code == 200:
                    return ServerProcess(url, db, process, args)
            except httpx.HTTPError:
                pass
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("server did not start within 60 s")


SEEDED_LEDGERS_VAR = "LEDGER_TESTS_SEEDED_LEDGERS"


def seeded_demo_ledger(dars: tuple[str, ...]) -> Path:
    """The demo ledger with `dars` loaded, seeded by the first process of the run that needs it (under a lock the
    others wait on) and read by all: seeding takes a server's start and the demo's few hundred submissions, a
    dozen seconds of CPU that every parallel worker would spend again for the same database."""
    if not os.environ.get(SEEDED_LEDGERS_VAR):  # outside a test run: this process's own, removed at its exit
        os.environ[SEEDED_LEDGERS_VAR] = tempfile.mkdtemp(prefix="ledger-demo-templates-")
        atexit.register(shutil.rmtree, os.environ[SEEDED_LEDGERS_VAR], True)
    folder = Path(os.environ[SEEDED_LEDGERS_VAR])
    key = hashlib.sha256("\0".join(str(Path(dar).resolve()) for dar in dars).encode()).hexdigest()[:16]
    template = folder / f"demo-{key}" / "ledger.db"
    done = template.parent / "seeded"  # written once the server that seeded it has stopped
    with FileLock(folder / f"demo-{key}.lock"):
        if not done.exists():
            shutil.rmtree(template.parent, ignore_errors=True)  # a seeding interrupted half-way
            template.parent.mkdir()
            args = [arg for dar in dars for arg in ("--dar", dar)]
            start_server(template, "--hs256-secret", SECRET, "--demo", *args).stop()
            done.touch()
    return template


def copy_database(source: Path, db: Path) -> None:
    """A new database `db` holding what `source` holds: through SQLite's backup, which reads one consistent state
    whatever the WAL beside it holds; the copy is made 0600 first, as the server makes its database."""
    os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with (
        contextlib.closing(sqlite3.connect(source)) as original,
        contextlib.closing(sqlite3.connect(db)) as copy,
    ):
        original.backup(copy)


def start_demo_server(db: Path, *extra: str, port: int | None = None) -> ServerProcess:
    """`start_server(db, "--hs256-secret", SECRET, "--demo", *extra)` on a copy of a demo ledger seeded once per
    run (with the DARs `extra` names loaded), where a database of its own would be seeded again: the demo's
    few hundred submissions, each committed durably, took most of a server's start (15 s of 16 under a loaded
    disk). The server is started with the same arguments either way and finds the demo and the DARs already there,
    as on any database it served before. The tests of seeding itself start from an empty database."""
    dars = tuple(arg for i, arg in enumerate(extra) if i > 0 and extra[i - 1] == "--dar")
    template = seeded_demo_ledger(dars)
    copy_database(template, db)
    return start_server(db, "--hs256-secret", SECRET, "--demo", *extra, port=port)


@pytest.fixture
def server(tmp_path) -> Iterator[ServerProcess]:
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()
