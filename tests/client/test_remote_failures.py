"""What a remote participant (or whatever answers at its URL) can do wrong, faked, and what the client makes of it:
always one of its own errors, with the status, Canton's error or the plain cause, and a retry where that is safe."""

from __future__ import annotations

import asyncio
import json

import httpx
import orjson
import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from app.client import LedgerClient, event_format, update_format
from app.client.acs import read_snapshot
from app.client.errors import (
    BadRequest,
    EndpointMissing,
    NotFound,
    RequestTimeout,
    ServerError,
    StatusError,
    TransportError,
    Unauthenticated,
    UnreadableAnswer,
)
from app.client.http import Timeouts
from app.tokens import TokenSource
from participant.api import Command, CreateCommand, JsCommands
from tests.client.conftest import (
    FAST_RETRY,
    NO_RETRY,
    closed_port,
    mock_client,
    raw_server,
    read_request_head,
    reset,
)

ALICE = "Alice::1220" + "ab" * 32


def canton_error(code: str, cause: str, *, category: int, grpc: int) -> dict:
    return {
        "code": code,
        "cause": cause,
        "correlationId": None,
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "context": {"category": str(category)},
        "resources": [],
        "errorCategory": category,
        "grpcCodeValue": grpc,
        "retryInfo": None,
        "definiteAnswer": None,
    }


def transaction(command_id: str) -> dict:
    return {
        "transaction": {
            "updateId": "1220" + "cd" * 32,
            "commandId": command_id,
            "workflowId": "",
            "effectiveAt": "2026-01-01T00:00:00Z",
            "events": [],
            "offset": 7,
            "synchronizerId": "sync::1220" + "ef" * 32,
            "traceContext": None,
            "recordTime": "2026-01-01T00:00:00Z",
            "externalTransactionHash": None,
        }
    }


# --- no answer at all ---------------------------------------------------------------------------------------------


async def test_connection_refused_is_a_transport_error_with_a_hint():
    client = LedgerClient(f"http://127.0.0.1:{closed_port()}", retry=FAST_RETRY)
    async with client:
        with pytest.raises(TransportError) as caught:
            await client.ledger_end()
    error = caught.value
    assert "connection failed" in error.message and error.retryable
    assert "Is the participant running at http://127.0.0.1:" in error.hint
    attempts = client.log.entries
    assert len(attempts) == 1 + FAST_RETRY.attempts and all(r.error and r.status is None for r in attempts)


async def test_an_answer_that_never_comes_is_a_timeout():
    async def silent(reader, writer):
        await read_request_head(reader)
        await asyncio.Event().wait()  # never answers; cancelled when the server closes

    async with raw_server(silent) as (url, connections):
        client = LedgerClient(url, timeouts=Timeouts(read_s=0.2), retry=FAST_RETRY)
        async with client:
            with pytest.raises(RequestTimeout) as caught:
                await client.ledger_end()
    assert "got no answer in 0.2 s" in caught.value.message and caught.value.hint
    # reported after one bound, not after one per try: a participant silent that long is not asked again
    assert len(connections) == 1


@pytest.mark.parametrize("how", ["reset", "closed"])
async def test_a_connection_broken_before_the_answer_is_a_transport_error(how):
    async def broken(reader, writer):
        await read_request_head(reader)
        if how == "reset":
            reset(writer)
        else:
            writer.close()

    async with raw_server(broken) as (url, connections):
        client = LedgerClient(url, retry=FAST_RETRY)
        async with client:
            with pytest.raises(TransportError) as caught:
                await client.participant_id()
    assert not isinstance(caught.value, RequestTimeout)
    assert caught.value.path == "/v2/parties/participant-id" and caught.value.hint
    assert len(connections) == 1 + FAST_RETRY.attempts


async def test_a_read_is_retried_after_a_503_and_succeeds():
    answers = iter(
        [httpx.Response(503, text="upstream connect error"), httpx.Response(200, json={"offset": 42})]
    )
    client = mock_client(lambda request: next(answers))
    async with client:
        assert await client.ledger_end() == 42
    assert [r.status for r in client.log.entries] == [503, 200]


