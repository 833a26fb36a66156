"""The packages screen's `r`: the code a script runs on, built from archives as a participant serves them.

    python -m bench.package_script_code [--dar PATH] [--also PATH ...] [--runs 5]

The participant holds the packages of `--dar` (default: splice-amulet-test and its dependencies, ``../shared/dars``)
and of each `--also` (default: the other splice DARs and richtypes). Prints how long building the script's code
takes (median and max of the runs, in this process) two ways: `code_of` over every package the participant holds
(what `r` did before), and `participant_code`, which fetches and decodes only the script's package and those it
needs, directly or not (what it does now; the archives here are in memory, as the catalog's cache holds them).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from app.script_runs import participant_code
from bench.common import median
from participant.daml_lf.archive import read_dar
from participant.daml_script.dars import code_of

DARS = Path(__file__).resolve().parents[2] / "shared/dars"
DEFAULT_DAR = DARS / "splice/test/splice-amulet-test-0.1.8.dar"
DEFAULT_ALSO = [
    *sorted(p for p in (DARS / "splice").glob("*.dar") if not p.name.startswith("splice-amulet-0")),
    DARS / "richtypes/richtypes.dar",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--also", type=Path, action="append", help="another DAR the participant holds")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    dar = read_dar(args.dar.read_bytes())
    archives: dict[str, bytes] = {}
    for path in [*(args.also if args.also is not None else DEFAULT_ALSO), args.dar]:
        archives.update({dalf.package_id: dalf.payload for dalf in read_dar(path.read_bytes()).dalfs})
    main_id = dar.main.package_id

    async def archive(package_id: str) -> bytes:
        return archives[package_id]

    every, needed = [], []
    decoded = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        code_of(main_id, archives)
        every.append(time.perf_counter() - start)
        start = time.perf_counter()
        code = asyncio.run(participant_code(main_id, list(archives), archive))
        needed.append(time.perf_counter() - start)
        decoded = len(code.packages.packages)
    size = sum(len(a) for a in archives.values())
    print(f"{args.dar.name} on a participant with {len(archives)} packages, {size / 1e6:.1f} MB of archives")
    for label, seconds, count in (
        ("every package (code_of)", every, len(archives)),
        ("the script's and what it needs", needed, decoded),
    ):
        print(
            f"{label}: {count} packages, median {median(seconds) * 1000:.0f} ms,"
            f" max {max(seconds) * 1000:.0f} ms ({args.runs} runs)"
        )


if __name__ == "__main__":
    main()
