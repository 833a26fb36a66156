"""Fixtures of the client's own tests, which never touch the UI: a real participant on a loopback port (with a list
limit of 5, so that snapshots outgrow the list form), a stand-in for a Canton 3.4 participant in front of it, and
helpers to fake the failures of a remote one."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager

import httpx
import pytest

from app.client import LedgerClient
from app.client.http import Retry, Timeouts
from app.tokens import MintedToken
from tests.conftest import SECRET, ServerProcess, free_port, start_demo_server

LIST_LIMIT = 5
FAST_RETRY = Retry(attempts=2, base_delay_s=0.01, max_delay_s=0.02)
NO_RETRY = Retry(attempts=0)

# the endpoints a 3.4.0 participant does not have (docs/ledger-api.md §0)
ONLY_IN_35 = (
    "/v2/contracts/contract-by-id",
    "/v2/state/active-contracts-page",
    "/v2/updates/get-updates-page",
)
# keys that 3.5 prints and 3.4 does not (docs/ledger-api.md §0, §3)
KEYS_NEW_IN_35 = (
    "contractKeyHash",
    "paidTrafficCost",
    "implementationPackageId",
    "streamContinuationToken",
    "primaryPartyAuthentication",
)


@pytest.fixture(scope="module")
def participant(tmp_path_factory) -> Iterator[ServerProcess]:
    """A participant with the demo ledger (a few hundred contracts) and a list limit of 5."""
    s = start_demo_server(
        tmp_path_factory.mktemp("client") / "ledger.db",
        "--max-list-elements",
        str(LIST_LIMIT),
    )
    yield s
    s.stop()


@pytest.fixture
async def client_for(participant) -> AsyncIterator[Callable[..., LedgerClient]]:
    """`client_for(user, **kw)`: a `LedgerClient` of the participant acting as `user`; closed after the test."""
    made: list[LedgerClient] = []

    def make(user: str = "Alice", **kw) -> LedgerClient:
        client = LedgerClient(participant.url, MintedToken(SECRET, user), **kw)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


class Canton34(httpx.AsyncBaseTransport):
    """A Canton 3.4.0 participant, as far as a client can tell: the real participant behind it, with version
    "3.4.0", Canton's legacy 404 for the endpoints 3.4 lacks, and answers without the keys 3.5 added."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: list[tuple[str, str, int]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v2/version":
            return self._answer(request, 200, {"version": "3.4.0", "features": {}})
        if path in ONLY_IN_35:
            return self._answer(
                request, 404, {"errors": [f"{request.method}, uri: {request.url}"], "status": 404}
            )
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        if "json" in response.headers.get("content-type", "") and content:
            return self._answer(request, response.status_code, _without(json.loads(content), KEYS_NEW_IN_35))
        self.seen.append((request.method, path, response.status_code))
        return httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )

    def _answer(self, request: httpx.Request, status: int, body) -> httpx.Response:
        self.seen.append((request.method, request.url.path, status))
        return httpx.Response(status, json=body, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _without(value, keys: tuple[str, ...]):
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


@pytest.fixture
async def canton34(participant) -> AsyncIterator[tuple[LedgerClient, Canton34]]:
    """A client of the 3.4 stand-in (its websocket reaches the real participant directly)."""
    transport = Canton34()
    client = LedgerClient(participant.url, MintedToken(SECRET, "Alice"), transport=transport)
    yield client, transport
    await client.aclose()


def mock_client(
    handler: Callable[[httpx.Request], httpx.Response]
    | Callable[[httpx.Request], Coroutine[None, None, httpx.Response]],
    *,
    retry: Retry = FAST_RETRY,
    tokens=None,
    timeouts: Timeouts = Timeouts(),
) -> LedgerClient:
    """A client whose every request is answered by `handler` (which may raise httpx errors)."""
    return LedgerClient(
        "http://participant.test",
        tokens,
        transport=httpx.MockTransport(handler),
        retry=retry,
        timeouts=timeouts,
    )


def closed_port() -> int:
    """A loopback port nobody listens on."""
    return free_port()


@asynccontextmanager
async def raw_server(
    on_connection: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> AsyncIterator[tuple[str, list[int]]]:
    """A TCP server on loopback that treats each connection with `on_connection` (to misbehave below HTTP);
    yields its URL and a list with one entry per connection."""
    connections: list[int] = []
    tasks: set[asyncio.Task] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await on_connection(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", connections
    finally:
        server.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


async def read_request_head(reader: asyncio.StreamReader) -> bytes:
    return await reader.readuntil(b"\r\n\r\n")


def reset(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP reset (SO_LINGER 0) instead of an orderly shutdown."""
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def entry_contract_id(entry: dict) -> str:
    """The contract of an ACS element, whatever its kind (active, or in flight between synchronizers)."""
    contract_entry = entry["contractEntry"]
    if "JsIncompleteAssigned" in contract_entry:
        return contract_entry["JsIncompleteAssigned"]["assignedEvent"]["createdEvent"]["contractId"]
    (kind,) = contract_entry.values()
    return kind["createdEvent"]["contractId"]
