"""The packages screen's tree over splice-amulet and its dependencies: how long it takes to build, whole and for
each text a search goes through while a word is typed.

    python -m bench.tui_package_search [--dar PATH] [--word Transfer] [--runs 5]

A participant started with ``--dar`` (default: splice-amulet, ``../shared/dars``); the catalog is read once, then
a `PackageTree` in a headless app is rebuilt (`show`) for the whole catalog and for each prefix of `--word` (what
following every key would cost), and the first match is selected. Prints median and max per build. The screen
rebuilds once the typing pauses (`TYPING_PAUSE_S`), so a word costs one build, not one per key.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult

from app.client import LedgerClient
from app.packages import PackageCatalog
from app.tokens import MintedToken
from app.widgets.package_tree import PackageTree
from bench.common import SECRET, Server

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "splice" / "splice-amulet-0.1.14.dar"


class TreeApp(App):
    def compose(self) -> ComposeResult:
        yield PackageTree(id="tree")


async def main(url: str, word: str, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="ledger-bench-cache-") as cache:
        async with LedgerClient(url, MintedToken(SECRET, "participant_admin")) as client:
            catalog = PackageCatalog(client, Path(cache))
            await catalog.load()
    whole: list[float] = []
    typed: list[float] = []
    matches = 0
    app = TreeApp()
    async with app.run_test(size=(160, 48)) as pilot:
        tree = app.query_one(PackageTree)
        for _ in range(runs):
            started = time.perf_counter()
            tree.show(catalog, "")
            await pilot.pause()
            whole.append((time.perf_counter() - started) * 1000)
            for end in range(1, len(word) + 1):
                started = time.perf_counter()
                tree.show(catalog, word[:end].casefold())
                if tree.matches:
                    tree.select(tree.matches[0])
                await pilot.pause()
                typed.append((time.perf_counter() - started) * 1000)
                matches = len(tree.matches)
    print(f"{len(catalog.packages)} packages, {runs} runs; '{word}' has {matches} matches")
    print(f"whole tree:        median {statistics.median(whole):6.1f} ms   max {max(whole):6.1f} ms")
    print(f"a prefix searched: median {statistics.median(typed):6.1f} ms   max {max(typed):6.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--word", default="Transfer")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with Server(extra=("--dar", str(args.dar))) as server:
        asyncio.run(main(server.url, args.word, args.runs))
