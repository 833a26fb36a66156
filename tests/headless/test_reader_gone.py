"""Watching standard output for a reader that went away: real pipes and files, no participant."""

from __future__ import annotations

import asyncio
import os

import pytest

from app.headless.reader_gone import reader_gone, while_read


def test_a_pipe_whose_reader_closed_is_told_apart_from_one_still_read(tmp_path):
    read_end, write_end = os.pipe()
    try:
        assert not reader_gone(write_end)
        os.write(write_end, b"x" * 1000)  # unread data changes nothing
        assert not reader_gone(write_end)
        os.close(read_end)
        assert reader_gone(write_end)
    finally:
        os.close(write_end)
    with open(tmp_path / "out.txt", "wb") as file, open(os.devnull, "wb") as null:
        assert not reader_gone(file.fileno()) and not reader_gone(null.fileno())


async def test_work_is_cancelled_and_the_pipe_reported_broken_once_its_reader_goes():
    read_end, write_end = os.pipe()
    cancelled = asyncio.Event()

    async def quiet_follow() -> None:  # waits for an update that never comes
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    try:
        os.close(read_end)
        with pytest.raises(BrokenPipeError):
            await asyncio.wait_for(while_read(quiet_follow(), write_end), timeout=60)
        assert cancelled.is_set()
    finally:
        os.close(write_end)


async def test_works_result_and_failure_come_through_while_the_reader_stays():
    read_end, write_end = os.pipe()

    async def answer() -> int:
        return 42

    async def refused() -> None:
        raise LookupError("refused")

    try:
        assert await while_read(answer(), write_end) == 42
        with pytest.raises(LookupError):
            await while_read(refused(), write_end)
    finally:
        os.close(read_end)
        os.close(write_end)
