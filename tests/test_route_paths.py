"""Paths with empty segments, on a real server: Canton's JSON API (tapir on pekko-http) skips empty path segments,
so `//v2/commands/completions` (a base URL ending in `/` joined with `/v2/...`), `/v2//...` and a trailing `/` reach
the same endpoint as the plain path, over HTTP and over websocket alike."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import ADMIN, SECRET, LedgerApi, start_server, token, ws_protocols

TIMEOUT = 30  # seconds for any one conversation


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = start_server(tmp_path_factory.mktemp("paths") / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def alice(server) -> str:
    """A party (and its user) with one Iou, so that it has one completion."""

    async def allocate() -> str:
        async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as http:
            ledger_api = LedgerApi(http)
            party = await ledger_api.party("Alice")
            await ledger_api.create_iou(party, party, user="Alice")
        return party

    return asyncio.run(allocate())


@pytest.mark.parametrize(
    "path",
    ["//v2/state/ledger-end", "/v2//state/ledger-end", "/v2/state/ledger-end/", "///v2/state//ledger-end//"],
)
async def test_get_with_empty_segments(server, path):
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        plain = await http.get(server.url + "/v2/state/ledger-end", headers=ADMIN)
        r = await http.get(server.url + path, headers=ADMIN)
    assert r.status_code == 200, r.text
    assert r.json() == plain.json()


@pytest.mark.parametrize("path", ["//v2/commands/completions", "/v2/commands//completions/"])
async def test_post_with_empty_segments(server, alice, path):
    body = {"userId": "Alice", "parties": [alice], "beginExclusive": 0}
    headers = {"Authorization": f"Bearer {token('Alice')}"}
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        plain = await http.post(server.url + "/v2/commands/completions", json=body, headers=headers)
        r = await http.post(server.url + path, json=body, headers=headers)
    assert r.status_code == 200, r.text
    assert len(r.json()) == 1 and r.json() == plain.json()


async def test_path_parameter_after_an_empty_segment(server):
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        r = await http.get(server.url + "//v2/users//participant_admin", headers=ADMIN)
    assert r.status_code == 200, r.text
    assert r.json()["user"]["id"] == "participant_admin"


async def test_an_unknown_path_is_still_404(server):
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        r = await http.get(server.url + "//v2/no-such-endpoint", headers=ADMIN)
    assert r.status_code == 404
    assert r.json()["status"] == 404


@pytest.mark.parametrize("path", ["//v2/commands/completions", "/v2//commands/completions/"])
async def test_websocket_with_empty_segments(server, alice, path):
    protocols = ws_protocols(token("Alice"))
    ws_url = server.url.replace("http://", "ws://") + path
    async with (
        asyncio.timeout(TIMEOUT),
        connect(ws_url, subprotocols=protocols, open_timeout=TIMEOUT) as ws,
    ):
        assert ws.subprotocol == "daml.ws.auth"
        await ws.send(json.dumps({"userId": "Alice", "parties": [alice], "beginExclusive": 0}))
        response = json.loads(await ws.recv())["completionResponse"]
        while "Completion" not in response:  # offset checkpoints may come first
            response = json.loads(await ws.recv())["completionResponse"]
    assert response["Completion"]["value"]["userId"] == "Alice"
