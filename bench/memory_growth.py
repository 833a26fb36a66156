"""What grows in this process between two moments: tracemalloc's allocations grouped by the line that made them,
and the live objects counted by type, each diffed against the previous sample. A long bench run (the TUI monkey's
`--trace-memory`) traces a window of steps every so often to find the cause of a growing RSS rather than guess at
it: what was allocated within the window and still lives at its end.

tracemalloc slows the process down ten times or more, hence windows: a run with it measures what grows, not speed.
"""

from __future__ import annotations

import collections
import gc
import os
import tracemalloc

FRAMES = 6  # frames kept per allocation: enough to see which app code asked Textual or Rich for the memory
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """This process's resident memory now (not its peak)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def _types() -> collections.Counter:
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


class MemoryGrowth:
    """One window at a time: `start`, then `report` (which ends the window)."""

    def __init__(self, top: int = 12) -> None:
        self.top = top
        self._snapshot: tracemalloc.Snapshot | None = None
        self._types: collections.Counter = collections.Counter()

    def start(self) -> None:
        tracemalloc.start(FRAMES)
        self._snapshot = self._take()
        self._types = _types()

    @staticmethod
    def _take() -> tracemalloc.Snapshot:
        gc.collect()
        return tracemalloc.take_snapshot().filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>"))
        )

    @property
    def tracing(self) -> bool:
        return self._snapshot is not None

    def report(self, label: str) -> str:
        """The top growers since `start`, as text; tracing stops."""
        assert self._snapshot is not None, "a window is started first"
        snapshot = self._take()
        types = _types()
        traced, _peak = tracemalloc.get_traced_memory()
        lines = [f"--- memory at {label}: rss {rss_mb():.0f} MB, traced {traced / 2**20:.1f} MB"]
        lines.append("  by the line that allocated:")
        for stat in snapshot.compare_to(self._snapshot, "lineno")[: self.top]:
            if stat.size_diff > 0:
                frame = stat.traceback[0]
                lines.append(f"  {stat.size_diff / 1024:+10.0f} KiB {stat.count_diff:+8d} blocks  {frame}")
        lines.append("  by the calls that led there:")
        for stat in snapshot.compare_to(self._snapshot, "traceback")[: self.top // 2]:
            if stat.size_diff > 0:
                lines.append(f"  {stat.size_diff / 1024:+10.0f} KiB {stat.count_diff:+8d} blocks")
                lines += [f"        {frame}" for frame in reversed(stat.traceback)]
        grown = (types - self._types).most_common(self.top)
        lines.append("  objects grown by type: " + ", ".join(f"{name} +{n}" for name, n in grown))
        self._snapshot = None
        tracemalloc.stop()
        return "\n".join(lines)
