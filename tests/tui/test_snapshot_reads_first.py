"""The cache's worker runs the reads a screen waits for before the writes still waiting (`Store.run_first`)."""

from __future__ import annotations

import asyncio
import threading

from app.snapshot import Store


async def test_a_read_the_screen_waits_for_goes_before_the_writes_still_waiting(tmp_path):
    """While a snapshot is stored batch after batch, the rows a PgDn needs are read before the batches queued (the
    one being stored goes on to its end): the read waits for one slice, not for every batch asked before it."""
    store = await Store.open(tmp_path / "cache.db")
    try:
        started, release = threading.Event(), threading.Event()
        ran: list[str] = []

        def job(name: str) -> str:
            if name == "running":
                started.set()
                release.wait(10)
            ran.append(name)
            return name

        running = asyncio.ensure_future(store.run(job, "running"))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)  # the worker is in it
        queued = [asyncio.ensure_future(store.run(job, f"write {i}")) for i in range(3)]
        read = asyncio.ensure_future(store.run_first(job, "read"))
        await asyncio.sleep(0)
        release.set()
        assert await asyncio.gather(running, *queued, read) == [
            "running",
            "write 0",
            "write 1",
            "write 2",
            "read",
        ]
        assert ran == ["running", "read", "write 0", "write 1", "write 2"]
    finally:
        await store.close()


async def test_a_failing_job_fails_its_awaiter_only(tmp_path):
    store = await Store.open(tmp_path / "cache.db")
    try:

        def fail() -> None:
            raise ValueError("no")

        failed = asyncio.ensure_future(store.run_first(fail))
        after = asyncio.ensure_future(store.run(lambda: "after"))
        results = await asyncio.gather(failed, after, return_exceptions=True)
        assert isinstance(results[0], ValueError) and results[1] == "after"
    finally:
        await store.close()
