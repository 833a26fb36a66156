"""The test suite's wall time on N workers, projected from the durations of a run: the runs of one directory at a
time (`pytest --durations=0 tests/DIR > DIR.log`) put together, and the suite's order of collection, replayed
through pytest-xdist's schedulers (its `loadscope` and `worksteal`, as their source does it) to the wall time each
would give the whole suite on one machine.

    python -m bench.suite_schedule --order collected.txt LOG [LOG ...] [--workers 2] [--top 20]

`collected.txt` is `pytest --collect-only -n 0` (one test id a line, the suite's order: pyproject's `-q` makes it so;
another `-q` prints a count per module instead, which is refused); a test missing from the logs (pytest leaves out
those under 5 ms) counts 0 s. A log may be a whole suite's run (`.ci/run`'s). A module-scoped fixture is set up again each time a worker
starts on a module afresh: its first test's setup, less the module's usual setup, is charged again then. Prints the
sum of the durations, the projected wall time per scheduler and the longest tests."""

from __future__ import annotations

import argparse
import heapq
import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tests.scheduling import SPLIT

DURATION = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S.*?)\s*$")


@dataclass
class Test:
    nodeid: str
    module: str
    setup: float = 0.0
    call: float = 0.0
    teardown: float = 0.0

    @property
    def total(self) -> float:
        return self.setup + self.call + self.teardown


@dataclass
class Suite:
    tests: list[Test]
    module_setup: dict[str, float] = field(default_factory=dict)  # what starting a module afresh costs again

    @classmethod
    def read(cls, order: Path, logs: list[Path]) -> Suite:
        phases: dict[str, dict[str, float]] = defaultdict(dict)
        for log in logs:
            for line in log.read_text(errors="replace").splitlines():
                if m := DURATION.match(line):
                    phases[m.group(3)][m.group(2)] = float(m.group(1))
        tests = []
        for line in order.read_text().splitlines():
            nodeid = line.strip()
            if "::" not in nodeid:
                continue
            p = phases.get(nodeid, {})
            tests.append(
                Test(
                    nodeid,
                    nodeid.split("::")[0],
                    p.get("setup", 0.0),
                    p.get("call", 0.0),
                    p.get("teardown", 0.0),
                )
            )
        suite = cls(tests)
        by_module: dict[str, list[Test]] = defaultdict(list)
        for t in tests:
            by_module[t.module].append(t)
        for module, ts in by_module.items():
            rest = [t.setup for t in ts[1:]]
            suite.module_setup[module] = max(0.0, ts[0].setup - (statistics.median(rest) if rest else 0.0))
        return suite

    def module_times(self) -> dict[str, float]:
        times: dict[str, float] = defaultdict(float)
        for t in self.tests:
            times[t.module] += t.total
        return times


class Worker:
    def __init__(self, name: int) -> None:
        self.name = name
        self.queue: list[int] = []  # indices into the suite's tests, in the order the worker runs them
        self.clock = 0.0
        self.last_module: str | None = None


def run_one(suite: Suite, worker: Worker, index: int) -> float:
    """The time `worker` takes for the test `index`: its own, plus the module's setup again where the worker starts
    on the module afresh at another test than its first (whose setup has the module's in it already)."""
    test = suite.tests[index]
    cost = test.total
    first_of_module = index == 0 or suite.tests[index - 1].module != test.module
    if worker.last_module != test.module and not first_of_module:
        cost += suite.module_setup[test.module]
    worker.last_module = test.module
    return cost


