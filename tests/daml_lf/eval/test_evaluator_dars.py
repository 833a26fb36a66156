"""The evaluator on real code: the standard library and splice-amulet of the reference DARs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from participant.daml_lf import ast
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.compile import compile_expr
from participant.daml_lf.eval.errors import DamlThrow, EvaluationError
from participant.daml_lf.eval.machine import BuiltinFunction
from participant.daml_lf.eval.program import Program
from participant.daml_lf.eval.values import AnyException, Party, Record, Variant, list_of
from participant.daml_lf.expressions import decode_expr
from participant.daml_lf.packages import PackageSet


@pytest.fixture(scope="module")
def program(amulet: PackageSet) -> Program:
    return Program(amulet)


def value(program: Program, package: str, module: str, name: str) -> Any:
    ids = [pid for pid, p in program.packages.packages.items() if p.name == package and module in p.modules]
    assert len(ids) == 1, (package, module)
    return program.value(ast.ValueRef(ids[0], module, name))


def prim(program: Program, module: str, name: str) -> Any:
    return value(program, "daml-prim", module, name)


def std(program: Program, module: str, name: str) -> Any:
    return value(program, "daml-stdlib", module, name)


def test_list_functions_with_their_dictionaries(program: Program) -> None:
    ord_int = prim(program, "GHC.Classes", "$$fOrdInt")
    ord_text = prim(program, "GHC.Classes", "$$fOrdText")
    sort = std(program, "DA.List", "sort")
    assert list(program.call(sort, ord_int, list_of([5, 3, 9, 1, 3]))) == [1, 3, 3, 5, 9]
    assert list(program.call(sort, ord_text, list_of(["b", "a", "c"]))) == ["a", "b", "c"]
    assert list(program.call(std(program, "DA.List", "dedup"), ord_int, list_of([5, 3, 5, 1, 3]))) == [
        5,
        3,
        1,
    ]
    assert list(program.call(std(program, "DA.List", "dedupSort"), ord_int, list_of([5, 3, 5, 1]))) == [
        1,
        3,
        5,
    ]


def test_text_functions(program: Program) -> None:
    assert program.call(std(program, "DA.Text", "intercalate"), ", ", list_of(["a", "b", "c"])) == "a, b, c"
    assert list(program.call(std(program, "DA.Text", "splitOn"), ",", "x,y,,z")) == ["x", "y", "", "z"]
    assert program.call(std(program, "DA.Text", "isPrefixOf"), "ab", "abc") is True
    assert list(program.call(std(program, "DA.Text", "words"), " hello  world ")) == ["hello", "world"]


def test_show_through_its_dictionary(program: Program) -> None:
    show = prim(program, "GHC.Show", "show")
    assert program.call(show, prim(program, "GHC.Show", "$$fShowInt"), -42) == "-42"
    assert program.call(show, prim(program, "GHC.Show", "$$fShowText"), 'a"b') == '"a\\"b"'


def test_sum_over_100000_elements(program: Program) -> None:
    count = 100_000
    total = program.call(
        std(program, "DA.Internal.Prelude", "sum"),
        prim(program, "GHC.Num", "$$fAdditiveInt"),
        list_of(range(count)),
    )
    assert total == count * (count - 1) // 2
    length = std(program, "DA.Internal.Prelude", "length")
    assert program.call(length, list_of(range(count))) == count


def test_foldl_with_a_builtin_over_numerics(program: Program) -> None:
    foldl = std(program, "DA.Internal.Prelude", "foldl")
    add = BuiltinFunction(BUILTINS["ADD_NUMERIC"])
    total = program.call(foldl, add, Decimal("0E-10"), list_of([Decimal("1.5000000000")] * 3))
    assert total == Decimal("4.5") and total.as_tuple().exponent == -10


def test_numeric_sum_and_show_through_scale_dictionaries(program: Program) -> None:
    # Additive (Numeric 10) from the NumericScale 10 instance: the scale reaches ADD_NUMERIC as the dictionary's value
    additive = program.call(
        prim(program, "GHC.Num", "$$fAdditiveNumeric"), prim(program, "GHC.Classes", "$$fNumericScale10")
    )
    total = program.call(
        std(program, "DA.Internal.Prelude", "sum"), additive, list_of([Decimal("1.2500000000")] * 4)
    )
    assert total == Decimal("5") and total.as_tuple().exponent == -10
    # Show (Numeric n) needs no scale: Λn:nat. {…} waits for its type; calling it with no argument applies it
    show_numeric = program.call(prim(program, "GHC.Show", "$$fShowNumeric"))
    assert program.call(prim(program, "GHC.Show", "show"), show_numeric, total) == "5.0"


def test_every_body_of_richtypes_compiles(richtypes: PackageSet) -> None:
    # Values, and every expression of templates, choices, keys, interface instances and exceptions, each as a
    # function of the variables it may use (the template's parameter, a choice's self and argument binders).
    program = Program(richtypes)
    count = 0

    def compile_body(body: ast.ExprBody | None, *params: str) -> None:
        nonlocal count
        if body is None:
            return
        expr = decode_expr(body)
        if params:
            fields = tuple(ast.Field(name, ast.TBuiltin("UNIT")) for name in params)
            expr = ast.Expr("abs", ast.Node("Expr.Abs", (("param", fields), ("body", expr))))
        compile_expr(expr, program, "test")
        count += 1

    for package_id, package in richtypes.packages.items():
        for module in package.modules.values():
            for name in module.values:
                program.compile_definition(ast.ValueRef(package_id, module.name, name))
                count += 1
            for template in module.templates.values():
                this = template.param
                for body in (template.precondition, template.signatories, template.observers):
                    compile_body(body, this)
                if template.key is not None:
                    compile_body(template.key.body, this)
                    compile_body(template.key.maintainers)
                for choice in template.choices:
                    for body in (choice.controllers, choice.observers, choice.authorizers):
                        compile_body(body, this, choice.arg_binder)
                    compile_body(choice.update, this, choice.self_binder, choice.arg_binder)
                for instance in template.implements:
                    compile_body(instance.view, this)
                    for _, method in instance.methods:
                        compile_body(method, this)
            for interface in module.interfaces.values():
                for choice in interface.choices:
                    for body in (choice.controllers, choice.observers, choice.authorizers):
                        compile_body(body, interface.param, choice.arg_binder)
                    compile_body(choice.update, interface.param, choice.self_binder, choice.arg_binder)
            for exception in module.exceptions.values():
                compile_body(exception.message)
    assert count > 1000


def test_interface_view_and_type_of_a_real_template(program: Program) -> None:
    # An Amulet seen as a token-standard Holding: its view is computed by Amulet's own instance code.
    main = program.packages.main_package_id
    amulet_t = ast.TypeConRef(main, "Splice.Amulet", "Amulet")
    holding_t = next(
        i.interface for i in program.packages.template(amulet_t).implements if i.interface.name == "Holding"
    )

    def record(module: str, name: str, *values: Any) -> Record:
        tycon = ast.TypeConRef(main, module, name)
        return Record(tycon, program.record_fields(tycon), values)

    amount = record(
        "Splice.Fees",
        "ExpiringAmount",
        Decimal("12.5000000000"),
        record("Splice.Types", "Round", 7),
        record("Splice.Fees", "RatePerRound", Decimal("0.0100000000")),
    )
    dso, owner = Party("dso::1220"), Party("alice::1220")
    contract = record("Splice.Amulet", "Amulet", dso, owner, amount)

    def expr(kind: str, **fields: Any) -> ast.Expr:
        return ast.Expr(kind, ast.Node(kind, tuple(fields.items())))

    as_holding = expr(
        "to_interface", interface_type=holding_t, template_type=amulet_t, template_expr=_var("c")
    )
    body = ast.Expr(
        "struct_con",
        ast.Node(
            "Expr.StructCon",
            (
                (
                    "fields",
                    (
                        ast.Node(
                            "F",
                            (
                                ("field", "view"),
                                ("expr", expr("view_interface", interface=holding_t, expr=as_holding)),
                            ),
                        ),
                        ast.Node(
                            "F",
                            (
                                ("field", "rep"),
                                (
                                    "expr",
                                    expr("interface_template_type_rep", interface=holding_t, expr=as_holding),
                                ),
                            ),
                        ),
                        ast.Node(
                            "F",
                            (
                                ("field", "signatories"),
                                ("expr", expr("signatory_interface", interface=holding_t, expr=as_holding)),
                            ),
                        ),
                        ast.Node(
                            "F",
                            (
                                ("field", "back"),
                                (
                                    "expr",
                                    expr(
                                        "from_interface",
                                        interface_type=holding_t,
                                        template_type=amulet_t,
                                        interface_expr=as_holding,
                                    ),
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
    )
    function = program.evaluate(
        ast.Expr(
            "abs", ast.Node("Expr.Abs", (("param", (ast.Field("c", ast.TBuiltin("UNIT")),)), ("body", body)))
        )
    )
    result = program.call(function, contract)
    back, rep, signatories, view = result.values
    assert back.value is contract
    assert rep.type == ast.TCon(amulet_t)
    assert set(signatories) == {dso, owner}
    fields = dict(zip(view.fields, view.values, strict=True))
    assert fields["owner"] == owner and fields["amount"] == Decimal("12.5")
    instrument = dict(zip(fields["instrumentId"].fields, fields["instrumentId"].values, strict=True))
    assert instrument == {"admin": dso, "id": "Amulet"}


def _var(name: str) -> ast.Expr:
    return ast.Expr("var", name)


def test_exception_messages_come_from_the_exception_definitions(program: Program) -> None:
    main = program.packages.main_package_id
    general = next(
        ast.TypeConRef(pid, "DA.Exception.GeneralError", "GeneralError")
        for pid, p in program.packages.packages.items()
        if "DA.Exception.GeneralError" in p.modules
    )
    message = BuiltinFunction(BUILTINS["ANY_EXCEPTION_MESSAGE"])
    error = AnyException(ast.TCon(general), Record(general, ("message",), ("it broke",)))
    assert program.call(message, error) == "it broke"
    # splice-amulet's own exception: its message shows the reason through the Show instance Daml derived
    invalid = ast.TypeConRef(main, "Splice.AmuletRules", "InvalidTransfer")
    invalid_cons = program.packages.data_type(invalid).cons
    assert isinstance(invalid_cons, ast.Record)
    reason_type = invalid_cons.fields[0].type
    assert isinstance(reason_type, ast.TCon)
    other = ast.TypeConRef(main, "Splice.AmuletRules", "InvalidTransferReason.ITR_Other")
    payload = Record(other, ("description",), ("why",))
    rank = program.variant_rank(reason_type.tycon, "ITR_Other")
    reason = Variant(reason_type.tycon, "ITR_Other", rank, payload)
    text = program.call(message, AnyException(ast.TCon(invalid), Record(invalid, ("reason",), (reason,))))
    assert "ITR_Other" in text and "why" in text


def test_top_level_values_are_evaluated_once(program: Program) -> None:
    first = prim(program, "GHC.Classes", "$$fOrdInt")
    assert prim(program, "GHC.Classes", "$$fOrdInt") is first
    # a value whose evaluation fails is not kept: each reference fails again
    for _ in range(2):
        with pytest.raises(DamlThrow):
            std(program, "DA.Internal.Prelude", "undefined")


def test_every_top_level_value_evaluates_or_fails_as_daml(amulet: PackageSet) -> None:
    # Evaluating each definition of splice-amulet and its dependencies (most give functions or dictionaries) ends
    # in a value or in an evaluation error of the program: the markers GHC leaves ($$imports …) are 'error' calls,
    # 'undefined' throws when referenced (types are erased, as in Daml's interpreter), and update values are not
    # run yet. Any other Python exception would be a bug of the evaluator.
    program = Program(amulet)
    failures: dict[str, int] = {}
    values = 0
    for package_id, package in amulet.packages.items():
        for module in package.modules.values():
            for name in module.values:
                try:
                    program.value(ast.ValueRef(package_id, module.name, name))
                    values += 1
                except EvaluationError as error:
                    where = "marker" if name.startswith("$$$$") else name
                    failures[f"{where} {type(error).__name__}"] = (
                        failures.get(f"{where} {type(error).__name__}", 0) + 1
                    )
    assert values > 9000
    assert set(failures) <= {
        "marker UserError",
        "marker DamlThrow",
        "marker NotEvaluable",
        "undefined DamlThrow",
        "absentSumFieldError DamlThrow",
        "minstd_initFromTime NotEvaluable",
    }
