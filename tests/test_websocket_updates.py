"""The websocket forms of the update streams (/v2/updates, flats, trees) and of the completions, on a real server:
finite streams close after their end; streams without one tail the ledger, resumed from any offset, with new
transactions arriving while they stream, no gaps and no duplicates; errors come as one message before the close.
Every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import os

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from tests.conftest import SECRET, LedgerApi, start_server, token, ws_protocols
from tests.http.helpers import (
    LEDGER_EFFECTS,
    commands,
    create,
    event_format,
    grant_read_any,
    iou_args,
    update_format,
)
from tests.spec import validate

TIMEOUT = 30  # seconds for any one websocket conversation
MAX_MESSAGES = 1000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = start_server(tmp_path_factory.mktemp("ws-updates") / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()


@pytest.fixture
async def alice(server):
    """A fresh party (and user) on the shared server with three Ious: (ledger, party, user, their offsets)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        user = f"A{os.urandom(3).hex()}"
        party = await ledger_api.party(user)
        made = [
            (await ledger_api.create_iou(party, party, f"{i + 1}.0", user=user))["offset"] for i in range(3)
        ]
        yield ledger_api, party, user, made


def url(server, path: str) -> str:
    return server.url.replace("http://", "ws://") + path


def protocols(user: str) -> list[Subprotocol]:
    return ws_protocols(token(user))


async def converse(server, path: str, body: dict, user: str) -> list[dict]:
    """One request; every message until the server closes (bounded in count and time)."""
    messages: list[dict] = []
    async with (
        asyncio.timeout(TIMEOUT),
        connect(url(server, path), subprotocols=protocols(user), open_timeout=TIMEOUT) as ws,
    ):
        await ws.send(json.dumps(body))
        try:
            while len(messages) < MAX_MESSAGES:
                messages.append(json.loads(await ws.recv()))
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1000, closed
    return messages


def is_checkpoint(message: dict) -> bool:
    ((_, inner),) = message.items()
    return "OffsetCheckpoint" in inner


async def receive(ws: ClientConnection, count: int, checkpoints: list[dict] | None = None) -> list[dict]:
    """The next `count` updates or completions; offset checkpoints in between are skipped, as clients must, or
    kept in `checkpoints`."""
    out: list[dict] = []
    async with asyncio.timeout(TIMEOUT):
        while len(out) < count:
            message = json.loads(await ws.recv())
            if not is_checkpoint(message):
                out.append(message)
            elif checkpoints is not None:
                checkpoints.append(message)
    return out


def offset_of(message: dict) -> int:
    ((_, value),) = message["update"].items()
    return value["value"]["offset"]


async def test_finite_update_streams_close_after_their_end(server, alice):
    ledger_api, party, user, made = alice
    body = {"beginExclusive": made[0] - 1, "endInclusive": made[-1], "updateFormat": update_format(party)}
    messages = await converse(server, "/v2/updates", body, user)
    assert [offset_of(m) for m in messages] == made
    for m in messages:
        validate("JsGetUpdatesResponse", m)
    r = await ledger_api.post("/v2/updates", body, user=user)  # the same as the list form
    assert r.json() == messages
    descending = await converse(server, "/v2/updates", {**body, "descendingOrder": True}, user)
    assert [offset_of(m) for m in descending] == made[::-1]
    legacy = {
        "beginExclusive": made[0] - 1,
        "endInclusive": made[-1],
        "filter": {"filtersByParty": event_format(party)["filtersByParty"]},
    }
    flats = await converse(server, "/v2/updates/flats", legacy, user)
    assert [offset_of(m) for m in flats] == made
    trees = await converse(server, "/v2/updates/trees", legacy, user)
    assert [offset_of(m) for m in trees] == made
    for m in trees:
        validate("JsGetUpdateTreesResponse", m)
        assert set(m["update"]["TransactionTree"]["value"]["eventsById"]) == {"0"}