def loadscope(suite: Suite, workers: int, *, ours: bool = False) -> float:
    """xdist's `--dist loadscope`: modules as units, the modules with the most tests first; a worker is given
    another unit whenever it has 2 tests or fewer left. `ours`: as the suite runs it (tests/scheduling.py), the
    longest modules first and the `SPLIT` modules' tests units of their own."""
    units: dict[str, list[int]] = {}
    for i, t in enumerate(suite.tests):
        units.setdefault(t.nodeid if ours and t.module in SPLIT else t.module, []).append(i)
    if ours:
        module_time = suite.module_times()
        queue = sorted(units.values(), key=lambda u: -module_time[suite.tests[u[0]].module])
    else:
        queue = sorted(units.values(), key=lambda u: -len(u))  # stable: the order of collection among equals
    nodes = [Worker(n) for n in range(workers)]
    for node in nodes:
        if queue:
            node.queue.extend(queue.pop(0))
    for node in nodes:
        while queue and len(node.queue) <= 2:
            node.queue.extend(queue.pop(0))
    events = [(0.0, n.name) for n in nodes]
    while events:
        clock, name = heapq.heappop(events)
        node = nodes[name]
        node.clock = clock
        if not node.queue:
            continue
        index = node.queue.pop(0)
        node.clock += run_one(suite, node, index)
        while queue and len(node.queue) <= 2:
            node.queue.extend(queue.pop(0))
        heapq.heappush(events, (node.clock, name))
    return max(n.clock for n in nodes)


def worksteal(suite: Suite, workers: int) -> float:
    """xdist's `--dist worksteal`: the tests in equal runs of the collection's order, one per worker; a worker with
    fewer than 2 left takes the second half of the longest queue."""
    nodes = [Worker(n) for n in range(workers)]
    pending = list(range(len(suite.tests)))
    for i, node in enumerate(nodes):
        take = len(pending) // (workers - i)
        node.queue, pending = pending[:take], pending[take:]
    events = [(0.0, n.name) for n in nodes]
    while events:
        clock, name = heapq.heappop(events)
        node = nodes[name]
        node.clock = clock
        if len(node.queue) < 2:
            donor = max(nodes, key=lambda n: len(n.queue))
            steal = min(len(donor.queue) // 2, max(0, len(donor.queue) - 2))
            if steal and donor is not node:
                node.queue.extend(donor.queue[-steal:])
                del donor.queue[-steal:]
        if not node.queue:
            continue
        index = node.queue.pop(0)
        node.clock += run_one(suite, node, index)
        heapq.heappush(events, (node.clock, name))
    return max(n.clock for n in nodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--order", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument(
        "--write-durations", type=Path, help="write the modules' times here (tests/durations.json)"
    )
    args = parser.parse_args()
    suite = Suite.read(args.order, args.logs)
    if not suite.tests:
        parser.error(f"no test ids in {args.order} (made with `pytest --collect-only -n 0`, without -q?)")
    total = sum(t.total for t in suite.tests)
    timed = sum(1 for t in suite.tests if t.total)
    print(f"{len(suite.tests)} tests ({timed} timed), durations summed {total:.0f} s = {total / 60:.1f} min")
    print(f"ideal on {args.workers} workers (sum / workers): {total / args.workers / 60:.1f} min")
    for name, wall in (
        ("loadscope", loadscope(suite, args.workers)),
        ("worksteal", worksteal(suite, args.workers)),
        ("loadscope, ordered as tests/scheduling.py", loadscope(suite, args.workers, ours=True)),
    ):
        print(f"--dist {name:<9} projected wall time: {wall:.0f} s = {wall / 60:.1f} min")
    modules = suite.module_times()
    if args.write_durations:
        args.write_durations.write_text(
            json.dumps(
                {m: round(s, 1) for m, s in sorted(modules.items(), key=lambda kv: -kv[1]) if s >= 1},
                indent=0,
            )
            + "\n"
        )
        print(f"module durations written to {args.write_durations}")
    print(
        "longest modules (a unit of loadscope): "
        + ", ".join(f"{m} {s:.0f} s" for m, s in sorted(modules.items(), key=lambda kv: -kv[1])[:5])
    )
    print(f"top {args.top} tests (setup + call + teardown):")
    for t in sorted(suite.tests, key=lambda t: -t.total)[: args.top]:
        print(f"  {t.total:7.1f} s  (setup {t.setup:.1f}, call {t.call:.1f})  {t.nodeid}")


if __name__ == "__main__":
    main()
