"""Update expressions evaluate to update values; the runner performs them against ledger actions (here a fake
that records each call), one bind at a time on its own stack."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from participant.daml_lf import ast
from participant.daml_lf.eval import updates as u
from participant.daml_lf.eval.compile import compile_expr
from participant.daml_lf.eval.errors import DamlArithmeticError, DamlThrow
from participant.daml_lf.eval.machine import Machine
from participant.daml_lf.eval.program import Program
from participant.daml_lf.eval.values import Any as AnyValue
from participant.daml_lf.eval.values import (
    AnyException,
    ContractId,
    Party,
    Record,
    Some,
    Timestamp,
)
from participant.daml_lf.packages import PackageSet
from tests.daml_lf.eval.test_evaluator import (
    ERR,
    FALSE,
    INT,
    NIL_E,
    POINT,
    TRUE,
    E,
    N,
    Resolver,
    add,
    app,
    builtin,
    i,
    lam,
    messages,
    text,
    var,
)

T = ast.TypeConRef("pkg", "Main", "T")
IFACE = ast.TypeConRef("pkg", "Main", "I")
CID = ContractId("00" + "ab" * 32)
NOW = Timestamp(1_700_000_000_000_000)


class FakeLedger:
    """Ledger actions that record each call and answer from fixed values."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.tries = 0

    async def create(self, template: ast.TypeConRef, argument: Any) -> Any:
        self.calls.append(("create", template, argument))
        return CID

    async def fetch(self, template: ast.TypeConRef, contract_id: Any) -> Any:
        self.calls.append(("fetch", template, contract_id))
        return 42

    async def fetch_interface(self, interface: ast.TypeConRef, contract_id: Any) -> AnyValue:
        self.calls.append(("fetch_interface", interface, contract_id))
        return AnyValue(ast.TCon(T), 42)

    async def exercise(self, template: ast.TypeConRef, choice: str, contract_id: Any, argument: Any) -> Any:
        self.calls.append(("exercise", template, choice, contract_id, argument))
        return "exercised"

    async def exercise_interface(
        self,
        interface: ast.TypeConRef,
        choice: str,
        contract_id: Any,
        argument: Any,
        guard: Callable[[AnyValue], bool] | None,
    ) -> Any:
        accepted = None if guard is None else guard(AnyValue(ast.TCon(T), 5))
        self.calls.append(("exercise_interface", interface, choice, contract_id, argument, accepted))
        return "exercised"

    async def exercise_by_key(self, template: ast.TypeConRef, choice: str, key: Any, argument: Any) -> Any:
        self.calls.append(("exercise_by_key", template, choice, key, argument))
        return "exercised"

    async def fetch_by_key(self, template: ast.TypeConRef, key: Any) -> tuple[Any, Any]:
        self.calls.append(("fetch_by_key", template, key))
        return CID, 42

    async def lookup_by_key(self, template: ast.TypeConRef, key: Any) -> Any | None:
        self.calls.append(("lookup_by_key", template, key))
        return CID if key == 1 else None

    async def get_time(self) -> Any:
        self.calls.append(("get_time",))
        return NOW

    async def ledger_time_lt(self, time: Any) -> bool:
        self.calls.append(("ledger_time_lt", time))
        return bool(NOW < time)

    def begin_try(self) -> Any:
        self.tries += 1
        self.calls.append(("begin_try", self.tries))
        return self.tries

    def end_try(self, token: Any) -> None:
        self.calls.append(("end_try", token))

    def rollback_try(self, token: Any) -> None:
        self.calls.append(("rollback_try", token))


def _pair(first: Any, second: Any) -> Record:
    return Record(POINT, ("x", "y"), (first, second))


def perform(
    expr: ast.Expr, ledger: FakeLedger | None = None, machine: Machine | None = None
) -> tuple[Any, list[tuple[Any, ...]]]:
    """The result of the update ``expr`` evaluates to, and the ledger calls it made."""
    ledger = ledger or FakeLedger()
    node, size = compile_expr(expr, Resolver(), "test")
    machine = machine or Machine(messages)
    update = machine.run(node, [(), *(None,) * (size - 1)])
    assert isinstance(update, u.UpdateValue)
    return asyncio.run(u.run_update(machine, update, ledger, _pair)), ledger.calls


def upd(**form: Any) -> ast.Expr:
    return E("update", N("Update", **form))


def pure(expr: ast.Expr) -> ast.Expr:
    return upd(pure=N("Update.Pure", type=INT, expr=expr))


def block(bindings: list[tuple[str, ast.Expr]], body: ast.Expr) -> ast.Expr:
    binds = tuple(N("Binding", binder=ast.Field(name, INT), bound=bound) for name, bound in bindings)
    return upd(block=N("Block", bindings=binds, body=body))


