"""Interfaces in the DSL and the engine: declarations, views (and views that fail), interface choices."""

from __future__ import annotations

import pytest

from participant.base import errors
from participant.base.transactions import ExerciseNode
from participant.engine.commands import CreateCommand, ExerciseCommand
from participant.engine.pydsl import Interface, Package, Party, Record, Template, Text, interface_instance
from participant.engine.views import interface_views
from participant.models import iou
from tests.engine import shapes_package as shapes
from tests.engine.conftest import ALICE, BOB, IOU, Harness

ISHAPE = "#shapes:Shapes:IShape"
IIOU = "#model-tests:Iou:IIou"


@pytest.fixture
def harness() -> Harness:
    h = Harness()
    h.registry.add(shapes.package)
    return h


async def create(harness: Harness, template: str, **arguments) -> str:
    tx = await harness.submit(CreateCommand(f"#shapes:Shapes:{template}", {"owner": ALICE, **arguments}))
    return tx.created[0].contract_id


# --- declarations


def test_the_iou_model_declares_iiou_as_the_35_model_does():
    assert set(iou.package.interfaces) == {"Iou:IIou"}
    assert iou.IIou.choices().keys() == {"Archive"}  # IIou has a view and nothing else
    assert iou.IIou.__daml__.methods == ()
    assert iou.Iou.instance_of(iou.IIou) is not None
    assert iou.IouTransfer.instance_of(iou.IIou) is None
    assert iou.IIou.interface_id() == f"{iou.package.package_id}:Iou:IIou"
    described = iou.package.describe()
    assert described["interfaces"]["Iou:IIou"]["viewtype"] == {"Record": "Iou:AmountAndCurrency"}
    assert described["templates"]["Iou:Iou"]["implements"] == ["Iou:IIou"]
    assert "implements" not in described["templates"]["Iou:IouTransfer"]


def test_an_interface_instance_implements_the_view_and_every_method():
    package = Package("incomplete", "1.0.0")

    @package.record("M:V")
    class V(Record):
        name: Text

    @package.interface("M:I")
    class I(Interface):  # noqa: E742 - named as in Daml
        viewtype = V

        def getOwner(self) -> Party:
            raise NotImplementedError  # a method: each instance defines it

    with pytest.raises(TypeError, match=r"missing \['getOwner'\]"):

        @package.template("M:T")
        class T(Template):
            owner: Party

            def signatory(self):
                return [self.owner]

            @interface_instance(I)
            class IForT:
                def view(self):
                    return V(name="t")


def test_an_interface_needs_a_viewtype():
    package = Package("viewless", "1.0.0")
    with pytest.raises(TypeError, match="declares no viewtype"):

        @package.interface("M:I")
        class I(Interface):  # noqa: E742  (the Daml interface's name, M:I)
            pass


def test_interface_methods_dispatch_to_the_instance():
    square = shapes.Square(owner=ALICE, name="sq")
    shape = shapes.IShape(square)
    assert shape.getOwner() == ALICE
    assert shape.view() == shapes.ShapeView(name="sq", sides=4)
    assert shape.signatory() == [ALICE]


# --- views


def test_a_view_is_computed_from_the_stored_argument(harness):
    (view,) = interface_views(
        harness.registry,
        shapes.Square.template_id(),
        {"owner": ALICE, "name": "sq"},
        [shapes.IShape.interface_id()],
    )
    assert view == {
        "interfaceId": shapes.IShape.interface_id(),
        "viewStatus": {"code": 0, "message": "", "details": []},
        "viewValue": {"name": "sq", "sides": "4"},
        "implementationPackageId": shapes.package.package_id,
    }


def test_a_view_that_fails_is_reported_in_its_status(harness):
    (view,) = interface_views(
        harness.registry, shapes.Broken.template_id(), {"owner": ALICE}, [shapes.IShape.interface_id()]
    )
    assert view["viewValue"] is None and view["implementationPackageId"] is None
    status = view["viewStatus"]
    assert status["code"] == 9  # FAILED_PRECONDITION, as Canton reports a failed view computation
    assert status["message"].startswith("UNHANDLED_EXCEPTION(9,")
    assert "view crashed" in status["message"] and status["details"] == []


def test_the_iiou_view_of_an_iou(harness):
    (view,) = interface_views(
        harness.registry,
        iou.Iou.template_id(),
        {"issuer": ALICE, "owner": BOB, "currency": "CHF", "amount": "12.5000000000", "observers": []},
        [iou.IIou.interface_id()],
    )
    assert view["viewValue"] == {"icurrency": "CHF", "iamount": "12.5000000000"}


