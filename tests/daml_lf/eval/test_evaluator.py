"""The evaluator on hand-built expressions: one or more tests per expression form."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from participant.daml_lf import ast
from participant.daml_lf.errors import MalformedArchive
from participant.daml_lf.eval.compile import Node, NotEvaluable, compile_expr
from participant.daml_lf.eval.errors import DamlArithmeticError, DamlThrow, UserError
from participant.daml_lf.eval.machine import Machine, PartialApp
from participant.daml_lf.eval.values import (
    NIL,
    UNIT,
    AnyException,
    Cons,
    Date,
    Enum,
    Record,
    Some,
    Struct,
    Timestamp,
    TypeRep,
    Variant,
    list_of,
)
from participant.daml_lf.eval.values import Any as AnyValue

PKG = "pkg"
POINT = ast.TypeConRef(PKG, "Main", "Point")
SHAPE = ast.TypeConRef(PKG, "Main", "Shape")
COLOR = ast.TypeConRef(PKG, "Main", "Color")
ERR = ast.TypeConRef(PKG, "Main", "Err")
INT = ast.TBuiltin("INT64")


class Resolver:
    def __init__(self) -> None:
        self.top: dict[ast.ValueRef, Node] = {}

    def record_fields(self, tycon: ast.TypeConRef) -> tuple[str, ...]:
        return {POINT: ("x", "y"), ERR: ("msg",)}[tycon]

    def variant_rank(self, tycon: ast.TypeConRef, constructor: str) -> int:
        return ("Circle", "Square").index(constructor)

    def enum_rank(self, tycon: ast.TypeConRef, constructor: str) -> int:
        return ("Red", "Green", "Blue").index(constructor)

    def top_level(self, ref: ast.ValueRef) -> Node:
        return self.top[ref]

    def template_function(self, template: ast.TypeConRef, part: str, name: str = "") -> Any:
        raise AssertionError("no templates here")

    def implements(self, template: ast.TypeConRef, interface: ast.TypeConRef) -> bool:
        raise AssertionError("no interfaces here")


def messages(type_: ast.TCon) -> Any:
    raise AssertionError("no exception messages here")


def run(expr: ast.Expr, resolver: Resolver | None = None) -> Any:
    node, size = compile_expr(expr, resolver or Resolver(), "test")
    return Machine(messages).run(node, [(), *(None,) * (size - 1)])


def E(kind: str, value: Any) -> ast.Expr:
    return ast.Expr(kind, value)


def N(message: str, **fields: Any) -> ast.Node:
    return ast.Node(message, tuple(fields.items()))


def var(name: str) -> ast.Expr:
    return E("var", name)


def i(value: int) -> ast.Expr:
    return E("builtin_lit", N("BuiltinLit", int64=value))


def text(value: str) -> ast.Expr:
    return E("builtin_lit", N("BuiltinLit", text=value))


def builtin(name: str) -> ast.Expr:
    return E("builtin", name)


def app(function: ast.Expr, *args: ast.Expr) -> ast.Expr:
    return E("app", N("Expr.App", fun=function, args=args))


def lam(params: str, body: ast.Expr) -> ast.Expr:
    return E("abs", N("Expr.Abs", param=tuple(ast.Field(p, INT) for p in params.split()), body=body))


def let(bindings: list[tuple[str, ast.Expr]], body: ast.Expr) -> ast.Expr:
    return E(
        "let",
        N(
            "Block",
            bindings=tuple(N("Binding", binder=ast.Field(n, INT), bound=b) for n, b in bindings),
            body=body,
        ),
    )


def case(scrutinee: ast.Expr, *alternatives: tuple[str, Any, ast.Expr]) -> ast.Expr:
    alts = tuple(
        ast.Node("CaseAlt", ((pattern, shape), ("body", body))) for pattern, shape, body in alternatives
    )
    return E("case", N("Case", scrut=scrutinee, alts=alts))


def add(a: ast.Expr, b: ast.Expr) -> ast.Expr:
    return app(builtin("ADD_INT64"), a, b)


def cons(front: list[ast.Expr], tail: ast.Expr) -> ast.Expr:
    return E("cons", N("Expr.Cons", type=INT, front=tuple(front), tail=tail))


NIL_E = E("nil", N("Expr.Nil", type=INT))
TRUE = E("builtin_con", "CON_TRUE")
FALSE = E("builtin_con", "CON_FALSE")


def test_literals() -> None:
    assert run(i(-7)) == -7
    assert run(text("é")) == "é"
    numeric = run(E("builtin_lit", N("BuiltinLit", numeric="1.5000000000")))
    assert numeric == Decimal("1.5") and numeric.as_tuple().exponent == -10
    assert run(E("builtin_lit", N("BuiltinLit", date=3))) == Date(3)
    assert type(run(E("builtin_lit", N("BuiltinLit", timestamp=5)))) is Timestamp
    assert run(E("builtin_lit", N("BuiltinLit", rounding_mode="HALF_EVEN"))) == 6
    assert run(E("builtin_con", "CON_UNIT")) is UNIT
    assert run(TRUE) is True


def test_lambda_application_and_shadowing() -> None:
    assert run(app(lam("x y", app(builtin("SUB_INT64"), var("x"), var("y"))), i(10), i(3))) == 7
    # the inner x shadows the outer one; y is captured from the enclosing lambda
    inner = lam("x", add(var("x"), var("y")))
    assert run(app(lam("x y", app(inner, i(100))), i(1), i(2))) == 102


def test_partial_and_over_application() -> None:
    curried = lam("x", lam("y", app(builtin("SUB_INT64"), var("x"), var("y"))))
    assert run(app(curried, i(10), i(4))) == 6  # over-application: the result is applied to the rest
    binary = lam("x y", app(builtin("SUB_INT64"), var("x"), var("y")))
    assert isinstance(run(app(binary, i(1))), PartialApp)
    assert run(let([("f", app(binary, i(10)))], app(var("f"), i(1)))) == 9
    assert run(let([("inc", app(builtin("ADD_INT64"), i(1)))], app(var("inc"), i(41)))) == 42


def test_types_are_erased() -> None:
    identity = E("ty_abs", N("Expr.TyAbs", param=(ast.TypeVar("a", ast.KStar()),), body=lam("x", var("x"))))
    assert run(app(E("ty_app", N("Expr.TyApp", expr=identity, types=(INT,))), i(5))) == 5


def ty_abs(name: str, kind: ast.Kind, body: ast.Expr) -> ast.Expr:
    return E("ty_abs", N("Expr.TyAbs", param=(ast.TypeVar(name, kind),), body=body))


def ty_app(expr: ast.Expr, type_: ast.Type) -> ast.Expr:
    return E("ty_app", N("Expr.TyApp", expr=expr, types=(type_,)))


def test_type_abstractions_over_nat_wait_for_their_type() -> None:
    failing = app(builtin("ERROR"), text("boom"))
    with pytest.raises(UserError):  # an erasable kind: erased, so its body is evaluated
        run(ty_abs("a", ast.KStar(), failing))
    delayed = ty_abs("n", ast.KNat(), failing)
    run(delayed)  # a value: Λn:nat. e is not evaluated until a type is applied to it
    with pytest.raises(UserError, match="boom"):
        run(ty_app(delayed, ast.TNat(10)))
    # applied to a type variable bound with kind nat, inside another nat abstraction
    inner = ty_abs("m", ast.KNat(), i(5))
    outer = ty_abs("n", ast.KNat(), ty_app(inner, ast.TVar("n")))
    assert run(ty_app(outer, ast.TNat(3))) == 5
    # a type application of an erasable kind leaves the abstraction alone
    assert run(ty_app(ty_abs("a", ast.KStar(), i(7)), INT)) == 7


def test_let_bindings_see_earlier_ones() -> None:
    assert run(let([("a", i(2)), ("b", add(var("a"), var("a")))], add(var("a"), var("b")))) == 6


def test_records() -> None:
    tycon = ast.TCon(POINT)
    point = E(
        "rec_con",
        N("Expr.RecCon", tycon=tycon, fields=(N("F", field="x", expr=i(1)), N("F", field="y", expr=i(2)))),
    )
    value = run(point)
    assert isinstance(value, Record) and value.fields == ("x", "y") and value.values == (1, 2)
    assert run(E("rec_proj", N("Expr.RecProj", tycon=tycon, field="y", record=point))) == 2
    updated = run(E("rec_upd", N("Expr.RecUpd", tycon=tycon, field="x", record=point, update=i(9))))
    assert updated.values == (9, 2)
    wrong_order = N(
        "Expr.RecCon", tycon=tycon, fields=(N("F", field="y", expr=i(1)), N("F", field="x", expr=i(2)))
    )
    with pytest.raises(MalformedArchive):
        run(E("rec_con", wrong_order))


def test_variants_enums_and_case() -> None:
    square = E(
        "variant_con", N("Expr.VariantCon", tycon=ast.TCon(SHAPE), variant_con="Square", variant_arg=i(4))
    )
    value = run(square)
    assert isinstance(value, Variant) and (value.constructor, value.rank, value.value) == ("Square", 1, 4)
    area = case(
        square,
        ("variant", N("CaseAlt.Variant", con=SHAPE, variant="Circle", binder="r"), i(0)),
        (
            "variant",
            N("CaseAlt.Variant", con=SHAPE, variant="Square", binder="s"),
            app(builtin("MUL_INT64"), var("s"), var("s")),
        ),
    )
    assert run(area) == 16
    blue = E("enum_con", N("Expr.EnumCon", tycon=COLOR, enum_con="Blue"))
    enum = run(blue)
    assert isinstance(enum, Enum) and (enum.tycon, enum.constructor, enum.rank) == (COLOR, "Blue", 2)
    assert (
        run(
            case(
                blue, ("enum", N("CaseAlt.Enum", con=COLOR, constructor="Red"), i(1)), ("default", True, i(2))
            )
        )
        == 2
    )


def test_case_on_builtin_forms() -> None:
    assert run(case(FALSE, ("builtin_con", "CON_TRUE", i(1)), ("builtin_con", "CON_FALSE", i(0)))) == 0
    assert run(case(E("builtin_con", "CON_UNIT"), ("builtin_con", "CON_UNIT", i(3)))) == 3
    lst = cons([i(1), i(2)], NIL_E)
    head = case(lst, ("nil", True, i(-1)), ("cons", N("CaseAlt.Cons", var_head="h", var_tail="t"), var("h")))
    assert run(head) == 1
    assert (
        run(
            case(
                NIL_E,
                ("cons", N("CaseAlt.Cons", var_head="h", var_tail="t"), var("h")),
                ("default", True, i(-1)),
            )
        )
        == -1
    )
    some = E("optional_some", N("Expr.OptionalSome", type=INT, value=i(8)))
    none = E("optional_none", N("Expr.OptionalNone", type=INT))
    get = (
        ("optional_none", True, i(0)),
        ("optional_some", N("CaseAlt.OptionalSome", var_body="v"), var("v")),
    )
    assert run(case(some, *get)) == 8 and run(case(none, *get)) == 0
    assert run(none) is None and isinstance(run(some), Some)


def test_lists_and_structs() -> None:
    assert list(run(cons([i(1), i(2)], cons([i(3)], NIL_E)))) == [1, 2, 3]
    struct = E(
        "struct_con", N("Expr.StructCon", fields=(N("F", field="b", expr=i(2)), N("F", field="a", expr=i(1))))
    )
    value = run(struct)
    assert isinstance(value, Struct) and value.fields == ("a", "b") and value.values == (1, 2)
    assert run(E("struct_proj", N("Expr.StructProj", field="b", struct=struct))) == 2
    assert run(E("struct_upd", N("Expr.StructUpd", field="a", struct=struct, update=i(5)))).values == (5, 2)


def test_any_and_type_rep() -> None:
    packed = E("to_any", N("Expr.ToAny", type=INT, expr=i(3)))
    assert isinstance(run(packed), AnyValue)
    assert run(E("from_any", N("Expr.FromAny", type=INT, expr=packed))).value == 3
    assert run(E("from_any", N("Expr.FromAny", type=ast.TBuiltin("TEXT"), expr=packed))) is None
    rep = run(E("type_rep", INT))
    assert isinstance(rep, TypeRep) and rep.type == INT


def test_throw_and_exception_values() -> None:
    err = ast.TCon(ERR)
    payload = E("rec_con", N("Expr.RecCon", tycon=err, fields=(N("F", field="msg", expr=text("boom")),)))
    with pytest.raises(DamlThrow) as raised:
        run(E("throw", N("Expr.Throw", return_type=INT, exception_type=err, exception_expr=payload)))
    assert isinstance(raised.value.payload, AnyException) and raised.value.payload.value.values == ("boom",)
    packed = E("to_any_exception", N("Expr.ToAnyException", type=err, expr=payload))
    assert run(E("from_any_exception", N("Expr.FromAnyException", type=err, expr=packed))).value.values == (
        "boom",
    )


def test_errors() -> None:
    with pytest.raises(UserError, match="nope"):
        run(app(builtin("ERROR"), text("nope")))
    with pytest.raises(DamlArithmeticError):
        run(app(builtin("DIV_INT64"), i(1), i(0)))
    with pytest.raises(NotEvaluable, match="expression form 'no_such_form'"):
        run(E("no_such_form", None))
    with pytest.raises(MalformedArchive, match="not bound"):
        run(var("nowhere"))


def test_builtins_that_need_the_machine() -> None:
    items = E("cons", N("Expr.Cons", type=INT, front=(i(1), i(2), i(3)), tail=NIL_E))
    minus = lam("a b", app(builtin("SUB_INT64"), var("a"), var("b")))
    assert run(app(builtin("FOLDL"), minus, i(0), items)) == ((0 - 1) - 2) - 3
    assert run(app(builtin("FOLDR"), minus, i(0), items)) == 1 - (2 - (3 - 0))
    assert run(app(builtin("FOLDL"), builtin("SUB_INT64"), i(0), items)) == -6  # a builtin as the function
    assert run(app(builtin("EQUAL_LIST"), builtin("EQUAL"), items, items)) is True
    shorter = E("cons", N("Expr.Cons", type=INT, front=(i(1), i(2)), tail=NIL_E))
    assert run(app(builtin("EQUAL_LIST"), builtin("EQUAL"), items, shorter)) is False


def test_long_folds_and_deep_recursion_use_no_python_stack() -> None:
    # sum [1..100000] with FOLDL and FOLDR over a Daml lambda, and a non-tail recursive Daml function
    # (len (x:xs) = 1 + len xs) over a 100000-element list, built by a recursive Daml function too.
    count = 100_000
    resolver = Resolver()
    items = list_of(range(1, count + 1))
    resolver.top[ast.ValueRef(PKG, "Main", "items")] = _const(items)
    items_e = E("val", ast.ValueRef(PKG, "Main", "items"))
    plus = lam("a b", add(var("a"), var("b")))
    assert run(app(builtin("FOLDL"), plus, i(0), items_e), resolver) == count * (count + 1) // 2
    assert run(app(builtin("FOLDR"), plus, i(0), items_e), resolver) == count * (count + 1) // 2
    length_ref = ast.ValueRef(PKG, "Main", "length")
    length = lam(
        "xs",
        case(
            var("xs"),
            ("nil", True, i(0)),
            (
                "cons",
                N("CaseAlt.Cons", var_head="h", var_tail="t"),
                add(i(1), app(E("val", length_ref), var("t"))),
            ),
        ),
    )
    forward = _Forward()
    resolver.top[length_ref] = forward  # the definition refers to itself
    forward.target, _ = compile_expr(length, resolver, "length")
    assert run(app(E("val", length_ref), items_e), resolver) == count


class _Forward(Node):
    __slots__ = ("target",)
    atomic = True  # it forwards to a lambda
    target: Node

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return self.target.ev(machine, env)


def test_deeply_nested_expressions_compile_and_run() -> None:
    # 1 + (1 + (... + 0)), 20000 deep, inside as many nested lambdas each applied at once: the compiler and the
    # machine follow it with their own stacks.
    depth = 20_000
    expr = i(0)
    for _ in range(depth):
        expr = app(lam("x", add(i(1), expr)), i(0))
    assert run(expr) == depth


def _const(value: Any) -> Node:
    from participant.daml_lf.eval.compile import Const

    return Const(value)


def test_cons_value_shape() -> None:
    value = run(cons([i(1)], NIL_E))
    assert isinstance(value, Cons) and value.tail is NIL
