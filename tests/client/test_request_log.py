"""The request log behind the requests pane: bounded, observable, and never holding the token."""

from __future__ import annotations

import shlex

import httpx

from app.client.requests_log import MAX_BODY_BYTES, RequestLog
from app.tokens import StaticToken
from tests.client.conftest import mock_client

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJBbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"


def test_bounded_with_ids_that_say_what_was_dropped():
    log = RequestLog(max_entries=3)
    assert log.first_id == 1 and len(log) == 0
    records = [log.start("GET", f"http://p/v2/{i}", f"/v2/{i}", {}, b"") for i in range(5)]
    assert [r.id for r in log.entries] == [3, 4, 5] and log.first_id == 3 and len(log) == 3
    assert log.in_flight == 5
    log.clear()
    assert log.entries == [] and log.first_id == 6  # what was cleared stays behind
    log.finish(records[-1], status=200)
    assert log.in_flight == 4 and log.entries == []
    assert log.start("GET", "http://p/v2/x", "/v2/x", {}, b"").id == 6


def test_listeners_see_starts_and_finishes_until_they_unsubscribe():
    log = RequestLog()
    seen = []
    unsubscribe = log.subscribe(lambda r: seen.append((r.id, r.done)))
    record = log.start("POST", "http://p/v2/x", "/v2/x", {}, b"{}")
    log.finish(record, status=404, body=b"{}")
    unsubscribe()
    log.start("GET", "http://p/v2/y", "/v2/y", {}, b"")
    assert seen == [(1, False), (1, True)]
    unsubscribe()  # twice is harmless


def test_bodies_are_kept_up_to_a_bound():
    log = RequestLog()
    record = log.start("POST", "http://p/v2/x", "/v2/x", {}, b"x" * (MAX_BODY_BYTES + 10))
    log.finish(record, status=200, body=b"y" * (MAX_BODY_BYTES * 2))
    assert len(record.request_body) == MAX_BODY_BYTES and len(record.response_body) == MAX_BODY_BYTES
    assert record.response_size == MAX_BODY_BYTES * 2 and record.truncated


def test_curl_reads_the_token_from_the_environment():
    log = RequestLog()
    record = log.start(
        "GET",
        "http://127.0.0.1:7575/v2/state/active-contracts-page",
        "/v2/state/active-contracts-page",
        {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json", "User-Agent": "ledger-tui"},
        b'{"note": "it\'s a GET with a body"}',
    )
    curl = record.as_curl()
    assert TOKEN not in curl and TOKEN not in repr(record)
    assert '"Authorization: Bearer $LEDGER_TOKEN"' in curl
    words = shlex.split(curl)
    assert words[:5] == ["curl", "-sS", "-X", "GET", "http://127.0.0.1:7575/v2/state/active-contracts-page"]
    assert words[words.index("--data-binary") + 1] == '{"note": "it\'s a GET with a body"}'
    assert "User-Agent: ledger-tui" not in words


async def test_the_client_logs_every_attempt_with_the_token_redacted():
    answers = iter([httpx.Response(503), httpx.Response(200, json={"offset": 3})])
    client = mock_client(lambda request: next(answers), tokens=StaticToken(TOKEN))
    async with client:
        await client.ledger_end()
    first, second = client.log.entries
    assert (first.status, second.status) == (503, 200)
    assert second.request_headers["Authorization"] == "Bearer <token>"
    assert second.response_body == b'{"offset":3}' and second.duration_ms is not None
    assert second.url == "http://participant.test/v2/state/ledger-end"
    assert all(TOKEN not in repr(r) for r in client.log.entries)
    assert client.log.in_flight == 0


def test_the_oldest_bodies_go_when_the_log_outgrows_its_budget():
    log = RequestLog(max_entries=100, max_body_bytes=10_000)
    records = []
    for i in range(10):
        record = log.start("GET", f"http://p/v2/x{i}", f"/v2/x{i}", {}, b"")
        log.finish(record, status=200, body=b"x" * 3_000)
        records.append(record)
    assert log.body_bytes <= 10_000
    assert all(r.bodies_dropped and not r.response_body for r in records[:7])
    assert all(not r.bodies_dropped and len(r.response_body) == 3_000 for r in records[7:])
    assert [r.path for r in log.entries] == [f"/v2/x{i}" for i in range(10)]  # every line stays
    assert records[0].response_size == 3_000  # what was answered is still known
