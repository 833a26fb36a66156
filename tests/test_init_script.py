"""`ledger-participant serve --dar FILE --init-script Module:name`: the script runs once the DARs are loaded, on a
new ledger only, before anything is served; a restart does not run it again; a failing script stops the start
with its error (exit 1, no port, nothing served). Canton Coin's test DAR's own setup script, on loopback."""

from __future__ import annotations

import subprocess
import sys

import httpx

from tests.conftest import ADMIN, SECRET, bearer, start_server
from tests.daml_script.conftest import SPLICE_TEST
from tests.http.helpers import created_events, event_format

SETUP = "Splice.Scripts.Util:setupDefaultAppWithUsers"
TIMEOUT = 60


def _serve(db, *extra: str) -> subprocess.CompletedProcess:
    """`serve` run to its end (a start that fails)."""
    args = [sys.executable, "-m", "participant", "serve", "--db", str(db), "--port", "0", "--quiet"]
    args += ["--port-file", str(db.parent / "port"), "--hs256-secret", SECRET, *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def _parties(url: str) -> set[str]:
    r = httpx.get(f"{url}/v2/parties", headers=ADMIN, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    return {p["party"] for p in r.json()["partyDetails"]}


def _rights(url: str, user: str) -> set[tuple[str, str | None]]:
    r = httpx.get(f"{url}/v2/users/{user}/rights", headers=ADMIN, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    return {
        (kind, body["value"].get("party"))
        for right in r.json()["rights"]
        for kind, body in right["kind"].items()
    }


def test_the_init_script_sets_a_new_ledger_up_once(tmp_path, dars_dir) -> None:
    db = tmp_path / "ledger.db"
    dar = str(dars_dir / SPLICE_TEST)
    args = ("--hs256-secret", SECRET, "--static-time", "--dar", dar, "--init-script", SETUP)
    server = start_server(db, *args, "--init-script-user", "developer")
    try:
        parties = _parties(server.url)
        assert {"alice", "bob"} <= {p.split("::")[0] for p in parties}, parties
        # the developer's user reads and acts as every party the script allocated, and administers the participant
        assert _rights(server.url, "developer") == {("ParticipantAdmin", None)} | {
            (k, p) for p in parties for k in ("CanActAs", "CanReadAs")
        }
        end = httpx.get(f"{server.url}/v2/state/ledger-end", headers=ADMIN).json()["offset"]
        # and so reads what it set up
        body = {"activeAtOffset": end, "eventFormat": event_format(*parties)}
        acs = httpx.post(
            f"{server.url}/v2/state/active-contracts", json=body, headers=bearer("developer"), timeout=TIMEOUT
        )
        assert acs.status_code == 200, acs.text
        templates = {e["templateId"].split(":", 1)[1] for e in created_events(acs.json())}
        assert {"Splice.AmuletRules:AmuletRules", "Splice.Round:OpenMiningRound"} <= templates, templates
        clock = httpx.get(f"{server.url}/x-ledger-tui/v1/time", headers=ADMIN).json()["currentTime"]
        assert clock != "1970-01-01T00:00:00Z"  # the script set it
    finally:
        server.stop()
    server = start_server(db, *args)  # restarted: not run again
    try:
        assert httpx.get(f"{server.url}/v2/state/ledger-end", headers=ADMIN).json()["offset"] == end
        assert _parties(server.url) == parties
        assert server.process.poll() is None
    finally:
        server.stop()
    assert server.process.stdout is not None
    assert "ran on this ledger before: not run again" in server.process.stdout.read()


def test_a_failing_init_script_stops_the_start_with_its_error(tmp_path, dars_dir) -> None:
    """Canton Coin's setup sets the time: on the wall clock that fails, and nothing is served."""
    db = tmp_path / "ledger.db"
    done = _serve(db, "--dar", str(dars_dir / SPLICE_TEST), "--init-script", SETUP)
    assert done.returncode == 1, done.stderr
    assert f"error: the init script {SETUP} failed at " in done.stderr
    assert "setTime" in done.stderr and "Splice/Scripts/Util.daml" in done.stderr, done.stderr
    assert not (tmp_path / "port").exists()  # never served
    # what it did before failing is in the ledger: it is not served as if it had been set up
    again = _serve(db, "--init-script", SETUP)
    assert again.returncode == 1
    assert f"the init script {SETUP} failed on this ledger before" in again.stderr, again.stderr


def test_an_unknown_script_is_named(tmp_path, dars_dir) -> None:
    done = _serve(
        tmp_path / "ledger.db", "--dar", str(dars_dir / SPLICE_TEST), "--init-script", "No.Such:script"
    )
    assert done.returncode == 1 and "No.Such:script" in done.stderr, done.stderr


def test_an_init_script_user_without_an_init_script_is_refused(tmp_path) -> None:
    done = _serve(tmp_path / "ledger.db", "--init-script-user", "developer")
    assert done.returncode == 2 and "give --init-script" in done.stderr, done.stderr
