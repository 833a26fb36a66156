"""The TUI's memory as screens open and close: the real app (headless at 160x45 under Pilot, in this process) against
a participant with the demo ledger; each round opens and closes help, the palette and every mode's screen. Prints
the RSS, the render caches alive (Textual's `StylesCache`, one per widget drawn) and the widgets on the screens'
stacks every `--every` rounds.

    python -m bench.tui_screens_memory [--rounds 300] [--every 50] [--keep-textual-style-cache]

`--keep-textual-style-cache` leaves Textual's own `StylesCache.get_inner_outer` in place (the app replaces it,
`app.widgets.styles_cache`): the same rounds with the cache that kept the last 1,024 widgets drawn.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import time
from pathlib import Path

ROUND = ("question_mark", "escape", "ctrl+p", "escape", "2", "3", "4", "5", "6", "1")


def render_caches_alive() -> int:
    from textual._styles_cache import StylesCache

    gc.collect()
    return sum(isinstance(o, StylesCache) for o in gc.get_objects())


def widgets_held(app) -> int:
    """The widgets of every screen on every mode's stack (each has its render cache)."""
    return sum(
        len(list(s.walk_children(with_self=True))) for stack in app._screen_stacks.values() for s in stack
    )


async def run(url: str, locations, rounds: int, every: int) -> None:
    from app.config import Config
    from app.tokens import MintedToken
    from bench.common import SECRET
    from bench.memory_growth import rss_mb
    from bench.tui_monkey import SIZE, _app_caught_up, _send_key, _settle, make_monkey_app

    tokens = MintedToken(SECRET, "Alice")
    app = make_monkey_app(config=Config(), locations=locations, url=url, tokens=tokens, label=url)
    async with app.run_test(size=SIZE) as pilot:
        while not (app.connected and app.session is not None and app.session.identity is not None):
            await pilot.pause(0.05)
        started = time.perf_counter()
        for n in range(1, rounds + 1):
            for key in ROUND:
                _send_key(app, key)
                await _app_caught_up(app)
                await _settle(pilot)
            if n % every == 0 or n == 1:
                print(
                    f"  round {n:>5}  rss {rss_mb():6.0f} MB  render caches alive {render_caches_alive():6d}  "
                    f"widgets on the stacks {widgets_held(app):6d}  "
                    f"{n / (time.perf_counter() - started):.1f} rounds/s",
                    flush=True,
                )
        app.may_exit = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--keep-textual-style-cache", action="store_true")
    args = parser.parse_args(argv)

    import app.widgets.styles_cache as styles_cache
    from app.locations import Locations
    from bench.common import Server

    if args.keep_textual_style_cache:
        styles_cache.drop_widgets_from_style_cache = lambda: None  # the app calls it when built
    tmp = Path(tempfile.mkdtemp(prefix="tui-screens-memory-"))
    locations = Locations(
        config_file=tmp / "config" / "config.toml",
        data_dir=tmp / "data",
        cache_dir=tmp / "cache",
        log_dir=tmp / "logs",
    )
    kept = "Textual's" if args.keep_textual_style_cache else "the app's"
    print(f"{args.rounds} rounds of {' '.join(ROUND)}; {kept} background style cache", flush=True)
    with Server(extra=("--demo",)) as server:
        asyncio.run(run(server.url, locations, args.rounds, args.every))
    return 0


if __name__ == "__main__":
    sys.exit(main())
