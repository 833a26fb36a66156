"""The terminal client's package catalog over splice-amulet and its dependencies: first start and cached start.

    python -m bench.tui_packages [--dar PATH] [--runs 5]

A participant started with ``--dar`` (default: splice-amulet, ``../shared/dars``). Each run, in the bench's own
process (imports done): a fresh cache directory, ``PackageCatalog.load`` (list, fetch every archive, decode its
signatures, write the cache) timed as the first start; then a new client and catalog over the same directory,
timed as the cached start (list, read the cache; no archive fetched, nothing decoded), checked to have made no
archive request and to hold the same signatures. Prints median and max of both. Targets: first start <= 1.5 s,
cached start <= 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.client import LedgerClient
from app.packages import PackageCatalog
from app.tokens import MintedToken
from bench.common import SECRET, Server

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "splice" / "splice-amulet-0.1.14.dar"


async def one_run(url: str) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="ledger-bench-cache-") as cache:
        async with LedgerClient(url, MintedToken(SECRET, "participant_admin")) as client:
            started = time.perf_counter()
            first = PackageCatalog(client, Path(cache))
            await first.load()
            first_s = time.perf_counter() - started
        async with LedgerClient(url, MintedToken(SECRET, "participant_admin")) as client:
            started = time.perf_counter()
            cached = PackageCatalog(client, Path(cache))
            await cached.load()
            cached_s = time.perf_counter() - started
            fetched = [r for r in client.log.entries if r.path.startswith("/v2/packages/")]
        if first.unreadable or first.problem:
            raise SystemExit(f"packages not read: {first.problem or first.unreadable}")
        if fetched or cached.packages != first.packages:
            raise SystemExit("the cached start fetched archives or read other signatures")
        return first_s, cached_s, len(first.packages)


async def main(url: str, runs: int) -> None:
    firsts, cacheds = [], []
    for _ in range(runs):
        first_s, cached_s, count = await one_run(url)
        firsts.append(first_s * 1000)
        cacheds.append(cached_s * 1000)
    print(f"{count} packages decoded, {runs} runs")
    print(f"first start:  median {statistics.median(firsts):7.1f} ms   max {max(firsts):7.1f} ms   (<= 1500)")
    print(
        f"cached start: median {statistics.median(cacheds):7.1f} ms   max {max(cacheds):7.1f} ms   (<= 100)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with Server(extra=("--dar", str(args.dar))) as server:
        asyncio.run(main(server.url, args.runs))
