"""`ledger-participant serve --dar FILE`: DARs loaded before serving through the checks of an upload, kept in the
database across restarts; a bad one stops the start with its one-line cause."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
import urllib.parse
import zipfile

import httpx

from participant.daml_lf.archive import read_dar
from tests.conftest import ADMIN, SECRET, start_server
from tests.daml_lf.conftest import AMULET, HOLDING, RICHTYPES
from tests.test_cli import cli

TIMEOUT = 60


def listed(url: str) -> set[str]:
    r = httpx.get(f"{url}/v2/packages", headers=ADMIN, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    return set(r.json()["packageIds"])


def test_dars_given_at_start_are_served_and_kept_across_restarts(tmp_path, dars_dir) -> None:
    db = tmp_path / "ledger.db"
    richtypes, holding = dars_dir / RICHTYPES, dars_dir / HOLDING
    expected = {d.package_id for p in (richtypes, holding) for d in read_dar(p.read_bytes()).dalfs}
    server = start_server(db, "--hs256-secret", SECRET, "--dar", str(richtypes), "--dar", str(holding))
    try:
        first = listed(server.url)
        assert expected <= first
        main = read_dar(richtypes.read_bytes()).main.package_id
        r = httpx.get(f"{server.url}/v2/packages/{main}", headers=ADMIN, timeout=TIMEOUT)
        assert r.headers["canton-package-hash"] == main
    finally:
        server.stop()
    server = start_server(db, "--hs256-secret", SECRET)  # no --dar: the database keeps them
    try:
        assert listed(server.url) == first
        # The largest DAR at hand (1.2 MB) passes the default body limit, through the real HTTP stack.
        amulet = (dars_dir / AMULET).read_bytes()
        r = httpx.post(
            f"{server.url}/v2/dars",
            content=amulet,
            headers={**ADMIN, "content-type": "application/octet-stream"},
            timeout=TIMEOUT,
        )
        assert r.status_code == 200 and r.json() == {}, r.text
        first = listed(server.url)
        assert read_dar(amulet).main.package_id in first
    finally:
        server.stop()
    server = start_server(
        db, "--hs256-secret", SECRET, "--dar", str(richtypes)
    )  # loaded already: nothing new
    try:
        assert listed(server.url) == first
    finally:
        server.stop()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM dars").fetchone()[0] == 3


def test_a_bad_dar_stops_the_start_with_its_cause(tmp_path, dars_dir) -> None:
    db = tmp_path / "ledger.db"
    bad = tmp_path / "notes.dar"
    bad.write_bytes(b"%PDF-1.7 not a dar")
    r = cli("serve", "--db", str(db), "--no-auth", "--port", "0", "--dar", str(bad), timeout=TIMEOUT)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: --dar {bad}: INVALID_DAR: Dar file is corrupt: not a DAR: not a zip")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM packages").fetchone()[0] == 0
    missing = tmp_path / "absent.dar"
    r = cli("serve", "--db", str(db), "--no-auth", "--port", "0", "--dar", str(missing), timeout=TIMEOUT)
    assert r.returncode == 2 and f"cannot read the DAR {missing}" in r.stderr, r.stderr
    # Each DAR is loaded on its own, in order: one before the bad one stays loaded, nothing of the bad one does.
    r = cli(
        "serve",
        "--db",
        str(db),
        "--no-auth",
        "--port",
        "0",
        "--dar",
        str(dars_dir / HOLDING),
        "--dar",
        str(bad),
        timeout=TIMEOUT,
    )
    assert r.returncode == 2 and "INVALID_DAR" in r.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name FROM dars").fetchall() == [("splice-api-token-holding-v1-1.0.0",)]


# A manifest naming an entry that sets the terminal's title, clears it and writes its clipboard (OSC 52), and
# reorders what follows (a bidi override): shown to a person, each must be written out, never acted on.
HOSTILE_ENTRY = "evil\x1b]0;title\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2J\u202e.dalf"
ACTING = ("\x1b", "\x07", "\x9b", "\u202e")


def hostile_dar() -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as dar:
        manifest = f"Manifest-Version: 1.0\nFormat: daml-lf\nMain-Dalf: {HOSTILE_ENTRY}\n"
        dar.writestr("META-INF/MANIFEST.MF", manifest.encode())
    return data.getvalue()


def test_a_dars_hostile_entry_name_is_shown_escaped_never_raw(tmp_path) -> None:
    bad = tmp_path / "hostile.dar"
    bad.write_bytes(hostile_dar())
    r = cli("serve", "--db", str(tmp_path / "ledger.db"), "--no-auth", "--port", "0", "--dar", str(bad))
    assert r.returncode == 2, r.stderr
    assert not any(ch in r.stderr + r.stdout for ch in ACTING), repr(r.stderr)
    (line,) = r.stderr.splitlines()
    assert "evil\\x1b]0;title\\x07\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x9b2J\\u202e.dalf" in line, line


def test_log_lines_show_what_a_request_quotes_escaped_and_json_stays_json(tmp_path) -> None:
    # The request log quotes the path, percent-decoded: a client chooses every character of it. The database's
    # name is chosen by whoever named the file, and `--announce json` says it.
    db = tmp_path / f"{HOSTILE_ENTRY}.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "participant.server.cli", "serve", "--db", str(db), "--no-auth", "--port", "0"]
        + ["--announce", "json", "--exit-on-stdin-eof"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    announced = []
    try:
        for line in server.stdout:
            announced.append(line)
            event = json.loads(line)
            if event["event"] == "ready":
                break
        hostile = urllib.parse.quote(HOSTILE_ENTRY.encode())
        r = httpx.get(f"{event['url']}/v2/{hostile}", timeout=TIMEOUT)
        assert r.status_code == 404
    finally:
        rest, log = server.communicate(
            timeout=TIMEOUT
        )  # closes its stdin: with --exit-on-stdin-eof, it stops
    assert event["db"] == str(db)  # the same text, as JSON escapes
    assert not any(ch in "".join(announced) + rest for ch in ACTING), repr(announced)
    assert "GET /v2/evil\\x1b]0;title\\x07" in log, log
    assert not any(ch in log for ch in ACTING), repr(log)
