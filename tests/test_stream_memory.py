"""A websocket subscriber that stops reading costs the server a bounded amount of memory: its stream is paused by
backpressure (the server writes no more while the connection's send buffer is over its high-water mark), the
server's buffer for it stays under that mark plus one write, however much is committed meanwhile, and subscribers
reading the same range share the pages read from the store. Once it reads again it gets every update exactly once.

The server is the real one (uvicorn with the server's websocket protocol, the participant app and its SQLite file)
on loopback, in this test's process so that its connections' buffers and its memory (tracemalloc) can be read.
Every wait is bounded."""

from __future__ import annotations

import asyncio
import base64
import gc
import os
import socket
import struct
import tracemalloc

import httpx
import orjson
import pytest
import uvicorn

from participant.protocols.websocket_protocol import protocol_class
from participant.routes.streams import SEND_BYTES
from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for, token

TIMEOUT = 60
HIGH_WATER = 64 * 1024  # asyncio's default for a transport's send buffer
IOUS_PER_TX = 10
CURRENCY_BYTES = 12_000  # an Iou's text field, so that a few transactions outgrow the sockets' kernel buffers
STALLED = 6


def _observed_protocol():
    """The server's websocket protocol, recording each connection and when its send buffer first fills, its
    keepalive pings held back until then."""

    class Observed(protocol_class()):  # type: ignore[misc]  # the base is the one the server picks at run time
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self.first_paused = asyncio.Event()
            self.lost = asyncio.Event()
            Observed.opened.append(self)

        def start_keepalive(self) -> None:
            # Pinging starts once the send buffer is full (`pause_writing`), not at the accept: on a loaded machine
            # filling the buffer can take longer than a short ping timeout, and the connection would be dropped
            # before it ever stalled. What is checked is what the timeout does to a stalled connection.
            pass

        def pause_writing(self) -> None:
            super().pause_writing()
            if not self.first_paused.is_set():
                self.first_paused.set()
                super().start_keepalive()

        def connection_lost(self, exc) -> None:
            super().connection_lost(exc)
            self.lost.set()

    Observed.opened = []
    return Observed


@pytest.fixture
async def served(tmp_path, request):
    """(url, protocol class) of a participant served by uvicorn on loopback in this process (keepalive pings as
    uvicorn's defaults, or every `request.param` seconds)."""
    ping_s = getattr(request, "param", 20.0)
    protocol = _observed_protocol()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until the server accepts them
    config = uvicorn.Config(
        create_app(settings_for(tmp_path / "ledger.db")),
        ws=protocol,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=10,
        ws_ping_interval=ping_s,
        ws_ping_timeout=ping_s,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", protocol
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, TIMEOUT)
        sock.close()


async def _commit(ledger_api: LedgerApi, party: str, transactions: int) -> list[int]:
    """`transactions` transactions of `IOUS_PER_TX` large Ious each; their offsets."""
    create = {
        "CreateCommand": {
            "templateId": "#model-tests:Iou:Iou",
            "createArguments": {
                "issuer": party,
                "owner": party,
                "currency": "C" * CURRENCY_BYTES,
                "amount": "1.0",
                "observers": [],
            },
        }
    }
    offsets = []
    for _ in range(transactions):
        body = {
            "commands": {
                "commands": [create] * IOUS_PER_TX,
                "commandId": os.urandom(6).hex(),
                "actAs": [party],
            }
        }
        r = await ledger_api.post("/v2/commands/submit-and-wait-for-transaction", body, user="Alice")
        assert r.status_code == 200, r.text
        offsets.append(r.json()["transaction"]["offset"])
    return offsets


class RawSubscriber:
    """A websocket client on a bare socket with a small receive buffer, that reads only when told to."""

    def __init__(self, url: str, path: str, request: dict) -> None:
        self.host, _, port = url.removeprefix("http://").partition(":")
        self.port, self.path, self.request = int(port), path, request

    async def open(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for it
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (self.host, self.port))
        self.reader, self.writer = await asyncio.open_connection(sock=sock, limit=2**16)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: jwt.token.{token('Alice')}, daml.ws.auth\r\n\r\n"
            ).encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        self.writer.write(_masked(0x1, orjson.dumps(self.request)))

    async def message(self) -> dict | None:
        """The next text message (pings answered), or None at the server's close."""
        while True:
            b0, b1 = await self.reader.readexactly(2)
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                return None
            if opcode == 0x9:
                self.writer.write(_masked(0xA, payload))
            elif opcode == 0x1:
                return orjson.loads(payload)

    def close(self) -> None:
        self.writer.close()


