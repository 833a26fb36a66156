"""`ledger-participant serve` as a parent process drives it: the port file, the real port in the banner, JSON
announcements, stopping at the end of standard input, one server per database, and secrets read from a file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from filelock import FileLock

from tests.conftest import SECRET, bearer
from tests.test_cli import cli, read_banner

TIMEOUT = 60  # seconds any one wait below may take at most


class Serve:
    """A `serve` subprocess with its standard streams at hand (stderr goes to a file, to be shown on failure)."""

    def __init__(self, tmp_path: Path, db: Path, *args: str, stdin=subprocess.DEVNULL) -> None:
        self.err_path = tmp_path / f"stderr-{time.monotonic_ns()}.txt"
        with self.err_path.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "participant.server.cli", "serve", "--db", str(db), "--quiet", *args],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        self._buffer = b""

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    def lines(self, timeout: float = TIMEOUT) -> Iterator[str]:
        """Lines of its standard output as they come, until it closes or `timeout` passes."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                yield line.decode()
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"no more output within {timeout} s; stderr:\n{self.stderr}")
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            self._buffer += chunk

    def events(self) -> list[dict]:
        """The JSON announcements up to and including `ready`."""
        out = []
        for line in self.lines():
            out.append(json.loads(line))
            if out[-1]["event"] == "ready":
                return out
        raise AssertionError(f"exited with {self.process.wait(TIMEOUT)} before ready; stderr:\n{self.stderr}")

    def wait(self) -> int:
        return self.process.wait(timeout=TIMEOUT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=TIMEOUT)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self.process.stdin is not None:
            self.process.stdin.close()


@pytest.fixture
def serve(tmp_path):
    started: list[Serve] = []

    def start(*args: str, db: Path | None = None, stdin=subprocess.DEVNULL) -> Serve:
        s = Serve(tmp_path, db or tmp_path / "ledger.db", *args, stdin=stdin)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def wait_for_file(path: Path, process: Serve) -> str:
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        assert process.process.poll() is None, f"exited early; stderr:\n{process.stderr}"
        assert time.monotonic() < deadline, f"no {path.name} within {TIMEOUT} s"
        time.sleep(0.05)
    return path.read_text()


def get(url: str, path: str = "/v2/version", **kw) -> httpx.Response:
    return httpx.get(url + path, timeout=TIMEOUT, **kw)


def serving_json(db: Path) -> dict:
    return json.loads(db.with_name(db.name + ".serving.json").read_text())


def test_the_port_file_holds_the_port_that_answers(serve, tmp_path):
    port_file = tmp_path / "port"
    server = serve("--no-auth", "--port", "0", "--port-file", str(port_file))
    text = wait_for_file(port_file, server)
    assert text.endswith("\n") and text.strip().isdigit()
    port = int(text)
    assert port != 0
    assert get(f"http://127.0.0.1:{port}").status_code == 200
    assert serving_json(tmp_path / "ledger.db")["port"] == port
    server.process.send_signal(signal.SIGTERM)
    server.wait()
    assert not port_file.exists()  # removed on a clean stop
    assert not (tmp_path / "ledger.db.serving.json").exists()


def test_the_banner_shows_the_bound_port(serve):
    server = serve("--no-auth", "--port", "0")
    first = next(server.lines())
    assert first.startswith("ledger-participant serving the JSON Ledger API v2 at http://127.0.0.1:"), first
    url = first.rsplit(" ", 1)[1].removesuffix("/v2")
    port = int(url.rsplit(":", 1)[1])
    assert port != 0
    assert get(url).status_code == 200