def create(argument: ast.Expr) -> ast.Expr:
    return upd(create=N("Update.Create", template=T, expr=argument))


def throw(message: str) -> ast.Expr:
    payload = E(
        "rec_con", N("Expr.RecCon", tycon=ast.TCon(ERR), fields=(N("F", field="msg", expr=text(message)),))
    )
    return E("throw", N("Expr.Throw", return_type=INT, exception_type=ast.TCon(ERR), exception_expr=payload))


def cid() -> ast.Expr:
    return E("builtin_lit", N("BuiltinLit", text=str(CID)))


def test_an_update_expression_is_a_value_until_run() -> None:
    node, size = compile_expr(create(i(1)), Resolver(), "test")
    update = Machine(messages).run(node, [(), *(None,) * (size - 1)])
    assert isinstance(update, u.Create) and update.template == T and update.argument == 1
    assert perform(upd(get_time=N("Unit")))[0] == NOW


def test_block_binds_each_result_for_the_rest() -> None:
    fetch = upd(fetch=N("Update.Fetch", template=T, cid=var("c")))
    result, calls = perform(block([("c", create(i(7))), ("v", fetch)], pure(add(var("v"), i(1)))))
    assert result == 43
    assert calls == [("create", T, 7), ("fetch", T, CID)]


def test_every_ledger_action() -> None:
    exercise = upd(exercise=N("Update.Exercise", template=T, choice="Go", cid=cid(), arg=i(1)))
    by_key = upd(exercise_by_key=N("Update.ExerciseByKey", template=T, choice="Go", key=i(2), arg=i(3)))
    guard = lam("v", TRUE)
    via_interface = upd(
        exercise_interface=N(
            "Update.ExerciseInterface", interface=IFACE, choice="Do", cid=cid(), arg=i(4), guard=guard
        )
    )
    unguarded = upd(
        exercise_interface=N("Update.ExerciseInterface", interface=IFACE, choice="Do", cid=cid(), arg=i(5))
    )
    fetch_by_key = app(upd(fetch_by_key=N("Update.RetrieveByKey", template=T)), i(1))
    found = app(upd(lookup_by_key=N("Update.RetrieveByKey", template=T)), i(1))
    missing = app(upd(lookup_by_key=N("Update.RetrieveByKey", template=T)), i(2))
    fetched_interface = upd(fetch_interface=N("Update.FetchInterface", interface=IFACE, cid=cid()))
    earlier = upd(ledger_time_lt=E("builtin_lit", N("BuiltinLit", timestamp=int(NOW) + 1)))
    steps = [
        exercise,
        by_key,
        via_interface,
        unguarded,
        fetch_by_key,
        found,
        missing,
        fetched_interface,
        earlier,
    ]
    names = [f"r{index}" for index in range(len(steps))]
    tuple_of = E("struct_con", N("Expr.StructCon", fields=tuple(N("F", field=n, expr=var(n)) for n in names)))
    result, calls = perform(block(list(zip(names, steps, strict=True)), pure(tuple_of)))
    pair, some, none, interface_value, lt = result.values[4:]
    assert result.values[:4] == ("exercised",) * 4
    assert pair.values == (CID, 42) and type(some) is Some and some.value == CID and none is None
    assert interface_value.type == ast.TCon(T) and interface_value.value == 42 and lt is True
    assert calls == [
        ("exercise", T, "Go", CID, 1),
        ("exercise_by_key", T, "Go", 2, 3),
        ("exercise_interface", IFACE, "Do", CID, 4, True),
        ("exercise_interface", IFACE, "Do", CID, 5, None),
        ("fetch_by_key", T, 1),
        ("lookup_by_key", T, 1),
        ("lookup_by_key", T, 2),
        ("fetch_interface", IFACE, CID),
        ("ledger_time_lt", NOW + 1),
    ]


def test_create_interface_creates_the_template_of_the_value() -> None:
    value = E(
        "to_interface", N("Expr.ToInterface", interface_type=IFACE, template_type=T, template_expr=i(9))
    )
    assert perform(upd(create_interface=N("Update.CreateInterface", interface=IFACE, expr=value))) == (
        CID,
        [("create", T, 9)],
    )


def test_embed_evaluates_its_body_when_run() -> None:
    # An embedded expression that fails is harmless until the update runs.
    embedded = upd(embed_expr=N("Update.EmbedExpr", type=INT, body=app(builtin("ERROR"), text("late"))))
    node, size = compile_expr(embedded, Resolver(), "test")
    assert isinstance(Machine(messages).run(node, [(), *(None,) * (size - 1)]), u.Embed)
    assert perform(upd(embed_expr=N("Update.EmbedExpr", type=INT, body=create(i(3))))) == (
        CID,
        [("create", T, 3)],
    )


