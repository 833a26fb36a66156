"""Authorization, visibility, contract keys and transient contracts, as the Daml ledger model has them."""

from __future__ import annotations

import pytest

from participant.base import errors
from participant.engine import ids
from participant.engine.commands import (
    CreateAndExerciseCommand,
    CreateCommand,
    ExerciseByKeyCommand,
    ExerciseCommand,
)
from participant.engine.ledger_view import LedgerView
from participant.engine.update import TransactionBuilder, Update
from tests.engine.conftest import ALICE, BANK, BOB, CHARLIE, IOU, LEDGER_TIME, SYNCHRONIZER

ACCOUNT = "#keyed-example:Accounts:Account"
BANK_T = "#keyed-example:Accounts:Bank"


async def test_create_needs_every_signatory(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.create_iou(issuer=ALICE, owner=BOB, act_as=[ALICE])
    error = caught.value
    assert error.code is errors.DAML_AUTHORIZATION_ERROR and error.status == 400
    assert error.cause.startswith("Interpretation error: Error: node NodeId(0) (")
    assert f":Iou:Iou) requires authorizers {ALICE},{BOB}, but only {ALICE} were given" in error.cause


@pytest.mark.parametrize("amount", ["0", "-5", 0, "0.0000000000"])
async def test_ensure_failure(harness, amount):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.create_iou(amount=amount)
    assert caught.value.code is errors.UNHANDLED_EXCEPTION and caught.value.status == 400
    assert "Template precondition violated" in caught.value.cause


async def test_invisible_contract_is_not_found_and_read_as_grants_visibility(harness):
    cid = await harness.create_iou(observers=[BOB])
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Inspect", {"viewer": CHARLIE}, act_as=[CHARLIE])
    assert caught.value.code is errors.CONTRACT_NOT_FOUND and caught.value.status == 404
    assert caught.value.resources == [("CONTRACT_ID", cid)]
    _, result = await harness.exercise(
        cid, "Iou_Inspect", {"viewer": CHARLIE}, act_as=[CHARLIE], read_as=[BOB]
    )
    assert result == "999.99 USD"


async def test_unknown_and_archived_contracts_are_not_found(harness):
    unknown = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(unknown, "Iou_Settle", {})
    assert caught.value.code is errors.CONTRACT_NOT_FOUND
    assert caught.value.cause == f"Contract could not be found with id {unknown}"
    cid = await harness.create_iou()
    await harness.exercise(cid, "Archive", {})
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Archive", {})
    assert caught.value.code is errors.CONTRACT_NOT_FOUND


async def test_contract_consumed_earlier_in_the_transaction_is_not_active(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(
            ExerciseCommand(IOU, cid, "Archive", {}), ExerciseCommand(IOU, cid, "Archive", {})
        )
    assert caught.value.code is errors.CONTRACT_NOT_ACTIVE
    assert cid in harness.ledger.contracts


async def test_fetch_needs_a_stakeholder_among_the_authorizers(harness):
    bobs = await harness.create_iou(issuer=BOB, owner=BOB, act_as=[BOB])
    # Alice can see Bob's Iou (readAs), but a contract of hers cannot fetch it with her authority only.
    tx = await harness.submit(
        CreateCommand("#model-tests:Iou:IouLinked", {"holder": ALICE, "iouRef": bobs, "note": ""})
    )
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(
            tx.created[0].contract_id,
            "ProcessWithIou",
            {},
            template="#model-tests:Iou:IouLinked",
            read_as=[BOB],
        )
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR
    assert "requires one of the stakeholders" in caught.value.cause


async def test_wrong_template_and_unknown_choice(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "IouTransfer_Accept", {}, template="#model-tests:Iou:IouTransfer")
    assert caught.value.code is errors.WRONGLY_TYPED_CONTRACT and caught.value.status == 400
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Fly", {})
    assert caught.value.code is errors.INVALID_ARGUMENT
    assert caught.value.cause.endswith("Invalid template:Iou:Iou or choice:Iou_Fly")


async def test_bad_choice_argument_is_a_preprocessing_failure(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Split", {"splitAmount": "abc"})
    assert caught.value.code is errors.COMMAND_PREPROCESSING_FAILED
    assert "choiceArgument.splitAmount" in caught.value.cause


async def test_transient_contract_create_and_exercise(harness):
    arguments = {"issuer": ALICE, "owner": ALICE, "currency": "USD", "amount": "1", "observers": []}
    tx = await harness.submit(CreateAndExerciseCommand(IOU, arguments, "Iou_Settle", {}))
    cid = tx.created[0].contract_id
    assert tx.archived == [cid] and tx.is_transient(cid) and tx.roots == [0, 1]
    assert cid not in harness.ledger.contracts


# --- keys


async def open_bank(harness) -> str:
    tx = await harness.submit(CreateCommand(BANK_T, {"bank": BANK, "customer": ALICE}), act_as=[BANK, ALICE])
    return tx.created[0].contract_id


async def test_key_is_stored_with_its_hash(harness):
    bank = await open_bank(harness)
    _, account = await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    contract = harness.ledger.contracts[account]
    assert contract.key == {"_1": ALICE, "_2": "main"}
    assert len(contract.key_hash) == 64 and contract.key_hash == contract.key_hash.lower()
    assert contract.argument == {
        "owner": ALICE,
        "bank": BANK,
        "label": "main",
        "balance": "0.0000000000",
        "kind": "Checking",
    }  # trailing None `limit` omitted


async def test_key_uniqueness(harness):
    bank = await open_bank(harness)
    _, account = await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    assert caught.value.code is errors.DUPLICATE_CONTRACT_KEY and caught.value.status == 409
    with pytest.raises(errors.LedgerError) as caught:  # the holder is not consumed: still a duplicate
        await harness.exercise(account, "Account_Duplicate", {}, template=ACCOUNT)
    assert caught.value.code is errors.DUPLICATE_CONTRACT_KEY
    await harness.exercise(bank, "Open", {"label": "savings"}, template=BANK_T)  # another key is fine


async def test_key_reuse_after_archive_in_the_same_transaction(harness):
    bank = await open_bank(harness)
    tx, account = await harness.exercise(bank, "OpenCloseReopen", {"label": "main"}, template=BANK_T)
    first = tx.created[0].contract_id
    assert tx.is_transient(first) and tx.created[1].contract_id == account
    assert list(harness.ledger.contracts) == [bank, account]
    # A consuming choice that re-creates with the same key: allowed, the old holder is archived first.
    _, deposited = await harness.exercise(account, "Account_Deposit", {"amount": "5"}, template=ACCOUNT)
    assert harness.argument(deposited)["balance"] == "5.0000000000"


async def test_lookup_fetch_and_exercise_by_key(harness):
    bank = await open_bank(harness)
    _, missing = await harness.exercise(bank, "Lookup", {"label": "main"}, template=BANK_T)
    assert missing is None
    _, account = await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    _, found = await harness.exercise(bank, "Lookup", {"label": "main"}, template=BANK_T)
    assert found == account
    _, new_account = await harness.exercise(
        bank, "DepositByKey", {"label": "main", "amount": "7.25"}, template=BANK_T
    )
    _, balance = await harness.exercise(bank, "Balance", {"label": "main"}, template=BANK_T)
    assert balance == "7.2500000000" and new_account != account
    tx = await harness.submit(
        ExerciseByKeyCommand(ACCOUNT, {"_1": ALICE, "_2": "main"}, "Account_Deposit", {"amount": "1"})
    )
    assert tx.archived == [new_account]
    assert harness.argument(tx.created[0].contract_id)["balance"] == "8.2500000000"


async def test_missing_or_invisible_key(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(ExerciseByKeyCommand(ACCOUNT, {"_1": ALICE, "_2": "none"}, "Archive", {}))
    assert caught.value.code is errors.CONTRACT_KEY_NOT_FOUND and caught.value.status == 404
    bank = await open_bank(harness)
    await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(
            ExerciseByKeyCommand(ACCOUNT, {"_1": ALICE, "_2": "main"}, "Archive", {}), act_as=[CHARLIE]
        )
    assert caught.value.code is errors.CONTRACT_KEY_NOT_FOUND


async def test_exercise_by_key_on_a_template_without_key(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(ExerciseByKeyCommand(IOU, {}, "Archive", {}))
    assert caught.value.code is errors.INVALID_ARGUMENT


async def test_rolling_back_restores_contracts_keys_and_nodes(harness):
    """A caught exception's rollback: the archive, the create that reused the freed key and their nodes go;
    the key is the old holder's again."""
    bank = await open_bank(harness)
    _, account = await harness.exercise(bank, "Open", {"label": "main"}, template=BANK_T)
    template = harness.registry.resolve_template(ACCOUNT)
    view = LedgerView(harness.registry, harness.ledger, frozenset({ALICE, BANK}))
    builder = TransactionBuilder(view, ids.IdGenerator("rollback"), LEDGER_TIME, SYNCHRONIZER)
    update = Update(builder, frozenset({ALICE, BANK}), builder.roots)
    again = template.argument_type.decode(harness.argument(account))
    point = update.rollback_point()
    await update.exercise(account, "Archive")
    reused = await update.create(template, again)  # the key was freed by the archive
    update.roll_back(point)
    assert builder.nodes == [] and builder.roots == [] and view.created == {} and view.consumed == []
    with pytest.raises(errors.LedgerError) as caught:
        await view.active(reused)
    assert caught.value.code is errors.CONTRACT_NOT_FOUND
    assert (await view.active(account)).contract_id == account
    with pytest.raises(errors.LedgerError) as caught:  # the key is held by the account again
        await update.create(template, again)
    assert caught.value.code is errors.DUPLICATE_CONTRACT_KEY
