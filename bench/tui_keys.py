"""What ordering the keys costs (`app.app.keys`): 500 keys sent at once (as a terminal delivers a burst) into an
Input in a small headless Textual app, with the app's `Keys` part and without it. Per key: the time from one key's
character landing in the input to the next's (p50/p99), and the whole burst divided by its keys.

    python -m bench.tui_keys [--keys 500] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input

from app.app.keys import Keys


class Typed(App):
    def __init__(self, ordered: bool) -> None:
        super().__init__()
        self.keys = Keys(self) if ordered else None
        self.landed: list[float] = []

    def compose(self) -> ComposeResult:
        yield Input(id="typed")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.landed.append(time.perf_counter())

    async def on_event(self, event: events.Event) -> None:
        if self.keys is not None and isinstance(event, events.Key):
            await self.keys.handle(event, super().on_event)
            return
        await super().on_event(event)


async def run(ordered: bool, keys: int) -> tuple[float, list[float]]:
    app = Typed(ordered)
    async with app.run_test(size=(160, 45)) as pilot:
        app.query_one(Input).focus()
        await pilot.pause()
        started = time.perf_counter()
        for i in range(keys):
            char = "abcdefghij"[i % 10]
            app.post_message(events.Key(char, char))
        while len(app.landed) < keys:
            await asyncio.sleep(0.001)
        total = app.landed[-1] - started
        gaps = [b - a for a, b in zip(app.landed, app.landed[1:], strict=False)]
        assert app.query_one(Input).value == "".join("abcdefghij"[i % 10] for i in range(keys))
    return total, gaps


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, list[float]]]] = {True: [], False: []}
    for _ in range(args.runs):  # interleaved: the machine's load falls on both alike
        for ordered in (False, True):
            results[ordered].append(asyncio.run(run(ordered, args.keys)))
    for ordered in (False, True):
        totals = [total for total, _ in results[ordered]]
        gaps = [gap for _, run_gaps in results[ordered] for gap in run_gaps]
        name = "with Keys   " if ordered else "without Keys"
        print(
            f"{name}: per key {statistics.median(totals) / args.keys * 1e6:7.0f} µs (burst / keys, median of"
            f" {args.runs}), between keys p50 {percentile(gaps, 0.5) * 1e6:6.0f} µs,"
            f" p99 {percentile(gaps, 0.99) * 1e6:6.0f} µs"
        )


if __name__ == "__main__":
    main()
