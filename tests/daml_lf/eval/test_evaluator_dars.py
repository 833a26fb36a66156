"""The evaluator on real code: the standard library and splice-amulet of the reference DARs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from participant.daml_lf import ast
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.machine import BuiltinFunction
from participant.daml_lf.eval.program import Program
from participant.daml_lf.eval.values import list_of
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


def test_every_body_of_richtypes_compiles(richtypes: PackageSet) -> None:
    program = Program(richtypes)
    count = 0
    for package_id, package in richtypes.packages.items():
        for module in package.modules.values():
            for name in module.values:
                program.compile_definition(ast.ValueRef(package_id, module.name, name))
                count += 1
    assert count > 1000