async def test_a_read_that_keeps_failing_with_503_ends_as_a_server_error():
    body = canton_error("SERVICE_NOT_RUNNING", "Ledger API server is shutting down", category=1, grpc=14)
    client = mock_client(lambda request: httpx.Response(503, json=body))
    async with client:
        with pytest.raises(ServerError) as caught:
            await client.ledger_end()
    assert caught.value.code == "SERVICE_NOT_RUNNING" and caught.value.status == 503
    assert len(client.log.entries) == 1 + FAST_RETRY.attempts


# --- answers that are not what the API promises -------------------------------------------------------------------


async def test_an_html_page_from_a_proxy():
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
    client = mock_client(lambda request: httpx.Response(502, html=page), retry=NO_RETRY)
    async with client:
        with pytest.raises(StatusError) as caught:
            await client.ledger_end()
    error = caught.value
    assert isinstance(error, ServerError) and error.status == 502 and error.canton is None
    assert "HTML page" in error.message and "proxy" in error.hint
    assert error.title == "HTTP 502"


async def test_truncated_json_in_a_200():
    client = mock_client(
        lambda request: httpx.Response(
            200, content=b'{"participantId": "participant1::12', headers={"content-type": "application/json"}
        )
    )
    async with client:
        with pytest.raises(UnreadableAnswer) as caught:
            await client.participant_id()
    assert "not JSON" in caught.value.message and caught.value.path == "/v2/parties/participant-id"


@pytest.mark.parametrize(
    ("call", "answer", "model"),
    [
        (lambda c: c.ledger_end(), {"offset": "soon"}, "GetLedgerEndResponse"),
        (lambda c: c.authenticated_user(), {"user": None}, "GetUserResponse"),
        (lambda c: c.participant_id(), [], "GetParticipantIdResponse"),
        (lambda c: c.users(), {"users": 5}, "ListUsersResponse"),
    ],
)
async def test_a_200_of_another_shape_names_the_model(call, answer, model):
    client = mock_client(lambda request: httpx.Response(200, json=answer))
    async with client:
        with pytest.raises(UnreadableAnswer) as caught:
            await call(client)
    assert model in caught.value.message and caught.value.hint


async def test_a_list_answered_with_an_object():
    client = mock_client(lambda request: httpx.Response(200, json={"activeContracts": []}))
    async with client:
        with pytest.raises(UnreadableAnswer) as caught:
            await client.active_contracts(3, event_format([ALICE]))
    assert "not a list" in caught.value.message


async def test_a_version_without_a_version():
    client = mock_client(lambda request: httpx.Response(200, json={"features": {}}))
    async with client:
        with pytest.raises(UnreadableAnswer):
            await client.version()


# --- Canton's own errors ------------------------------------------------------------------------------------------


async def test_cantons_400_text_is_a_bad_request_with_the_text():
    text = "Invalid value for: body (Missing required field at 'commandId')"
    client = mock_client(lambda request: httpx.Response(400, text=text))
    async with client:
        with pytest.raises(BadRequest) as caught:
            await client.events_by_contract_id("00ab", event_format([ALICE]))
    error = caught.value
    assert error.text == text and error.message == text and error.canton is None and error.code is None
    assert "could not read the request" in error.hint
    assert len(client.log.entries) == 1  # a refused request is not repeated


async def test_a_canton_404_carries_the_error():
    body = canton_error(
        "CONTRACT_EVENTS_NOT_FOUND", "Contract events not found, or not visible.", category=11, grpc=5
    )
    client = mock_client(lambda request: httpx.Response(404, json=body))
    async with client:
        with pytest.raises(NotFound) as caught:
            await client.events_by_contract_id("00ab", event_format([ALICE]))
    error = caught.value
    assert not isinstance(error, EndpointMissing)
    assert error.canton is not None
    assert error.canton.code == "CONTRACT_EVENTS_NOT_FOUND" and error.canton.error_category == 11
    assert error.message == "Contract events not found, or not visible."
    assert error.title == "CONTRACT_EVENTS_NOT_FOUND (404)" and error.hint


