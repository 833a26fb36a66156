"""Daml evaluation off the event loop: worker threads, each with an event loop of its own, run the engine's
coroutines within a `Budget`, so that code that never ends holds neither the server's event loop nor its writer.

Threads, not processes: they share the compiled packages (a process would have to load and keep every package again,
and send contracts and transactions back and forth), and the interpreter's switch interval bounds how long the
server's loop waits for the GIL while a worker computes. A worker never holds the process: the threads are daemons,
and `stop` ends every evaluation at its next budget check (`Interrupted`).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from participant.base.transactions import Contract, ContractSource
from participant.daml_lf.eval.budget import Budget, limited

log = logging.getLogger(__name__)

T = TypeVar("T")

# Workers started as soon as evaluations wait: with the GIL, more threads computing at once add no throughput, and
# every one of them competes with the event loop's thread for it (at 32 clients, 4 workers gave more transactions a
# second for less CPU each than 16).
DEFAULT_WORKERS = 4
# Evaluations that run at once at most. One that never ends holds its worker until its deadline: past the first
# workers, another starts once an evaluation has waited `STUCK_S` for one, so that a few such commands cannot hold
# everyone else's.
DEFAULT_MAX_WORKERS = 16
STUCK_S = 0.05


@dataclass(slots=True)
class _Job(Generic[T]):
    evaluate: Callable[[], Awaitable[T]]
    budget: Budget
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[T]
    waits: bool
    taken: bool = False


class EvaluationWorkers:
    """Worker threads that run evaluations for the event loop that asks (`run`), each within its budget."""

    def __init__(
        self,
        *,
        workers: int = DEFAULT_WORKERS,
        max_workers: int = DEFAULT_MAX_WORKERS,
        name: str = "daml-eval",
    ) -> None:
        self.stopping = threading.Event()
        self._workers = min(workers, max_workers)
        self._max_workers = max_workers
        self._name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._waiting = 0

    def budget(
        self, ledger_time: datetime, tolerance: timedelta, max_memory: int | None, now: datetime | None = None
    ) -> Budget:
        """A budget whose deadline is `ledger_time` plus `tolerance` on the ledger's clock, whose time is `now`
        (the wall clock's when not given), as Canton's interpretation deadline is, stopped with the workers."""
        return Budget.until(ledger_time, tolerance, max_memory=max_memory, stop=self.stopping, now=now)

    async def run(self, evaluate: Callable[[], Awaitable[T]], budget: Budget, *, waits: bool = False) -> T:
        """Run `evaluate()` on a worker within `budget`; its result or exception is this call's. Cancelling the call
        does not stop the evaluation: its budget does. An evaluation that `waits` for futures (reads forwarded to
        another loop) runs on the worker's event loop; any other is driven to its end directly, which costs a
        tenth of a loop's round (its bare yields, as the update runner's, are no wait)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(evaluate, budget, loop, future, waits)
        with self._lock:
            self._waiting += 1
            thread = self._thread_if(self._waiting > self._idle, self._workers)
        self._jobs.put(job)
        if thread is not None:
            thread.start()
        elif len(self._threads) < self._max_workers:
            stuck = loop.call_later(STUCK_S, self._unstick, job)
            future.add_done_callback(lambda _: stuck.cancel())
        return await future

    def _unstick(self, job: _Job) -> None:
        """A worker more if `job` still waits for one (the others may be held by evaluations that never end)."""
        with self._lock:
            thread = self._thread_if(not job.taken and self._idle == 0, self._max_workers)
        if thread is not None:
            thread.start()

    def _thread_if(self, needed: bool, limit: int) -> threading.Thread | None:
        """A new worker, not started yet, if it is `needed` and there are fewer than `limit`; under the lock."""
        if not needed or len(self._threads) >= limit:
            return None
        self._idle += 1  # from its start, until it takes a job
        thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
        self._threads.append(thread)
        return thread

    def stop(self) -> None:
        """End every evaluation at its next budget check, and the workers once idle (they never hold the
        process)."""
        self.stopping.set()
        with self._lock:
            threads = len(self._threads)
        for _ in range(threads):
            self._jobs.put(None)

    def _work(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            while True:
                job = self._jobs.get()  # counted idle while it waits here
                with self._lock:
                    self._idle -= 1
                    if job is not None:
                        self._waiting -= 1
                        job.taken = True
                if job is None:
                    break
                try:
                    evaluation = _limited(job)
                    value = loop.run_until_complete(evaluation) if job.waits else _driven(evaluation)
                    result: tuple[Any, BaseException | None] = (value, None)
                except BaseException as error:  # answered to the caller, whatever it is
                    result = (None, error)
                try:
                    job.loop.call_soon_threadsafe(_settle, job.future, result)
                except RuntimeError:  # the caller's loop is closed: nobody waits for the answer
                    pass
                del job, result, evaluation
                with self._lock:
                    self._idle += 1
        finally:
            loop.close()
            with self._lock:
                self._threads.remove(threading.current_thread())


async def _limited(job: _Job[T]) -> T:
    with limited(job.budget):
        return await job.evaluate()


def _driven(evaluation: Coroutine[Any, Any, T]) -> T:
    """The coroutine run to its end without an event loop: it may yield bare (`asyncio.sleep(0)`), never wait."""
    try:
        while True:
            if evaluation.send(None) is not None:
                raise RuntimeError("an evaluation run without an event loop waited for a future")
    except StopIteration as done:
        return done.value
    finally:
        evaluation.close()


def _settle(future: asyncio.Future, result: tuple[Any, BaseException | None]) -> None:
    if future.done():  # the caller was cancelled
        return
    value, error = result
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(error)


class LoopSource:
    """A `ContractSource` used by a worker that reads through a source bound to another event loop (the writer's
    batch, on the server's loop): each read runs there, and the worker's coroutine waits for it."""

    def __init__(self, source: ContractSource, loop: asyncio.AbstractEventLoop) -> None:
        self._source = source
        self._loop = loop

    async def active_contract(self, contract_id: str) -> Contract | None:
        return await self._there(self._source.active_contract(contract_id))

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        return await self._there(self._source.active_contract_by_key(template_id, key_hash))

    async def _there(self, read: Awaitable[T]) -> T:
        async def run() -> T:
            return await read

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), self._loop))
