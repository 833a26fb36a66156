"""Daml-LF choice bodies run through the real engine: the evaluator's update values performed by the engine's
`Update` (richtypes/RichTypes.daml: `nonconsuming choice Relabel … do create this with label = newLabel`)."""

from __future__ import annotations

from typing import Any

import pytest

from participant.base import errors
from participant.base.transactions import CreateNode, ExerciseNode
from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.errors import DamlArithmeticError, DamlThrow, FailureStatus, UserError
from participant.engine.commands import CreateCommand, ExerciseCommand
from participant.engine.lf.definitions import LfPackages
from participant.engine.views import interface_views
from tests.daml_lf.eval.test_evaluator import INT, E, N, lam, text, var
from tests.engine.conftest import ALICE, BOB, Harness
from tests.engine.lf.rich_record import RICH
from tests.engine.lf.test_lf_definitions import amulet_json

RICH_RECORD = "#richtypes:RichTypes:RichRecord"


@pytest.fixture
def harness(lf_richtypes: LfPackages) -> Harness:
    h = Harness()
    h.registry.add(lf_richtypes.main)
    return h


async def create_rich(harness: Harness) -> str:
    tx = await harness.submit(CreateCommand(RICH_RECORD, {**RICH, "owner": ALICE}))
    [created] = tx.created
    return created.contract_id


async def test_relabel_creates_the_relabelled_contract(harness: Harness, lf_richtypes: LfPackages) -> None:
    cid = await create_rich(harness)
    assert harness.argument(cid) == {**RICH, "owner": ALICE}
    tx, result = await harness.exercise(cid, "Relabel", {"newLabel": "renamed"}, template=RICH_RECORD)
    exercise, create = tx.nodes
    assert isinstance(exercise, ExerciseNode) and isinstance(create, CreateNode)
    assert exercise.choice == "Relabel" and not exercise.consuming and exercise.acting_parties == (ALICE,)
    assert exercise.choice_argument == {"newLabel": "renamed"} and exercise.children == [1]
    assert exercise.exercise_result == result == create.contract.contract_id
    assert create.contract.template_id == lf_richtypes.main.templates["RichTypes:RichRecord"].template_id
    assert create.contract.signatories == (ALICE,)
    assert harness.argument(result) == {**RICH, "owner": ALICE, "label": "renamed"}
    assert tx.archived == [] and cid in harness.ledger.contracts  # nonconsuming


async def test_relabel_is_authorized_by_its_controller(harness: Harness) -> None:
    cid = await create_rich(harness)
    with pytest.raises(errors.LedgerError) as caught:
        await harness.exercise(
            cid, "Relabel", {"newLabel": "x"}, template=RICH_RECORD, act_as=[BOB], read_as=[ALICE]
        )
    assert caught.value.code is errors.DAML_AUTHORIZATION_ERROR


async def test_archive_consumes_the_contract(harness: Harness) -> None:
    cid = await create_rich(harness)
    tx, _ = await harness.exercise(cid, "Archive", {}, template=RICH_RECORD)
    assert tx.archived == [cid] and len(tx.nodes) == 1


HOLDING = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"


@pytest.fixture
def amulet_harness(lf_amulet: LfPackages) -> Harness:
    h = Harness()
    for package_id, package in lf_amulet.packages.packages.items():
        if any(module.templates or module.interfaces for module in package.modules.values()):
            h.registry.add(lf_amulet.package(package_id))
    return h


async def test_an_interface_choice_and_view_of_a_daml_lf_template(amulet_harness: Harness) -> None:
    """`interface instance Holding for Amulet`: the view rendered from the interface's view type, and the
    interface's Archive exercised on the amulet."""
    harness = amulet_harness
    argument = amulet_json(owner=ALICE)
    argument["dso"] = BOB
    tx = await harness.submit(
        CreateCommand("#splice-amulet:Splice.Amulet:Amulet", argument), act_as=[ALICE, BOB]
    )
    [amulet] = tx.created
    assert amulet.argument["amount"]["initialAmount"] == "10.0000000000"
    holding = harness.registry.resolve_interface_filter(HOLDING)[0]
    [view] = interface_views(harness.registry, amulet.template_id, amulet.argument, [holding.interface_id])
    assert view["viewStatus"]["code"] == 0 and view["viewValue"]["owner"] == ALICE
    assert view["viewValue"]["amount"] == "10.0000000000"
    tx = await harness.submit(
        ExerciseCommand(HOLDING, amulet.contract_id, "Archive", {}), act_as=[ALICE, BOB]
    )
    [exercise] = [node for node in tx.nodes if isinstance(node, ExerciseNode)][:1]
    assert exercise.interface_id == holding.interface_id and exercise.consuming
    assert tx.archived == [amulet.contract_id]


