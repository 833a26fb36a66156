"""The websocket form of /v2/state/active-contracts on a real server: one request in, one message per entry out.

Covers the continuation tokens (resume, a token bound to another offset, a token that is not ours), the auth
subprotocols (`jwt.token.<JWT>`, `daml.ws.auth`) and a snapshot larger than the list limit of the POST form.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from tests.conftest import LedgerApi, token, ws_protocols
from tests.spec import validate

IOU = "#model-tests:Iou:Iou"
TIMEOUT = 30  # seconds for any one websocket conversation
MAX_MESSAGES = 2000  # no test expects more


def event_format(party: str) -> dict:
    return {
        "filtersByParty": {
            party: {
                "cumulative": [
                    {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
                ]
            }
        },
        "verbose": False,
    }


def request(party: str, offset: int, continuation: str | None = None) -> dict:
    body = {"eventFormat": event_format(party), "activeAtOffset": offset}
    if continuation is not None:
        body["streamContinuationToken"] = continuation
    return body


def ws_url(server) -> str:
    return server.url.replace("http://", "ws://") + "/v2/state/active-contracts"


async def converse(
    server, body: dict, subprotocols: list[Subprotocol] | None
) -> tuple[list[dict], str | None]:
    """Send one request message; collect every message until the server closes (bounded in count and time)."""
    messages: list[dict] = []
    async with asyncio.timeout(TIMEOUT):
        async with connect(
            ws_url(server), subprotocols=subprotocols, open_timeout=TIMEOUT, max_size=None
        ) as ws:
            chosen = ws.subprotocol
            await ws.send(json.dumps(body))
            try:
                while len(messages) < MAX_MESSAGES:
                    messages.append(json.loads(await ws.recv()))
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1000, closed
    return messages, chosen


def protocols(user: str) -> list[Subprotocol]:
    return ws_protocols(token(user))


def cid(entry: dict) -> str:
    return entry["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"]


def assert_error(messages: list[dict], code: str) -> dict:
    assert len(messages) == 1, messages
    validate("JsCantonError", messages[0])
    assert messages[0]["code"] == code, messages[0]
    return messages[0]


@pytest.fixture
async def alice(server):
    """A real server with Alice (party and user) holding five Ious; yields (server, ledger, party, offset)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Alice")
        await ledger_api.party("Bob")
        for i in range(5):
            await ledger_api.create_iou(party, party, f"{i + 1}.0", user="Alice")
        yield server, ledger_api, party, await ledger_api.ledger_end()


async def test_one_message_per_entry_then_close(alice):
    server, ledger_api, party, end = alice
    messages, chosen = await converse(server, request(party, end), protocols("Alice"))
    assert chosen == "daml.ws.auth"
    assert len(messages) == 5
    for m in messages:
        validate("JsGetActiveContractsResponse", m)
        assert isinstance(m["streamContinuationToken"], str) and m["streamContinuationToken"]
        assert m["contractEntry"]["JsActiveContract"]["createdEvent"]["createArgument"]["owner"] == party
    # The same entries, in the same order, as the POST list.
    r = await ledger_api.post("/v2/state/active-contracts", request(party, end), user="Alice")
    assert r.status_code == 200, r.text
    assert [cid(m) for m in messages] == [cid(e) for e in r.json()]
    # Offset 0 is the ledger begin: nothing, then close.
    assert (await converse(server, request(party, 0), protocols("Alice")))[0] == []


async def test_resume_with_a_continuation_token(alice):
    server, _, party, end = alice
    full, _ = await converse(server, request(party, end), protocols("Alice"))
    assert len(full) == 5
    for k in range(len(full)):
        rest, _ = await converse(
            server, request(party, end, full[k]["streamContinuationToken"]), protocols("Alice")
        )
        assert [cid(m) for m in rest] == [cid(m) for m in full[k + 1 :]]
        for m in rest:
            validate("JsGetActiveContractsResponse", m)


async def test_token_of_another_offset_is_refused(alice):
    server, _, party, end = alice
    full, _ = await converse(server, request(party, end), protocols("Alice"))
    messages, _ = await converse(
        server, request(party, end - 1, full[0]["streamContinuationToken"]), protocols("Alice")
    )
    error = assert_error(messages, "INVALID_CONTINUATION_TOKEN")
    assert error["grpcCodeValue"] == 3 and error["errorCategory"] == 8
    # The same offset but another event format: refused as well.
    other = request(party, end, full[0]["streamContinuationToken"])
    other["eventFormat"]["verbose"] = True
    messages, _ = await converse(server, other, protocols("Alice"))
    assert_error(messages, "INVALID_CONTINUATION_TOKEN")


