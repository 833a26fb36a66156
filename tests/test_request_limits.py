"""What a client may send before it is authenticated, on a real `serve` over loopback: the size and number of header
fields, the time a request head and body may take, the size of a websocket message, a websocket without a token,
and many idle connections. The server refuses each early and keeps answering other clients.
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from tests.conftest import SECRET, ServerProcess, start_server, token, ws_protocols
from tests.spec import validate

WAIT = 30  # seconds any one wait for the server may take at most
CHUNK = 64 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    """One server for the module: each test opens connections of its own, and checks the server still answers
    after what it did to them."""
    s = start_server(
        tmp_path_factory.mktemp("limits") / "ledger.db",
        "--hs256-secret",
        SECRET,
        "--header-timeout",
        "1",
        "--body-timeout",
        "1",
        "--max-body-bytes",
        "100000",
    )
    yield s
    s.stop()


def raw(server: ServerProcess) -> socket.socket:
    parts = urlsplit(server.url)
    s = socket.create_connection((parts.hostname, parts.port), timeout=WAIT)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, CHUNK)
    return s


def answer(s: socket.socket) -> bytes:
    """What the server wrote before closing (empty if it closed without a word or reset the connection)."""
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def alive(server: ServerProcess) -> bool:
    return httpx.get(server.url + "/livez", timeout=WAIT).status_code == 200


def test_a_huge_request_head_is_refused_long_before_it_is_all_sent(server):
    total = 64 * 1024 * 1024
    s = raw(server)
    s.sendall(b"GET /livez HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * (CHUNK // 2))
    assert alive(server)  # while that head is open
    sent = 0
    try:
        while sent < total:
            s.sendall(b"a" * CHUNK)
            sent += CHUNK
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert sent < total // 4, "the server took the whole head in"
    reply = answer(s)
    assert reply == b"" or reply.startswith(b"HTTP/1.1 431 "), reply[:200]
    assert alive(server)


def test_too_many_header_fields_are_refused(server):
    s = raw(server)
    fields = b"".join(b"x-field-%d: 1\r\n" % i for i in range(150))
    s.sendall(b"GET /livez HTTP/1.1\r\nhost: x\r\n" + fields + b"\r\n")
    assert answer(s).startswith(b"HTTP/1.1 431 ")
    with raw(server) as s:  # the same head with fewer fields is fine
        s.sendall(b"GET /livez HTTP/1.1\r\nhost: x\r\nconnection: close\r\n" + fields[:500] + b"\r\n")
        assert answer(s).startswith(b"HTTP/1.1 200 ")


def test_a_head_sent_byte_by_byte_is_closed_after_the_head_timeout(server):
    s = raw(server)
    s.sendall(b"GET /livez HTTP/1.1\r\n")
    reply = b""
    for _ in range(WAIT * 2):  # one byte every half second, forever unless the server stops it
        if select.select([s], [], [], 0.5)[0]:
            reply = answer(s)
            break
        try:
            s.sendall(b"x")
        except (BrokenPipeError, ConnectionResetError):
            break
    else:
        pytest.fail("the server waited for the head for as long as the client wanted")
    assert reply == b"" or reply.startswith(b"HTTP/1.1 408 "), reply


def test_a_stalled_body_is_answered_408_and_closed(server):
    s = raw(server)
    s.sendall(
        b"POST /v2/users HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer " + token("participant_admin").encode() + b"\r\n"
        b'content-length: 1000\r\n\r\n{"user": '
    )
    reply = answer(s)  # the socket's timeout bounds the wait: without a body timeout this raises
    assert reply.startswith(b"HTTP/1.1 408 "), reply
    assert alive(server)


def test_a_slow_body_that_keeps_coming_is_read_whole(server):
    body = json.dumps({"partyIdHint": "Slow", "identityProviderId": ""}).encode()
    with raw(server) as s:
        s.sendall(
            b"POST /v2/parties HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"authorization: Bearer " + token("participant_admin").encode() + b"\r\n"
            b"content-length: %d\r\n\r\n" % len(body)
        )
        for i in range(
            0, len(body), 4
        ):  # in all longer than the body timeout, but never a second without a byte
            s.sendall(body[i : i + 4])
            time.sleep(0.1)
        reply = answer(s)
    assert reply.startswith(b"HTTP/1.1 200 "), reply


def test_idle_connections_are_closed_and_never_stop_the_server_answering(server):
    idle = [raw(server) for _ in range(200)]
    try:
        assert alive(server)
        open_ = set(idle)
        deadline = time.monotonic() + WAIT
        while open_ and time.monotonic() < deadline:
            for s in select.select(list(open_), [], [], 1)[0]:
                assert answer(s) == b""  # closed without an answer: they never sent a byte
                open_.discard(s)
        assert not open_, f"{len(open_)} idle connections still open"
        assert alive(server)
    finally:
        for s in idle:
            s.close()


def ws_url(server: ServerProcess, path: str) -> str:
    return server.url.replace("http://", "ws://") + path


async def test_a_websocket_message_beyond_the_body_limit_closes_with_1009(server):
    subprotocols = ws_protocols(token("participant_admin"))
    async with asyncio.timeout(WAIT):
        async with connect(ws_url(server, "/v2/updates"), subprotocols=subprotocols, max_size=None) as ws:
            await ws.send(json.dumps({"beginExclusive": 0, "pad": "x" * 150_000}))
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_a_websocket_without_a_valid_token_is_refused_at_the_upgrade(server):
    for subprotocols in (None, [Subprotocol("daml.ws.auth")], ws_protocols("not-a-jwt")):
        async with asyncio.timeout(WAIT):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(ws_url(server, "/v2/state/active-contracts"), subprotocols=subprotocols):
                    pass
        response = refused.value.response
        assert response.status_code == 401, subprotocols
        error = json.loads(response.body)
        validate("JsCantonError", error)
        assert error["code"] == "NA" and error["grpcCodeValue"] == 16
    # An unknown user is denied as the HTTP form denies it.
    async with asyncio.timeout(WAIT):
        with pytest.raises(InvalidStatus) as refused:
            async with connect(ws_url(server, "/v2/updates"), subprotocols=ws_protocols(token("nobody"))):
                pass
    assert refused.value.response.status_code == 403


def test_the_frames_of_a_refused_websocket_are_never_read(server):
    """The upgrade, sent with a frame announcing more than the limit right behind it: the answer is the refusal,
    not a close for the frame's size (which would mean the server had read it)."""
    s = raw(server)
    s.sendall(
        b"GET /v2/updates HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
        b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
    )
    s.sendall(bytes((0x81, 0xFF)) + (10**9).to_bytes(8, "big") + b"mask" + b"x" * CHUNK)
    assert answer(s).startswith(b"HTTP/1.1 401 ")


async def test_a_websocket_stream_outlives_the_head_and_body_timeouts(server):
    subprotocols = ws_protocols(token("participant_admin"))
    async with asyncio.timeout(WAIT):
        async with connect(ws_url(server, "/v2/updates"), subprotocols=subprotocols) as ws:
            await ws.send(json.dumps({"beginExclusive": 0, "updateFormat": {"includeTopologyEvents": {}}}))
            await asyncio.sleep(2.5)  # more than both timeouts (1 s)
            pong = await ws.ping()
            await pong
            await ws.close()
