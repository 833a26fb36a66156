"""The official example's flow, in process: parties, users, create, transfer, accept, ACS at each step."""

from __future__ import annotations


async def test_iou_transfer_flow(ledger_api, alice_bob):
    alice, bob = alice_bob
    tx = await ledger_api.create_iou(alice, alice, "999.99", user="Alice")
    created = tx["events"][0]["CreatedEvent"]
    assert created["createArgument"]["amount"] == "999.9900000000"
    cid = created["contractId"]
    r = await ledger_api.exercise(
        "#model-tests:Iou:Iou", cid, "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice"
    )
    assert r.status_code == 200, r.text
    events = r.json()["transaction"]["events"]
    assert [next(iter(e)) for e in events] == ["ArchivedEvent", "CreatedEvent"]
    transfer = events[1]["CreatedEvent"]["contractId"]
    r = await ledger_api.exercise(
        "#model-tests:Iou:IouTransfer", transfer, "IouTransfer_Accept", {}, act_as=[bob], user="Bob"
    )
    assert r.status_code == 200, r.text
    end = await ledger_api.ledger_end()
    r = await ledger_api.post(
        "/v2/users", {"user": {"id": "auditor"}, "rights": [{"kind": {"CanReadAsAnyParty": {"value": {}}}}]}
    )
    assert r.status_code == 200, r.text
    acs = await ledger_api.post(
        "/v2/state/active-contracts",
        {
            "filter": {
                "filtersByParty": {},
                "filtersForAnyParty": {
                    "cumulative": [
                        {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": True}}}}
                    ]
                },
            },
            "verbose": False,
            "activeAtOffset": end,
            "eventFormat": None,
        },
        user="auditor",
    )
    assert acs.status_code == 200, acs.text
    entries = acs.json()
    assert len(entries) == 1
    ev = entries[-1]["contractEntry"]["JsActiveContract"]["createdEvent"]
    assert ev["createArgument"]["owner"] == bob
    assert ev["createArgument"]["observers"] == []