def try_catch(body: ast.Expr, handler: ast.Expr) -> ast.Expr:
    return upd(try_catch=N("Update.TryCatch", return_type=INT, try_expr=body, var="e", catch_expr=handler))


def some(expr: ast.Expr) -> ast.Expr:
    return E("optional_some", N("Expr.OptionalSome", type=INT, value=expr))


NONE = E("optional_none", N("Expr.OptionalNone", type=INT))


def test_try_catch_rolls_back_the_body_and_runs_the_handler() -> None:
    body = block([("c", create(i(1)))], E("throw", throw("boom").value))
    result, calls = perform(try_catch(body, some(pure(i(7)))))
    assert result == 7
    assert calls == [("begin_try", 1), ("create", T, 1), ("rollback_try", 1)]
    # a body that throws nothing keeps its actions
    assert perform(try_catch(create(i(2)), some(pure(i(7))))) == (
        CID,
        [("begin_try", 1), ("create", T, 2), ("end_try", 1)],
    )


def test_an_exception_no_handler_takes_goes_on() -> None:
    with pytest.raises(DamlThrow) as thrown:
        perform(try_catch(block([("c", create(i(1)))], throw("boom")), NONE))
    assert isinstance(thrown.value.payload, AnyException) and thrown.value.payload.value.values == ("boom",)
    inner = try_catch(throw("first"), some(throw("second")))
    result, calls = perform(try_catch(inner, some(pure(i(8)))))
    assert result == 8
    assert calls == [("begin_try", 1), ("begin_try", 2), ("rollback_try", 2), ("rollback_try", 1)]


class RollingLedger(FakeLedger):
    """A fake ledger that keeps the arguments of its creates and rolls them back as the engine does."""

    def __init__(self) -> None:
        super().__init__()
        self.live: list[Any] = []

    async def create(self, template: ast.TypeConRef, argument: Any) -> Any:
        self.live.append(argument)
        return await super().create(template, argument)

    def begin_try(self) -> Any:
        super().begin_try()
        return len(self.live)

    def rollback_try(self, token: Any) -> None:
        super().rollback_try(token)
        del self.live[token:]


def live_after(expr: ast.Expr, machine: Machine | None = None) -> list[Any]:
    ledger = RollingLedger()
    perform(expr, ledger, machine)
    return ledger.live


def then(first: ast.Expr, *rest: ast.Expr) -> ast.Expr:
    """``first`` then each of ``rest``, the last one's result the block's."""
    *middle, last = (first, *rest)
    return block([(f"_{index}", step) for index, step in enumerate(middle)], last)


def throws(message: str) -> ast.Expr:
    return upd(embed_expr=N("Update.EmbedExpr", type=INT, body=throw(message)))


def test_a_caught_exception_rolls_back_the_body_and_keeps_the_handlers_actions() -> None:
    assert live_after(try_catch(then(create(i(1)), throws("boom")), some(create(i(2))))) == [2]
    assert live_after(
        then(create(i(0)), try_catch(then(create(i(1)), throws("boom")), some(create(i(2)))))
    ) == [
        0,
        2,
    ]


def test_nested_tries_roll_back_only_what_the_exception_left() -> None:
    inner = try_catch(then(create(i(2)), throws("inner")), some(create(i(3))))
    kept = try_catch(then(create(i(1)), inner, create(i(4))), some(create(i(9))))
    assert live_after(kept) == [1, 3, 4]
    # the outer body fails after the inner try: everything the inner one kept goes too
    dropped = try_catch(then(create(i(1)), inner, throws("outer")), some(create(i(9))))
    assert live_after(dropped) == [9]


def test_a_handler_that_rethrows_hands_the_exception_to_the_next_handler() -> None:
    rethrowing = try_catch(then(create(i(1)), throws("first")), some(then(create(i(2)), throws("second"))))
    assert live_after(try_catch(then(create(i(0)), rethrowing), some(create(i(9))))) == [9]
    with pytest.raises(DamlThrow) as thrown:
        live_after(rethrowing)
    assert thrown.value.payload.value.values == ("second",)


ARITHMETIC = ast.TypeConRef("stdlib", "DA.Exception.ArithmeticError", "ArithmeticError")


def arithmetic_error(message: str) -> AnyException:
    return AnyException(ast.TCon(ARITHMETIC), Record(ARITHMETIC, ("message",), (message,)))


