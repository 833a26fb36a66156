"""`ledger-participant serve --dar FILE`: DARs loaded before serving through the checks of an upload, kept in the
database across restarts; a bad one stops the start with its one-line cause."""

from __future__ import annotations

import sqlite3

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
