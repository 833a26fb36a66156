"""How the suite is spread over xdist's workers (`-n auto --dist loadscope`, pyproject's addopts).

A module's tests go to one worker, as `loadscope` does: they share the module's fixtures (most start a participant
once for the module). What is changed is the order and, for a few modules, the unit:

- **The longest modules first.** xdist hands out the modules in the order of the collection (re-sorted by their
  number of tests, which says little of their time: 40 snapshot tests took 10 min, 300 decoder tests 10 s). A long
  module handed out last runs on alone while the other workers sit idle. Here the collection is ordered by each
  module's time in `tests/durations.json` (a full run's, in seconds), longest first, so the short modules fill the
  end. A module it does not know counts a second a test.
- **Modules whose tests share nothing are split into their tests** (`SPLIT`): the snapshots start each its own
  in-process participant, so one worker taking them all was the run's longest path.

`python -m bench.suite_schedule` projects a run's time from its durations and writes `tests/durations.json` again
(`--write-durations`) after the suite has changed much."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

DURATIONS = Path(__file__).with_name("durations.json")
# modules whose every test stands alone (function-scoped fixtures only): each test is a unit of its own
SPLIT = frozenset({"tests/tui/test_snapshots.py"})
UNKNOWN_MODULE_S_PER_TEST = 1.0


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}  # the order is then the collection's: slower, never wrong


def longest_modules_first(items: list[pytest.Item], durations: dict[str, float]) -> None:
    """Order `items` (in place) by their module's time, longest first; a module's own tests keep their order (the
    sort is stable and a module's tests are together already)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[module_of(item.nodeid)] = counts.get(module_of(item.nodeid), 0) + 1

    def weight(module: str) -> float:
        return durations.get(module, counts[module] * UNKNOWN_MODULE_S_PER_TEST)

    items.sort(key=lambda item: -weight(module_of(item.nodeid)))


class ModuleScheduling(LoadScopeScheduling):
    """`loadscope` with the collection's order kept (longest modules first, see above) and the `SPLIT` modules'
    tests as units of their own."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # its re-sorting by number of tests would undo the order

    def _split_scope(self, nodeid: str) -> str:
        if module_of(nodeid) in SPLIT:
            return nodeid
        return super()._split_scope(nodeid)