def test_an_arithmetic_error_is_caught_as_the_standard_librarys_arithmetic_error() -> None:
    division = pure(app(builtin("DIV_INT64"), i(1), i(0)))
    caught = E("from_any_exception", N("Expr.FromAnyException", type=ast.TCon(ARITHMETIC), expr=var("e")))
    handler = some(create(caught))
    [argument] = live_after(
        try_catch(then(create(i(1)), division), handler), Machine(messages, arithmetic_error)
    )
    assert type(argument) is Some and argument.value.tycon == ARITHMETIC
    assert argument.value.values == ("ArithmeticError while evaluating (DIV_INT64 1 0).",)
    # a handler for another exception type lets it go on, as the same exception
    other = E("from_any_exception", N("Expr.FromAnyException", type=ast.TCon(ERR), expr=var("e")))
    declining = try_catch(division, E("optional_none", N("Expr.OptionalNone", type=INT)))
    with pytest.raises(DamlThrow) as thrown:
        live_after(declining, Machine(messages, arithmetic_error))
    assert live_after(try_catch(declining, some(create(other))), Machine(messages, arithmetic_error)) == [
        None
    ]
    assert thrown.value.payload.type == ast.TCon(ARITHMETIC)
    # without the standard library's type it stays the evaluator's own error
    with pytest.raises(DamlArithmeticError):
        live_after(try_catch(division, handler))


def test_the_program_finds_arithmetic_error_in_its_packages(richtypes: PackageSet) -> None:
    exception = Program(richtypes).arithmetic_error("m")
    assert exception is not None and isinstance(exception.type, ast.TCon)
    tycon = exception.type.tycon
    assert (tycon.module, tycon.name) == ("DA.Exception.ArithmeticError", "ArithmeticError")
    assert exception.value.fields == ("message",) and exception.value.values == ("m",)


def test_long_bind_chains_use_no_python_stack() -> None:
    count = 5000
    items = E("cons", N("Expr.Cons", type=INT, front=tuple(i(n) for n in range(count)), tail=NIL_E))
    # foldl nests to the left: ((pure 0 >>= add 0) >>= add 1) ...
    step_left = lam("acc x", block([("v", var("acc"))], pure(add(var("v"), var("x")))))
    assert perform(app(builtin("FOLDL"), step_left, pure(i(0)), items))[0] == sum(range(count))
    # foldr nests to the right: get_time >>= \\_ -> (get_time >>= \\_ -> ...)
    step_right = lam("x acc", block([("t", upd(get_time=N("Unit")))], var("acc")))
    result, calls = perform(app(builtin("FOLDR"), step_right, pure(FALSE), items))
    assert result is False and len(calls) == count


def test_richtypes_relabel_creates_the_relabelled_contract(richtypes: PackageSet) -> None:
    program = Program(richtypes)
    owner = next(ref for ref in _templates(richtypes) if ref.name == "RichRecord")
    fields = program.record_fields(owner)
    contract = Record(owner, fields, tuple(Party("alice::1") if f == "owner" else f for f in fields))
    argument_type = ast.TypeConRef(owner.package_id, owner.module, "Relabel")
    argument = Record(argument_type, program.record_fields(argument_type), ("renamed",))
    update = program.call(program.choice_update(owner, "Relabel"), CID, contract, argument)
    ledger = FakeLedger()
    assert asyncio.run(program.run_update(update, ledger)) == CID
    [(action, template, created)] = ledger.calls
    assert (action, template) == ("create", owner)
    assert dict(zip(created.fields, created.values, strict=True)) == {
        **{f: f for f in fields},
        "owner": Party("alice::1"),
        "label": "renamed",
    }


def _templates(packages: PackageSet) -> list[ast.TypeConRef]:
    main = packages.main
    return [
        ast.TypeConRef(main.package_id, module.name, name)
        for module in main.modules.values()
        for name in module.templates
    ]


def test_the_runner_lets_other_tasks_in_between_ledger_actions(monkeypatch) -> None:
    """The fake ledger never suspends, so only the runner's own yields let another task run in between."""
    monkeypatch.setattr(u, "SLICE_S", 0.0)
    ledger, seen = FakeLedger(), []
    node, size = compile_expr(
        block([("a", create(i(1))), ("b", create(i(2)))], pure(i(3))), Resolver(), "test"
    )
    machine = Machine(messages)
    update = machine.run(node, [(), *(None,) * (size - 1)])

    async def other() -> None:
        while len(ledger.calls) < 2:
            seen.append(len(ledger.calls))
            await asyncio.sleep(0)

    async def both() -> Any:
        result, _ = await asyncio.gather(u.run_update(machine, update, ledger, _pair), other())
        return result

    assert asyncio.run(both()) == 3
    assert 1 in seen  # the other task ran after the first create and before the second
