"""The generic total order of comparable values (the spec's ``LESS_EQ`` rules) and the order ``<ₜ`` on types.

Values are walked with an explicit stack, never Python recursion, so a 100,000-element list compares as well as a
short one. Pairs are visited depth first, left to right, and the first pair that differs decides — the spec's
lexicographic rules for structs, records, lists and maps all read that way:

- unit = unit; False < True; numbers, dates and timestamps by value; text and parties by code point (the order of
  their UTF-8 bytes); contract ids by their hexadecimal text, except two V1 ids one of which has no suffix and is a
  strict prefix of the other (``ContractIdComparability``);
- enums and variants by constructor rank, then a variant's argument; records and structs field by field;
- lists: Nil < Cons, then head, then tail; Optional: None < Some, then the value;
- TextMaps and GenMaps entry by entry in key order (key, then value), a strict prefix first;
- Any by its type (``<ₜ``), then its value; TypeRep by its type;
- functions are not comparable (``NotComparable``).
"""

from __future__ import annotations

from typing import Any as _Any

from ..ast import TApp, TBuiltin, TCon, TForall, TNat, TStruct, TSyn, TVar, Type, TypeConRef
from .budget import WALK_CHECK_EVERY, walked
from .errors import ContractIdComparability, NotComparable
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

_V1_PREFIX = "00"
_V1_UNSUFFIXED_LENGTH = 2 + 64  # version byte and 32-byte discriminator, in hexadecimal


def compare(left: _Any, right: _Any) -> int:
    """-1, 0 or 1 as ``left`` is less than, equal to or greater than ``right`` (two values of one type)."""
    if type(left) in SCALAR_TYPES:
        return 0 if left == right else (-1 if left < right else 1)
    stack: list[tuple[_Any, _Any]] = [(left, right)]
    pop = stack.pop
    push = stack.append
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
                return -1 if a < b else 1
            continue
        if kind is Record or kind is Struct:
            _push_pairs(stack, a.values, b.values)
        elif kind is Variant:
            if a.rank != b.rank:
                return -1 if a.rank < b.rank else 1
            push((a.value, b.value))
        elif kind is Enum:
            if a.rank != b.rank:
                return -1 if a.rank < b.rank else 1
        elif kind is Cons or kind is Nil:
            if a is b:
                continue
            if type(b) is not kind:
                return -1 if kind is Nil else 1
            if kind is Cons:
                push((a.tail, b.tail))
                push((a.head, b.head))
        elif a is None or kind is Some:
            if a is None or b is None:
                if a is not b:
                    return -1 if a is None else 1
            else:
                push((a.value, b.value))
        elif kind is ContractId:
            result = compare_contract_ids(a, b)
            if result:
                return result
        elif kind is TextMap or kind is GenMap:
            _push_map(stack, a, b)
        elif kind is Any or kind is AnyException:
            result = compare_types(a.type, b.type)
            if result:
                return result
            push((a.value, b.value))
        elif kind is TypeRep:
            result = compare_types(a.type, b.type)
            if result:
                return result
        elif kind is Unit:
            continue
        elif isinstance(a, FunctionValue) or isinstance(b, FunctionValue):
            raise NotComparable("functions are not comparable")
        else:
            raise NotComparable(f"not a comparable value: {a!r}")
    return 0


def _push_pairs(stack: list[tuple[_Any, _Any]], left: tuple[_Any, ...], right: tuple[_Any, ...]) -> None:
    for index in range(len(left) - 1, -1, -1):
        stack.append((left[index], right[index]))


def _push_map(stack: list[tuple[_Any, _Any]], left: TextMap | GenMap, right: TextMap | GenMap) -> None:
    # Entry by entry, the shorter map first when one is a prefix of the other: the lengths are compared last.
    stack.append((len(left.keys), len(right.keys)))
    for index in range(min(len(left.keys), len(right.keys)) - 1, -1, -1):
        stack.append((left.values[index], right.values[index]))
        stack.append((left.keys[index], right.keys[index]))


def compare_contract_ids(a: ContractId, b: ContractId) -> int:
    if a == b:
        return 0
    if a.startswith(_V1_PREFIX) and b.startswith(_V1_PREFIX):
        shorter, longer = (a, b) if len(a) < len(b) else (b, a)
        if len(shorter) == _V1_UNSUFFIXED_LENGTH and longer.startswith(shorter):
            raise ContractIdComparability(shorter)
    return -1 if a < b else 1