# --- interface choices


async def test_an_interface_choice_runs_against_the_interface_value(harness):
    cid = await create(harness, "Square", name="sq")
    tx, result = await harness.exercise(cid, "Shape_Describe", {"prefix": "a "}, template=ISHAPE)
    assert result == "a sq"
    node = tx.nodes[tx.roots[0]]
    assert isinstance(node, ExerciseNode) and not node.consuming
    assert node.interface_id == shapes.IShape.interface_id()
    assert node.template_id == shapes.Square.template_id()  # the contract's template, not the interface
    assert tx.archived == []


async def test_the_package_id_form_names_the_interface_too(harness):
    cid = await create(harness, "Square", name="sq")
    tx, _ = await harness.exercise(cid, "Shape_Discard", {}, template=shapes.IShape.interface_id())
    assert tx.archived == [cid]
    assert tx.nodes[0].interface_id == shapes.IShape.interface_id()


async def test_every_interface_has_archive(harness):
    cid = await harness.create_iou()
    tx, _ = await harness.exercise(cid, "Archive", {}, template=IIOU)
    assert tx.archived == [cid]
    node = tx.nodes[0]
    assert (node.choice, node.interface_id, node.template_id) == (
        "Archive",
        iou.IIou.interface_id(),
        iou.Iou.template_id(),
    )


async def test_a_choice_the_interface_does_not_have(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Iou_Split", {"splitAmount": "1"}, template=IIOU)
    assert caught.value.code is errors.INVALID_ARGUMENT
    assert caught.value.cause.endswith("Invalid template:Iou:IIou or choice:Iou_Split")


async def test_a_contract_whose_template_does_not_implement_the_interface(harness):
    cid = await create(harness, "Plain")
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Shape_Discard", {}, template=ISHAPE)
    error = caught.value
    assert error.code is errors.CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE and error.status == 400
    interface_id, template_id = shapes.IShape.interface_id(), shapes.Plain.template_id()
    assert error.cause == (
        f"Interpretation error: Error: Update failed due to contract {cid} not implementing an interface\n"
        f"Expected contract to implement interface Shapes:IShape@{interface_id[:8]} but contract has type "
        f"Shapes:Plain@{template_id[:8]}"
    )
    assert error.resources == [
        ("CONTRACT_ID", cid),
        ("TEMPLATE_ID", template_id),
        ("INTERFACE_ID", interface_id),
    ]
    assert cid in harness.ledger.contracts  # nothing changed


async def test_a_choice_body_exercises_an_interface_choice(harness):
    square, plain, gallery = [
        await create(harness, t, **a) for t, a in (("Square", {"name": "sq"}), ("Plain", {}), ("Gallery", {}))
    ]
    tx, result = await harness.exercise(
        gallery, "Gallery_Describe", {"shapeCid": square}, template="#shapes:Shapes:Gallery"
    )
    assert result == "gallery: sq"
    outer, inner = tx.nodes
    assert outer.interface_id is None and inner.interface_id == shapes.IShape.interface_id()
    assert inner.node_id in outer.children and inner.template_id == shapes.Square.template_id()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(
            gallery, "Gallery_Describe", {"shapeCid": plain}, template="#shapes:Shapes:Gallery"
        )
    assert caught.value.code is errors.CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE


async def test_interface_choice_controllers_come_from_its_methods(harness):
    cid = await create(harness, "Square", name="sq")
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(cid, "Shape_Discard", {}, template=ISHAPE, act_as=[BOB], read_as=[ALICE])
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR


async def test_an_unknown_interface_in_a_command(harness):
    cid = await harness.create_iou()
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(ExerciseCommand("#model-tests:Iou:INothing", cid, "Archive", {}))
    assert caught.value.code is errors.TEMPLATES_OR_INTERFACES_NOT_FOUND


async def test_an_interface_cannot_be_created(harness):
    with pytest.raises(errors.LedgerError) as caught:
        await harness.submit(CreateCommand(IIOU, {"icurrency": "USD", "iamount": "1"}))
    assert caught.value.code is errors.TEMPLATES_OR_INTERFACES_NOT_FOUND


async def test_a_template_choice_still_resolves_by_template(harness):
    cid = await harness.create_iou()
    tx, _ = await harness.exercise(cid, "Iou_Settle", {}, template=IOU)
    assert tx.nodes[0].interface_id is None
