"""Every choice of the demo Iou model: what it does, and who may not do it."""

from __future__ import annotations

import pytest

from participant.base import errors
from participant.base.transactions import ExerciseNode, FetchNode
from participant.engine.commands import CreateCommand
from tests.engine.conftest import ALICE, BOB, CHARLIE, IOU, IOU_TRANSFER, LEDGER_TIME, SYNCHRONIZER


async def test_create_stores_output_encoding_and_parties(harness):
    cid = await harness.create_iou(owner=BOB, observers=[CHARLIE, BOB], act_as=[ALICE, BOB])
    contract = harness.ledger.contracts[cid]
    assert contract.argument == {
        "issuer": ALICE,
        "owner": BOB,
        "currency": "USD",
        "amount": "999.9900000000",
        "observers": [CHARLIE, BOB],
    }
    assert contract.signatories == (ALICE, BOB)
    assert contract.observers == (CHARLIE,)  # never a signatory
    assert contract.template_id == f"{harness.registry.preferred('model-tests').package_id}:Iou:Iou"
    assert contract.package_name == "model-tests"
    assert (contract.key, contract.key_hash) == (None, "")
    assert (contract.created_at, contract.synchronizer_id) == (LEDGER_TIME, SYNCHRONIZER)


async def test_official_example_flow(harness):
    cid = await harness.create_iou()
    tx, transfer_cid = await harness.exercise(cid, "Iou_Transfer", {"newOwner": BOB})
    assert tx.archived == [cid]
    transfer = harness.ledger.contracts[transfer_cid]
    assert transfer.observers == (BOB,)
    assert transfer.argument["iou"]["amount"] == "999.9900000000"
    tx, new_cid = await harness.exercise(
        transfer_cid, "IouTransfer_Accept", {}, template=IOU_TRANSFER, act_as=[BOB]
    )
    assert harness.argument(new_cid) == {
        "issuer": ALICE,
        "owner": BOB,
        "currency": "USD",
        "amount": "999.9900000000",
        "observers": [],
    }
    assert tx.archived == [transfer_cid]


async def test_accept_needs_the_issuer_too_when_the_new_owner_is_not_authorized(harness):
    cid = await harness.create_iou()
    _, transfer_cid = await harness.exercise(cid, "Iou_Transfer", {"newOwner": BOB})
    with pytest.raises(errors.LedgerError) as caught:  # Alice is not the controller of Accept
        await harness.exercise(transfer_cid, "IouTransfer_Accept", {}, template=IOU_TRANSFER, act_as=[ALICE])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR
    assert f"requires authorizers {BOB}, but only {ALICE} were given" in caught.value.cause


@pytest.mark.parametrize("choice,actor", [("IouTransfer_Cancel", ALICE), ("IouTransfer_Reject", BOB)])
async def test_cancel_and_reject_restore_the_iou(harness, choice, actor):
    cid = await harness.create_iou(observers=[CHARLIE])
    original = harness.argument(cid)
    _, transfer_cid = await harness.exercise(cid, "Iou_Transfer", {"newOwner": BOB})
    _, restored = await harness.exercise(transfer_cid, choice, None, template=IOU_TRANSFER, act_as=[actor])
    assert harness.argument(restored) == original


@pytest.mark.parametrize("choice,actor", [("IouTransfer_Cancel", BOB), ("IouTransfer_Reject", ALICE)])
async def test_cancel_and_reject_controllers(harness, choice, actor):
    cid = await harness.create_iou()
    _, transfer_cid = await harness.exercise(cid, "Iou_Transfer", {"newOwner": BOB})
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(transfer_cid, choice, {}, template=IOU_TRANSFER, act_as=[actor])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR


async def test_split(harness):
    cid = await harness.create_iou(amount="100")
    tx, result = await harness.exercise(cid, "Iou_Split", {"splitAmount": "30.5"})
    assert set(result) == {"_1", "_2"}
    assert harness.amount(result["_1"]) == 30.5 and harness.amount(result["_2"]) == 69.5
    root = tx.nodes[0]
    assert isinstance(root, ExerciseNode) and root.children == [1, 2] and root.last_descendant_node_id == 2
    assert root.choice_argument == {"splitAmount": "30.5000000000"}
    assert [c.contract_id for c in tx.created] == [result["_1"], result["_2"]]


@pytest.mark.parametrize("split", ["100", "150", "0", "-1"])
async def test_split_that_leaves_no_positive_amount_violates_ensure(harness, split):
    cid = await harness.create_iou(amount="100")
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Split", {"splitAmount": split})
    assert caught.value.code is errors.UNHANDLED_EXCEPTION
    assert "Template precondition violated" in caught.value.cause
    assert ("EXCEPTION_TYPE", "DA.Exception.PreconditionFailed:PreconditionFailed") in caught.value.resources
    assert cid in harness.ledger.contracts  # nothing committed


async def test_merge(harness):
    first, second = await harness.create_iou(amount="10"), await harness.create_iou(amount="2.5")
    tx, merged = await harness.exercise(first, "Iou_Merge", {"otherCid": second})
    assert harness.amount(merged) == 12.5
    assert tx.archived == [first, second]
    assert isinstance(tx.nodes[1], FetchNode) and tx.nodes[1].contract_id == second
    assert isinstance(tx.nodes[2], ExerciseNode) and tx.nodes[2].choice == "Archive"
    assert tx.nodes[0].children == [1, 2, 3]