def _masked(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes((0x80 | opcode, 0x80 | n)) if n < 126 else struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _buffered(protocol) -> int:
    return protocol.transport.get_write_buffer_size()


def _update_request(party: str) -> dict:
    wildcard = {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
    return {
        "beginExclusive": 0,
        "updateFormat": {
            "includeTransactions": {
                "eventFormat": {"filtersByParty": {party: {"cumulative": [wildcard]}}, "verbose": False},
                "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
            }
        },
    }


async def _stalled(url: str, protocol, path: str, request: dict, count: int) -> list[RawSubscriber]:
    """`count` subscribers that read nothing, each once the server has filled its send buffer for it."""
    already = len(protocol.opened)
    subscribers = [RawSubscriber(url, path, request) for _ in range(count)]
    for s in subscribers:
        await s.open()
    connections = protocol.opened[already:]
    assert len(connections) == count
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*(c.first_paused.wait() for c in connections))
    return subscribers


async def test_stalled_update_subscribers_hold_bounded_buffers_and_share_pages(served):
    url, protocol = served
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Alice")
        offsets = await _commit(ledger_api, party, 40)  # about 5 MB of stream
        largest = CURRENCY_BYTES * IOUS_PER_TX * 2  # an update's text, generously

        request = _update_request(party)
        subscribers: list[RawSubscriber] = []
        tracemalloc.start()
        try:
            subscribers += await _stalled(url, protocol, "/v2/updates", request, 1)
            gc.collect()
            one = tracemalloc.get_traced_memory()[0]
            subscribers += await _stalled(url, protocol, "/v2/updates", request, STALLED - 1)
            gc.collect()
            more = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        # What one more stalled subscriber costs (this process's client included): its send buffer and the page
        # it is sending, shared with the others; not the stream read so far (the 40 updates, about 5 MB, were a
        # page of 500 updates of each subscriber before).
        each = (more - one) / (STALLED - 1)
        assert each < 512 * 1024, each

        try:
            offsets += await _commit(ledger_api, party, 10)  # committed while nobody reads
            connections = protocol.opened[-STALLED:]
            for c in connections:
                assert _buffered(c) <= HIGH_WATER + SEND_BYTES + largest, _buffered(c)

            # Reading again, a subscriber gets every update once, in order.
            first = subscribers[0]
            seen: list[int] = []
            async with asyncio.timeout(TIMEOUT):
                while not seen or seen[-1] < offsets[-1]:
                    message = await first.message()
                    assert message is not None
                    if "Transaction" in message["update"]:
                        seen.append(message["update"]["Transaction"]["value"]["offset"])
            assert seen == offsets
        finally:
            for s in subscribers:
                s.close()


async def test_a_stalled_acs_subscriber_holds_a_bounded_buffer(served):
    url, protocol = served
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Alice")
        await _commit(ledger_api, party, 40)  # 400 contracts of about 12 KB: one store page of the ACS
        request = {
            "activeAtOffset": await ledger_api.ledger_end(),
            "eventFormat": _update_request(party)["updateFormat"]["includeTransactions"]["eventFormat"],
        }
        (subscriber,) = await _stalled(url, protocol, "/v2/state/active-contracts", request, 1)
        try:
            # The page is written a little at a time as the client reads, never whole into the buffer.
            assert _buffered(protocol.opened[-1]) <= HIGH_WATER + SEND_BYTES + 2 * CURRENCY_BYTES
            received = 0
            async with asyncio.timeout(TIMEOUT):
                while (message := await subscriber.message()) is not None:
                    assert "contractEntry" in message, message
                    received += 1
            assert received == 400
        finally:
            subscriber.close()


@pytest.mark.parametrize("served", [0.2], indirect=True)
async def test_a_subscriber_that_reads_nothing_is_dropped_at_its_keepalive_timeout(served):
    url, protocol = served
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Alice")
        await _commit(ledger_api, party, 40)
        (subscriber,) = await _stalled(url, protocol, "/v2/updates", _update_request(party), 1)
        try:
            # Its pings go unanswered: the server lets go of the connection, its buffer and its stream, though
            # the client is still there (a close would wait for it to read what is buffered).
            async with asyncio.timeout(TIMEOUT):
                await protocol.opened[-1].lost.wait()
        finally:
            subscriber.close()
