"""Reading a DAR with the Daml-LF reader: signatures only, and with every expression body decoded.

    python -m bench.daml_lf_read [--dar PATH] [--runs 5]

Prints, for the DAR (default: splice-amulet and its dependencies, ``../shared/dars``):
- cold: a fresh ``python`` process importing the reader and reading the signatures, wall time per run (median,
  max), interpreter start included, and the same process doing nothing but start (the reference);
- warm, in this process: reading the DAR (zip, hashes), decoding the packages, building the signatures;
- every expression body of every package decoded (values, template and choice bodies, keys, interface instances,
  exception messages): count, time;
- memory, in separate passes so the timings do not carry its cost: with tracemalloc (Python's allocations), the
  peak while reading the signatures and what they keep, the peak while decoding all bodies and what the decoded
  trees keep; and the process's resident memory (VmRSS) after each, which also counts protobuf's C arenas.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

from participant.daml_lf import ast
from participant.daml_lf.archive import read_dar
from participant.daml_lf.expressions import decode_expr
from participant.daml_lf.packages import PackageSet, packages_of
from participant.daml_lf.signatures import signatures_of

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "splice" / "splice-amulet-0.1.14.dar"
COLD = "import sys; from participant.daml_lf.signatures import read_signatures; read_signatures(open(sys.argv[1], 'rb').read())"


def bodies(package_set: PackageSet) -> Iterator[ast.ExprBody]:
    for package in package_set.packages.values():
        for module in package.modules.values():
            yield from (value.body for value in module.values.values())
            yield from (exception.message for exception in module.exceptions.values())
            for template in module.templates.values():
                yield from (b for b in (template.precondition, template.signatories, template.observers) if b)
                if template.key:
                    yield from (template.key.body, template.key.maintainers)
                for instance in template.implements:
                    yield instance.view
                    yield from (body for _, body in instance.methods)
                yield from _choice_bodies(template.choices)
            for interface in module.interfaces.values():
                yield from _choice_bodies(interface.choices)


def _choice_bodies(choices: tuple[ast.Choice, ...]) -> Iterator[ast.ExprBody]:
    for choice in choices:
        yield from (b for b in (choice.controllers, choice.observers, choice.authorizers, choice.update) if b)


def rss() -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    data = args.dar.read_bytes()

    dar = read_dar(data)
    payload = sum(len(dalf.package) for dalf in dar.dalfs)
    print(
        f"{args.dar.name}: {len(data) / 1e6:.2f} MB, {len(dar.dalfs)} packages, {payload / 1e6:.2f} MB of packages"
    )

    cold, reference = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=REPO_ROOT)
        reference.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", COLD, str(args.dar)], check=True, cwd=REPO_ROOT)
        cold.append(time.perf_counter() - start)
    print(
        f"cold, a fresh process to the signatures: median {statistics.median(cold):.3f} s, max {max(cold):.3f} s"
        f" (python starting alone: {statistics.median(reference):.3f} s)"
    )

    read_s, decode_s, sign_s = [], [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        dar = read_dar(data)
        read_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        package_set = packages_of(dar)
        decode_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        signatures_of(package_set)
        sign_s.append(time.perf_counter() - start)
    print(
        f"warm, median of {args.runs}: read the DAR {statistics.median(read_s):.3f} s,"
        f" decode + check references {statistics.median(decode_s):.3f} s,"
        f" signatures {statistics.median(sign_s):.3f} s"
    )

    all_bodies = list(bodies(package_set))
    start = time.perf_counter()
    for body in all_bodies:
        decode_expr(body)
    elapsed = time.perf_counter() - start
    encoded = sum(len(body.encoded) for body in all_bodies)
    print(f"all bodies: {len(all_bodies)} ({encoded / 1e6:.2f} MB encoded) decoded in {elapsed:.2f} s")

    del package_set, dar, all_bodies
    gc.collect()
    start_rss = rss()
    package_set = packages_of(read_dar(data))
    signatures = signatures_of(package_set)
    packages_rss = rss()
    trees = [decode_expr(body) for body in bodies(package_set)]
    print(
        f"resident memory, this process: +{mb(packages_rss - start_rss)} with the packages and signatures,"
        f" +{mb(rss() - packages_rss)} more with every body decoded"
    )
    del package_set, signatures, trees
    gc.collect()

    tracemalloc.start()
    signatures = signatures_of(packages_of(read_dar(data)))
    current, peak = tracemalloc.get_traced_memory()
    print(f"tracemalloc, signatures: peak {mb(peak)}, the signatures alone keep {mb(current)}")
    package_set = packages_of(read_dar(data))
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    trees = [decode_expr(body) for body in bodies(package_set)]
    current, peak = tracemalloc.get_traced_memory()
    print(
        f"tracemalloc, all bodies decoded: peak +{mb(peak - before)}, the trees keep {mb(current - before)}"
    )
    tracemalloc.stop()
    del signatures, trees


if __name__ == "__main__":
    main()
