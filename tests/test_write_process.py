"""The write process: group commits are written by a process of their own, which answers each one once it is durable
or rolled back, keeps the WAL short, outlives an interrupt the server handles, and whose loss stops all writing."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from participant.store import admin, sql
from participant.store.store import Store
from participant.store.writer import CommitFailed

ROWS = 400
ROW_BYTES = 3000


def write_processes() -> list[int]:
    """Our children running the write process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"participant.store.write_process" in cmdline:
            found.append(int(entry.name))
    return found


async def set_meta(store: Store, key: str, value: str) -> None:
    async def job(batch):
        batch.write(sql.SET_META, (key, value))

    await store.write(job)


@pytest.fixture
async def store(tmp_path):
    store = Store(tmp_path / "ledger.db")
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def test_one_process_per_open_store_and_none_after_close(tmp_path):
    before = set(write_processes())
    store = Store(tmp_path / "ledger.db")
    await store.open()
    try:
        assert len(set(write_processes()) - before) == 1
    finally:
        await store.close()
    assert set(write_processes()) - before == set()


async def test_a_commit_that_fails_is_rolled_back_and_the_next_one_goes_through(store):
    async def bad(batch):
        batch.write(sql.SET_META, ("half", "written"))
        batch.write("INSERT INTO no_such_table VALUES (?)", (1,))

    with pytest.raises(CommitFailed, match="no_such_table"):
        await store.write(bad)
    assert await store.meta("half") is None  # nothing of the failed commit is stored
    await set_meta(store, "after", "yes")
    assert await store.meta("after") == "yes"


async def test_the_wal_starts_over_instead_of_growing(store):
    for i in range(ROWS):
        await set_meta(store, f"k{i}", "x" * ROW_BYTES)
    # Each commit is checkpointed once it is answered, so the next commit writes the WAL from its start again:
    # the rows are in the database file, and the WAL holds no more than a few commits' pages.
    assert os.path.getsize(store.path) > ROWS * ROW_BYTES
    assert Path(f"{store.path}-wal").stat().st_size < ROWS * ROW_BYTES / 4


async def test_an_interrupt_for_the_server_does_not_stop_the_write_process(store):
    """Ctrl-C in a terminal reaches every process of the group: the server shuts down in order, and its writes
    still need the write process until then."""
    await set_meta(store, "first", "write")  # once it is up: it starts beside the opening of the store
    [pid] = write_processes()
    os.kill(pid, signal.SIGINT)
    os.kill(pid, signal.SIGTERM)
    await set_meta(store, "still", "writing")
    assert await store.meta("still") == "writing"


async def test_when_the_write_process_dies_nothing_more_is_written(store):
    await set_meta(store, "before", "yes")
    end = store.ledger_end
    [pid] = write_processes()
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):  # bounded: the loop hears of it as soon as the pipe closes
        try:
            await set_meta(store, "after", "no")
        except CommitFailed as e:
            assert "restart the participant" in str(e)
            break
        await asyncio.sleep(0.01)
    else:
        pytest.fail("writes went on without the write process")
    with pytest.raises(CommitFailed, match="restart the participant"):
        await admin.allocate_party(store, "p::1220ab", {})
    assert store.ledger_end == end
    assert await store.meta("before") == "yes"
