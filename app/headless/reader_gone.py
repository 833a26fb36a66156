"""Run a command that writes only when something happens (`updates --follow`) until its reader goes away.

Such a command learns that its reader went away (`| head -n 1` has what it wanted and exits) only when it next writes,
and on a quiet ledger that may be minutes later, the command alive and connected meanwhile. `tail -f` has the same
problem and the same answer: look at standard output now and then. `poll` with no events asked still reports
POLLERR (a pipe whose reading end is closed, on Linux), POLLHUP (a hung-up terminal or socket, and such a pipe on
macOS) and POLLNVAL (a closed descriptor); a pipe that is still read, a file or a terminal reports none of them, so
the look costs a system call and never consumes anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
from collections.abc import Awaitable
from typing import TypeVar

CHECK_INTERVAL_S = 0.1  # how soon after its reader goes away the command ends: well within a second
# Windows has no poll for pipes: there a command learns of its reader's going away at its next write, as before.
CAN_LOOK = hasattr(select, "poll")
_GONE = select.POLLERR | select.POLLHUP | select.POLLNVAL if CAN_LOOK else 0

T = TypeVar("T")


def reader_gone(fd: int) -> bool:
    """True when nobody can read what is written to `fd` any more."""
    watch = select.poll()
    watch.register(fd, 0)  # no events asked: only the error conditions poll always reports
    return any(events & _GONE for _, events in watch.poll(0))


async def _watch(fd: int) -> None:
    while not reader_gone(fd):
        await asyncio.sleep(CHECK_INTERVAL_S)


async def while_read(work: Awaitable[T], fd: int) -> T:
    """`work`'s result, or, as soon as `fd`'s reader goes away, `work` cancelled and `BrokenPipeError` raised: the
    outcome a write to that reader would have had."""
    if not CAN_LOOK:
        return await work
    job = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_watch(fd))
    try:
        done, _ = await asyncio.wait({job, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # this command cancelled (ctrl+c): neither goes on
        job.cancel()
        watcher.cancel()
        raise
    if job in done:
        watcher.cancel()
        return job.result()
    job.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await job  # let it unwind: its stream closed before the participant is let go
    watcher.result()  # a failure of the look itself is raised as it is
    raise BrokenPipeError("the reader of standard output went away")
