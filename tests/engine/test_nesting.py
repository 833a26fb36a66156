"""Daml's nesting limit of 100 (`participant.engine.nesting`), counted as Daml's engine counts, and a command's value
nested past it refused as Canton's preprocessing refuses it."""

from __future__ import annotations

import pytest

from participant.base import errors
from participant.daml_lf.ast import TypeConRef
from participant.daml_lf.eval.budget import Budget, MemoryExceeded, limited
from participant.daml_lf.eval.values import NIL, Cons, Record, Some, TextMap
from participant.engine.coding import decode_command, encode
from participant.engine.nesting import nesting_exceeds
from participant.engine.values import DamlType, Int64, ListType

T = TypeConRef("pkg", "Main", "T")
MB = 1 << 20


def optionals(depth: int, inner: object = None) -> object:
    value = inner
    for _ in range(depth):
        value = Some(value)
    return value


def lists(depth: int, inner: object = 1) -> object:
    value = inner
    for _ in range(depth):
        value = Cons(value, NIL)
    return value


def test_100_levels_pass_and_101_do_not() -> None:
    assert not nesting_exceeds(optionals(100))
    assert nesting_exceeds(optionals(101))
    assert not nesting_exceeds(lists(100)) and nesting_exceeds(lists(101))
    assert not nesting_exceeds(Record(T, ("a",), (optionals(99),)))
    assert nesting_exceeds(Record(T, ("a",), (optionals(100),)))


def test_trailing_none_fields_are_not_counted() -> None:
    """Daml's engine drops a record's trailing None fields before it stores it: they do not nest."""
    at_the_limit = optionals(100, Record(T, ("a", "b"), (1, None)))
    assert nesting_exceeds(at_the_limit)  # the field `a` is one level too deep
    assert not nesting_exceeds(optionals(100, Record(T, ("a", "b"), (None, None))))
    assert nesting_exceeds(optionals(100, Record(T, ("a", "b"), (None, 1))))


def test_text_map_keys_are_not_values() -> None:
    assert not nesting_exceeds(optionals(99, TextMap(("k",), (1,))))
    assert nesting_exceeds(optionals(100, TextMap(("k",), (1,))))


def test_a_value_a_hundred_thousand_deep_is_walked_only_to_the_limit() -> None:
    assert nesting_exceeds(lists(100_000))  # no recursion: Python's limit is 1,000


def test_a_command_value_past_the_limit_fails_preprocessing() -> None:
    type_: DamlType = Int64
    for _ in range(101):
        type_ = ListType(type_)
    value: object = 1
    for _ in range(101):
        value = [value]
    with pytest.raises(errors.LedgerError) as caught:
        decode_command(type_, value, "createArguments")
    assert caught.value.code is errors.COMMAND_PREPROCESSING_FAILED
    assert caught.value.cause == "Provided value exceeds maximum nesting level of 100"
    assert isinstance(type_, ListType) and isinstance(value, list)
    assert decode_command(type_.element, value[0], "createArguments") is not None


def test_a_stored_value_past_the_limit_is_value_nesting() -> None:
    with pytest.raises(errors.LedgerError) as caught:
        encode(Int64, lists(101), "The result of C")
    assert caught.value.code is errors.VALUE_NESTING


@pytest.mark.timeout(60)
def test_a_value_of_shared_parts_is_stopped_by_the_memory_its_encoding_would_take() -> None:
    """100 levels deep, within the limit, but 2 ** 100 parts once written out."""
    value: object = 1
    for _ in range(99):
        value = Record(T, ("a", "b"), (value, value))
    with limited(Budget(max_memory=64 * MB)), pytest.raises(MemoryExceeded):
        nesting_exceeds(value)
