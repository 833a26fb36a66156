"""The packages screen's `r`: the code a script runs on, built from archives as a participant serves them.

    python -m bench.package_script_code [--dar PATH] [--runs 5]

Prints, for every package of the DAR (default: splice-amulet-test and its dependencies, ``../shared/dars``), how
long `participant.daml_script.dars.code_of` takes to check and decode their archives into the interpreter's code
(median and max of the runs, in this process): what a run waits for before its first question, besides fetching
the archives the catalog's cache does not hold.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.common import median
from participant.daml_lf.archive import read_dar
from participant.daml_script.dars import code_of

DEFAULT_DAR = Path(__file__).resolve().parents[2] / "shared/dars/splice/test/splice-amulet-test-0.1.8.dar"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    dar = read_dar(args.dar.read_bytes())
    archives = {dalf.package_id: dalf.payload for dalf in dar.dalfs}
    seconds = []
    for _ in range(args.runs):
        start = time.perf_counter()
        code_of(dar.main.package_id, archives)
        seconds.append(time.perf_counter() - start)
    size = sum(len(a) for a in archives.values())
    print(f"{args.dar.name}: {len(archives)} packages, {size / 1e6:.1f} MB of archives")
    print(
        f"code_of: median {median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms ({args.runs} runs)"
    )


if __name__ == "__main__":
    main()
