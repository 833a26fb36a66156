"""The value codec on Daml-LF types: a richtypes RichRecord (every builtin scalar, an Optional, a list, a TextMap,
a nested record, a variant) decoded from its JSON into the interpreter's values and encoded back, and the
composer's form checking and writing the same scalars as typed. Prints the best of the runs, in microseconds per value (the least disturbed by other work on the machine).

    python -m bench.value_codec [--dar PATH] [--runs 7] [--values 2000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from app.compose.form import FormContext, TextNode
from app.compose.types import NumericT, Scalar
from participant.engine.lf.definitions import LfPackages
from tests.engine.lf.conftest import ALICE
from tests.engine.lf.rich_record import RICH, rich_type

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "richtypes" / "richtypes.dar"
TYPED: list[tuple[Scalar | NumericT, str]] = [
    (Scalar("INT64"), "-42"),
    (NumericT(10), "1234.5"),
    (Scalar("DATE"), "2024-02-29"),
    (Scalar("TIMESTAMP"), "2024-01-02 03:04Z"),
    (Scalar("PARTY"), ALICE),
]


def per_value(runs: int, values: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        for _ in range(values):
            work()
        times.append((time.perf_counter() - started) / values)
    return min(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--values", type=int, default=2000)
    args = parser.parse_args()
    rich = rich_type(LfPackages.from_dar(args.dar.read_bytes()))
    decoded = rich.decode(RICH)
    assert rich.encode(decoded) == RICH
    nodes = []
    for type_, text in TYPED:
        node = TextNode(type_, FormContext(lambda: [ALICE]))
        node.text = text
        nodes.append(node)

    def form() -> None:
        for node in nodes:
            node.problem()
            node.to_json()

    print(f"decode RichRecord: {per_value(args.runs, args.values, lambda: rich.decode(RICH)):.1f} us")
    print(f"encode RichRecord: {per_value(args.runs, args.values, lambda: rich.encode(decoded)):.1f} us")
    print(f"form, 5 scalars checked and written: {per_value(args.runs, args.values, form):.1f} us")


if __name__ == "__main__":
    main()
