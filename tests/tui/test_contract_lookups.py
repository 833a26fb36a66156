"""The client's contract and update lookups against a real participant, and their fallbacks on a participant
without contract-by-id or update-by-offset."""

from __future__ import annotations

import pytest

from app.client import errors, event_format, update_format
from app.client.contracts import interface_views, look_up_contract
from app.client.ledger import LEDGER_EFFECTS
from app.daml import template_name
from participant.api import CreatedEvent
from tests.tui.conftest import known
from tests.tui.helpers import WithoutEndpoints, archived_iou, client_for, contract_without, party_of

IIOU = "#model-tests:Iou:IIou"

UNKNOWN = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32


async def test_both_lookups_of_an_archived_contract(demo_server):
    async with client_for(demo_server) as client:
        alice = await party_of(client)
        archive = await archived_iou(client, alice)
        lookup = await look_up_contract(client, archive.contract_id, [alice])
    assert lookup.found and lookup.failures == []
    assert lookup.by_id is not None and lookup.created is not None
    assert lookup.by_id.create_argument == lookup.created.create_argument
    assert lookup.archived is not None and lookup.archived.offset == archive.offset
    assert lookup.active is False
    assert lookup.synchronizer_id and lookup.archive_synchronizer_id
    assert lookup.blob  # asked for, for disclosure


async def test_an_unknown_contract_keeps_both_errors(demo_server):
    async with client_for(demo_server) as client:
        lookup = await look_up_contract(client, UNKNOWN, [await party_of(client)])
    assert not lookup.found
    assert (
        isinstance(lookup.by_id_error, errors.NotFound)
        and lookup.by_id_error.code == "CONTRACT_PAYLOAD_NOT_FOUND"
    )
    assert isinstance(lookup.events_error, errors.NotFound)
    assert lookup.events_error.code == "CONTRACT_EVENTS_NOT_FOUND"
    assert lookup.pruned_offset == 0


async def test_without_contract_by_id_the_events_answer_and_the_client_remembers(demo_server):
    transport = WithoutEndpoints(["/v2/contracts/contract-by-id"])
    async with client_for(demo_server, transport=transport) as client:
        alice = await party_of(client)
        cid = await contract_without(client, alice, "nobody")  # any contract of Alice's
        first = await look_up_contract(client, cid, [alice])
        again = await look_up_contract(client, cid, [alice])
        assert client.capabilities.contract_by_id is False
        contract = await client.contract(cid, [alice])
    assert first.found and not first.by_id_served and first.by_id_error is None
    assert again.found and not again.by_id_served
    assert contract.contract_id == cid
    assert transport.refused == ["/v2/contracts/contract-by-id"]


@pytest.mark.parametrize("missing", [[], ["/v2/updates/update-by-offset"]])
async def test_update_at_an_offset_either_way(demo_server, missing):
    transport = WithoutEndpoints(missing)
    async with client_for(demo_server, transport=transport) as client:
        alice = await party_of(client)
        archive = await archived_iou(client, alice)
        fmt = update_format(event_format([alice]), LEDGER_EFFECTS)
        update = await client.update_at(archive.offset, fmt)
        await client.update_at(archive.offset, fmt)
        served = client.capabilities.update_by_offset
    assert update.transaction is not None
    transaction = update.transaction.value
    assert transaction.offset == archive.offset
    assert any(
        e.exercised_event and e.exercised_event.contract_id == archive.contract_id for e in transaction.events
    )
    if missing:
        assert served is False and transport.refused == missing  # asked once, then the update list
    else:
        assert served is not None


async def test_update_at_an_offset_with_nothing_visible_is_not_found(demo_server):
    async with client_for(demo_server) as client:
        alice = await party_of(client)
        # the demo ledger begins with Iou creates: no IouTransfer event at its first offset
        fmt = update_format(event_format([alice], templates=["#model-tests:Iou:IouTransfer"]), LEDGER_EFFECTS)
        with pytest.raises(errors.NotFound):
            await client.update_at(1, fmt)


async def test_interface_views_of_a_contract(demo_server):
    async with client_for(demo_server) as client:
        alice = await party_of(client)
        end = await client.ledger_end()
        by_template: dict[str, CreatedEvent] = {}
        for entry in await client.active_contracts(end, event_format([alice]), limit=200):
            active = entry.contract_entry.js_active_contract if entry.contract_entry else None
            if active is not None:  # not an incomplete reassignment
                by_template.setdefault(template_name(active.created_event.template_id), active.created_event)
        iou, transfer = by_template["Iou:Iou"], by_template["Iou:IouTransfer"]

        views = await interface_views(client, iou.contract_id, [alice], [IIOU])
        assert [(template_name(v.interface_id), v.view_status.code) for v in views] == [("Iou:IIou", 0)]
        assert views[0].view_value == {
            "icurrency": iou.create_argument["currency"],
            "iamount": iou.create_argument["amount"],
        }
        assert await interface_views(client, transfer.contract_id, [alice], [IIOU]) == []  # not implemented
        with pytest.raises(errors.NotFound) as raised:
            await interface_views(client, iou.contract_id, [alice], ["#model-tests:Iou:Nope"])
        assert raised.value.code == "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"

        lookup = await look_up_contract(client, iou.contract_id, [alice])
        assert known(lookup.event).interface_views == []
        lookup.add_views(views)
        lookup.add_views(views)  # a view asked again replaces the one shown
        assert known(lookup.created).interface_views == views and known(lookup.by_id).interface_views == views
