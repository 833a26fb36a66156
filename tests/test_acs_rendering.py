"""The ACS fast paths. Where a filter shows every contract the same way, SQLite renders the entries whole: they
must equal, byte for byte, what the renderer makes of the same rows. The websocket form sends a page of entries as
one buffer of frames: a websocket parser must read them back as the messages, with or without compression, and a
server without the extension (the in-process test client) must send the same messages one by one."""

from __future__ import annotations

import asyncio
import json
import os

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side
from websockets.typing import Subprotocol

from participant.projection import acs
from participant.projection.filters import EventFilter, PartyFilter
from participant.projection.shaping import AcsRenderer
from participant.protocols.websocket_protocol import text_frames
from participant.store import sql
from tests.conftest import LedgerApi, token, ws_protocols
from tests.http.helpers import ACS_PAGE, IOU, TRANSFER, acs_body, event_format, template, wildcard
from tests.spec import validate

TIMEOUT = 30  # seconds for any one websocket conversation
MAX_MESSAGES = 500  # no test expects more

# Workflow ids the API refuses (they are no LedgerStrings) but JSON must carry all the same: the stored text is
# quoted by SQLite's json_quote on the fast path and by orjson in the renderer.
ODD_WORKFLOW_IDS = [
    "",
    'say "hi"',
    "back\\slash",
    "tab\there\nnew\r",
    "\x00\x01\x08\x0c\x1f\x7f",
    "é ü 日本 😀 \u2028",
    "100%s %d %% %016x",
    "wf/a #1",
]


async def _ious(
    ledger_api: LedgerApi, issuer: str, n: int, *, observers: list[str], workflow_id: str
) -> None:
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait",
        {
            "commands": [
                {
                    "CreateCommand": {
                        "templateId": IOU,
                        "createArguments": {
                            "issuer": issuer,
                            "owner": issuer,
                            "currency": "USD",
                            "amount": f"{i + 1}.25",
                            "observers": observers,
                        },
                    }
                }
                for i in range(n)
            ],
            "commandId": f"ious-{os.urandom(4).hex()}",
            "workflowId": workflow_id,
            "actAs": [issuer],
        },
        user=issuer.split("::")[0],
    )
    assert r.status_code == 200, r.text


async def test_store_rendered_entries_equal_the_renderers(participant_app, ledger_api):
    alice, bob = await ledger_api.party("Alice"), await ledger_api.party("Bob")
    await _ious(ledger_api, alice, 12, observers=[], workflow_id="wf/a #1")
    await _ious(ledger_api, alice, 5, observers=[bob], workflow_id="")
    await _ious(ledger_api, bob, 3, observers=[alice], workflow_id="")
    store = participant_app.state.context.store
    seqs = [seq for (seq,) in await store.read.execute_fetchall("SELECT seq FROM contracts ORDER BY seq")]

    async def odd_workflows(batch):
        for i, seq in enumerate(seqs):
            batch.write(
                "UPDATE contracts SET workflow_id = ? WHERE seq = ?",
                (ODD_WORKFLOW_IDS[i % len(ODD_WORKFLOW_IDS)], seq),
            )

    await store.write(odd_workflows)
    offset = await ledger_api.ledger_end()
    for party in (alice, bob):
        for prefix in (None, acs.token_prefix(offset, "0123456789abcdef")):
            renderer = AcsRenderer(EventFilter.wildcard_for([party], verbose=False), prefix)
            entry_format = renderer.entry_format()
            assert entry_format is not None
            by_renderer = [
                text.encode()
                async for rows in store.active_contracts(offset, [party], page_size=3)
                for text in renderer.render(rows)[0]
            ]
            by_sqlite = [
                entry
                async for rows in store.acs_entries(offset, party, entry_format, page_size=3)
                for _, entry in rows
            ]
            assert by_sqlite == by_renderer
            assert len(by_sqlite) == (20 if party == alice else 8)
            for entry in by_sqlite:
                validate("JsGetActiveContractsResponse", orjson.loads(entry))
            # resuming after a seq
            after = orjson.loads(by_sqlite[4])["contractEntry"]["JsActiveContract"]["createdEvent"][
                "contractId"
            ]
            (after_seq,) = (
                await store.read.execute_fetchall("SELECT seq FROM contracts WHERE contract_id = ?", (after,))
            )[0]
            rest = [
                entry
                async for rows in store.acs_entries(
                    offset, party, entry_format, after_seq=after_seq, page_size=2
                )
                for _, entry in rows
            ]
            assert rest == by_sqlite[5:]
            # at most `limit` entries, never a page more
            pages = [
                [e for _, e in rows]
                async for rows in store.acs_entries(offset, party, entry_format, page_size=3, limit=7)
            ]
            assert pages == [by_sqlite[0:3], by_sqlite[3:6], by_sqlite[6:7]]
            assert [rows async for rows in store.acs_entries(offset, party, entry_format, limit=0)] == []