def test_json_announcements_with_demo_seeding(serve, tmp_path):
    server = serve("--hs256-secret", SECRET, "--port", "0", "--demo", "--announce", "json")
    events = server.events()
    seeding, ready = events[:-1], events[-1]
    assert seeding and all(e["event"] == "seeding" for e in seeding)
    total = seeding[0]["total"]
    done = [e["done"] for e in seeding]
    assert done[0] == 0 and done[-1] == total and done == sorted(set(done))
    assert all(e["total"] == total for e in seeding)
    assert 10 <= len(seeding) <= 100  # progress now and then, not once per transaction
    assert set(ready) == {"event", "url", "port", "participantId", "db", "pid"}
    assert ready["url"] == f"http://127.0.0.1:{ready['port']}"
    assert ready["pid"] == server.process.pid
    assert Path(ready["db"]) == (tmp_path / "ledger.db").absolute()
    r = get(ready["url"], "/v2/parties/participant-id", headers=bearer("participant_admin"))
    assert r.json()["participantId"] == ready["participantId"]
    info = serving_json(tmp_path / "ledger.db")
    assert set(info) == {"pid", "url", "port", "participantId", "version"}
    assert {k: info[k] for k in ("pid", "url", "port", "participantId")} == {
        k: ready[k] for k in ("pid", "url", "port", "participantId")
    }
    # A second start finds the demo seeded: no progress, only ready.
    server.stop()
    again = serve("--hs256-secret", SECRET, "--port", "0", "--demo", "--announce", "json")
    assert [e["event"] for e in again.events()] == ["ready"]


def test_the_end_of_standard_input_stops_the_server(serve, tmp_path):
    port_file = tmp_path / "port"
    server = serve(
        "--no-auth",
        "--port",
        "0",
        "--announce",
        "json",
        "--exit-on-stdin-eof",
        "--port-file",
        str(port_file),
        stdin=subprocess.PIPE,
    )
    (ready,) = server.events()
    assert get(ready["url"]).status_code == 200
    server.process.stdin.close()  # what the parent's death does to the pipe
    assert server.wait() == 0
    assert not port_file.exists()
    assert not (tmp_path / "ledger.db.serving.json").exists()
    assert "standard input closed" in server.stderr


async def test_submissions_in_flight_when_input_ends_are_answered_if_committed(serve, tmp_path):
    server = serve(
        "--no-auth", "--port", "0", "--announce", "json", "--exit-on-stdin-eof", stdin=subprocess.PIPE
    )
    (ready,) = server.events()
    async with httpx.AsyncClient(base_url=ready["url"], timeout=TIMEOUT) as http:
        r = await http.post("/v2/parties", json={"partyIdHint": "Alice"})
        party = r.json()["partyDetails"]["party"]

        async def submit(i: int) -> int | str:
            body = {
                "commands": [
                    {
                        "CreateCommand": {
                            "templateId": "#model-tests:Iou:Iou",
                            "createArguments": {
                                "issuer": party,
                                "owner": party,
                                "currency": "USD",
                                "amount": "1.0",
                                "observers": [],
                            },
                        }
                    }
                ],
                "commandId": f"in-flight-{i}",
                "actAs": [party],
                "userId": "u",
            }
            try:
                return (await http.post("/v2/commands/submit-and-wait", json=body)).status_code
            except httpx.TransportError as e:  # refused, or closed before the server read the request
                return type(e).__name__

        tasks = [asyncio.create_task(submit(i)) for i in range(50)]
        await next(asyncio.as_completed(tasks))
        server.process.stdin.close()
        outcomes = await asyncio.gather(*tasks)
    assert server.wait() == 0
    conn = sqlite3.connect(tmp_path / "ledger.db")
    try:
        (committed,) = conn.execute("SELECT count(*) FROM updates WHERE kind = 'transaction'").fetchone()
    finally:
        conn.close()
    assert outcomes.count(200) == committed >= 1, outcomes  # nothing committed went unanswered
    assert set(outcomes) <= {200, "ConnectError", "ReadError", "RemoteProtocolError"}, outcomes


def test_standard_input_is_not_watched_unless_asked(serve):
    server = serve("--no-auth", "--port", "0", "--announce", "json", stdin=subprocess.PIPE)
    (ready,) = server.events()
    server.process.stdin.close()
    assert get(ready["url"]).status_code == 200
    assert server.process.poll() is None


