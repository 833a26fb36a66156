"""`ledger-participant`: the help of each subcommand, `token` (from a secret or from the database) against a real
server, and the startup banner."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jwt
import pytest

from tests.conftest import start_server
from tests.spec import REPO_ROOT, validate_response

SCRIPT = Path(sys.executable).parent / "ledger-participant"


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "participant.server.cli"]
    # The installed script runs the code of this tree, whichever tree it was installed from.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout, env=env)


def mint(*args: str) -> str:
    r = cli("token", *args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1, r.stdout
    assert lines[0].count(".") == 2
    return lines[0]


def get(server, path: str, tok: str | None) -> httpx.Response:
    headers = {} if tok is None else {"Authorization": f"Bearer {tok}"}
    r = httpx.get(server.url + path, headers=headers, timeout=30)
    if r.headers.get("content-type", "").startswith("application/json"):
        validate_response("GET", path, r.status_code, r.json())
    return r


# The last line of each form of the banner.
BANNER_ENDS = ("get a token:", "auth:            none", "auth:            tokens signed")


def read_banner(server, timeout: float = 30) -> str:
    """What the server printed up to the end of its banner (stdout and stderr share the pipe)."""
    fd = server.process.stdout.fileno()
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not any(
        key in line
        for line in out.decode(errors="replace").splitlines(keepends=True)
        if line.endswith("\n")
        for key in BANNER_ENDS
    ):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    return out.decode(errors="replace")


@pytest.mark.parametrize(
    ("args", "flags"),
    [
        ((), ["serve", "token", "prune", "compact"]),
        (
            ("serve",),
            [
                "--db",
                "--host",
                "--port",
                "--hs256-secret",
                "--hs256-secret-file",
                "--public-key",
                "--jwks",
                "--no-auth",
                "--demo",
                "--package",
                "--max-list-elements",
                "--max-body-bytes",
                "--max-header-bytes",
                "--max-headers",
                "--header-timeout",
                "--body-timeout",
                "--max-connections",
                "--synchronizers",
                "--quiet",
                "--offset-checkpoint-interval",
                "--port-file",
                "--announce",
                "--exit-on-stdin-eof",
            ],
        ),
        (("token",), ["--hs256-secret", "--hs256-secret-file", "--db", "--user", "--ttl", "--audience"]),
        (("prune",), ["--db", "--up-to"]),
        (("compact",), ["--db", "server must be stopped"]),
    ],
)
def test_help(args, flags):
    r = cli(*args, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: ledger-participant")
    for flag in flags:
        assert flag in r.stdout, flag


def test_usage_errors_exit_2():
    assert cli().returncode == 2
    r = cli("token", "--user", "x")  # needs --hs256-secret or --db
    assert r.returncode == 2 and "usage:" in r.stderr
    r = cli("serve", "--db", "x.db", "--no-auth", "--hs256-secret", "s")  # mutually exclusive
    assert r.returncode == 2 and "not allowed" in r.stderr
    for aliases in ("global,,private", "global,global", "a b"):
        r = cli("serve", "--db", "x.db", "--no-auth", "--synchronizers", aliases)
        assert r.returncode == 2 and "--synchronizers" in r.stderr, (aliases, r.stderr)
    for seconds in ("-1", "nan", "inf", "soon"):
        r = cli("serve", "--db", "x.db", "--no-auth", "--offset-checkpoint-interval", seconds)
        assert r.returncode == 2 and "--offset-checkpoint-interval" in r.stderr, (seconds, r.stderr)
    for option, value in (("--header-timeout", "0"), ("--body-timeout", "-1"), ("--max-headers", "0")):
        r = cli("serve", "--db", "x.db", "--no-auth", option, value)
        assert r.returncode == 2 and option in r.stderr, (option, r.stderr)


def test_messages_show_what_they_quote_escaped(tmp_path):
    # sets the window title, clears the screen (CSI, then its one-byte C1 form), reverses what follows
    hostile = "evil\x1b]0;title\x07\x1b[2J\x9b2J\u202e"
    shown = "evil\\x1b]0;title\\x07\\x1b[2J\\x9b2J\\u202e"
    for args in (
        ("serve", "--db", "x.db", "--no-auth", hostile),  # argparse: unrecognized arguments
        ("compact", "--db", str(tmp_path / hostile)),  # no database there
        ("serve", "--db", str(tmp_path / "x.db"), "--hs256-secret-file", str(tmp_path / hostile)),
    ):
        r = cli(*args)
        assert r.returncode == 2, r.stderr
        assert shown in r.stderr, r.stderr
        assert not any(ch in r.stderr + r.stdout for ch in "\x1b\x07\x9b\u202e"), repr(r.stderr)


def test_a_fault_shows_its_traceback_escaped(tmp_path, monkeypatch, capfd):
    from participant.server import cli as participant_cli

    def faulty(args) -> int:
        raise RuntimeError("cannot make sense of evil\x1b]0;title\x07\u202e")

    monkeypatch.setattr(participant_cli, "_prune", faulty)
    code = participant_cli.main(["prune", "--db", str(tmp_path / "ledger.db"), "--up-to", "1"])
    out, err = capfd.readouterr()
    assert code == 1
    assert "Traceback" in err, err
    assert "RuntimeError: cannot make sense of evil\\x1b]0;title\\x07\\u202e" in err, err
    assert not any(ch in out + err for ch in "\x1b\x07\u202e"), repr(err)


def test_token_from_a_secret_is_accepted(tmp_path):
    secret = "cli-test-secret-" + os.urandom(16).hex()
    server = start_server(tmp_path / "ledger.db", "--hs256-secret", secret)
    try:
        admin = mint("--hs256-secret", secret, "--user", "participant_admin")
        assert get(server, "/v2/users", admin).status_code == 200
        assert get(server, "/v2/users", None).status_code == 401
        other = mint(
            "--hs256-secret", "another-secret-" + os.urandom(16).hex(), "--user", "participant_admin"
        )
        assert get(server, "/v2/users", other).status_code == 401
        # Any user: the token names it, the server loads its rights.
        r = httpx.post(
            server.url + "/v2/users",
            headers={"Authorization": f"Bearer {admin}"},
            json={"user": {"id": "U"}, "rights": []},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        u = mint("--hs256-secret", secret, "--user", "U")
        assert jwt.decode(u, options={"verify_signature": False})["sub"] == "U"
        assert get(server, "/v2/users/U", u).status_code == 200
        assert get(server, "/v2/users", u).status_code == 403  # U is no admin
        # --ttl 0: no expiry; --audience: the audience form, accepted as well.
        assert "exp" not in jwt.decode(
            mint("--hs256-secret", secret, "--user", "U", "--ttl", "0"), options={"verify_signature": False}
        )
        participant = get(server, "/v2/parties/participant-id", admin).json()["participantId"]
        audience = mint("--hs256-secret", secret, "--user", "participant_admin", "--audience", participant)
        claims = jwt.decode(audience, options={"verify_signature": False})
        assert participant in str(claims["aud"])
        assert get(server, "/v2/users", audience).status_code == 200
    finally:
        server.stop()


def test_generated_secret_and_token_from_the_db(tmp_path):
    db = tmp_path / "ledger.db"
    server = start_server(db)  # no auth option: a secret is generated into the database
    try:
        banner = read_banner(server)
        assert f"token --db {db} --user participant_admin" in banner, banner
        admin = mint("--db", str(db), "--user", "participant_admin")
        assert get(server, "/v2/users", admin).status_code == 200
        assert get(server, "/v2/users", None).status_code == 401
    finally:
        server.stop()
    server = start_server(db)  # the same secret after a restart
    try:
        assert get(server, "/v2/users", admin).status_code == 200
        assert (
            get(server, "/v2/users", mint("--db", str(db), "--user", "participant_admin")).status_code == 200
        )
    finally:
        server.stop()


def test_token_from_a_missing_db(tmp_path):
    db = tmp_path / "nothing-here.db"
    r = cli("token", "--db", str(db), "--user", "participant_admin")
    assert r.returncode == 2
    assert r.stdout == ""
    assert str(db) in r.stderr and "error" in r.stderr
    assert not db.exists()


def test_token_from_a_db_without_generated_secret(tmp_path):
    db = tmp_path / "ledger.db"
    server = start_server(db, "--hs256-secret", "explicit-secret-" + os.urandom(16).hex())
    try:
        r = cli("token", "--db", str(db), "--user", "participant_admin")
        assert r.returncode == 2
        assert r.stdout == "" and "no generated secret" in r.stderr
    finally:
        server.stop()


@pytest.mark.parametrize("auth", [("--no-auth",), ("--hs256-secret", "banner-secret-0123456789abcdef")])
def test_banner(tmp_path, auth):
    server = start_server(tmp_path / "ledger.db", *auth)
    try:
        banner = read_banner(server)
        assert f"{server.url}/v2" in banner, banner
        headers = (
            {}
            if auth[0] == "--no-auth"
            else {"Authorization": f"Bearer {mint('--hs256-secret', auth[1], '--user', 'participant_admin')}"}
        )
        participant = httpx.get(
            server.url + "/v2/parties/participant-id", headers=headers, timeout=30
        ).json()["participantId"]
        assert f"participant id:  {participant}" in banner
        assert str(tmp_path / "ledger.db") in banner
        synchronizers = httpx.get(
            server.url + "/v2/state/connected-synchronizers", headers=headers, timeout=30
        ).json()["connectedSynchronizers"]
        assert synchronizers
        for s in synchronizers:
            assert f"{s['synchronizerAlias']} = {s['synchronizerId']}" in banner
        if auth[0] == "--no-auth":
            assert "auth:            none (--no-auth)" in banner
        else:
            assert "token --hs256-secret SECRET" in banner
            assert auth[1] not in banner  # the secret itself is never printed
    finally:
        server.stop()


@pytest.mark.parametrize(
    "command",
    [
        ("prune", "--up-to", "1"),
        ("token", "--user", "participant_admin"),
        ("serve", "--port", "0", "--no-auth"),
    ],
)
def test_a_file_that_is_not_a_database(tmp_path, command):
    db = tmp_path / "notes.db"
    db.write_bytes(b"this is not a SQLite database, only some text " * 4)
    r = cli(command[0], "--db", str(db), *command[1:], timeout=20)  # raises TimeoutExpired if it hangs
    assert r.returncode != 0
    if command[0] != "serve":
        assert r.returncode == 2, r.stderr
        assert "error:" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert db.read_bytes().startswith(b"this is not")  # left as it was


def test_prune_an_empty_file(tmp_path):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    r = cli("prune", "--db", str(db), "--up-to", "1", timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error:") and "Traceback" not in r.stderr, r.stderr


def test_serve_says_where_it_runs_instead_of_failing_later(tmp_path, monkeypatch, capsys):
    """The write process is reached through inherited pipe descriptors, which only POSIX systems pass on."""
    from participant.server import cli

    db = tmp_path / "ledger.db"
    monkeypatch.setattr(cli, "SERVES_HERE", False)
    code = cli.main(["serve", "--db", str(db), "--no-auth"])
    assert code == 2
    assert "Linux and macOS" in capsys.readouterr().err
    assert not db.exists()
