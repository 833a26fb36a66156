"""Generic equality and the spec's total order: across constructors, nested structures, maps, Any and TypeRep."""

from __future__ import annotations

from typing import Any as _Any

import pytest

from participant.daml_lf.ast import Field, TApp, TBuiltin, TCon, TNat, TStruct, TVar, TypeConRef
from participant.daml_lf.eval.equality import equal
from participant.daml_lf.eval.errors import ContractIdComparability, NotComparable
from participant.daml_lf.eval.ordering import compare, compare_types
from participant.daml_lf.eval.values import (
    NIL,
    UNIT,
    Any,
    Cons,
    ContractId,
    Date,
    FunctionValue,
    Nil,
    Party,
    Some,
    Struct,
    Timestamp,
    TypeRep,
    list_of,
)

from .helpers import call, color, n, record, shape

INT64 = TBuiltin("INT64")
TEXT = TBuiltin("TEXT")


class Closure(FunctionValue):
    __slots__ = ()


# Each pair: left < right.
ASCENDING = [
    (False, True),
    (-1, 0),
    (n("-0.5"), n("0.25")),
    ("", "a"),
    ("Z", "a"),
    ("a", "ab"),
    ("\uffff", "😀"),  # by code point (as UTF-8 bytes), not by UTF-16 unit
    (Party("Alice"), Party("Bob")),
    (Date(-1), Date(0)),
    (Timestamp(0), Timestamp(1)),
    (color(0), color(2)),
    (shape(0, 99), shape(1, 0)),  # the constructor first
    (shape(1, 1), shape(1, 2)),
    (record(1, "b"), record(2, "a")),  # field by field
    (record(1, "a"), record(1, "b")),
    (NIL, list_of([0])),
    (list_of([1, 2]), list_of([1, 3])),
    (list_of([1, 2]), list_of([1, 2, 0])),
    (list_of([1, 9]), list_of([2])),
    (None, Some(0)),
    (Some(None), Some(Some(0))),
    (Some(1), Some(2)),
    (Struct(("a", "b"), (1, 2)), Struct(("a", "b"), (1, 3))),
    (record(list_of([Some(record(1))])), record(list_of([Some(record(2))]))),
    (ContractId("00" + "11" * 33), ContractId("00" + "22" * 32)),
    (ContractId("00" + "ff" * 33), ContractId("01" + "00" * 13)),  # V1 before V2
]


@pytest.mark.parametrize(("low", "high"), ASCENDING)
def test_order(low: _Any, high: _Any) -> None:
    assert compare(low, high) == -1
    assert compare(high, low) == 1
    assert compare(low, low) == 0
    assert not equal(low, high)
    assert equal(high, high)
    assert call("LESS", low, high) and call("LESS_EQ", low, high) and call("LESS_EQ", low, low)
    assert call("GREATER", high, low) and call("GREATER_EQ", high, low) and call("GREATER_EQ", low, low)
    assert not call("LESS", low, low) and not call("GREATER", low, low)
    assert call("EQUAL", low, low) and not call("EQUAL", low, high)


def test_unit_and_equal_numerics_of_one_scale() -> None:
    assert equal(UNIT, UNIT) and compare(UNIT, UNIT) == 0
    assert equal(n("1.5"), n("1.50"))


def test_a_100000_element_list_compares_without_recursion() -> None:
    long = list_of(range(100_000))
    longer = list_of([*range(100_000), 0])
    assert compare(long, longer) == -1
    assert equal(long, list_of(range(100_000)))
    nested: Cons | Nil = NIL
    for _ in range(100_000):
        nested = list_of([nested])
    assert equal(nested, nested) and compare(nested, nested) == 0


def text_map(entries: dict[str, _Any]) -> _Any:
    result = call("TEXTMAP_EMPTY")
    for key, value in entries.items():
        result = call("TEXTMAP_INSERT", key, value, result)
    return result


def gen_map(entries: list[tuple[_Any, _Any]]) -> _Any:
    result = call("GENMAP_EMPTY")
    for key, value in entries:
        result = call("GENMAP_INSERT", key, value, result)
    return result


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (text_map({}), text_map({"a": 1})),
        (text_map({"a": 1}), text_map({"a": 2})),
        (text_map({"a": 9}), text_map({"b": 0})),  # key before value
        (text_map({"a": 1}), text_map({"a": 1, "b": 0})),  # a strict prefix first
        (text_map({"a": 1, "c": 0}), text_map({"b": 0})),
        (gen_map([]), gen_map([(1, "x")])),
        (gen_map([(1, "z"), (3, "a")]), gen_map([(2, "a")])),
        (gen_map([(record(1), 1)]), gen_map([(record(1), 2)])),
    ],
)
def test_maps_compare_entry_by_entry_in_key_order(low: _Any, high: _Any) -> None:
    assert compare(low, high) == -1 and compare(high, low) == 1
    assert not equal(low, high) and equal(low, low)