def test_only_uniform_filters_take_the_fast_path():
    def fmt(event_filter: EventFilter) -> str | None:
        return AcsRenderer(event_filter, None).entry_format()

    assert fmt(EventFilter({"A::1": PartyFilter(wildcard=True)})) is not None
    assert fmt(EventFilter({"A::1": PartyFilter(wildcard=True, wildcard_blob=True)})) is None
    assert fmt(EventFilter({"A::1": PartyFilter(templates={("model-tests", "Iou:Iou"): False})})) is None
    assert (
        fmt(EventFilter({"A::1": PartyFilter(wildcard=True, templates={("model-tests", "Iou:Iou"): True})}))
        is None
    )
    assert fmt(EventFilter({"A::1": PartyFilter(wildcard=True), "B::1": PartyFilter(wildcard=True)})) is None
    assert fmt(EventFilter({}, PartyFilter(wildcard=True))) is None
    assert fmt(EventFilter({"A::1": PartyFilter(wildcard=True)}, PartyFilter(wildcard=True))) is None
    # a percent sign in a party id stays literal in the format
    assert '"witnessParties":["A%%b::1"]' in (fmt(EventFilter({"A%b::1": PartyFilter(wildcard=True)})) or "")


def test_the_fast_path_reads_the_columns_the_renderer_does():
    # the renderer unpacks `ACS_ROW_COLUMNS`; the fast path passes their varying part to printf in this order
    assert sql.ACS_ROW_COLUMNS.split(", ")[1] == "workflow_id" and "acs_event" in sql.ACS_ROW_COLUMNS
    assert (
        "json_quote(c.workflow_id), c.acs_event, json_quote(COALESCE(c.origin_synchronizer, c.synchronizer_id))"
        in sql.ACS_ENTRIES_OF_PARTY
    )


def test_text_frames_read_back_by_a_websocket_parser():
    texts = [b"", b"{}", b"a" * 125, b"b" * 126, b"c" * 65535, b"d" * 65536, "é".encode() * 70_000]
    client = Protocol(Side.CLIENT, max_size=None)
    client.receive_data(text_frames(texts))
    received = client.events_received()
    frames = [f for f in received if isinstance(f, Frame)]
    assert len(frames) == len(received)
    assert [f.opcode for f in frames] == [Opcode.TEXT] * len(texts)
    assert all(f.fin for f in frames)
    assert [bytes(f.data) for f in frames] == texts
    assert client.parser_exc is None


# --- the websocket form on a real server (the batched frames) and in-process (one message per send)


def _request(party: str, offset: int, continuation: str | None = None) -> dict:
    body = acs_body(offset, event_format(party))
    if continuation is not None:
        body["streamContinuationToken"] = continuation
    return body


def _protocols(user: str) -> list[Subprotocol]:
    return ws_protocols(token(user))


async def _converse(url: str, body: dict, user: str, compression: str | None) -> list[bytes]:
    messages: list[bytes] = []
    async with asyncio.timeout(TIMEOUT):
        async with connect(
            url, subprotocols=_protocols(user), compression=compression, max_size=None, open_timeout=TIMEOUT
        ) as ws:
            await ws.send(json.dumps(body))
            try:
                while len(messages) < MAX_MESSAGES:
                    message = await ws.recv()
                    assert isinstance(message, str)  # text frames
                    messages.append(message.encode())
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1000, closed
    return messages


