"""`Health`: the status line's ok, slow and failing, read off the request log as requests start and finish."""

from __future__ import annotations

from app.client.health import Health
from app.client.requests_log import RequestLog


def log_with(health: Health) -> RequestLog:
    log = RequestLog()
    log.subscribe(health.seen)
    return log


def test_a_request_in_flight_too_long_is_slow_but_a_stream_is_not():
    health = Health(slow_after_s=5)
    log = log_with(health)
    stream = log.start(
        "GET",
        "ws://p/v2/state/active-contracts",
        "/v2/state/active-contracts (websocket)",
        {},
        b"",
        stream=True,
    )
    assert health.state(stream.started + 60) == "ok"
    request = log.start("GET", "http://p/v2/state/ledger-end", "/v2/state/ledger-end", {}, b"")
    assert health.state(request.started + 1) == "ok"
    assert health.state(request.started + 6) == "slow"
    log.finish(request, status=200)
    assert health.state(request.started + 6) == "ok"


def test_a_5xx_or_no_answer_is_failing_until_a_request_succeeds_and_a_4xx_is_an_answer():
    health = Health()
    log = log_with(health)
    for finish, cause in (
        ({"status": 500}, "HTTP 500"),
        ({"error": "timed out (ReadTimeout)"}, "timed out"),
        ({"error": "connection failed ([Errno 111] Connection refused)"}, "connection failed"),
    ):
        log.finish(log.start("GET", "http://p/v2/x", "/v2/x", {}, b""), **finish)
        assert health.state(0) == "failing" and health.cause == cause
        log.finish(log.start("GET", "http://p/v2/x", "/v2/x", {}, b""), status=404)
        assert health.state(0) == "ok" and health.cause == ""


def test_a_request_the_client_cancelled_says_nothing_of_the_participant():
    health = Health()
    log = log_with(health)
    log.finish(log.start("GET", "http://p/v2/x", "/v2/x", {}, b""), status=503)
    log.finish(log.start("GET", "http://p/v2/x", "/v2/x", {}, b""), error="cancelled")
    assert health.state(0) == "failing" and health.cause == "HTTP 503"
