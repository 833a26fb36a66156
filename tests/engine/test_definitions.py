"""The engine runs any implementation of its definitions: a package written without the Python DSL
(`hand_package.py`) is created, exercised, authorized, keyed, viewed through an interface and mixed with the DSL's
templates through the same commands and rules as the DSL's own."""

from __future__ import annotations

import pytest

from participant.base import errors
from participant.base.transactions import ExerciseNode
from participant.engine.commands import CreateCommand, ExerciseByKeyCommand
from participant.engine.definitions import PackageDef
from participant.engine.pydsl import Package
from participant.engine.values import RecordValue
from participant.engine.views import interface_views
from participant.models import iou
from tests.engine import hand_package as hand
from tests.engine.conftest import ALICE, BOB, Harness

NOTE = "#hand-notes:Notes:Note"
ITEXT = "#hand-notes:Notes:IText"


@pytest.fixture
def harness() -> Harness:
    h = Harness()
    h.registry.add(hand.package)
    return h


async def create_note(harness: Harness, text: str = "hello", readers: tuple[str, ...] = ()) -> str:
    tx = await harness.submit(CreateCommand(NOTE, {"owner": ALICE, "text": text, "readers": list(readers)}))
    return tx.created[0].contract_id


def test_both_kinds_of_package_are_package_definitions():
    assert isinstance(hand.package, PackageDef) and isinstance(iou.package, PackageDef)
    assert not isinstance(Package, PackageDef)  # the class is not a package; its instances are


async def test_create_takes_parties_key_and_argument_from_the_definition(harness):
    cid = await create_note(harness, readers=(BOB,))
    contract = harness.ledger.contracts[cid]
    assert contract.template_id == hand.package.templates["Notes:Note"].template_id
    assert contract.package_name == "hand-notes"
    assert contract.signatories == (ALICE,) and contract.observers == (BOB,)
    assert contract.argument == {"owner": ALICE, "text": "hello", "readers": [BOB]}
    assert contract.key == {"_1": ALICE, "_2": "hello"} and contract.key_hash


async def test_precondition_signatories_and_key_uniqueness_apply(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await create_note(harness, text="")
    assert caught.value.code is errors.UNHANDLED_EXCEPTION
    assert "Template precondition violated" in caught.value.cause
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(CreateCommand(NOTE, {"owner": BOB, "text": "x", "readers": []}), act_as=[ALICE])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR
    await create_note(harness, text="once")
    with pytest.raises(errors.LedgerError) as caught:
        await create_note(harness, text="once")
    assert caught.value.code is errors.DUPLICATE_CONTRACT_KEY


async def test_bad_create_arguments_are_answered_as_for_the_dsl(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(CreateCommand(NOTE, {"owner": ALICE, "text": 5, "readers": []}))
    assert caught.value.code is errors.COMMAND_PREPROCESSING_FAILED
    assert "Expected Text" in caught.value.cause and "createArguments.text" in caught.value.cause


async def test_a_consuming_choice_runs_its_body_against_the_update(harness):
    cid = await create_note(harness)
    tx, result = await harness.exercise(cid, "Note_Edit", {"newText": "bye"}, template=NOTE)
    node = tx.nodes[0]
    assert isinstance(node, ExerciseNode) and node.consuming and node.acting_parties == (ALICE,)
    assert node.choice_argument == {"newText": "bye"} and node.children == [1]
    assert tx.archived == [cid] and result == tx.created[0].contract_id
    assert harness.argument(result)["text"] == "bye"


async def test_controllers_come_from_the_argument_and_observers_are_recorded(harness):
    cid = await create_note(harness, readers=(BOB,))
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Note_Read", {"reader": BOB}, template=NOTE, act_as=[ALICE])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR
    tx, result = await harness.exercise(cid, "Note_Read", {"reader": BOB}, template=NOTE, act_as=[BOB])
    assert result == "hello" and not tx.nodes[0].consuming and tx.nodes[0].choice_observers == (BOB,)


async def test_a_body_creates_a_template_of_the_python_dsl(harness):
    cid = await create_note(harness)
    tx, result = await harness.exercise(cid, "Note_Pay", {"amount": "12.5"}, template=NOTE)
    payment = harness.ledger.contracts[result]
    assert payment.template_id == iou.Iou.template_id() and harness.amount(result) == 12.5
    assert tx.nodes[1].contract.signatories == (ALICE,)  # the note's signatory authorized it


async def test_an_explicit_authority_replaces_the_signatories(harness):
    cid = await create_note(harness, readers=(BOB,))
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Note_Delegated", {"helper": BOB}, template=NOTE, act_as=[BOB])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR
    assert f"requires authorizers {ALICE}, but only {BOB} were given" in caught.value.cause


async def test_exercise_by_key_finds_the_contract_through_the_key(harness):
    cid = await create_note(harness, text="keyed")
    tx = await harness.submit(
        ExerciseByKeyCommand(NOTE, {"_1": ALICE, "_2": "keyed"}, "Note_Edit", {"newText": "moved"})
    )
    assert tx.archived == [cid] and harness.argument(tx.created[0].contract_id)["text"] == "moved"


async def test_an_interface_choice_sees_the_contract_as_its_interface_value(harness):
    cid = await create_note(harness)
    tx, result = await harness.exercise(cid, "IText_Shout", {}, template=ITEXT)
    assert result == "HELLO"
    assert tx.nodes[0].interface_id == hand.package.interfaces["Notes:IText"].interface_id
    with pytest.raises(errors.LedgerError) as caught:  # an Iou does not implement IText
        await harness.exercise(await harness.create_iou(), "IText_Shout", {}, template=ITEXT)
    assert caught.value.code is errors.CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE


async def test_views_and_filters_find_the_implementation(harness):
    cid = await create_note(harness)
    note = harness.ledger.contracts[cid]
    itext = hand.package.interfaces["Notes:IText"]
    [view] = interface_views(harness.registry, note.template_id, note.argument, [itext.interface_id])
    assert view["viewValue"] == {"text": "hello"} and view["viewStatus"]["code"] == 0
    assert harness.registry.implementors(itext) == [hand.package.templates["Notes:Note"]]


def test_values_of_a_record_type_without_hooks_are_record_values():
    value = hand.NOTE.decode({"owner": ALICE, "text": "t", "readers": []})
    assert value == RecordValue("Notes:Note", {"owner": ALICE, "text": "t", "readers": []})
    assert hand.NOTE.encode(value) == {"owner": ALICE, "text": "t", "readers": []}
    with pytest.raises(ValueError):
        hand.NOTE.encode(RecordValue("Notes:Other", value.fields))
