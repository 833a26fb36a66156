"""How a logged request reads in the requests pane: status families, the filter, bodies."""

from __future__ import annotations

from app.client.requests_log import MAX_BODY_BYTES, RequestLog
from app.widgets import request_text as rt


def _record(log: RequestLog, path: str = "/v2/state/ledger-end", method: str = "GET", **finish):
    record = log.start(method, f"http://p{path}", path, {}, b"")
    if finish:
        log.finish(record, **finish)
    return record


def test_families_and_status_texts():
    log = RequestLog()
    cases = [
        (_record(log), rt.IN_FLIGHT, "…"),
        (_record(log, status=200), rt.OK, "200"),
        (_record(log, status=101), rt.OK, "101"),
        (_record(log, status=404), rt.CLIENT, "404"),
        (_record(log, status=503), rt.SERVER, "503"),
        (_record(log, error="connection failed (refused)"), rt.FAILED, "ERR"),
        (_record(log, error="cancelled"), rt.CANCELLED, "—"),
    ]
    for record, family, text in cases:
        assert (rt.family(record), rt.status_text(record)) == (family, text)


def test_ledger_end_reads_hidden_unless_they_fail():
    log = RequestLog()
    assert rt.is_ledger_end_read(_record(log, status=200))
    assert rt.is_ledger_end_read(_record(log))
    assert rt.is_ledger_end_read(_record(log, error="cancelled"))
    assert not rt.is_ledger_end_read(_record(log, error="connection failed"))
    assert not rt.is_ledger_end_read(_record(log, status=401))
    assert not rt.is_ledger_end_read(_record(log, path="/v2/state/active-contracts-page", status=200))


def test_filter_words_match_method_path_status_family_and_note():
    log = RequestLog()
    failed = _record(
        log,
        "/v2/events/events-by-contract-id",
        "POST",
        status=404,
        body=b'{"code":"CONTRACT_EVENTS_NOT_FOUND","cause":"not visible"}',
    )
    ok = _record(log, "/v2/users", status=200)
    assert rt.note(failed) == "CONTRACT_EVENTS_NOT_FOUND"
    for text, expected in [
        ("4xx", [failed]),
        ("404", [failed]),
        ("post events", [failed]),
        ("users", [ok]),
        ("2xx", [ok]),
        ("contract_events", [failed]),
        ("", [failed, ok]),
        ("nothing", []),
    ]:
        assert [r for r in (failed, ok) if rt.matches(r, text)] == expected, text


def test_bodies_pretty_printed_or_said_to_be_cut():
    body = rt.body_of(b'{"a":[1,{"b":null}]}', content_type="application/json")
    assert (
        body.language == "json" and body.text == '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}'
    )
    assert rt.body_of(b"Invalid value for: body", content_type="text/plain") == rt.Body(
        "Invalid value for: body", None, ""
    )
    assert rt.body_of(b'{"a":', content_type="application/json").note == "not valid JSON"
    assert rt.body_of(b"", content_type="application/json") == rt.Body("", None, "")

    log = RequestLog()
    big = b'{"activeContracts":[' + b'{"x":1},' * (MAX_BODY_BYTES // 8) + b"]}"
    record = _record(log, status=200, body=big)
    cut = rt.response_body(record)
    assert (
        cut.language is None
        and cut.note == f"truncated: the first {MAX_BODY_BYTES:,} bytes of {len(big):,} are kept"
    )
    assert len(cut.text) == MAX_BODY_BYTES


def test_sizes_and_durations():
    assert [rt.size_text(n) for n in (0, 1023, 1024, 150 * 1024, 5 * 1024 * 1024)] == [
        "0 B",
        "1023 B",
        "1.0 KB",
        "150 KB",
        "5.0 MB",
    ]
    log = RequestLog()
    record = _record(log, status=200)
    record.duration_ms = 1234.0
    assert rt.duration_text(record) == "1.2 s"
    record.duration_ms = 12.4
    assert rt.duration_text(record) == "12 ms"
