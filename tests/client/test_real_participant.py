"""Every method of `LedgerClient` against a real participant on a loopback port: each returns the wire model the
spec promises, with the values the demo ledger holds."""

from __future__ import annotations

import uuid

import pytest

from app.client import LedgerClient, event_format, update_format
from app.client.errors import BadRequest, Conflict, EndpointMissing, ListTooLarge, NotFound, PermissionDenied
from app.client.ledger import LEDGER_EFFECTS
from participant.api import (
    Command,
    ConnectedSynchronizer,
    CreateCommand,
    CreatedEvent,
    JsCommands,
    JsGetActiveContractsResponse,
    JsGetEventsByContractIdResponse,
    JsGetUpdateResponse,
    JsGetUpdatesResponse,
    JsTransaction,
    PartyDetails,
    Right,
    User,
)
from tests.client.conftest import LIST_LIMIT

IOU = "#model-tests:Iou:Iou"


async def _alice(client: LedgerClient) -> str:
    return (await client.authenticated_user()).primary_party


async def _some_contract(client: LedgerClient, party: str) -> CreatedEvent:
    end = await client.ledger_end()
    entries = await client.active_contracts(end, event_format([party]), limit=1)
    entry = entries[0].contract_entry
    assert entry is not None and entry.js_active_contract is not None
    return entry.js_active_contract.created_event


async def test_identity_and_participant(client_for):
    client = client_for("Alice")
    version = await client.version()
    assert version.startswith("3.5")
    assert client.capabilities.version == version
    assert client.capabilities.acs_page is True and client.capabilities.contract_by_id is True

    participant_id = await client.participant_id()
    assert participant_id.startswith("participant")

    user = await client.authenticated_user()
    assert isinstance(user, User)
    assert user.id == "Alice" and user.primary_party.startswith("Alice::")

    rights = await client.user_rights("Alice")
    assert rights and all(isinstance(r, Right) for r in rights)
    acting = [r.kind.can_act_as.value.party for r in rights if r.kind and r.kind.can_act_as]
    assert user.primary_party in acting


async def test_admin_lists_users_and_parties(client_for):
    admin = client_for("participant_admin")
    users = await admin.users()
    assert all(isinstance(u, User) for u in users)
    assert {"Alice", "Bob", "Charlie", "participant_admin"} <= {u.id for u in users}

    parties = await admin.parties()
    assert all(isinstance(p, PartyDetails) for p in parties)
    assert {p.party.split("::")[0] for p in parties} >= {"Alice", "Bob", "Charlie"}

    with pytest.raises(PermissionDenied):
        await client_for("Alice").users()  # listing users needs admin rights


async def test_synchronizers_packages_and_offsets(client_for):
    client = client_for("Alice")
    synchronizers = await client.connected_synchronizers()
    assert len(synchronizers) >= 2 and all(isinstance(s, ConnectedSynchronizer) for s in synchronizers)
    assert all(s.synchronizer_id for s in synchronizers)

    packages = await client.packages()
    assert packages and all(isinstance(p, str) and len(p) == 64 for p in packages)

    end = await client.ledger_end()
    assert isinstance(end, int) and end > 0
    assert await client.pruned_offset() == 0


async def test_active_contracts_list_form_and_its_limit(client_for):
    client = client_for("Alice")
    alice = await _alice(client)
    end = await client.ledger_end()
    fmt = event_format([alice])

    entries = await client.active_contracts(end, fmt, limit=3)
    assert len(entries) == 3
    assert all(isinstance(e, JsGetActiveContractsResponse) for e in entries)
    created = entries[0].contract_entry.js_active_contract.created_event
    assert alice in created.signatories + created.observers

    with pytest.raises(ListTooLarge) as caught:
        await client.active_contracts(end, fmt)  # a few hundred contracts, a list limit of 5
    assert caught.value.code == "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
    assert str(LIST_LIMIT) in caught.value.message

    with pytest.raises(BadRequest) as refused:
        await client.active_contracts(end + 1000, fmt, limit=1)
    assert refused.value.code == "OFFSET_AFTER_LEDGER_END"


