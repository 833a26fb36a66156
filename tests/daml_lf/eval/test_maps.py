"""TextMap and GenMap builtins: persistent maps whose entries stay in key order."""

from __future__ import annotations

import pytest

from participant.daml_lf.eval.equality import equal
from participant.daml_lf.eval.errors import NotComparable
from participant.daml_lf.eval.values import FunctionValue, Some, Struct, list_of

from .helpers import call, color, record, shape


class Closure(FunctionValue):
    __slots__ = ()


def test_textmap_operations() -> None:
    empty = call("TEXTMAP_EMPTY")
    one = call("TEXTMAP_INSERT", "b", 2, empty)
    two = call("TEXTMAP_INSERT", "a", 1, one)
    three = call("TEXTMAP_INSERT", "😀", 4, call("TEXTMAP_INSERT", "c", 3, two))
    assert call("TEXTMAP_SIZE", empty) == 0 and call("TEXTMAP_SIZE", three) == 4
    assert call("TEXTMAP_LOOKUP", "a", three).value == 1
    assert call("TEXTMAP_LOOKUP", "z", three) is None
    assert call("TEXTMAP_LOOKUP", "a", one) is None  # the older map is unchanged
    pairs = list(call("TEXTMAP_TO_LIST", three))
    assert all(isinstance(p, Struct) and p.fields == ("key", "value") for p in pairs)
    assert [p.values for p in pairs] == [("a", 1), ("b", 2), ("c", 3), ("😀", 4)]
    replaced = call("TEXTMAP_INSERT", "b", 20, three)
    assert call("TEXTMAP_LOOKUP", "b", replaced).value == 20 and call("TEXTMAP_SIZE", replaced) == 4
    assert call("TEXTMAP_LOOKUP", "b", three).value == 2
    deleted = call("TEXTMAP_DELETE", "b", three)
    assert [p.values[0] for p in call("TEXTMAP_TO_LIST", deleted)] == ["a", "c", "😀"]
    assert call("TEXTMAP_DELETE", "zz", three) is three


def test_genmap_keys_in_the_generic_order() -> None:
    keys = [record(2, "b"), record(1, "z"), record(2, "a"), record(10, "")]
    m = call("GENMAP_EMPTY")
    for i, key in enumerate(keys):
        m = call("GENMAP_INSERT", key, i, m)
    assert [k.values for k in call("GENMAP_KEYS", m)] == [(1, "z"), (2, "a"), (2, "b"), (10, "")]
    assert list(call("GENMAP_VALUES", m)) == [1, 2, 0, 3]
    assert call("GENMAP_SIZE", m) == 4
    assert call("GENMAP_LOOKUP", record(2, "a"), m).value == 2
    assert call("GENMAP_LOOKUP", record(2, "c"), m) is None
    m2 = call("GENMAP_INSERT", record(2, "a"), "new", m)  # an equal key: the value replaced
    assert call("GENMAP_SIZE", m2) == 4 and call("GENMAP_LOOKUP", record(2, "a"), m2).value == "new"
    m3 = call("GENMAP_DELETE", record(1, "z"), m2)
    assert [k.values for k in call("GENMAP_KEYS", m3)] == [(2, "a"), (2, "b"), (10, "")]
    assert call("GENMAP_DELETE", record(7, ""), m3) is m3


def test_genmap_of_variants_enums_lists_and_optionals() -> None:
    keys = [shape(1, 0), color(2), None, Some(0), list_of([1]), list_of([])]
    for key in keys:
        m = call("GENMAP_INSERT", key, "v", call("GENMAP_EMPTY"))
        assert call("GENMAP_LOOKUP", key, m).value == "v"
    m = call("GENMAP_EMPTY")
    for key in [Some(3), None, Some(1)]:
        m = call("GENMAP_INSERT", key, 0, m)
    assert equal(call("GENMAP_KEYS", m), list_of([None, Some(1), Some(3)]))


@pytest.mark.parametrize("name", ["GENMAP_LOOKUP", "GENMAP_DELETE"])
def test_a_key_holding_a_function_is_refused(name: str) -> None:
    m = call("GENMAP_INSERT", 1, 1, call("GENMAP_EMPTY"))
    with pytest.raises(NotComparable):
        call(name, record(Closure()), m)
    with pytest.raises(NotComparable):
        # Refused even when the map is empty and no comparison would reach the function.
        call("GENMAP_INSERT", list_of([1, Closure()]), 0, call("GENMAP_EMPTY"))
