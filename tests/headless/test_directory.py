"""`ledger-tui parties` and `ledger-tui users`, run as a script runs them (`python -m app`, a fresh HOME) against a
real participant on loopback started without the demo (no party, one admin user), with real signed tokens: what each
prints, each exit code, short party names resolved or refused before anything is sent, and what a user who is no
administrator gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.client import LedgerClient
from app.client import admin as api
from app.tokens import MintedToken
from tests.conftest import SECRET, ServerProcess, start_server, token
from tests.headless.test_commands import run

ADMIN = "participant_admin"


@pytest.fixture
def fresh(tmp_path) -> Iterator[ServerProcess]:
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def untouched(tmp_path_factory) -> Iterator[ServerProcess]:
    """A participant the usage errors never reach (one for the module)."""
    s = start_server(tmp_path_factory.mktemp("untouched") / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    for user in (ADMIN, "dave"):
        (path / f"{user}.jwt").write_text(token(user))
    return path


def as_user(server: ServerProcess, home: Path, user: str = ADMIN) -> list[str]:
    return ["--url", server.url, "--token-file", str(home / f"{user}.jwt")]


def documents(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def ok(home: Path, *args: str) -> list[dict]:
    r = run(home, *args)
    assert r.returncode == 0, r.stderr
    return documents(r.stdout)


async def rights_of(server: ServerProcess, user_id: str) -> set[str]:
    async with LedgerClient(server.url, MintedToken(SECRET, ADMIN)) as client:
        return set(map(api.right_text, await client.user_rights(user_id)))


async def user_ids(server: ServerProcess) -> set[str]:
    async with LedgerClient(server.url, MintedToken(SECRET, ADMIN)) as client:
        return {u.id for u in await client.users()}


async def test_a_fresh_participant_is_set_up_with_the_headless_commands(fresh, home):
    admin = as_user(fresh, home)
    assert ok(home, "parties", *admin) == []
    (alice,) = ok(home, "parties", "allocate", "alice", "--display-name", "Alice Liddell", *admin)
    assert alice["party"].startswith("alice::") and alice["isLocal"] is True
    assert alice["localMetadata"]["annotations"] == {api.DISPLAY_NAME: "Alice Liddell"}
    (bob,) = ok(home, "parties", "allocate", "bob", *admin)
    listed = ok(home, "parties", "list", *admin)
    assert sorted(p["party"] for p in listed) == sorted([alice["party"], bob["party"]])

    table = run(home, "parties", "--table", *admin)
    assert table.returncode == 0
    heading, *rows = table.stdout.splitlines()
    assert heading.split() == ["party", "display", "name", "local"]
    assert any(row.startswith(alice["party"]) and "Alice Liddell" in row for row in rows)

    # short names, resolved as the client resolves them (said on stderr)
    r = run(
        home, "users", "create", "trader", "--primary-party", "alice", "--act-as", "alice", "--read-as", "bob",
        *admin,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(f"alice → {alice['party']}") == 1  # named twice, said once
    (created,) = documents(r.stdout)
    assert created["user"]["id"] == "trader" and created["user"]["primaryParty"] == alice["party"]
    assert await rights_of(fresh, "trader") == {f"act as {alice['party']}", f"read as {bob['party']}"}

    (granted,) = ok(home, "users", "grant", "trader", "--act-as", "bob", "--admin", *admin)
    assert len(granted["newlyGrantedRights"]) == 2
    (again,) = ok(home, "users", "grant", "trader", "--act-as", "bob", *admin)
    assert again == {"newlyGrantedRights": []}  # held already: nothing new
    (revoked,) = ok(home, "users", "revoke", "trader", "--read-as", bob["party"], "--admin", *admin)
    assert len(revoked["newlyRevokedRights"]) == 2
    assert await rights_of(fresh, "trader") == {f"act as {alice['party']}", f"act as {bob['party']}"}

    users = {d["user"]["id"]: d for d in ok(home, "users", *admin)}
    assert set(users) == {ADMIN, "trader"}
    assert users[ADMIN]["rights"] == [{"kind": {"ParticipantAdmin": {"value": {}}}}]

    assert ok(home, "users", "delete", "trader", *admin) == [{}]
    assert await user_ids(fresh) == {ADMIN}
    gone = run(home, "users", "delete", "trader", *admin)
    assert gone.returncode == 1
    error = json.loads(gone.stderr)
    assert error["code"] == "USER_NOT_FOUND"
    assert error["cause"] == 'deleting user failed for unknown user "trader"'


async def test_a_short_name_no_party_has_or_several_have_is_refused_before_anything_is_sent(fresh, home):
    admin = as_user(fresh, home)
    for hint in ("alice", "alicia"):
        ok(home, "parties", "allocate", hint, *admin)
    unknown = run(home, "users", "create", "trader", "--act-as", "carol", *admin)
    assert unknown.returncode == 1
    assert json.loads(unknown.stderr)["typed"] == "carol"
    ambiguous = run(home, "users", "create", "trader", "--primary-party", "ali", *admin)
    assert ambiguous.returncode == 1
    error = json.loads(ambiguous.stderr)
    assert error["candidates"] == 2
    assert sorted(m.partition("::")[0] for m in error["matches"]) == ["alice", "alicia"]
    assert await user_ids(fresh) == {ADMIN}  # neither created the user
    no_such_user = run(home, "users", "grant", "trader", "--act-as", "nobody", *admin)
    assert no_such_user.returncode == 1 and json.loads(no_such_user.stderr)["typed"] == "nobody"


async def test_a_user_who_is_no_admin_lists_itself_and_is_refused_changes(fresh, home):
    async with LedgerClient(fresh.url, MintedToken(SECRET, ADMIN)) as client:
        dave = (await api.allocate_party(client, "dave", "Dave")).party
        await api.allocate_party(client, "erin")
        await api.create_user(client, "dave", dave, api.rights_for(act_as=[dave]))
    user = as_user(fresh, home, "dave")
    r = run(home, "users", *user)
    assert r.returncode == 0 and "not an administrator" in r.stderr
    (own,) = documents(r.stdout)
    assert own["user"]["id"] == "dave"
    r = run(home, "parties", *user)
    assert r.returncode == 0
    assert [(p["party"], p["localMetadata"]["annotations"]) for p in documents(r.stdout)] == [
        (dave, {api.DISPLAY_NAME: "Dave"})
    ]
    refused = run(home, "parties", "allocate", "mallory", *user)
    assert refused.returncode == 1
    assert json.loads(refused.stderr)["code"] == "NA"  # Canton hides a permission error's cause


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["users", "grant", "trader"], "needs the rights"),
        (["users", "create"], "needs the user's id"),
        (["users", "delete", "trader", "--admin"], "takes no rights"),
        (
            ["users", "grant", "trader", "--primary-party", "x", "--admin"],
            "--primary-party is for users create",
        ),
        (["parties", "allocate"], "needs the party's name"),
        (["parties", "list", "bob"], "takes no name"),
        (["users", "create", "trader", "--readonly"], "users create writes to the participant"),
        (["parties", "allocate", "x", "--readonly"], "parties allocate writes to the participant"),
    ],
)
async def test_usage_errors_exit_2_before_anything_is_sent(untouched, home, args, says):
    r = run(home, *args, *as_user(untouched, home))
    assert r.returncode == 2
    assert says in r.stderr
    assert await user_ids(untouched) == {ADMIN}


@pytest.mark.parametrize("command", ["parties", "users"])
def test_help_describes_each_option_once(home, command):
    r = run(home, command, "--help")
    assert r.returncode == 0, r.stderr
    body = r.stdout.split("\n\n", 1)[1]
    described = [line.split()[0] for line in body.splitlines() if line.startswith("  --")]
    assert "--token-file" in described and len(described) == len(set(described))
    wanted = {"parties": ["--display-name"], "users": ["--primary-party", "--act-as", "--read-as", "--admin"]}
    assert set(wanted[command]) <= set(described)
    said = " ".join(r.stdout.split())
    # --user said as it is here, where no key switches users
    assert "U switches" not in said and "--user USER the user the command acts as" in said