async def test_bad_requests_get_one_error_message(alice):
    server, _, party, end = alice
    messages, _ = await converse(server, request(party, end + 1), protocols("Alice"))
    error = assert_error(messages, "OFFSET_AFTER_LEDGER_END")
    assert error["cause"].endswith(f"active_at_offset offset ({end + 1}) is after ledger end ({end})")
    messages, _ = await converse(
        server, {"activeAtOffset": end}, protocols("Alice")
    )  # neither filter nor format
    assert_error(messages, "INVALID_ARGUMENT")
    async with asyncio.timeout(TIMEOUT), connect(ws_url(server), subprotocols=protocols("Alice")) as ws:
        await ws.send("this is not json")
        error = json.loads(await ws.recv())
        validate("JsCantonError", error)
        assert error["code"] == "INVALID_ARGUMENT"
        with pytest.raises(ConnectionClosed):
            await ws.recv()


async def test_token_that_is_not_ours_is_an_invalid_field(alice):
    server, _, party, end = alice
    garbage = base64.b64encode(b"\x08\x01\x12\x04junk").decode()
    messages, _ = await converse(server, request(party, end, garbage), protocols("Alice"))
    error = assert_error(messages, "INVALID_FIELD")
    assert "stream_continuation_token" in error["cause"]
    # Not even base64: still one error message, then close.
    messages, _ = await converse(server, request(party, end, "%%% not base64 %%%"), protocols("Alice"))
    assert len(messages) == 1 and messages[0]["code"] in {"INVALID_FIELD", "INVALID_ARGUMENT"}, messages
    validate("JsCantonError", messages[0])


async def test_missing_or_invalid_token(alice):
    server, _, party, end = alice
    unknown_user = ws_protocols(token("nobody-" + os.urandom(3).hex()))
    forged = ws_protocols(f"{token('Alice')[:-4]}AAAA")
    cases = [
        (None, 16),
        ([Subprotocol("daml.ws.auth")], 16),
        (ws_protocols("not-a-jwt"), 16),
        (forged, 16),
        (unknown_user, 7),
    ]  # Canton: an unknown user is PERMISSION_DENIED, a bad token UNAUTHENTICATED
    for subprotocols, grpc_code in cases:
        # Refused at the upgrade with the HTTP form's answer: the request message is never read.
        with pytest.raises(InvalidStatus) as refused:
            await converse(server, request(party, end), subprotocols)
        assert refused.value.response.status_code == (401 if grpc_code == 16 else 403), subprotocols
        error = json.loads(refused.value.response.body)
        validate("JsCantonError", error)
        # Redacted as Canton redacts security-sensitive errors: no detail, and no entry leaks.
        assert error["code"] == "NA" and error["errorCategory"] == -1, error
        assert error["cause"] == "A security-sensitive error has been received"
        assert error["grpcCodeValue"] == grpc_code, (subprotocols, error)


async def test_reading_another_party_is_denied(alice):
    server, _, party, end = alice
    messages, _ = await converse(server, request(party, end), protocols("Bob"))
    error = assert_error(messages, "NA")
    assert error["grpcCodeValue"] == 7


async def test_snapshot_beyond_the_list_limit_streams_fully(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Carol")
        for batch in range(3):  # 300 Ious, 100 per transaction
            r = await ledger_api.post(
                "/v2/commands/submit-and-wait",
                {
                    "commands": [
                        {
                            "CreateCommand": {
                                "templateId": IOU,
                                "createArguments": {
                                    "issuer": party,
                                    "owner": party,
                                    "currency": "USD",
                                    "amount": f"{batch}.{i:03d}1",
                                    "observers": [],
                                },
                            }
                        }
                        for i in range(100)
                    ],
                    "commandId": f"bulk-{batch}-{os.urandom(4).hex()}",
                    "actAs": [party],
                },
                user="Carol",
            )
            assert r.status_code == 200, r.text
        end = await ledger_api.ledger_end()
        r = await ledger_api.post("/v2/state/active-contracts", request(party, end), user="Carol")
        assert r.status_code == 413, r.text
        assert r.json()["code"] == "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
    messages, _ = await converse(server, request(party, end), protocols("Carol"))
    assert len(messages) == 300
    assert len({cid(m) for m in messages}) == 300
    for m in messages[::50]:
        validate("JsGetActiveContractsResponse", m)
    # Resuming from the 200th element gives the last 100.
    rest, _ = await converse(
        server, request(party, end, messages[199]["streamContinuationToken"]), protocols("Carol")
    )
    assert [cid(m) for m in rest] == [cid(m) for m in messages[200:]]