async def test_a_legacy_404_is_a_missing_endpoint():
    client = mock_client(
        lambda request: httpx.Response(404, json={"errors": [f"POST, uri: {request.url}"], "status": 404})
    )
    async with client:
        with pytest.raises(EndpointMissing) as caught:
            await client.update_by_id("1220ab", update_format(event_format([ALICE])))
    assert caught.value.status == 404 and caught.value.code is None


# --- tokens -------------------------------------------------------------------------------------------------------


class CountingTokens(TokenSource):
    """Hands out token-1, token-2, ... one per fetch."""

    label = "counting tokens"

    def __init__(self) -> None:
        super().__init__()
        self.fetches = 0

    async def _fetch(self) -> tuple[str, float | None]:
        self.fetches += 1
        return f"token-{self.fetches}", None


async def test_a_401_refreshes_the_token_once_and_retries():
    tokens = CountingTokens()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        if request.headers["authorization"] == "Bearer token-1":
            return httpx.Response(
                401,
                json=canton_error("NA", "A security-sensitive error has been received", category=-1, grpc=16),
            )
        return httpx.Response(200, json={"offset": 9})

    client = mock_client(handler, tokens=tokens, retry=NO_RETRY)
    async with client:
        assert await client.ledger_end() == 9
    assert seen == ["Bearer token-1", "Bearer token-2"] and tokens.fetches == 2


async def test_a_token_refused_twice_is_unauthenticated_without_more_tries():
    tokens = CountingTokens()
    client = mock_client(
        lambda request: httpx.Response(
            401, json=canton_error("NA", "A security-sensitive error has been received", category=-1, grpc=16)
        ),
        tokens=tokens,
    )
    async with client:
        with pytest.raises(Unauthenticated) as caught:
            await client.ledger_end()
    assert tokens.fetches == 2 and len(client.log.entries) == 2
    assert "token" in caught.value.hint.lower()


# --- submissions --------------------------------------------------------------------------------------------------


async def test_a_submission_is_retried_after_a_connection_failure_with_the_same_body():
    bodies: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        if len(bodies) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=transaction(json.loads(request.content)["commands"]["commandId"]))

    commands = JsCommands(
        command_id="pay-rent-2026-01",
        act_as=[ALICE],
        commands=[
            Command(
                create_command=CreateCommand(
                    template_id="#model-tests:Iou:Iou", create_arguments={"owner": ALICE}
                )
            )
        ],
    )
    client = mock_client(handler)
    async with client:
        result = await client.submit_and_wait_for_transaction(commands)
    assert result.command_id == "pay-rent-2026-01"
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    assert json.loads(bodies[1])["commands"]["commandId"] == "pay-rent-2026-01"


# --- errors inside the websocket stream ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "expected", "status"),
    [
        (
            canton_error(
                "PARTICIPANT_PRUNED_DATA_ACCESSED",
                "Active contracts request at offset 3 precedes pruned offset 10",
                category=9,
                grpc=9,
            ),
            BadRequest,
            400,
        ),
        (
            canton_error("SERVICE_NOT_RUNNING", "Ledger API server is shutting down", category=1, grpc=14),
            ServerError,
            503,
        ),
    ],
)
async def test_a_canton_error_inside_the_websocket_stream(error, expected, status):
    entry = {
        "workflowId": "",
        "contractEntry": {
            "JsActiveContract": {
                "createdEvent": {"contractId": "00aa"},
                "synchronizerId": "s",
                "reassignmentCounter": 0,
            }
        },
    }
    requests: list[dict] = []

    async def stream(ws):
        requests.append(json.loads(await ws.recv()))
        await ws.send(orjson.dumps(entry).decode())
        await ws.send(orjson.dumps(error).decode())  # as Canton sends it: a text frame, not a close frame

    async with serve(stream, "127.0.0.1", 0, subprotocols=[Subprotocol("daml.ws.auth")]) as server:
        port = server.sockets[0].getsockname()[1]
        client = LedgerClient(f"http://127.0.0.1:{port}")
        client.capabilities.acs_page = False
        received = []
        async with client:
            with pytest.raises(expected) as caught:
                async for batch in read_snapshot(client, 3, event_format([ALICE])):
                    received += batch.entries
    assert caught.value.code == error["code"] and caught.value.status == status
    assert requests[0]["activeAtOffset"] == 3
    (record,) = client.log.entries
    assert record.status == status and error["code"].encode() in record.response_body


