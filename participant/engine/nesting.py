"""Daml's limit on how deeply a value nests: 100, for every value a transaction stores or a command gives.

Counted as Daml's engine counts it when it turns a runtime value into a stored one (Speedy's ``SValue.toValue``):
each record, variant, list, optional and map is one level around its fields, elements or entries; a scalar, an
enum, an empty list and ``None`` are none; a record's trailing ``None`` fields are left out (the engine drops
them); a text map's keys are text, not values. A value is refused when some part of it sits more than 100 levels
down (`Some (Some (… None))` with 101 `Some`).

The walk keeps its own stack and gives up at the first part found past the limit: it visits each part of the value
at most once, and never deeper than the limit, so checking costs no more than encoding the value would (and a
value nested a million deep costs 101 steps, not Python's recursion). Under a budget it is checked as it goes: a
value whose parts are shared (a record of two copies of a record of two copies …) may be small in memory and
astronomical once written out, and is stopped by the deadline or the memory its encoding would take.
"""

from __future__ import annotations

from typing import Any

from participant.daml_lf.eval.budget import WALK_CHECK_EVERY, walked
from participant.engine import values as codec

MAXIMUM_NESTING = 100
_ENCODED_BYTES = (
    100  # about what a part of a value takes once encoded as JSON (a dict or list entry, a scalar)
)


def nesting_exceeds(value: Any, limit: int = MAXIMUM_NESTING) -> bool:
    """Whether `value` nests deeper than `limit` levels. Knows the evaluator's runtime values (Daml-LF packages)
    and the codec's (`RecordValue`, `VariantValue`, lists, tuples, dicts: the Python packages')."""
    # here, not at the top: the Python packages' templates (the demo's) import this module, and the participant
    # starts without the evaluator's values and the Daml-LF syntax behind them
    from participant.daml_lf.eval import values as rt

    stack: list[tuple[Any, int]] = [(value, limit)]
    pop, push = stack.pop, stack.append
    countdown = WALK_CHECK_EVERY
    visited = 0
    while stack:
        countdown -= 1
        if not countdown:
            # A value whose parts are shared may be far larger, walked or encoded, than the memory it takes: the
            # walk is checked against the budget as the machine's steps are, with what encoding it would take.
            countdown = WALK_CHECK_EVERY
            visited += WALK_CHECK_EVERY
            walked(visited, _ENCODED_BYTES)
        item, left = pop()
        if left < 0:
            return True
        kind = type(item)
        if kind in rt.SCALAR_TYPES or item is None or item is rt.NIL or kind is rt.Enum:
            continue
        inner = left - 1
        if kind is rt.Record:
            values = item.values
            end = len(values)
            while end and values[end - 1] is None:  # trailing None fields are not stored
                end -= 1
            for field in values[:end]:
                push((field, inner))
        elif kind is rt.Variant or kind is rt.Some or kind is codec.VariantValue or kind is codec.Some:
            push((item.value, inner))
        elif kind is rt.Cons:
            for element in item:
                push((element, inner))
        elif kind is rt.TextMap:
            for entry in item.values:
                push((entry, inner))
        elif kind is rt.GenMap:
            for entry in (*item.keys, *item.values):
                push((entry, inner))
        elif kind is codec.RecordValue:
            for field in item.fields.values():
                push((field, inner))
        elif kind is list or kind is tuple:
            for element in item:
                push((element, inner))
        elif kind is dict:
            for entry in item.values():
                push((entry, inner))
        # anything else (a contract id, a party, a number of the codec's) is a scalar
    return False
