"""The headless commands run as a script runs them (`python -m app COMMAND`, a fresh HOME) against a real participant
on a loopback port with the demo ledger: what each prints, and each exit code (0 done, 1 refused, 2 usage)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from filelock import FileLock

from app.client import LedgerClient, event_format
from app.client.acs import read_snapshot
from app.tokens import MintedToken
from participant.api import JsCommands
from participant.auth import mint_token
from tests.conftest import ADMIN, SECRET, LedgerApi, ServerProcess, start_demo_server, token
from tests.daml_lf.conftest import RICHTYPES, dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.history import iou_submission

ROOT = Path(__file__).resolve().parents[2]
LOCATION_VARS = ("LEDGER_TUI_CONFIG", "LEDGER_TUI_DATA_DIR", "LEDGER_TUI_CACHE_DIR", "LEDGER_TUI_LOG_DIR")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Iterator[ServerProcess]:
    s = start_demo_server(tmp_path_factory.mktemp("headless") / "ledger.db")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("home")
    (path / "alice.jwt").write_text(token("Alice"))
    return path


def environment(home: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k not in LOCATION_VARS}
    base.update(HOME=str(home), **extra)
    return base


def run(home: Path, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=environment(home, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )


def remote(server: ServerProcess, home: Path) -> list[str]:
    return ["--url", server.url, "--token-file", str(home / "alice.jwt")]


def lines(r: subprocess.CompletedProcess) -> list[dict]:
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


async def alice(server: ServerProcess) -> str:
    async with LedgerClient(server.url, MintedToken(SECRET, "Alice")) as client:
        return (await client.authenticated_user()).primary_party


def created_of(entry: dict) -> dict:
    (kind,) = entry["contractEntry"].values()
    return kind.get("createdEvent") or kind.get("assignedEvent", {}).get("createdEvent") or {}


# --- acs -------------------------------------------------------------------------------------------------------


async def test_acs_prints_the_snapshot_as_json_lines(demo, home):
    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        end = await client.ledger_end()
        party = (await client.authenticated_user()).primary_party
        expected = set()
        async for batch in read_snapshot(client, end, event_format([party])):
            expected |= {created_of(e).get("contractId") for e in batch.entries}
    got = lines(run(home, "acs", *remote(demo, home), "--offset", str(end)))
    assert {created_of(e)["contractId"] for e in got} == expected and len(got) == len(expected) > 100

    transfers = lines(run(home, "acs", *remote(demo, home), "--template", "#model-tests:Iou:IouTransfer"))
    assert transfers and {created_of(e)["templateId"].split(":", 1)[1] for e in transfers} == {
        "Iou:IouTransfer"
    }

    early = lines(run(home, "acs", *remote(demo, home), "--offset", "10"))
    assert len(early) < len(got)

    table = run(home, "acs", *remote(demo, home), "--table")
    assert table.returncode == 0
    head, *rows = table.stdout.splitlines()
    assert head.split()[:3] == ["contract", "id", "template"] and len(rows) == len(got)


def test_an_empty_table_is_its_heading(demo, home):
    r = run(home, "acs", *remote(demo, home), "--offset", "0", "--table")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["contract", "id", "template", "state", "created", "at", "signatories"]


# --- contract --------------------------------------------------------------------------------------------------


async def test_contract_prints_its_create_and_archive_events(demo, home):
    party = await alice(demo)
    async with httpx.AsyncClient(base_url=demo.url, timeout=30) as http:
        api = LedgerApi(http, check_spec=False)
        created = await api.create_iou(party, party, user="Alice")
        cid = created["events"][0]["CreatedEvent"]["contractId"]
        active = lines(run(home, "contract", cid, *remote(demo, home)))
        assert [next(iter(d)) for d in active] == ["created"]
        assert active[0]["created"]["createdEvent"]["contractId"] == cid
        r = await api.exercise("#model-tests:Iou:Iou", cid, "Archive", {}, act_as=[party], user="Alice")
        assert r.status_code == 200, r.text
    archived = lines(run(home, "contract", cid, *remote(demo, home)))
    assert [next(iter(d)) for d in archived] == ["created", "archived"]
    assert archived[1]["archived"]["archivedEvent"]["contractId"] == cid

    table = run(home, "contract", cid, *remote(demo, home), "--table")
    assert [row.split()[0] for row in table.stdout.splitlines()] == ["event", "created", "archived"]


def test_contract_refused_exits_1_with_cantons_error(demo, home):
    r = run(home, "contract", "00" + "ab" * 33, *remote(demo, home))
    assert r.returncode == 1 and r.stdout == ""
    error = json.loads(r.stderr)
    assert error["code"] == "CONTRACT_EVENTS_NOT_FOUND" and error["cause"]


async def active_ids(server: ServerProcess, user: str = "Alice") -> list[str]:
    async with LedgerClient(server.url, MintedToken(SECRET, user)) as client:
        party = (await client.authenticated_user()).primary_party
        ids: list[str] = []
        async for batch in read_snapshot(client, await client.ledger_end(), event_format([party])):
            ids += [created_of(e)["contractId"] for e in batch.entries if created_of(e).get("contractId")]
        return ids


def error_of(r: subprocess.CompletedProcess) -> dict:
    assert r.returncode == 1 and r.stdout == "", r.stderr
    return json.loads(r.stderr)


async def test_contract_takes_a_unique_prefix_as_the_client_does(demo, home):
    ids = await active_ids(demo)
    cid = ids[0]
    prefix = next(cid[:n] for n in range(6, len(cid)) if sum(i.startswith(cid[:n]) for i in ids) == 1)
    r = run(home, "contract", prefix, *remote(demo, home))
    (created,) = lines(r)
    assert created["created"]["createdEvent"]["contractId"] == cid
    assert f"{prefix} → {cid}" in r.stderr  # says what it was taken for


async def test_contract_refuses_an_ambiguous_or_unknown_prefix_with_the_count(demo, home):
    ids = await active_ids(demo)
    counts: dict[str, int] = {}
    for cid in ids:
        counts[cid[:4]] = counts.get(cid[:4], 0) + 1
    shared, count = max(counts.items(), key=lambda kv: kv[1])
    assert count > 1
    error = error_of(run(home, "contract", shared, *remote(demo, home)))
    assert error["candidates"] == count and "ambiguous" in error["error"]
    assert all(m.startswith(shared) for m in error["matches"])

    unknown = next(p for p in (f"00{n:04x}" for n in range(1 << 16)) if not any(i.startswith(p) for i in ids))
    error = error_of(run(home, "contract", unknown, *remote(demo, home)))
    assert error["candidates"] == 0 and "unknown contract" in error["error"]


# --- short party names -----------------------------------------------------------------------------------------


async def test_a_party_s_short_name_is_resolved_as_the_client_resolves_it(demo, home):
    party = await alice(demo)
    by_id = lines(run(home, "acs", *remote(demo, home), "--party", party))
    r = run(home, "acs", *remote(demo, home), "--party", "Alice")
    assert lines(r) == by_id and f"Alice → {party}" in r.stderr

    commands = json.loads(iou_submission(party, f"short-act-as-{os.getpid()}"))["commands"]
    commands["actAs"] = ["Alice"]
    (transaction,) = lines(run(home, "submit", *remote(demo, home), stdin=json.dumps(commands)))
    assert transaction["events"][0]["CreatedEvent"]["signatories"] == [party]


@pytest.fixture(scope="module")
def rich(tmp_path_factory, dars_dir) -> Iterator[ServerProcess]:  # noqa: F811  (the fixture imported above)
    """The demo participant with a Daml-LF DAR: its templates' types say which arguments are parties."""
    db = tmp_path_factory.mktemp("rich") / "ledger.db"
    s = start_demo_server(db, "--dar", str(dars_dir / RICHTYPES))
    yield s
    s.stop()