async def test_a_websocket_refused_with_404_is_a_missing_endpoint():
    from websockets.datastructures import Headers
    from websockets.http11 import Response

    def refuse(connection, request):
        return Response(
            404,
            "Not Found",
            Headers({"Content-Type": "application/json"}),
            b'{"errors":["GET, uri: /v2/state/active-contracts"],"status":404}',
        )

    async def never_served(ws: ServerConnection) -> None:  # every upgrade is refused before it
        pass

    async with serve(never_served, "127.0.0.1", 0, process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        client = LedgerClient(f"http://127.0.0.1:{port}")
        client.capabilities.acs_page = False
        async with client:
            with pytest.raises(EndpointMissing):
                async for _ in read_snapshot(client, 3, event_format([ALICE])):
                    pass
    assert client.log.entries[0].status == 404


async def test_a_websocket_nobody_answers_is_a_transport_error():
    client = LedgerClient(f"http://127.0.0.1:{closed_port()}")
    client.capabilities.acs_page = False
    async with client:
        with pytest.raises(TransportError) as caught:
            async for _ in read_snapshot(client, 3, event_format([ALICE])):
                pass
    assert "websocket" in caught.value.message and "Is the participant running" in caught.value.hint
    (record,) = client.log.entries
    assert record.error.startswith("websocket:") and record.status is None


async def test_a_redirect_is_not_followed_and_says_where_it_points():
    client = mock_client(
        lambda request: httpx.Response(
            301, headers={"location": "https://participant.test/v2/state/ledger-end"}
        ),
        retry=NO_RETRY,
    )
    async with client:
        with pytest.raises(StatusError) as caught:
            await client.ledger_end()
    assert (
        caught.value.status == 301 and "https://participant.test/v2/state/ledger-end" in caught.value.message
    )
    assert "URL" in caught.value.hint
    assert len(client.log.entries) == 1


async def test_a_429_is_retried():
    answers = iter(
        [
            httpx.Response(
                429, json=canton_error("PARTICIPANT_BACKPRESSURE", "too many requests", category=2, grpc=8)
            ),
            httpx.Response(200, json={"offset": 5}),
        ]
    )
    client = mock_client(lambda request: next(answers))
    async with client:
        assert await client.ledger_end() == 5


async def test_a_stalled_websocket_snapshot_times_out(monkeypatch):
    import asyncio

    import app.client.acs
    from app.client.errors import RequestTimeout

    monkeypatch.setattr(app.client.acs, "WS_STALL_S", 0.2)
    entry = {
        "workflowId": "",
        "contractEntry": {
            "JsActiveContract": {
                "createdEvent": {"contractId": "00aa"},
                "synchronizerId": "s",
                "reassignmentCounter": 0,
            }
        },
    }
    release = asyncio.Event()

    async def stall(ws):
        await ws.recv()
        await ws.send(orjson.dumps(entry).decode())
        await release.wait()  # then nothing, with the connection open

    async with serve(stall, "127.0.0.1", 0, subprotocols=[Subprotocol("daml.ws.auth")]) as server:
        port = server.sockets[0].getsockname()[1]
        client = LedgerClient(f"http://127.0.0.1:{port}")
        client.capabilities.acs_page = False
        async with client:
            with pytest.raises(RequestTimeout) as caught:
                async for _ in read_snapshot(client, 3, event_format([ALICE])):
                    pass
        release.set()
    assert "after 1 entry" in caught.value.message
