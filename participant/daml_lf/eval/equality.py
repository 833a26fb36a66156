"""Generic equality of comparable values (the spec's ``EQUAL``: ``LESS_EQ`` both ways).

A walk of its own rather than ``compare(...) == 0``: equality stops at the first difference without ranking it and
never needs the order on types unless two ``Any`` values hold different types. An explicit stack keeps Python's
recursion limit out of it. Like ``LESS_EQ``, it raises ``NotComparable`` on functions it reaches and
``ContractIdComparability`` on V1 contract ids whose order is not yet known.
"""

from __future__ import annotations

from typing import Any as _Any

from .budget import WALK_CHECK_EVERY, walked
from .errors import NotComparable
from .ordering import compare_contract_ids, compare_types
from .values import (
    SCALAR_TYPES,
    Any,
    AnyException,
    Cons,
    ContractId,
    Enum,
    FunctionValue,
    GenMap,
    Nil,
    Record,
    Some,
    Struct,
    TextMap,
    TypeRep,
    Unit,
    Variant,
)


def equal(left: _Any, right: _Any) -> bool:
    """Whether two values of one type are equal."""
    if type(left) in SCALAR_TYPES:
        return bool(left == right)
    stack: list[tuple[_Any, _Any]] = [(left, right)]
    pop = stack.pop
    push = stack.append
    extend = stack.extend
    countdown = WALK_CHECK_EVERY
    while stack:
        countdown -= 1
        if not countdown:  # a value whose parts are shared can be far larger than it looks
            countdown = WALK_CHECK_EVERY
            walked(WALK_CHECK_EVERY)
        a, b = pop()
        kind = type(a)
        if kind in SCALAR_TYPES:
            if a != b:
                return False
        elif kind is Record or kind is Struct:
            # Pushed in reverse so that fields are visited left to right, as LESS_EQ visits them: the first
            # difference decides before a later function could raise.
            extend(zip(reversed(a.values), reversed(b.values), strict=True))
        elif kind is Variant:
            if a.rank != b.rank:
                return False
            push((a.value, b.value))
        elif kind is Enum:
            if a.rank != b.rank:
                return False
        elif kind is Cons or kind is Nil:
            heads = []
            while type(a) is Cons and type(b) is Cons and a is not b:
                heads.append((a.head, b.head))
                a, b = a.tail, b.tail
            if type(a) is not type(b):  # lists of different lengths
                return False
            heads.reverse()
            extend(heads)
        elif a is None or kind is Some:
            if a is None or b is None:
                if a is not b:
                    return False
            else:
                push((a.value, b.value))
        elif kind is ContractId:
            if compare_contract_ids(a, b):
                return False
        elif kind is TextMap or kind is GenMap:
            if len(a.keys) != len(b.keys):
                return False
            for index in range(len(a.keys) - 1, -1, -1):
                push((a.values[index], b.values[index]))
                push((a.keys[index], b.keys[index]))
        elif kind is Any or kind is AnyException:
            if a.type != b.type and compare_types(a.type, b.type):
                return False
            push((a.value, b.value))
        elif kind is TypeRep:
            if a.type != b.type and compare_types(a.type, b.type):
                return False
        elif kind is Unit:
            continue
        elif isinstance(a, FunctionValue) or isinstance(b, FunctionValue):
            raise NotComparable("functions are not comparable")
        else:
            raise NotComparable(f"not a comparable value: {a!r}")
    return True