async def test_merge_refuses_other_currency(harness):
    first, second = await harness.create_iou(), await harness.create_iou(currency="EUR")
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(first, "Iou_Merge", {"otherCid": second})
    assert caught.value.code is errors.UNHANDLED_EXCEPTION
    assert "UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed" in caught.value.cause
    assert "same currency" in caught.value.cause
    assert ("EXCEPTION_TYPE", "DA.Exception.AssertionFailed:AssertionFailed") in caught.value.resources


async def test_merge_with_itself_is_not_active(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Merge", {"otherCid": cid})
    assert caught.value.code is errors.CONTRACT_NOT_ACTIVE


async def test_add_and_remove_observer(harness):
    cid = await harness.create_iou(observers=[CHARLIE])
    _, with_bob = await harness.exercise(cid, "Iou_AddObserver", {"newObserver": BOB})
    assert harness.argument(with_bob)["observers"] == [BOB, CHARLIE]
    assert harness.ledger.contracts[with_bob].observers == (BOB, CHARLIE)
    _, without = await harness.exercise(with_bob, "Iou_RemoveObserver", {"oldObserver": CHARLIE})
    assert harness.argument(without)["observers"] == [BOB]


@pytest.mark.parametrize(
    "choice,argument",
    [
        ("Iou_Split", {"splitAmount": "1"}),
        ("Iou_Merge", {"otherCid": "00" + "1" * 64}),
        ("Iou_Transfer", {"newOwner": CHARLIE}),
        ("Iou_AddObserver", {"newObserver": CHARLIE}),
        ("Iou_RemoveObserver", {"oldObserver": BOB}),
        ("DateCheckAddDays", {"payload": "2024-01-01"}),
        ("TimestampCheckAddHours", {"payload": "2024-01-01T00:00:00Z"}),
        ("TextMapCheck", {"payload": {}}),
        ("Iou_Settle", {}),
        ("Archive", {}),
    ],
)
async def test_only_the_owner_controls_iou_choices(harness, choice, argument):
    cid = await harness.create_iou(issuer=ALICE, owner=BOB, observers=[CHARLIE], act_as=[ALICE, BOB])
    for actor in (CHARLIE, ALICE):  # an observer, then the issuer alone
        with pytest.raises(errors.LedgerError) as caught:
            await harness.exercise(cid, choice, argument, act_as=[actor])
        assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR, (choice, actor)


async def test_non_consuming_checks(harness):
    cid = await harness.create_iou()
    tx, result = await harness.exercise(cid, "DateCheckAddDays", {"payload": "2024-01-31"})
    assert result == "2024-03-02" and tx.archived == [] and not tx.nodes[0].consuming
    _, result = await harness.exercise(
        cid, "TimestampCheckAddHours", {"payload": "2024-01-01T23:30:00.5+01:00"}
    )
    assert result == "2024-01-02T00:30:00.5Z"  # 22:30Z + 2h
    _, result = await harness.exercise(cid, "TextMapCheck", {"payload": {"a": "1", "b": 2}})
    assert result == {"a": "1", "b": "42"}
    assert cid in harness.ledger.contracts


async def test_inspect_is_controlled_by_the_viewer(harness):
    cid = await harness.create_iou(amount="999.99", observers=[BOB])
    tx, result = await harness.exercise(cid, "Iou_Inspect", {"viewer": BOB}, act_as=[BOB])
    assert result == "999.99 USD" and tx.nodes[0].acting_parties == (BOB,)
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Inspect", {"viewer": BOB}, act_as=[ALICE])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR


async def test_settle_and_archive_consume(harness):
    for choice in ("Iou_Settle", "Archive"):
        cid = await harness.create_iou()
        tx, result = await harness.exercise(cid, choice, None)
        assert result == {} and tx.archived == [cid] and cid not in harness.ledger.contracts


async def test_inspect_by_explicit_disclosure(harness):
    cid = await harness.create_iou()
    contract = harness.ledger.contracts[cid]
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Inspect", {"viewer": CHARLIE}, act_as=[CHARLIE])
    assert caught.value.code is errors.CONTRACT_NOT_FOUND
    from participant.engine.commands import ExerciseCommand

    tx = await harness.submit(
        ExerciseCommand(IOU, cid, "Iou_Inspect", {"viewer": CHARLIE}), act_as=[CHARLIE], disclosed=[contract]
    )
    assert tx.nodes[0].exercise_result == "999.99 USD"


async def test_iou_linked_reads_the_iou(harness):
    cid = await harness.create_iou(amount="5")
    tx = await harness.submit(
        CreateCommand("#model-tests:Iou:IouLinked", {"holder": ALICE, "iouRef": cid, "note": "n"})
    )
    linked = tx.created[0].contract_id
    _, result = await harness.exercise(linked, "ProcessWithIou", {}, template="#model-tests:Iou:IouLinked")
    assert result == "5.0 USD"
