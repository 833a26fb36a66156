"""The cost of the interpreter's hot builtins, called as the evaluator will call them (``BUILTINS[name].run``).

    python -m bench.daml_lf_builtins [--calls 200000]

Prints nanoseconds per call (the best of five runs) for Int64 and Numeric arithmetic and for generic equality and
order on a record shaped like a token holding (a party, a Numeric 10, an optional list of parties, a text, a
timestamp).
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any

from participant.daml_lf.ast import TypeConRef
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.numeric import numeric
from participant.daml_lf.eval.values import Party, Record, Some, Timestamp, list_of

HOLDING = TypeConRef("pkg", "Splice.Holding", "Holding")
FIELDS = ("owner", "amount", "lock", "meta", "created")


def holding() -> Record:
    lock = Some(list_of([Party("bob::1220"), Party("carol::1220")]))
    return Record(HOLDING, FIELDS, (Party("alice::1220"), numeric("12.5", 10), lock, "memo", Timestamp(1)))


def cases() -> list[tuple[str, Callable[[], Any]]]:
    # the builtins timed here are pure: each has its function (only those that need the machine have none)
    run = {name: builtin.run for name, builtin in BUILTINS.items() if builtin.run is not None}
    a, b, three, witness = (
        numeric("1234.5678901234", 10),
        numeric("0.0000000001", 10),
        numeric("3", 10),
        numeric("0", 10),
    )
    left, right = holding(), holding()
    return [
        ("ADD_INT64", lambda: run["ADD_INT64"](123456789, 987654321)),
        ("MUL_INT64", lambda: run["MUL_INT64"](123456789, 987)),
        ("ADD_NUMERIC", lambda: run["ADD_NUMERIC"](a, b)),
        ("MUL_NUMERIC", lambda: run["MUL_NUMERIC"](witness, a, a)),
        ("DIV_NUMERIC", lambda: run["DIV_NUMERIC"](witness, a, three)),
        ("EQUAL Int64", lambda: run["EQUAL"](5, 5)),
        ("EQUAL record (5 fields, nested)", lambda: run["EQUAL"](left, right)),
        ("LESS record (5 fields, nested)", lambda: run["LESS"](left, right)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    for label, call in cases():
        best = min(timeit.repeat(call, number=args.calls, repeat=5))
        print(f"{label:34s} {best / args.calls * 1e9:7.0f} ns/call")


if __name__ == "__main__":
    main()
