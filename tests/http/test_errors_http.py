"""What every error looks like: unknown routes, wrong methods, and the JsCantonError body."""

from __future__ import annotations

import pytest

from tests.conftest import ADMIN
from tests.http.helpers import ACS, assert_error, error_keys, event_format


async def test_unknown_route_is_a_legacy_404(ledger_api):
    # not through ledger.call: the spec has no such path to validate against
    r = await ledger_api.http.post("/v2/no/such/route", json={}, headers=ADMIN)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body == {
        "errors": ["POST, uri: http://testserver/v2/no/such/route"],
        "status": 404,
        "ledgerApiError": None,
    }
    assert "code" not in body


async def test_unknown_route_without_token_is_still_404(ledger_api):
    r = await ledger_api.http.get("/v2/updates/get-updates-nope")
    assert r.status_code == 404 and r.json()["errors"][0].startswith("GET, uri: ")


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/v2/commands/submit-and-wait-for-transaction"),
        ("DELETE", "/v2/state/ledger-end"),
        ("POST", "/v2/version"),
        ("PUT", "/v2/users"),
    ],
)
async def test_wrong_method_is_405(ledger_api, method, path):
    r = await ledger_api.call(method, path)
    assert r.status_code == 405, r.text
    assert r.headers["content-type"].startswith("text/plain")


async def test_error_body_has_every_key(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.post(ACS, {"activeAtOffset": 5, "eventFormat": event_format(alice)}, user="Alice")
    body = assert_error(r, 400, "OFFSET_AFTER_LEDGER_END")
    assert set(body) == error_keys()
    assert isinstance(body["cause"], str) and body["cause"]
    assert body["grpcCodeValue"] == 11 and body["errorCategory"] == 12
    assert body["retryInfo"] == "1 second"  # category 12 is retryable
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in body["context"].items())


async def test_grpc_error_body_carries_the_grpc_context(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.post(ACS, {"activeAtOffset": 5, "eventFormat": event_format(alice)}, user="Alice")
    body = assert_error(r, 400, "OFFSET_AFTER_LEDGER_END")
    assert body["context"]["category"] == "12"
    assert body["definiteAnswer"] is None
    assert body["context"]["definite_answer"] == "false" and "tid" in body["context"]


async def test_json_layer_error_body(small_ledger):
    alice = await small_ledger.party("Alice")
    for _ in range(4):
        await small_ledger.create_iou(alice, alice, user="Alice")
    r = await small_ledger.post(
        ACS,
        {"activeAtOffset": await small_ledger.ledger_end(), "eventFormat": event_format(alice)},
        user="Alice",
    )
    body = assert_error(r, 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED")
    assert body["definiteAnswer"] is False and body["grpcCodeValue"] == 10
    assert body["context"] == {}


async def test_redacted_error_body(ledger_api):
    body = assert_error(await ledger_api.get("/v2/users", user=None), 401, "NA")
    assert body["context"] == {} and body["resources"] == [] and body["grpcCodeValue"] == 16
    assert body["retryInfo"] is None


async def test_resources_are_pairs(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.post(
        "/v2/events/events-by-contract-id",
        {"contractId": "00" + "ab" * 68, "eventFormat": event_format(alice)},
        user="Alice",
    )
    body = assert_error(r, 404, "CONTRACT_EVENTS_NOT_FOUND")
    assert all(isinstance(p, list) and len(p) == 2 for p in body["resources"])
    assert body["errorCategory"] == 11 and body["grpcCodeValue"] == 5 and body["retryInfo"] is None