@pytest.fixture
async def carol(server):
    """A real server where Carol holds 180 Ious; yields (url, ledger, party, offset)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        ledger_api = LedgerApi(http)
        party = await ledger_api.party("Carol")
        bob = await ledger_api.party("Bob")
        for i in range(4):
            await _ious(ledger_api, party, 45, observers=[bob] if i == 2 else [], workflow_id=f"wf-{i}")
        yield (
            server.url.replace("http://", "ws://") + "/v2/state/active-contracts",
            ledger_api,
            party,
            await ledger_api.ledger_end(),
        )


@pytest.mark.parametrize("compression", [None, "deflate"])
async def test_websocket_messages_are_the_list_entries(carol, compression):
    url, ledger_api, party, end = carol
    listed = await ledger_api.post("/v2/state/active-contracts", _request(party, end), user="Carol")
    assert listed.status_code == 200, listed.text
    expected = [orjson.dumps(e) for e in listed.json()]
    messages = await _converse(url, _request(party, end), "Carol", compression)
    assert [orjson.loads(m) for m in messages] == [orjson.loads(e) for e in expected]
    for m in messages[::40]:
        validate("JsGetActiveContractsResponse", orjson.loads(m))
    token_ = orjson.loads(messages[99])["streamContinuationToken"]
    rest = await _converse(url, _request(party, end, token_), "Carol", compression)
    assert rest == messages[100:]


async def _asgi_websocket(app, path: str, subprotocols: list[Subprotocol], text: str) -> list[dict]:
    """A websocket conversation with the app in process, as a server without `SEND_TEXTS` holds it: connect, one
    text message in; every message the app sends, until it closes."""
    inbox: asyncio.Queue = asyncio.Queue()
    for message in ({"type": "websocket.connect"}, {"type": "websocket.receive", "text": text}):
        inbox.put_nowait(message)
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "websocket.close":
            inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})

    scope = {
        "type": "websocket",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "scheme": "ws",
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "subprotocols": subprotocols,
        "headers": [(b"host", b"testserver"), (b"sec-websocket-protocol", ", ".join(subprotocols).encode())],
        "extensions": {"websocket.http.response": {}},
    }
    async with asyncio.timeout(TIMEOUT):
        await app(scope, inbox.get, send)
    return sent


async def test_websocket_without_the_extension_sends_one_message_at_a_time(participant_app, ledger_api):
    party = await ledger_api.party("Dave")
    await _ious(ledger_api, party, 7, observers=[], workflow_id="wf")
    end = await ledger_api.ledger_end()
    listed = await ledger_api.post("/v2/state/active-contracts", _request(party, end), user="Dave")
    assert listed.status_code == 200, listed.text
    sent = await _asgi_websocket(
        participant_app, "/v2/state/active-contracts", _protocols("Dave"), json.dumps(_request(party, end))
    )
    assert [m["type"] for m in sent] == ["websocket.accept"] + ["websocket.send"] * 7 + ["websocket.close"]
    assert [orjson.loads(m["text"]) for m in sent[1:-1]] == listed.json()


async def test_template_and_blob_filters_still_render_per_row(participant_app, ledger_api):
    """Filters off the fast path give the same entries as the fast path where both apply."""
    alice = await ledger_api.party("Alice")
    await _ious(ledger_api, alice, 4, observers=[], workflow_id="w")
    end = await ledger_api.ledger_end()
    fast = await ledger_api.post(
        "/v2/state/active-contracts", acs_body(end, event_format(alice)), user="Alice"
    )
    by_template = await ledger_api.post(
        "/v2/state/active-contracts",
        acs_body(end, event_format(alice, filters=[template(IOU), template(TRANSFER)])),
        user="Alice",
    )
    assert fast.status_code == by_template.status_code == 200
    strip = [{**e, "streamContinuationToken": ""} for e in fast.json()]
    assert strip == [{**e, "streamContinuationToken": ""} for e in by_template.json()]
    with_blob = await ledger_api.post(
        "/v2/state/active-contracts",
        acs_body(end, event_format(alice, filters=[wildcard(blob=True)])),
        user="Alice",
    )
    events = [e["contractEntry"]["JsActiveContract"]["createdEvent"] for e in with_blob.json()]
    assert len(events) == 4 and all(e["createdEventBlob"] for e in events)


async def test_pages_streamed_over_several_store_pages(participant_app, ledger_api, monkeypatch):
    monkeypatch.setattr(acs, "STORE_PAGE", 3)
    alice = await ledger_api.party("Alice")
    await _ious(ledger_api, alice, 20, observers=[], workflow_id="w")
    end = await ledger_api.ledger_end()
    listed = (
        await ledger_api.post("/v2/state/active-contracts", acs_body(end, event_format(alice)), user="Alice")
    ).json()
    expected = [{**e, "streamContinuationToken": ""} for e in listed]
    for size in (1, 7, 19, 20, 21):
        entries, page_token, pages = [], None, 0
        for _ in range(25):  # bounded: at most 20 pages
            body = {**acs_body(end, event_format(alice)), "maxPageSize": size}
            if page_token:
                body["pageToken"] = page_token
            r = await ledger_api.call(
                "GET",
                ACS_PAGE,
                user="Alice",
                content=orjson.dumps(body),
                headers={"Content-Type": "application/json"},
            )
            assert r.status_code == 200, r.text
            answer = r.json()
            assert answer["activeAtOffset"] == end
            entries += answer["activeContracts"]
            pages += 1
            page_token = answer.get("nextPageToken")
            if not page_token:
                break
        assert entries == expected, size
        assert pages == -(-20 // size), size  # the server reads one more entry: no empty last page
