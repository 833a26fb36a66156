"""The Daml-LF evaluator on a DAR's own code, in the bench's process, no participant.

    python -m bench.daml_lf_eval [--dar PATH] [--count 100000] [--runs 3]

Prints: the time to compile every value definition of every package of the DAR (expression decoding included,
and the decoding alone for reference, on a fresh read of the DAR each); then, best of ``--runs``, the daml-stdlib
functions ``sum`` (through the ``Additive Int`` dictionary) and ``foldl`` (with ``ADD_INT64``) over a list of
``--count`` Int64, and ``DA.List.sort`` on ``--count`` // 10 integers in reverse order, each in μs per element.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from participant.daml_lf import ast
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.machine import BuiltinFunction
from participant.daml_lf.eval.program import Program
from participant.daml_lf.eval.values import list_of
from participant.daml_lf.expressions import decode_expr
from participant.daml_lf.packages import PackageSet, read_packages

DEFAULT_DAR = Path(__file__).resolve().parents[1] / "../shared/dars/splice/splice-amulet-0.1.14.dar"


def definitions(packages: PackageSet) -> list[ast.ValueRef]:
    return [
        ast.ValueRef(package_id, module.name, name)
        for package_id, package in packages.packages.items()
        for module in package.modules.values()
        for name in module.values
    ]


def lookup(program: Program, package: str, module: str, name: str) -> Any:
    for package_id, found in program.packages.packages.items():
        if found.name == package and module in found.modules:
            return program.value(ast.ValueRef(package_id, module, name))
    raise LookupError(f"{package} {module}:{name}")


def best(runs: int, call: Any) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = args.dar.read_bytes()

    packages = read_packages(data)
    refs = definitions(packages)
    start = time.perf_counter()
    for ref in refs:
        decode_expr(packages.value(ref).body)
    decode = time.perf_counter() - start
    packages = read_packages(data)
    program = Program(packages)
    start = time.perf_counter()
    for ref in refs:
        program.compile_definition(ref)
    compile_all = time.perf_counter() - start
    print(f"{len(refs)} definitions: decode {decode:.2f} s; decode + compile {compile_all:.2f} s")

    items = list_of(range(args.count))
    total = args.count * (args.count - 1) // 2
    sum_ = lookup(program, "daml-stdlib", "DA.Internal.Prelude", "sum")
    additive = lookup(program, "daml-prim", "GHC.Num", "$$fAdditiveInt")
    foldl = lookup(program, "daml-stdlib", "DA.Internal.Prelude", "foldl")
    add = BuiltinFunction(BUILTINS["ADD_INT64"])
    sort = lookup(program, "daml-stdlib", "DA.List", "sort")
    ord_int = lookup(program, "daml-prim", "GHC.Classes", "$$fOrdInt")
    assert program.call(sum_, additive, items) == total
    assert program.call(foldl, add, 0, items) == total
    reverse = list_of(range(args.count // 10, 0, -1))
    assert list(program.call(sort, ord_int, reverse)) == list(range(1, args.count // 10 + 1))
    for label, count, call in (
        ("sum (Additive Int)", args.count, lambda: program.call(sum_, additive, items)),
        ("foldl ADD_INT64", args.count, lambda: program.call(foldl, add, 0, items)),
        ("DA.List.sort (reversed)", args.count // 10, lambda: program.call(sort, ord_int, reverse)),
    ):
        seconds = best(args.runs, call)
        print(
            f"{label:26s} {count:7d} elements: {seconds * 1e3:8.1f} ms, {seconds / count * 1e6:5.2f} μs/element"
        )


if __name__ == "__main__":
    main()
