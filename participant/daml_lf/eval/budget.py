"""What one evaluation of Daml may spend: a deadline, memory, and a stop signal from the server.

A `Budget` is set for the code running in a context (a thread, or an asyncio task and what it awaits) with
`limited`; every machine running in that context checks it as it goes, and the first limit it finds exceeded ends
the evaluation with a `BudgetExceeded`. The engine turns that into the participant's answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


class BudgetExceeded(Exception):
    """An evaluation stopped before its end because it outgrew its budget."""


class TimeExceeded(BudgetExceeded):
    """The evaluation ran past its deadline."""


class MemoryExceeded(BudgetExceeded):
    """The evaluation's values or stack outgrew the memory it may use."""


class Interrupted(BudgetExceeded):
    """The evaluation was stopped from outside (the server is stopping)."""


@dataclass
class Budget:
    deadline: float | None = None
    """`time.monotonic()` past which the evaluation stops; None: no deadline."""
    max_memory: int | None = None
    """Bytes the evaluation may grow the process by; None: no limit."""
    stop: threading.Event | None = None
    """Set when every evaluation must end at once."""


_current: ContextVar[Budget | None] = ContextVar("daml_budget", default=None)


def current() -> Budget | None:
    """The budget of the code running in this context, if it has one."""
    return _current.get()


@contextmanager
def limited(budget: Budget) -> Iterator[Budget]:
    """Run the body's evaluations within `budget`."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
