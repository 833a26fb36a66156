"""`ledger-tui script --dar FILE --script-name Module:name --url URL`: Canton Coin's `testTap` run over the JSON
Ledger API against a separately started `--static-time` participant (with auth: a participant admin's token, the
DAR uploaded by the command), its result and exit codes; and what a wall-clock participant answers `setTime`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ADMIN, SECRET, ServerProcess, start_server, token
from tests.daml_script.conftest import SPLICE_TEST
from tests.headless.test_commands import run

TEST_TAP = "Splice.Scripts.TestTap:testTap"


@pytest.fixture
def home(tmp_path):
    (tmp_path / "admin.jwt").write_text(token("participant_admin"))
    return tmp_path


def _remote(server: ServerProcess, home) -> list[str]:
    return ["--url", server.url, "--token-file", str(home / "admin.jwt")]


@pytest.fixture
def static(tmp_path) -> Iterator[ServerProcess]:
    s = start_server(tmp_path / "static.db", "--hs256-secret", SECRET, "--static-time")
    yield s
    s.stop()


def test_test_tap_runs_over_the_json_api_on_a_static_time_participant(static, home, dars_dir) -> None:
    dar = str(dars_dir / SPLICE_TEST)
    out = home / "result.json"
    args = ["script", *_remote(static, home), "--dar", dar, "--script-name", TEST_TAP, "--json"]
    r = run(home, *args, "--output-file", str(out))
    assert r.returncode == 0, r.stderr
    [report] = [json.loads(line) for line in r.stdout.splitlines()]
    assert report["status"] == "passed" and report["script"] == TEST_TAP and report["result"] == {}
    assert report["transactions"] > 10
    assert json.loads(out.read_text()) == {}
    assert "uploading the DAR" in r.stderr  # the participant did not have it
    # the script's amulets are on the ledger, and its clock was moved by the script's setTime
    clock = httpx.get(f"{static.url}/x-ledger-tui/v1/time", headers=ADMIN).json()["currentTime"]
    assert clock > "2020"


def test_a_script_that_sets_the_time_fails_on_a_wall_clock_participant_saying_so(
    home, tmp_path, dars_dir
) -> None:
    server = start_server(tmp_path / "wall.db", "--hs256-secret", SECRET)
    try:
        args = [
            "script",
            *_remote(server, home),
            "--dar",
            str(dars_dir / SPLICE_TEST),
            "--script-name",
            TEST_TAP,
        ]
        r = run(home, *args)
    finally:
        server.stop()
    assert r.returncode == 1, r.stderr
    error = json.loads(r.stderr.splitlines()[-1])
    assert (
        error["status"] == "failed" and "setTime" in error["error"] and "Splice/Scripts" in error["location"]
    )


def test_usage_errors_exit_2(home, tmp_path, dars_dir) -> None:
    r = run(home, "script", "--url", "http://127.0.0.1:9", "--script-name", TEST_TAP)
    assert r.returncode == 2 and "--dar FILE" in r.stderr
    bad = tmp_path / "bad.dar"
    bad.write_bytes(b"not a dar")
    r = run(home, "script", "--url", "http://127.0.0.1:9", "--dar", str(bad), "--script-name", TEST_TAP)
    assert r.returncode == 2 and "cannot be read" in r.stderr, r.stderr


def test_without_url_the_bundled_participant_runs_it_on_a_static_time_ledger_of_its_own(
    home, dars_dir
) -> None:
    args = [
        "script",
        "--static-time",
        "--dar",
        str(dars_dir / SPLICE_TEST),
        "--script-name",
        TEST_TAP,
        "--json",
    ]
    r = run(home, *args)
    assert r.returncode == 0, r.stderr
    [report] = [json.loads(line) for line in r.stdout.splitlines()]
    assert report["status"] == "passed" and report["transactions"] > 10


async def test_the_upload_and_the_script_share_one_http_client(static, dars_dir, monkeypatch, capsys) -> None:
    """The DAR's upload and then the script's questions go through one HTTP client of the participant (one pool of
    connections, kept open from the upload to the last question), not one each."""
    from app import script_runs
    from app.client import LedgerClient
    from app.client.plain import plain_http
    from app.headless import script as command
    from app.tokens import MintedToken

    made = []

    def counted(client):
        made.append(client)
        return plain_http(client)

    monkeypatch.setattr(command, "plain_http", counted)
    monkeypatch.setattr(script_runs, "plain_http", counted)
    args = argparse.Namespace(
        script_dar=[dars_dir / SPLICE_TEST],
        script_name=TEST_TAP,
        input_file=None,
        output_file=None,
        json=True,
    )
    async with LedgerClient(static.url, MintedToken(SECRET, "participant_admin")) as client:
        await command.script(client, args)
    said = capsys.readouterr()
    assert "uploading the DAR" in said.err and json.loads(said.out)["status"] == "passed"
    assert len(made) == 1