class FailingUpdate:
    """An `Update` whose create fails as given: how a failure inside a body reaches the command."""

    exercised_contract_id = "00" + "ab" * 32

    def __init__(self, failure: Exception) -> None:
        self.failure = failure

    async def create(self, template: Any, contract: Any) -> str:
        raise self.failure


def general_error(lf_richtypes: LfPackages, message: str) -> DamlThrow:
    tycon = next(
        ast.TypeConRef(package_id, "DA.Exception.GeneralError", "GeneralError")
        for package_id, package in lf_richtypes.packages.packages.items()
        if "DA.Exception.GeneralError" in package.modules
    )
    payload = rt.Record(tycon, lf_richtypes.program.record_fields(tycon), (message,))
    return DamlThrow(rt.AnyException(ast.TCon(tycon), payload))


@pytest.mark.parametrize(
    ("failure", "code", "cause"),
    [
        (  # an uncaught exception: UNHANDLED_EXCEPTION, the cause as Daml's engine renders it and Canton closes it
            "thrown",
            errors.UNHANDLED_EXCEPTION,
            "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError "
            "(error category 9): no way.",
        ),
        (
            DamlArithmeticError("ADD_INT64", ("1", "2")),
            errors.UNHANDLED_EXCEPTION,
            "UNHANDLED_EXCEPTION/DA.Exception.ArithmeticError:ArithmeticError (error category 9): ArithmeticError "
            "while evaluating (ADD_INT64 1 2)..",
        ),
        (  # a failed builtin as the machine throws it: the standard library's exception, as Canton names it
            "arithmetic",
            errors.UNHANDLED_EXCEPTION,
            "UNHANDLED_EXCEPTION/DA.Exception.ArithmeticError:ArithmeticError (error category 9): ArithmeticError "
            "while evaluating (DIV_INT64 1 0)..",
        ),
        (  # Daml's `error`: the standard library's GeneralError with the message
            UserError("fatal"),
            errors.UNHANDLED_EXCEPTION,
            "UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError (error category 9): fatal.",
        ),
    ],
)
async def test_a_failure_in_a_body_is_the_commands_error(
    lf_richtypes: LfPackages, failure: Any, code: errors.ErrorCode, cause: str
) -> None:
    rich = lf_richtypes.main.templates["RichTypes:RichRecord"]
    relabel = rich.choices["Relabel"]
    contract = rich.argument_type.decode({**RICH, "owner": ALICE})
    raised = general_error(lf_richtypes, "no way") if failure == "thrown" else failure
    if failure == "arithmetic":
        raised = DamlThrow(
            lf_richtypes.program.arithmetic_error(str(DamlArithmeticError("DIV_INT64", ("1", "0"))))
        )
    with pytest.raises(errors.LedgerError) as caught:
        await relabel.run(contract, FailingUpdate(raised), relabel.argument_type.decode({"newLabel": "x"}))  # type: ignore[arg-type]  # a failing stand-in
    assert caught.value.code is code and cause in caught.value.cause
    assert caught.value.status == 400 and caught.value.code.category.grpc.name == "FAILED_PRECONDITION"
    assert f"UNHANDLED_EXCEPTION/{dict(caught.value.resources)['EXCEPTION_TYPE']} " in caught.value.cause


async def test_fail_with_status_is_daml_failure_in_the_category_the_daml_code_chose(
    lf_richtypes: LfPackages,
) -> None:
    rich = lf_richtypes.main.templates["RichTypes:RichRecord"]
    relabel = rich.choices["Relabel"]
    contract = rich.argument_type.decode({**RICH, "owner": ALICE})
    status = FailureStatus(
        "example.com/no-such-label", 11, "label x is unknown", {"label": "x", "error_id": "y"}
    )
    with pytest.raises(errors.LedgerError) as caught:
        await relabel.run(contract, FailingUpdate(status), relabel.argument_type.decode({"newLabel": "x"}))  # type: ignore[arg-type]  # a failing stand-in
    failure = caught.value
    assert failure.code.id == "DAML_FAILURE" and failure.status == 404
    assert failure.cause == (
        "Interpretation error: Error: User failure: example.com/no-such-label (error category 11): label x is unknown"
    )
    body = failure.body()
    assert body["errorCategory"] == 11 and body["grpcCodeValue"] == 5
    # the metadata travel in the context, and cannot override the error id
    assert body["context"]["label"] == "x" and body["context"]["error_id"] == "example.com/no-such-label"


def test_fail_with_status_of_an_unknown_category_keeps_canton_s_default() -> None:
    failure = errors.daml_failure("e", 99, "m", {})
    assert failure.code is errors.DAML_FAILURE and failure.status == 400
    assert failure.cause.endswith("e (error category 9): m")