async def test_a_short_name_in_the_arguments_is_resolved_where_the_type_says_party(rich, home):
    party = await alice(rich)
    create = {
        "CreateCommand": {"templateId": "#richtypes:RichTypes:Marker", "createArguments": {"owner": "Alice"}}
    }
    r = run(home, "submit", *remote(rich, home), stdin=json.dumps({"commands": [create]}))
    (transaction,) = lines(r)
    created = transaction["events"][0]["CreatedEvent"]
    assert created["createArgument"] == {"owner": party} and created["signatories"] == [party]
    assert f"Alice → {party}" in r.stderr


async def test_a_short_name_that_stands_for_several_parties_or_none_is_refused_before_sending(
    demo, home, tmp_path
):
    admin = tmp_path / "admin.jwt"
    admin.write_text(token("participant_admin"))
    as_admin = ["--url", demo.url, "--token-file", str(admin)]
    async with httpx.AsyncClient(base_url=demo.url, timeout=30) as http:
        for hint in ("Twin-One", "Twin-Two"):
            r = await http.post(
                "/v2/parties", json={"partyIdHint": hint, "identityProviderId": ""}, headers=ADMIN
            )
            assert r.status_code == 200, r.text
    error = error_of(run(home, "acs", *as_admin, "--party", "Twin"))
    assert error["candidates"] == 2 and [m.split("::")[0] for m in error["matches"]] == [
        "Twin-One",
        "Twin-Two",
    ]
    error = error_of(run(home, "acs", *as_admin, "--party", "Nobody"))
    assert error["candidates"] == 0 and "unknown party" in error["error"]

    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        end = await client.ledger_end()
    party = await alice(demo)
    commands = json.loads(iou_submission(party, f"refused-{os.getpid()}"))["commands"]
    commands["readAs"] = ["Nobody"]
    error = error_of(run(home, "submit", *remote(demo, home), stdin=json.dumps(commands)))
    assert error["typed"] == "Nobody" and error["candidates"] == 0 and "name::fingerprint" in error["hint"]
    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        assert await client.ledger_end() == end  # nothing was sent


