"""The client against a Canton 3.4.0 participant: the real participant behind a transport that answers version
"3.4.0", Canton's legacy 404 for the 3.5-only endpoints, and answers without the keys 3.5 added. The client falls
back where an endpoint is missing and remembers what it learnt."""

from __future__ import annotations

import json

import pytest

from app.client import event_format, update_format
from app.client.acs import read_snapshot
from app.client.errors import EndpointMissing
from app.client.http import status_error
from participant.api import CreatedEvent, JsGetActiveContractsResponse, JsTransaction
from tests.client.conftest import entry_contract_id

PAGE = "/v2/state/active-contracts-page"
CONTRACT_BY_ID = "/v2/contracts/contract-by-id"


async def _ids(client, offset, parties) -> tuple[list[str], set[str]]:
    ids, forms = [], set()
    async for batch in read_snapshot(client, offset, event_format(parties)):
        forms.add(batch.form)
        ids += [entry_contract_id(e) for e in batch.entries]
    return ids, forms


async def test_contract_falls_back_to_events_by_contract_id(canton34, client_for):
    client, transport = canton34
    alice = (await client.authenticated_user()).primary_party
    end = await client.ledger_end()
    (entry,) = await client.active_contracts(end, event_format([alice]), limit=1)
    contract_id = entry.contract_entry.js_active_contract.created_event.contract_id

    created = await client.contract(contract_id, [alice])
    assert isinstance(created, CreatedEvent) and created.contract_id == contract_id
    assert created.contract_key_hash is None  # a 3.4 answer has no such key
    assert client.capabilities.contract_by_id is False
    assert ("POST", CONTRACT_BY_ID, 404) in transport.seen

    transport.seen.clear()
    await client.contract(contract_id, [alice])
    assert [p for _, p, _ in transport.seen] == ["/v2/events/events-by-contract-id"]  # not asked again

    # the same contract through 3.5's endpoint
    direct = await client_for("Alice").contract(contract_id, [alice])
    assert direct.create_argument == created.create_argument and direct.signatories == created.signatories


async def test_snapshot_falls_back_to_the_websocket(canton34, client_for):
    client, transport = canton34
    alice = (await client.authenticated_user()).primary_party
    end = await client.ledger_end()

    ids, forms = await _ids(client, end, [alice])
    assert forms == {"websocket"}
    assert ("GET", PAGE, 404) in transport.seen
    assert client.capabilities.acs_page is False

    reference, reference_forms = await _ids(client_for("Alice"), end, [alice])
    assert reference_forms == {"page"}
    assert sorted(ids) == sorted(reference)

    transport.seen.clear()
    await _ids(client, end, [alice])
    assert transport.seen == []  # straight to the websocket, which bypasses the HTTP transport


async def test_the_version_tells_what_is_missing(canton34):
    client, transport = canton34
    assert await client.version() == "3.4.0"
    caps = client.capabilities
    assert caps.release == (3, 4)
    assert caps.acs_page is False and caps.updates_page is False
    assert caps.contract_by_id is None  # some 3.4 patch releases have it: tried once, then known

    alice = (await client.authenticated_user()).primary_party
    await _ids(client, await client.ledger_end(), [alice])
    assert not any(path == PAGE for _, path, _ in transport.seen)  # the version said so: never tried


async def test_answers_without_the_keys_35_added_read(canton34):
    client, _ = canton34
    user = await client.authenticated_user()
    assert not user.primary_party_authentication  # absent in 3.4: the default
    alice = user.primary_party
    end = await client.ledger_end()
    entries = await client.active_contracts(end, event_format([alice]), limit=2)
    assert all(
        isinstance(e, JsGetActiveContractsResponse) and e.stream_continuation_token is None for e in entries
    )
    created = entries[0].contract_entry.js_active_contract.created_event
    assert created.contract_key_hash is None

    updates = await client.updates(created.offset - 1, created.offset, update_format(event_format([alice])))
    transaction = updates[0].update.transaction.value
    assert isinstance(transaction, JsTransaction) and transaction.paid_traffic_cost is None


def test_interface_views_without_implementation_package_id_read():
    from participant.api import JsInterfaceView

    view = JsInterfaceView.read(
        {
            "interfaceId": "pkg:M:I",
            "viewStatus": {"code": 0, "message": "", "details": []},
            "viewValue": {"owner": "Alice::1220"},
        }
    )
    assert view.implementation_package_id is None and view.view_value == {"owner": "Alice::1220"}


@pytest.mark.parametrize(
    "body",
    [
        {"errors": ["POST, uri: http://127.0.0.1:7575/v2/contracts/contract-by-id"], "status": 404},
        {
            "errors": ["POST, uri: http://127.0.0.1:7575/v2/contracts/contract-by-id"],
            "status": 404,
            "ledgerApiError": None,
        },
    ],
)
def test_both_legacy_404_shapes_mean_the_endpoint_is_missing(body):
    error = status_error(404, "application/json", json.dumps(body).encode(), "POST", CONTRACT_BY_ID)
    assert isinstance(error, EndpointMissing)
    assert error.code is None and error.path == CONTRACT_BY_ID