def test_a_failure_in_a_template_part_is_the_commands_error(lf_richtypes: LfPackages) -> None:
    rich = lf_richtypes.main.templates["RichTypes:RichRecord"]
    with pytest.raises(errors.LedgerError) as caught:
        rich.key(rich.argument_type.decode({**RICH, "owner": ALICE}))  # RichRecord has no key
    assert caught.value.code is errors.DAML_INTERPRETATION_ERROR and "Crash" in caught.value.cause


def rolled_back_relabel(lf_richtypes: LfPackages) -> Any:
    """A Relabel body written by hand: `try do archive self; create this; throw (GeneralError "no")
    catch _ -> Some (create this)`."""
    program = lf_richtypes.program
    rich = lf_richtypes.main.templates["RichTypes:RichRecord"].ref
    general = general_error(lf_richtypes, "no").payload.type
    template = program.packages.module(rich.package_id, rich.module).templates[rich.name]
    [archive] = [choice for choice in template.choices if choice.name == "Archive"]

    def update(**form: Any) -> ast.Expr:
        return E("update", N("Update", **form))

    def then(first: ast.Expr, rest: ast.Expr, name: str) -> ast.Expr:
        binding = N("Binding", binder=ast.Field(name, INT), bound=first)
        return update(block=N("Block", bindings=(binding,), body=rest))

    no_argument = E("rec_con", N("Expr.RecCon", tycon=archive.arg_type, fields=()))
    archive_self = update(
        exercise=N("Update.Exercise", template=rich, choice="Archive", cid=var("self"), arg=no_argument)
    )
    create_this = update(create=N("Update.Create", template=rich, expr=var("this")))
    payload = E(
        "rec_con", N("Expr.RecCon", tycon=general, fields=(N("F", field="message", expr=text("no")),))
    )
    thrown = E("throw", N("Expr.Throw", return_type=INT, exception_type=general, exception_expr=payload))
    throw_ = update(embed_expr=N("Update.EmbedExpr", type=INT, body=thrown))
    body = then(archive_self, then(create_this, throw_, "c"), "a")
    handler = E("optional_some", N("Expr.OptionalSome", type=INT, value=create_this))
    try_catch = update(
        try_catch=N("Update.TryCatch", return_type=INT, try_expr=body, var="e", catch_expr=handler)
    )
    return program.evaluate(lam("self this arg", try_catch))


async def test_a_caught_exception_commits_without_the_rolled_back_actions(
    harness: Harness, lf_richtypes: LfPackages, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = await create_rich(harness)
    program = lf_richtypes.program
    relabel, original = rolled_back_relabel(lf_richtypes), program.choice_update
    monkeypatch.setattr(
        program, "choice_update", lambda owner, name: relabel if name == "Relabel" else original(owner, name)
    )
    tx, result = await harness.exercise(cid, "Relabel", {"newLabel": "x"}, template=RICH_RECORD)
    exercise, create = tx.nodes  # the rolled-back archive and create left no node
    assert isinstance(exercise, ExerciseNode) and isinstance(create, CreateNode)
    assert exercise.children == [1] and exercise.last_descendant_node_id == 1 and create.node_id == 1
    assert [c.contract_id for c in tx.created] == [result] == [create.contract.contract_id]
    assert tx.archived == []
    assert set(harness.ledger.contracts) == {cid, result}  # the archive was rolled back: cid stays active


def test_an_exception_whose_message_throws_is_reported_with_daml_s_fallback_message(
    lf_richtypes: LfPackages, monkeypatch
) -> None:
    """Daml's engine: when computing the message of an uncaught exception throws another, the error keeps the first
    exception's type and says which exception was thrown during the conversion."""
    program = lf_richtypes.program
    arithmetic = program.arithmetic_error("ArithmeticError while evaluating (DIV_INT64 1 0).")

    def message_that_throws(function: Any, *args: Any) -> Any:  # the one call: the exception's message
        raise DamlThrow(arithmetic)

    monkeypatch.setattr(program, "call", message_that_throws)
    error = lf_richtypes.failure(general_error(lf_richtypes, "unused"))
    thrown = "DA.Exception.ArithmeticError:ArithmeticError"
    fallback = f"<Failed to calculate message as {thrown} was thrown during conversion>"
    assert error.code is errors.UNHANDLED_EXCEPTION
    assert error.cause.endswith(
        f"UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError (error category 9): {fallback}."
    )
    assert error.resources == [
        ("EXCEPTION_TYPE", "DA.Exception.GeneralError:GeneralError"),
        ("EXCEPTION_VALUE", fallback),
    ]