def test_one_server_per_database(serve, tmp_path):
    first = serve("--no-auth", "--port", "0", "--announce", "json")
    (ready,) = first.events()
    r = cli("serve", "--db", str(tmp_path / "ledger.db"), "--no-auth", "--port", "0", timeout=TIMEOUT)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        f"error: {tmp_path / 'ledger.db'} is in use by another ledger-participant "
        f"(pid {ready['pid']}, {ready['url']}); stop it or use another --db"
    )
    assert r.stdout == ""
    assert get(ready["url"]).status_code == 200  # the first serves on
    # Another database beside it is another matter.
    other = serve("--no-auth", "--port", "0", "--announce", "json", db=tmp_path / "other.db")
    (other_ready,) = other.events()
    assert other_ready["pid"] != ready["pid"]


def test_a_server_still_starting_holds_the_database_too(tmp_path):
    db = tmp_path / "ledger.db"
    with FileLock(db.with_name(db.name + ".lock")):  # held as a server holds it before it is ready
        r = cli("serve", "--db", str(db), "--no-auth", "--port", "0", timeout=TIMEOUT)
    assert r.returncode == 2
    assert "is in use by another ledger-participant (still starting)" in r.stderr
    assert not db.exists()


def test_a_killed_server_leaves_nothing_in_the_way(serve, tmp_path):
    db = tmp_path / "ledger.db"
    killed = serve("--no-auth", "--port", "0", "--announce", "json")
    (ready,) = killed.events()
    killed.process.kill()
    killed.wait()
    assert serving_json(db)["pid"] == ready["pid"]  # left behind, with no lock held any more
    server = serve("--no-auth", "--port", "0", "--announce", "json")
    (again,) = server.events()
    info = serving_json(db)
    assert (info["pid"], info["url"], info["port"]) == (again["pid"], again["url"], again["port"])
    assert get(again["url"]).status_code == 200


def test_a_stale_serving_file_is_replaced(serve, tmp_path):
    db = tmp_path / "ledger.db"
    stale = {"pid": 2**22 + 1, "url": "http://127.0.0.1:9", "port": 9, "participantId": "p", "version": "0"}
    db.with_name(db.name + ".serving.json").write_text(json.dumps(stale))
    server = serve("--no-auth", "--port", "0", "--announce", "json")
    (ready,) = server.events()
    assert serving_json(db)["pid"] == ready["pid"] == server.process.pid


def test_the_secret_from_a_file(serve, tmp_path):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(f"  {SECRET}\n")  # whitespace around it is not part of it
    server = serve("--hs256-secret-file", str(secret_file), "--port", "0")
    banner = read_banner(server)
    assert f"token --hs256-secret-file {secret_file} --user participant_admin" in banner
    assert SECRET not in banner
    url = banner.splitlines()[0].rsplit(" ", 1)[1].removesuffix("/v2")
    r = cli("token", "--hs256-secret-file", str(secret_file), "--user", "participant_admin")
    assert r.returncode == 0, r.stderr
    assert get(url, "/v2/users", headers={"Authorization": f"Bearer {r.stdout.strip()}"}).status_code == 200
    r = cli("token", "--hs256-secret", SECRET, "--user", "participant_admin")
    assert get(url, "/v2/users", headers={"Authorization": f"Bearer {r.stdout.strip()}"}).status_code == 200
    assert SECRET not in " ".join(server.process.args)  # nor in what `ps` shows


@pytest.mark.parametrize("command", ["serve", "token"])
def test_an_unusable_secret_file(tmp_path, command):
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n")
    extra = ("--db", str(tmp_path / "ledger.db"), "--port", "0") if command == "serve" else ("--user", "u")
    for path, words in ((tmp_path / "missing.txt", "cannot read the secret file"), (empty, "is empty")):
        r = cli(command, "--hs256-secret-file", str(path), *extra, timeout=TIMEOUT)
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith(f"error: {words}" if "cannot" in words else "error: the secret file")
        assert words in r.stderr and str(path) in r.stderr and "Traceback" not in r.stderr
        assert r.stdout == ""
    assert not (tmp_path / "ledger.db").exists()  # refused before the database is touched
    r = cli(command, "--hs256-secret-file", str(empty), "--hs256-secret", "s", *extra, timeout=TIMEOUT)
    assert r.returncode == 2 and "not allowed" in r.stderr