async def test_contract_and_its_events(client_for):
    client = client_for("Alice")
    alice = await _alice(client)
    known = await _some_contract(client, alice)

    created = await client.contract(known.contract_id, [alice])
    assert isinstance(created, CreatedEvent)
    assert created.contract_id == known.contract_id and created.create_argument == known.create_argument

    events = await client.events_by_contract_id(known.contract_id, event_format([alice]))
    assert isinstance(events, JsGetEventsByContractIdResponse) and events.created is not None
    assert events.created.created_event.contract_id == known.contract_id
    assert events.archived is None

    unknown = "00" + "ab" * 69
    with pytest.raises(NotFound) as caught:
        await client.contract(unknown, [alice])
    assert caught.value.code == "CONTRACT_PAYLOAD_NOT_FOUND"
    with pytest.raises(NotFound) as caught:
        await client.events_by_contract_id(unknown, event_format([alice]))
    assert caught.value.code == "CONTRACT_EVENTS_NOT_FOUND"
    assert caught.value.hint  # said in plain words


async def test_updates_of_a_range(client_for):
    client = client_for("Alice")
    alice = await _alice(client)
    known = await _some_contract(client, alice)
    fmt = update_format(event_format([alice]))

    updates = await client.updates(known.offset - 1, known.offset, fmt)
    assert len(updates) == 1 and isinstance(updates[0], JsGetUpdatesResponse)
    update = updates[0].update
    assert update is not None and update.transaction is not None
    transaction = update.transaction.value
    assert transaction.offset == known.offset


async def test_update_by_offset_and_by_id(client_for):
    client = client_for("Alice")
    alice = await _alice(client)
    known = await _some_contract(client, alice)
    fmt = update_format(event_format([alice]))
    (update,) = await client.updates(known.offset - 1, known.offset, fmt)
    transaction = update.update.transaction.value
    try:
        by_offset = await client.update_by_offset(known.offset, fmt)
    except EndpointMissing:
        pytest.skip("this build of the bundled participant does not serve update-by-offset yet (Canton does)")
    assert isinstance(by_offset, JsGetUpdateResponse)
    assert by_offset.update is not None and by_offset.update.transaction is not None
    assert by_offset.update.transaction.value.update_id == transaction.update_id

    by_id = await client.update_by_id(
        transaction.update_id, update_format(event_format([alice]), LEDGER_EFFECTS)
    )
    assert by_id.update.transaction.value.offset == known.offset


async def test_submit_and_wait_for_transaction(client_for):
    client = client_for("Alice")
    alice = await _alice(client)
    before = await client.ledger_end()
    command_id = f"client-test-{uuid.uuid4().hex[:8]}"
    commands = JsCommands(
        command_id=command_id,
        act_as=[alice],
        commands=[
            Command(
                create_command=CreateCommand(
                    template_id=IOU,
                    create_arguments={
                        "issuer": alice,
                        "owner": alice,
                        "currency": "CHF",
                        "amount": "12.5",
                        "observers": [],
                    },
                )
            )
        ],
    )

    transaction = await client.submit_and_wait_for_transaction(commands)
    assert isinstance(transaction, JsTransaction)
    assert transaction.command_id == command_id and transaction.offset > before
    (event,) = transaction.events
    created = event.created_event
    assert created is not None
    assert created.create_argument["currency"] == "CHF" and created.template_id.endswith(":Iou:Iou")
    assert await client.ledger_end() >= transaction.offset

    with pytest.raises(Conflict) as caught:  # the same commandId again: deduplicated, never run twice
        await client.submit_and_wait_for_transaction(commands)
    assert caught.value.code == "DUPLICATE_COMMAND"