# --- updates ---------------------------------------------------------------------------------------------------


def test_updates_of_a_range_in_order(demo, home):
    got = lines(run(home, "updates", *remote(demo, home), "--from", "20", "--to", "60"))
    offsets = [next(iter(u.values()))["value"]["offset"] for u in got]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    assert offsets and offsets[0] > 20 and offsets[-1] <= 60
    table = run(home, "updates", *remote(demo, home), "--from", "20", "--to", "60", "--table")
    head, *rows = table.stdout.splitlines()
    assert head.startswith("offset") and [int(r.split()[0]) for r in rows] == offsets


def test_updates_follow_into_head_ends_cleanly(demo, home):
    follower = subprocess.Popen(
        [sys.executable, "-m", "app", "updates", "--follow", "--from", "0", *remote(demo, home)],
        cwd=ROOT,
        env=environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    head = subprocess.Popen(["head", "-n", "5"], stdin=follower.stdout, stdout=subprocess.PIPE)
    assert follower.stdout is not None
    follower.stdout.close()  # head holds the only reading end
    out, _ = head.communicate(timeout=60)
    assert follower.wait(timeout=60) == 0
    assert follower.stderr is not None and follower.stderr.read() == b""
    assert len(out.splitlines()) == 5


async def test_updates_follow_ends_when_its_reader_goes_away_on_a_quiet_ledger(demo, home):
    # `ledger-tui updates --follow | head -n 1`: head exits with its line, and nothing more commits after it.
    party = await alice(demo)
    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        end = await client.ledger_end()
    follower = subprocess.Popen(
        [sys.executable, "-m", "app", "updates", "--follow", "--from", str(end), *remote(demo, home)],
        cwd=ROOT,
        env=environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert follower.stdout is not None and follower.stderr is not None
    try:
        async with httpx.AsyncClient(base_url=demo.url, timeout=30) as http:
            r = await http.post(
                "/v2/commands/submit-and-wait-for-transaction",
                content=iou_submission(party, f"quiet-{os.getpid()}"),
                headers={"Authorization": f"Bearer {token('Alice')}", "Content-Type": "application/json"},
            )
            assert r.status_code == 200, r.text
        line = await asyncio.wait_for(asyncio.to_thread(follower.stdout.readline), 60)
        assert json.loads(line)["Transaction"]["value"]["commandId"] == f"quiet-{os.getpid()}"
        follower.stdout.close()  # the only reader goes away, and the ledger stays quiet
        assert await asyncio.to_thread(follower.wait, 60) == 0
        assert follower.stderr.read() == b""
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()


FOLLOWER_BOUND_S = 120


async def test_updates_follow_prints_what_commits(demo, home):
    party = await alice(demo)
    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        end = await client.ledger_end()
    follower = subprocess.Popen(
        [sys.executable, "-m", "app", "updates", "--follow", "--from", str(end), *remote(demo, home)],
        cwd=ROOT,
        env=environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert follower.stdout is not None
    prefix = f"live-{os.getpid()}"

    async def submit(n: int) -> None:
        async with httpx.AsyncClient(base_url=demo.url, timeout=30) as http:
            r = await http.post(
                "/v2/commands/submit-and-wait-for-transaction",
                content=iou_submission(party, f"{prefix}-{n}"),
                headers={"Authorization": f"Bearer {token('Alice')}", "Content-Type": "application/json"},
            )
            assert r.status_code == 200, r.text

    lines = follower.stdout
    assert lines is not None

    async def next_command() -> str:
        line = await asyncio.to_thread(lines.readline)
        assert line, "the follower ended"
        update = json.loads(line)
        assert "Transaction" in update, update
        return update["Transaction"]["value"]["commandId"]

    try:
        # Each step waits for its line; the bound is only for a follower that never prints it, and is generous:
        # on a loaded machine starting the follower's interpreter alone can take many seconds.
        async with asyncio.timeout(FOLLOWER_BOUND_S):
            await submit(0)
            assert await next_command() == f"{prefix}-0"  # the follower reads: what comes now comes live
            await submit(1)
            assert await next_command() == f"{prefix}-1"
            await submit(2)
            assert await next_command() == f"{prefix}-2"
    except BaseException:
        _end(follower)  # the failure above is the one reported, with what the follower said
        raise
    follower.send_signal(signal.SIGINT)
    try:
        code = await asyncio.to_thread(follower.wait, FOLLOWER_BOUND_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the follower did not end within {FOLLOWER_BOUND_S} s of SIGINT: {_end(follower)}")
    assert code in (0, 130), _end(follower)


def _end(process: subprocess.Popen) -> str:
    """Ends `process` if it still runs; what it wrote to stderr."""
    if process.poll() is None:
        process.kill()
    _, err = process.communicate()
    return err.decode(errors="replace")[-4000:]


def test_updates_follow_with_an_end_is_a_usage_error(demo, home):
    r = run(home, "updates", "--follow", "--to", "5", *remote(demo, home))
    assert r.returncode == 2 and "--follow" in r.stderr and r.stdout == ""


# --- submit ----------------------------------------------------------------------------------------------------


async def test_submit_from_a_file_and_from_stdin(demo, home, tmp_path):
    party = await alice(demo)
    commands = json.loads(iou_submission(party, "from-a-file"))["commands"]
    path = tmp_path / "commands.json"
    path.write_text(json.dumps(commands))
    (transaction,) = lines(run(home, "submit", str(path), *remote(demo, home)))
    assert transaction["commandId"] == "from-a-file"
    assert transaction["events"][0]["CreatedEvent"]["templateId"].endswith(":Iou:Iou")

    del commands["commandId"], commands["actAs"]  # filled in: a fresh command id, the user's primary party
    (transaction,) = lines(run(home, "submit", *remote(demo, home), stdin=json.dumps(commands)))
    assert transaction["commandId"].startswith("ledger-tui-")
    assert transaction["events"][0]["CreatedEvent"]["signatories"] == [party]

    again = run(home, "submit", str(path), *remote(demo, home))  # the same command id: deduplicated
    assert again.returncode == 1 and json.loads(again.stderr)["code"] == "DUPLICATE_COMMAND"


def test_submit_refused_exits_1_and_bad_input_exits_2(demo, home):
    unknown = {
        "commands": [{"CreateCommand": {"templateId": "#model-tests:Iou:Nope", "createArguments": {}}}]
    }
    r = run(home, "submit", *remote(demo, home), stdin=json.dumps(unknown))
    assert r.returncode == 1 and r.stdout == ""
    assert json.loads(r.stderr)["code"] == "TEMPLATES_OR_INTERFACES_NOT_FOUND"

    r = run(home, "submit", *remote(demo, home), stdin="not json")
    assert r.returncode == 2 and "not JSON" in r.stderr
    r = run(home, "submit", *remote(demo, home), stdin='{"commands": 5}')
    assert r.returncode == 2 and "JsCommands" in r.stderr
    r = run(home, "submit", "/nonexistent/commands.json", *remote(demo, home))
    assert r.returncode == 2 and "cannot read" in r.stderr


# --- reassign --------------------------------------------------------------------------------------------------


async def test_reassign_moves_a_contract_and_follows_the_outcome(demo, home):
    party = await alice(demo)
    async with LedgerClient(demo.url, MintedToken(SECRET, "Alice")) as client:
        synchronizers = [s.synchronizer_id for s in await client.connected_synchronizers()]
        commands = JsCommands.read(json.loads(iou_submission(party, f"to-move-{os.getpid()}"))["commands"])
        created = await client.submit_and_wait_for_transaction(commands)
        created_event = created.events[0].created_event
        assert created_event is not None
        cid = created_event.contract_id
        source = created.synchronizer_id
    target = next(s for s in synchronizers if s != source)
    steps = lines(run(home, "reassign", cid, "--to", target, *remote(demo, home)))
    assert [(s["kind"], s["state"]) for s in steps] == [("unassign", "succeeded"), ("assign", "succeeded")]
    assert steps[0]["reassignmentId"] and steps[0]["source"] == source
    (entry,) = [
        e for e in lines(run(home, "acs", *remote(demo, home))) if created_of(e).get("contractId") == cid
    ]
    assert entry["contractEntry"]["JsActiveContract"]["synchronizerId"] == target

    there = run(home, "reassign", cid, "--to", target, *remote(demo, home))
    assert there.returncode == 2 and "already" in there.stderr

    r = run(home, "reassign", "00" + "cd" * 33, "--to", source, "--from", target, *remote(demo, home))
    assert r.returncode == 1 and json.loads(r.stderr)["code"]

    # back, named as the client takes it: a beginning of its id, the submitter by short name
    back = run(home, "reassign", cid[:16], "--to", source, "--submitter", "Alice", *remote(demo, home))
    assert [(s["kind"], s["state"]) for s in lines(back)] == [
        ("unassign", "succeeded"),
        ("assign", "succeeded"),
    ]
    assert f"{cid[:16]} → {cid}" in back.stderr and f"Alice → {party}" in back.stderr


# --- packages --------------------------------------------------------------------------------------------------


def test_packages(demo, home):
    got = lines(run(home, "packages", *remote(demo, home)))
    assert {"model-tests"} <= {p.get("name") for p in got}
    assert all(p["packageId"] for p in got)
    table = run(home, "packages", *remote(demo, home), "--table")
    assert table.stdout.splitlines()[0].split()[:3] == ["package", "id", "name"]


# --- exit codes, options and what is imported ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["acs", "--bogus"], "unrecognized arguments"),
        (["reassign", "00ab"], "--to"),
        (["acs", "--url", "http://x:1", "--profile", "p"], "--profile or --url"),
        (["acs", "--token-file", "t.jwt"], "needs --url"),
        (["acs", "--url", "ftp://x"], "http"),
        (["submit", "--url", "http://127.0.0.1:9", "--readonly"], "read-only"),
    ],
)
def test_usage_errors_exit_2(home, args, says):
    r = run(home, *args)
    assert r.returncode == 2 and says in r.stderr and r.stdout == ""


def test_help_describes_each_option_once(home):
    r = run(home, "contract", "--help")
    assert r.returncode == 0, r.stderr
    body = r.stdout.split("\n\n", 1)[1]
    described = [line.split()[0] for line in body.splitlines() if line.startswith("  --")]
    assert "--token-file" in described and len(described) == len(set(described))
    for option in described:  # each with words that say what it is for
        after = body.split(f"  {option} ", 1)[1].split("\n  --", 1)[0]
        assert len(after.split()) > 2, (option, after)


def test_a_refused_token_exits_1_with_cantons_error(demo, home, tmp_path):
    bad = tmp_path / "bad.jwt"
    bad.write_text(mint_token(hs256_secret="another-secret-with-enough-bytes-for-hs256!!", user_id="Alice"))
    r = run(home, "acs", "--url", demo.url, "--token-file", str(bad))
    assert r.returncode == 1 and json.loads(r.stderr)["code"]


def test_an_unreachable_participant_exits_1_saying_so(home):
    from tests.conftest import free_port

    r = run(
        home, "packages", "--url", f"http://127.0.0.1:{free_port()}", "--token-file", str(home / "alice.jwt")
    )
    assert r.returncode == 1
    error = json.loads(r.stderr)
    assert "error" in error and "127.0.0.1" in error.get("hint", "") + error["error"]


def test_a_profile_is_used_as_the_tui_uses_it(demo, home, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.local]\nurl = "{demo.url}"\ntoken_file = "{home / "alice.jwt"}"\n')
    via_profile = lines(run(home, "packages", "--profile", "local", LEDGER_TUI_CONFIG=str(config)))
    assert via_profile == lines(run(home, "packages", *remote(demo, home)))


NO_UI = """
import json, sys
from app.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_no_textual_nor_rich_is_imported(demo, home):
    for command in (["acs", "--table"], ["updates", "--from", "0", "--to", "30"], ["packages"]):
        r = subprocess.run(
            [sys.executable, "-c", NO_UI, *command, *remote(demo, home)],
            cwd=ROOT,
            env=environment(home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        report = json.loads(r.stderr.splitlines()[-1])
        assert report["code"] == 0
        ui = [m for m in report["modules"] if m.split(".")[0] in ("textual", "rich", "pygments")]
        assert ui == [] and "app.app" not in report["modules"]


def test_without_url_the_bundled_participant_is_started_and_let_go(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    dirs = {
        "LEDGER_TUI_DATA_DIR": str(tmp_path / "data"),
        "LEDGER_TUI_CACHE_DIR": str(tmp_path / "cache"),
        "LEDGER_TUI_LOG_DIR": str(tmp_path / "logs"),
    }
    got = lines(run(home, "packages", "--no-demo", **dirs))
    assert "model-tests" in {p.get("name") for p in got}
    db = tmp_path / "data" / "bundled" / "ledger.db"
    assert db.exists()
    # the participant it started goes when the command ends: its database is free again
    lock = FileLock(f"{db}.lock")
    lock.acquire(timeout=30)  # raises Timeout while the participant still holds it
    lock.release()