async def test_a_stream_without_an_end_tails_the_ledger(server, alice):
    """Resumed from the first Iou's offset: the two after it, then each new one as it commits, in order."""
    ledger_api, party, user, made = alice
    body = {"beginExclusive": made[0], "updateFormat": update_format(party, shape=LEDGER_EFFECTS)}
    async with (
        asyncio.timeout(TIMEOUT),
        connect(url(server, "/v2/updates"), subprotocols=protocols(user), open_timeout=TIMEOUT) as ws,
    ):
        await ws.send(json.dumps(body))
        seen = await receive(ws, 2)
        assert [offset_of(m) for m in seen] == made[1:]
        new = []
        for i in range(4):  # commits while the stream is open: some before their predecessor is read
            new.append((await ledger_api.create_iou(party, party, f"{10 + i}.0", user=user))["offset"])
            if i % 2:
                seen += await receive(ws, 2)
        other = await ledger_api.party(f"B{os.urandom(3).hex()}")  # not Alice's: never sent to her
        await ledger_api.create_iou(other, other, user=other.split("::")[0])
        last = (await ledger_api.create_iou(party, party, "99.0", user=user))["offset"]
        seen += await receive(ws, 1)
        assert [offset_of(m) for m in seen] == made[1:] + new + [last]
        for m in seen:
            validate("JsGetUpdatesResponse", m)
        with pytest.raises(TimeoutError):  # nothing more until something commits
            async with asyncio.timeout(0.2):
                await ws.recv()
    # The server noticed the close; it still serves.
    assert (await ledger_api.get("/v2/state/ledger-end", user=user)).status_code == 200


async def test_tailing_trees_and_flats(server, alice):
    ledger_api, party, user, made = alice
    legacy = {"beginExclusive": made[-1], "filter": {"filtersByParty": event_format(party)["filtersByParty"]}}
    for path, schema, tag in (
        ("/v2/updates/trees", "JsGetUpdateTreesResponse", "TransactionTree"),
        ("/v2/updates/flats", "JsGetUpdatesResponse", "Transaction"),
    ):
        async with (
            asyncio.timeout(TIMEOUT),
            connect(url(server, path), subprotocols=protocols(user), open_timeout=TIMEOUT) as ws,
        ):
            await ws.send(json.dumps(legacy))
            tx = await ledger_api.create_iou(party, party, user=user)
            (m,) = await receive(ws, 1)
            validate(schema, m)
            assert m["update"][tag]["value"]["updateId"] == tx["updateId"]
        legacy["beginExclusive"] = tx["offset"]


async def test_stream_errors_are_one_message(server, alice):
    ledger_api, party, user, _ = alice
    end = await ledger_api.ledger_end()
    cases = [
        (
            "/v2/updates",
            {"beginExclusive": end + 5, "updateFormat": update_format(party)},
            "OFFSET_AFTER_LEDGER_END",
        ),
        (
            "/v2/updates",
            {"beginExclusive": 0, "descendingOrder": True, "updateFormat": update_format(party)},
            "DESCENDING_ORDER_MISSING_END",
        ),
        ("/v2/updates/trees", {"beginExclusive": 0}, "INVALID_ARGUMENT"),
        ("/v2/updates/flats", {"beginExclusive": "zero"}, "INVALID_ARGUMENT"),
        ("/v2/commands/completions", {"userId": user, "parties": [], "beginExclusive": 0}, "MISSING_FIELD"),
    ]
    for path, body, code in cases:
        (error,) = await converse(server, path, body, user)
        validate("JsCantonError", error)
        assert error["code"] == code, (path, error)
    # A token naming no user is refused at the upgrade, as the HTTP form refuses it: no message is ever read.
    with pytest.raises(InvalidStatus) as refused:
        await converse(
            server,
            "/v2/updates",
            {"beginExclusive": 0, "updateFormat": update_format(party)},
            "participant_admin-" + os.urandom(2).hex(),
        )
    assert refused.value.response.status_code == 403
    assert json.loads(refused.value.response.body)["code"] == "NA"


async def test_completions_websocket(server, alice):
    ledger_api, party, user, made = alice
    body = {"userId": user, "parties": [party], "beginExclusive": made[0]}
    async with (
        asyncio.timeout(TIMEOUT),
        connect(
            url(server, "/v2/commands/completions"), subprotocols=protocols(user), open_timeout=TIMEOUT
        ) as ws,
    ):
        await ws.send(json.dumps(body))
        old = await receive(ws, 2)
        assert [m["completionResponse"]["Completion"]["value"]["offset"] for m in old] == made[1:]
        cmds = commands([party], create(iou_args(party, party)))
        r = await ledger_api.post("/v2/commands/async/submit", cmds, user=user)
        assert r.status_code == 200, r.text
        (new,) = await receive(ws, 1)
        for m in [*old, new]:
            validate("CompletionStreamResponse", m)
        assert new["completionResponse"]["Completion"]["value"]["commandId"] == cmds["commandId"]


