"""What one evaluation of Daml may spend: a deadline, memory, and a stop signal from the server.

A `Budget` is set for the code running in a context (a thread, or an asyncio task and what it awaits) with
`limited`; every machine running in that context checks it as it goes, and the first limit it finds exceeded ends
the evaluation with a `BudgetExceeded`. The engine turns that into the participant's answer.

How the machine checks (``machine.Machine.run``): it reads the budget once per run and counts its steps down from
`CHECK_EVERY`, a count the budget carries from one run to the next (an update runs many short machine runs, and a
loop made of them must be caught too); at zero it calls `Budget.check`: the stop event, the deadline, the depth of
the continuation stack, and the process's resident memory since the budget began. Between two checks a step may
make one large value at once (a text appended to itself): the builtins that can do that ask `allocating` first.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CHECK_EVERY = 2000
"""Machine steps between two checks. A step takes about 0.3-1 µs, so a check comes every 1-2 ms; a check costs
about 5 µs (reading /proc/self/statm most of it): well under 1 % of the steps' time (bench/daml_budget.py)."""

MAX_DEPTH = 1_000_000
"""Continuation frames one machine may hold: a recursion that deep is a runaway (Daml's standard library recurses
on a list's length at most, and the memory check would stop such a list first); about 100 MB of frames."""

LARGE_VALUE = 1 << 16
"""Bytes above which a builtin asks the budget before it makes a value (smaller ones are not worth the look)."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class BudgetExceeded(Exception):
    """An evaluation stopped before its end because it outgrew its budget."""


class TimeExceeded(BudgetExceeded):
    """The evaluation ran past its deadline."""

    def __init__(self, budget: Budget) -> None:
        super().__init__("the evaluation ran past its deadline")
        self.budget = budget


class MemoryExceeded(BudgetExceeded):
    """The evaluation's values or stack outgrew the memory it may use: `pool` says which ("memory", in bytes,
    or "stack", in frames), `limit` the limit it met (None: the process's own, Python's memory or stack)."""

    def __init__(self, message: str, pool: str = "memory", limit: int | None = None) -> None:
        super().__init__(message)
        self.pool = pool
        self.limit = limit


class Interrupted(BudgetExceeded):
    """The evaluation was stopped from outside (the server is stopping)."""


_statm: dict[int, int] = {}  # pid → /proc/self/statm opened by it (a forked child must open its own)


def resident_bytes() -> int:
    """The process's resident memory now. /proc/self/statm where there is one (a read of a file kept open: a few
    µs); elsewhere the peak (``ru_maxrss``), which still grows when memory does."""
    try:
        pid = os.getpid()
        fd = _statm.get(pid)
        if fd is None:
            fd = _statm[pid] = os.open("/proc/self/statm", os.O_RDONLY)
        return int(os.pread(fd, 128, 0).split()[1]) * _PAGE
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


@dataclass
class Budget:
    deadline: float | None = None
    """`time.monotonic()` past which the evaluation stops; None: no deadline."""
    max_memory: int | None = None
    """Bytes the evaluation may grow the process by; None: no limit."""
    stop: threading.Event | None = None
    """Set when every evaluation must end at once."""
    ledger_time: datetime | None = None
    """The ledger time the deadline counts from, for the error's wording (Canton's "Ledger Effective Time")."""
    tolerance: timedelta | None = None
    """How long after `ledger_time` the deadline is, for the error's wording."""
    max_depth: int = MAX_DEPTH
    """Continuation frames one machine may hold."""
    baseline: int | None = field(default=None, compare=False)
    """The resident memory when the budget began (set by `limited`); growth is measured from it."""
    countdown: int = field(default=CHECK_EVERY, compare=False, repr=False)
    """Steps left until the next check, carried from one machine run to the next."""

    @classmethod
    def until(
        cls,
        ledger_time: datetime,
        tolerance: timedelta,
        *,
        max_memory: int | None = None,
        stop: threading.Event | None = None,
        now: datetime | None = None,
    ) -> Budget:
        """A budget whose deadline is `ledger_time` + `tolerance` on the ledger's clock, as Canton's: `now` is that
        clock's time (the wall clock's when not given). The deadline is kept on the monotonic clock, so that a
        change of the wall clock meanwhile does not move it, and a static ledger clock (which stands still) gives
        the evaluation the same time as the wall clock would."""
        if now is None:
            now = datetime.now(ledger_time.tzinfo)
        left = (ledger_time + tolerance - now).total_seconds()
        return cls(
            deadline=time.monotonic() + left,
            max_memory=max_memory,
            stop=stop,
            ledger_time=ledger_time,
            tolerance=tolerance,
        )

    def check(self, depth: int) -> None:
        """Raise the `BudgetExceeded` of the first limit exceeded, `depth` being the machine's stack depth."""
        stop = self.stop
        if stop is not None and stop.is_set():
            raise Interrupted("the participant is shutting down")
        deadline = self.deadline
        if deadline is not None and time.monotonic() > deadline:
            raise TimeExceeded(self)
        if depth > self.max_depth:
            raise MemoryExceeded(
                f"the evaluation's stack is deeper than {self.max_depth} frames", "stack", self.max_depth
            )
        if self.max_memory is not None:
            self._check_memory(0)

    def allocating(self, size: int) -> None:
        """Before a value of about `size` bytes is made: raise `MemoryExceeded` when the process has grown, with
        it, past the budget's memory. Also the other limits, since a large value takes a while to make."""
        self.check(0)
        if self.max_memory is not None:
            self._check_memory(size)

    def _check_memory(self, more: int) -> None:
        assert self.max_memory is not None
        baseline = self.baseline
        if baseline is None:
            baseline = self.baseline = resident_bytes()
        grown = resident_bytes() - baseline + more
        if grown > self.max_memory:
            raise MemoryExceeded(
                f"the evaluation would grow the participant's memory by {grown // (1 << 20)} MB, "
                f"more than its limit of {self.max_memory // (1 << 20)} MB",
                "memory",
                self.max_memory,
            )


_current: ContextVar[Budget | None] = ContextVar("daml_budget", default=None)


def current() -> Budget | None:
    """The budget of the code running in this context, if it has one."""
    return _current.get()


WALK_CHECK_EVERY = 1 << 14
"""Parts of a value a walk (equality, order, the check of a value to be stored) visits between two checks: one
step of the machine may walk a value whose parts are shared, and so far larger than the memory it takes."""


def walked(count: int, bytes_each: int = 0) -> None:
    """A walk over a value has visited `count` parts: check the current budget, if any, as the machine does
    between its steps; with `bytes_each`, also the memory a result of that many parts would take."""
    budget = _current.get()
    if budget is not None:
        if bytes_each:
            budget.allocating(count * bytes_each)
        else:
            budget.check(0)


def allocating(size: int) -> None:
    """A builtin is about to make a value of about `size` bytes: check it against the current budget, if any."""
    budget = _current.get()
    if budget is not None:
        budget.allocating(size)


@contextmanager
def limited(budget: Budget) -> Iterator[Budget]:
    """Run the body's evaluations within `budget`. Its memory is measured from here (or from where the budget was
    first entered, when it is entered again)."""
    if budget.max_memory is not None and budget.baseline is None:
        budget.baseline = resident_bytes()
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
