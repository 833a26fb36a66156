"""The interpreter's runtime values: one Python representation per Daml-LF value form, chosen for speed and exactness.

=================  ==========================================================================================
LF value           Python representation
=================  ==========================================================================================
Unit               ``UNIT`` (the one ``Unit`` instance)
Bool               ``bool``
Int64              ``int``, kept within ``INT64_MIN..INT64_MAX`` by every builtin (overflow is an error)
Numeric s          ``decimal.Decimal`` whose exponent is ``-s``: the scale travels with the number
                   (``Decimal("1.50")`` is a Numeric 2), so a value is its own scale witness
Text               ``str`` (Unicode code points; ordered by code point, as UTF-8 bytes are)
Date               ``Date(days)``, an ``int`` subclass: days since 1970-01-01, within 0001-01-01..9999-12-31
Timestamp          ``Timestamp(micros)``, an ``int`` subclass: microseconds since the epoch, within
                   0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z
Party              ``Party(id)``, a ``str`` subclass
ContractId         ``ContractId(coid)``, a ``str`` subclass: its hexadecimal form
List               ``NIL`` or ``Cons(head, tail)``: a persistent linked list, so ``Cons`` is O(1) and
                   pattern matching a list's head never copies its tail
Optional           ``None`` for None, ``Some(value)`` (so ``Some None`` stays apart from ``None``)
TextMap            ``TextMap(keys, values)``: parallel tuples sorted by key
GenMap             ``GenMap(keys, values)``: parallel tuples sorted by the generic order of keys
Record             ``Record(tycon, fields, values)``
Variant            ``Variant(tycon, constructor, rank, value)``; ``rank`` is the constructor's position
Enum               ``Enum(tycon, constructor, rank)``
Struct             ``Struct(fields, values)`` with fields sorted by name
Any                ``Any(type, value)``; TypeRep: ``TypeRep(type)``; AnyException: ``AnyException(type,
                   value)``
functions          instances of ``FunctionValue`` subclasses (the evaluator's closures and partial
                   applications): not comparable
=================  ==========================================================================================

Scalars are Python's own types or thin subclasses of them, so that equality, order and hashing of the values Daml
compares most (parties, numbers, texts, times) run in C; each subclass stays a type of its own for ``type(v) is``
dispatch, and a program that type-checks never mixes them with the base type.

Maps are immutable: an insert or delete builds a new map (O(n)), lookups are binary searches (O(log n)).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any as _Any

from ..ast import Type, TypeConRef

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

NUMERIC_MAX_PRECISION = 38  # digits of a Numeric's unscaled value
NUMERIC_MAX_SCALE = 37

# 0001-01-01 and 9999-12-31 as days since 1970-01-01
DATE_MIN = -719162
DATE_MAX = 2932896
# 0001-01-01T00:00:00.000000Z and 9999-12-31T23:59:59.999999Z as microseconds since the epoch
TIMESTAMP_MIN = -62135596800000000
TIMESTAMP_MAX = 253402300799999999

# FAILURE_CATEGORY literals (BuiltinLit.FailureCategory) are run as their schema numbers.
FAILURE_CATEGORIES = {
    "INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER": 0,
    "INVALID_INDEPENDENT_OF_SYSTEM_STATE": 1,
    "INTERNAL_UNSUPPORTED_OPERATION": 2,
    "SYSTEM_INTERNAL_ASSUMPTION_VIOLATED": 3,
}


class Unit:
    """The unit value: one instance, ``UNIT``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNIT"


UNIT = Unit()


class Date(int):
    """Days since 1970-01-01. An ``int`` subclass: equality, order and hashing run at C speed."""

    __slots__ = ()

    @property
    def days(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Date({int(self)})"


class Timestamp(int):
    """Microseconds since 1970-01-01T00:00:00Z (an ``int`` subclass, as ``Date``)."""

    __slots__ = ()

    @property
    def micros(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Timestamp({int(self)})"


class Party(str):
    """A party id (a ``str`` subclass: compared and hashed at C speed, ordered by code point)."""

    __slots__ = ()

    @property
    def id(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"Party({str(self)!r})"


# The values compared as Python compares them (equality and ordering take them straight).
SCALAR_TYPES = frozenset({int, bool, str, Decimal, Party, Date, Timestamp})


class ContractId(str):
    """A contract id's hexadecimal text. Its order is the generic order's business (``ordering.compare``): two V1
    ids are not always comparable."""

    __slots__ = ()

    @property
    def coid(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"ContractId({str(self)!r})"


class Nil:
    """The empty list: one instance, ``NIL``."""

    __slots__ = ()

    def __iter__(self) -> Iterator[_Any]:
        return iter(())

    def __repr__(self) -> str:
        return "NIL"


NIL = Nil()


class Cons:
    __slots__ = ("head", "tail")

    def __init__(self, head: _Any, tail: Cons | Nil) -> None:
        self.head = head
        self.tail = tail

    def __iter__(self) -> Iterator[_Any]:
        node: Cons | Nil = self
        while node is not NIL:
            assert isinstance(node, Cons)
            yield node.head
            node = node.tail

    def __repr__(self) -> str:
        return f"list({list(self)!r})"


List = Cons | Nil


def list_of(items: Iterable[_Any]) -> List:
    """A Daml list of ``items``, in order."""
    result: List = NIL
    for item in reversed(items if isinstance(items, (list, tuple)) else list(items)):
        result = Cons(item, result)
    return result


class Some:
    __slots__ = ("value",)

    def __init__(self, value: _Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Some({self.value!r})"


@dataclass(frozen=True, slots=True, eq=False)
class TextMap:
    keys: tuple[str, ...]
    values: tuple[_Any, ...]


@dataclass(frozen=True, slots=True, eq=False)
class GenMap:
    keys: tuple[_Any, ...]
    values: tuple[_Any, ...]


EMPTY_TEXTMAP = TextMap((), ())
EMPTY_GENMAP = GenMap((), ())


@dataclass(frozen=True, slots=True, eq=False)
class Record:
    tycon: TypeConRef
    fields: tuple[str, ...]  # shared by every record of the type
    values: tuple[_Any, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Variant:
    tycon: TypeConRef
    constructor: str
    rank: int
    value: _Any


@dataclass(frozen=True, slots=True, eq=False)
class Enum:
    tycon: TypeConRef
    constructor: str
    rank: int


@dataclass(frozen=True, slots=True, eq=False)
class Struct:
    fields: tuple[str, ...]  # sorted
    values: tuple[_Any, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Any:
    type: Type
    value: _Any


@dataclass(frozen=True, slots=True, eq=False)
class TypeRep:
    type: Type


@dataclass(frozen=True, slots=True, eq=False)
class AnyException:
    type: Type
    value: _Any


class FunctionValue:
    """The base of the evaluator's function values (closures, partial applications): never comparable."""

    __slots__ = ()


def numeric_scale(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    return -exponent