def test_maps_built_in_different_orders_are_equal() -> None:
    assert equal(text_map({"b": 2, "a": 1}), text_map({"a": 1, "b": 2}))
    assert equal(gen_map([(2, "b"), (1, "a")]), gen_map([(1, "a"), (2, "b")]))


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (TBuiltin("UNIT"), TBuiltin("BOOL")),
        (TBuiltin("INT64"), TBuiltin("TEXT")),
        (TBuiltin("PARTY"), TBuiltin("LIST")),
        (TBuiltin("LIST"), TBuiltin("DATE")),  # the spec's chain: … List < Update < Scenario < Date …
        (TBuiltin("TEXTMAP"), TBuiltin("NUMERIC")),
        (TBuiltin("GENMAP"), TBuiltin("ANY_EXCEPTION")),
        (TBuiltin("ANY_EXCEPTION"), TCon(TypeConRef("a", "M", "T"))),
        (TCon(TypeConRef("a", "Z", "T")), TCon(TypeConRef("b", "A", "A"))),  # package id first
        (TCon(TypeConRef("a", "M", "T")), TCon(TypeConRef("a", "M.N", "A"))),
        (TCon(TypeConRef("a", "M", "S")), TCon(TypeConRef("a", "M", "T"))),
        (TCon(TypeConRef("z", "Z", "Z")), TNat(0)),
        (TNat(1), TNat(2)),
        (TNat(99), TStruct((Field("a", INT64),))),
        (TStruct((Field("a", TEXT),)), TStruct((Field("b", INT64),))),  # names before types
        (TStruct((Field("a", TEXT),)), TStruct((Field("a", TEXT), Field("b", INT64)))),
        (TStruct((Field("a", INT64),)), TStruct((Field("a", TEXT),))),
        (TStruct(()), TBuiltin("LIST", (INT64,))),  # applications last
        (TBuiltin("LIST", (INT64,)), TBuiltin("LIST", (TEXT,))),
        (TBuiltin("LIST", (TEXT,)), TBuiltin("OPTIONAL", (INT64,))),
        (TBuiltin("OPTIONAL", (TEXT,)), TBuiltin("GENMAP", (INT64, INT64))),  # GenMap Int64 is an application
    ],
)
def test_type_order(low: _Any, high: _Any) -> None:
    assert compare_types(low, high) == -1
    assert compare_types(high, low) == 1
    assert compare_types(low, low) == 0


def test_applications_compare_alike_whether_folded_or_not() -> None:
    folded = TBuiltin("GENMAP", (INT64, TEXT))
    unfolded = TApp(TApp(TBuiltin("GENMAP"), INT64), TEXT)
    assert compare_types(folded, unfolded) == 0


def test_any_by_type_then_value_and_type_reps_by_type() -> None:
    assert compare(Any(TEXT, "a"), Any(INT64, 5)) == 1  # Int64 < Text
    assert compare(Any(INT64, 1), Any(INT64, 2)) == -1
    assert equal(Any(INT64, 1), Any(INT64, 1)) and not equal(Any(INT64, 1), Any(TEXT, "1"))
    assert compare(TypeRep(INT64), TypeRep(TEXT)) == -1
    assert equal(TypeRep(TBuiltin("LIST", (INT64,))), TypeRep(TApp(TBuiltin("LIST"), INT64)))


def test_types_with_variables_have_no_order() -> None:
    with pytest.raises(NotComparable):
        compare_types(TVar("a"), INT64)


def test_functions_are_not_comparable() -> None:
    with pytest.raises(NotComparable):
        compare(Closure(), Closure())
    with pytest.raises(NotComparable):
        equal(record(1, Closure()), record(1, Closure()))
    with pytest.raises(NotComparable):
        call("LESS", Some(Closure()), Some(Closure()))
    # The first difference decides before a later function is reached, as LESS_EQ's rules read.
    assert compare(record(1, Closure()), record(2, Closure())) == -1
    assert not equal(record(1, Closure()), record(2, Closure()))
    assert not equal(list_of([1, Closure()]), list_of([2, Closure()]))


def test_a_local_v1_contract_id_is_not_comparable_with_its_suffixed_form() -> None:
    local = ContractId("00" + "ab" * 32)
    with pytest.raises(ContractIdComparability):
        compare(local, ContractId(local.coid + "ca"))
    with pytest.raises(ContractIdComparability):
        equal(local, ContractId(local.coid + "ca"))
    assert equal(local, ContractId(local.coid))
    assert compare(ContractId(local.coid + "01"), ContractId(local.coid + "02")) == -1