async def test_a_stream_of_topology_events_shows_each_allocation_as_it_happens(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        reader = await grant_read_any(ledger_api, f"R{os.urandom(3).hex()}")
        begin = await ledger_api.ledger_end()
        body = {
            "beginExclusive": begin,
            "updateFormat": {
                "includeTopologyEvents": {"includeParticipantAuthorizationEvents": {"parties": []}}
            },
        }
        async with (
            asyncio.timeout(TIMEOUT),
            connect(url(server, "/v2/updates"), subprotocols=protocols(reader), open_timeout=TIMEOUT) as ws,
        ):
            await ws.send(json.dumps(body))
            party = await ledger_api.party(f"T{os.urandom(3).hex()}", user=False)
            (m,) = await receive(ws, 1)
            validate("JsGetUpdatesResponse", m)
            assert offset_of(m) == begin + 1
            (event,) = m["update"]["TopologyTransaction"]["value"]["events"]
            assert event["event"]["ParticipantAuthorizationAdded"]["value"]["partyId"] == party


@pytest.fixture(scope="module")
def checkpointing_server(tmp_path_factory):
    s = start_server(
        tmp_path_factory.mktemp("ws-checkpoints") / "ledger.db",
        "--hs256-secret",
        SECRET,
        "--offset-checkpoint-interval",
        "0.3",
    )
    yield s
    s.stop()


async def test_streams_that_follow_the_ledger_checkpoint_the_offsets_their_client_cannot_see(
    checkpointing_server,
):
    """Updates of a party the client does not read move the ledger end: the update and completion streams say so
    with an OffsetCheckpoint at the new end (with the synchronizer's record time there), once they have caught up,
    and say nothing while the end stays where the client's last element was."""
    server = checkpointing_server
    async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        for path, schema, key in (
            ("/v2/updates", "JsGetUpdatesResponse", "update"),
            ("/v2/commands/completions", "CompletionStreamResponse", "completionResponse"),
        ):
            user = f"A{os.urandom(3).hex()}"
            party = await ledger_api.party(user)
            other = await ledger_api.party(f"B{os.urandom(3).hex()}")
            mine = (await ledger_api.create_iou(party, party, user=user))["offset"]
            body = (
                {"beginExclusive": mine - 1, "updateFormat": update_format(party)}
                if key == "update"
                else {"userId": user, "parties": [party], "beginExclusive": mine - 1}
            )
            async with (
                asyncio.timeout(TIMEOUT),
                connect(url(server, path), subprotocols=protocols(user), open_timeout=TIMEOUT) as ws,
            ):
                await ws.send(json.dumps(body))
                checkpoints: list[dict] = []
                (first,) = await receive(ws, 1, checkpoints)
                assert not checkpoints  # the end was the client's own element
                theirs = await ledger_api.create_iou(other, other, user=other.split("::")[0])
                checkpoint = json.loads(await ws.recv())
                validate(schema, checkpoint)
                value = checkpoint[key]["OffsetCheckpoint"]["value"]
                assert value["offset"] == theirs["offset"] > mine
                update = await ledger_api.post(
                    "/v2/updates/update-by-offset",
                    {"offset": theirs["offset"], "updateFormat": update_format(other)},
                    user=other.split("::")[0],
                )
                tx = update.json()["update"]["Transaction"]["value"]
                assert value["synchronizerTimes"] == [
                    {"synchronizerId": tx["synchronizerId"], "recordTime": tx["recordTime"]}
                ]
                with pytest.raises(TimeoutError):  # the end has not moved since: nothing to checkpoint
                    async with asyncio.timeout(0.8):
                        await ws.recv()


async def test_a_binary_request_message_is_read_too(server, alice):
    _, party, user, made = alice
    body = {"beginExclusive": made[0], "endInclusive": made[-1], "updateFormat": update_format(party)}
    async with (
        asyncio.timeout(TIMEOUT),
        connect(url(server, "/v2/updates"), subprotocols=protocols(user), open_timeout=TIMEOUT) as ws,
    ):
        await ws.send(json.dumps(body).encode())
        assert [offset_of(m) for m in await receive(ws, 2)] == made[1:]
        with pytest.raises(ConnectionClosed):
            await ws.recv()
