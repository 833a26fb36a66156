"""Calling builtins by their schema names, and building values, as the evaluator will."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from participant.daml_lf.ast import TypeConRef
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.numeric import numeric
from participant.daml_lf.eval.values import Enum, Record, Variant

T = TypeConRef("pkg", "Main", "T")
COLOR = TypeConRef("pkg", "Main", "Color")
SHAPE = TypeConRef("pkg", "Main", "Shape")


def call(name: str, *args: Any) -> Any:
    builtin = BUILTINS[name]
    assert builtin.run is not None and builtin.arity == len(args), name
    return builtin.run(*args)


def n(text: str, scale: int = 10) -> Decimal:
    """A Numeric of ``scale`` (10 by default, Daml's ``Decimal``)."""
    return numeric(text, scale)


def record(*values: Any) -> Record:
    return Record(T, tuple(f"f{i}" for i in range(len(values))), tuple(values))


def color(rank: int) -> Enum:
    return Enum(COLOR, ("Red", "Green", "Blue")[rank], rank)


def shape(rank: int, value: Any) -> Variant:
    return Variant(SHAPE, ("Circle", "Square")[rank], rank, value)