def check_comparable(value: _Any) -> None:
    """Raise ``NotComparable`` unless ``value`` is comparable (a valid GenMap key: it equals itself)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in SCALAR_TYPES or item is None:
            continue
        if kind is Record or kind is Struct:
            stack.extend(item.values)
        elif kind is Variant or kind is Some or kind is Any or kind is AnyException:
            stack.append(item.value)
        elif kind is Cons:
            while type(item) is Cons:
                stack.append(item.head)
                item = item.tail
        elif kind is TextMap or kind is GenMap:
            stack.extend(item.keys)
            stack.extend(item.values)
        elif isinstance(item, FunctionValue) or kind not in _OTHER_COMPARABLE:
            raise NotComparable(f"not a comparable value: {item!r}")


_OTHER_COMPARABLE = frozenset({Unit, Nil, Enum, ContractId, TypeRep})


# --- The order on types (``<ₜ``), for Any and TypeRep

# The spec's chain of builtin types, by the schema's BuiltinType names. SCENARIO has no LF 2 counterpart;
# FAILURE_CATEGORY, absent from the spec's chain, is placed after ANY_EXCEPTION (the last builtin there).
_BUILTIN_RANK = {
    name: rank
    for rank, name in enumerate(
        (
            "UNIT",
            "BOOL",
            "INT64",
            "TEXT",
            "TIMESTAMP",
            "PARTY",
            "LIST",
            "UPDATE",
            "DATE",
            "CONTRACT_ID",
            "OPTIONAL",
            "ARROW",
            "TEXTMAP",
            "NUMERIC",
            "ANY",
            "TYPE_REP",
            "GENMAP",
            "BIGNUMERIC",
            "ROUNDING_MODE",
            "ANY_EXCEPTION",
            "FAILURE_CATEGORY",
        )
    )
}
# Families of type heads, in the spec's order: builtins < type constructors < naturals < structs < applications.
_BUILTIN, _TYCON, _NAT, _STRUCT = range(4)


def compare_types(left: Type, right: Type) -> int:
    """The spec's ``<ₜ`` as -1, 0 or 1. Undefined on variables, quantifiers and synonyms (``NotComparable``)."""
    left_head, left_args = _spine(left)
    right_head, right_args = _spine(right)
    return _compare_spines(left_head, left_args, right_head, right_args)


def _spine(type_: Type) -> tuple[Type, list[Type]]:
    """A type as its head and arguments: ``T a b`` whether written ``TCon(T, (a, b))`` or with ``TApp``."""
    trailing: list[Type] = []
    while isinstance(type_, TApp):
        trailing.append(type_.rhs)
        type_ = type_.lhs
    trailing.reverse()
    if isinstance(type_, TCon) and type_.args:
        return TCon(type_.tycon), [*type_.args, *trailing]
    if isinstance(type_, TBuiltin) and type_.args:
        return TBuiltin(type_.builtin), [*type_.args, *trailing]
    return type_, trailing


def _compare_spines(left_head: Type, left_args: list[Type], right_head: Type, right_args: list[Type]) -> int:
    # (f a) vs (g b): f vs g, then a vs b; anything that is not an application comes before one that is.
    n, m = len(left_args), len(right_args)
    if n == 0 or m == 0:
        if n != m:
            return -1 if n == 0 else 1
        return _compare_heads(left_head, right_head)
    result = _compare_spines(left_head, left_args[:-1], right_head, right_args[:-1])
    if result:
        return result
    return compare_types(left_args[-1], right_args[-1])


def _compare_heads(left: Type, right: Type) -> int:
    left_family, right_family = _family(left), _family(right)
    if left_family != right_family:
        return -1 if left_family < right_family else 1
    if isinstance(left, TBuiltin) and isinstance(right, TBuiltin):
        return _cmp(_BUILTIN_RANK[left.builtin], _BUILTIN_RANK[right.builtin])
    if isinstance(left, TCon) and isinstance(right, TCon):
        return _cmp(_tycon_key(left.tycon), _tycon_key(right.tycon))
    if isinstance(left, TNat) and isinstance(right, TNat):
        return _cmp(left.value, right.value)
    if isinstance(left, TStruct) and isinstance(right, TStruct):
        # Field names first (a strict prefix first), then the field types in order.
        names = _cmp(tuple(f.name for f in left.fields), tuple(f.name for f in right.fields))
        if names:
            return names
        for a, b in zip(left.fields, right.fields, strict=True):
            result = compare_types(a.type, b.type)
            if result:
                return result
        return 0
    raise NotComparable(f"types are not comparable: {left!r}, {right!r}")  # pragma: no cover - by _family


def _family(type_: Type) -> int:
    if isinstance(type_, TBuiltin):
        return _BUILTIN
    if isinstance(type_, TCon):
        return _TYCON
    if isinstance(type_, TNat):
        return _NAT
    if isinstance(type_, TStruct):
        return _STRUCT
    assert isinstance(type_, (TVar, TForall, TSyn))
    raise NotComparable(f"a type with variables, quantifiers or synonyms has no order: {type_!r}")


def _tycon_key(ref: TypeConRef) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    return ref.package_id, tuple(ref.module.split(".")), tuple(ref.name.split("."))


def _cmp(a: _Any, b: _Any) -> int:
    return 0 if a == b else (-1 if a < b else 1)
