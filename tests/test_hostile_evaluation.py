"""Daml that never ends holds neither the server nor other submissions: a real server on loopback, a real hostile DAR
(`tests.engine.hostile_package`), a create whose `ensure` loops for ever."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from participant.base import errors
from tests.conftest import SECRET, LedgerApi, ServerProcess, start_server
from tests.daml_lf.conftest import RICHTYPES
from tests.engine.hostile_package import looping_ensure, marker_id
from tests.http.helpers import commands, create, submit_tx

LOOP = "hostile-loop"
TOLERANCE_S = "2"
# CPU a worker thread of the server has spent once it is surely interpreting the loop (a create of richtypes takes a
# few ms; starting the server spends its CPU on the main thread).
INTERPRETING_CPU_S = 0.3


def _hostile_server(tmp_path: Path, dar_bytes: Callable[[str], bytes], *extra: str) -> ServerProcess:
    dar = tmp_path / "loop.dar"
    dar.write_bytes(looping_ensure(dar_bytes(RICHTYPES), LOOP))
    return start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, "--dar", str(dar), *extra)


@pytest.fixture
def fast_deadline(tmp_path, dar_bytes) -> Iterator[ServerProcess]:
    server = _hostile_server(tmp_path, dar_bytes, "--ledger-time-tolerance", TOLERANCE_S)
    yield server
    server.stop()


@pytest.fixture
def far_deadline(tmp_path, dar_bytes) -> Iterator[ServerProcess]:
    """A server whose loops run until it stops (the default tolerance, 60 s): however slowly a loaded machine
    interprets, the loop is still running when what runs beside it is checked."""
    server = _hostile_server(tmp_path, dar_bytes)
    yield server
    server.stop()


async def _api(server: ServerProcess) -> AsyncIterator[LedgerApi]:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        yield LedgerApi(http)


def _worker_cpu_s(pid: int) -> float:
    """CPU seconds spent by the process's threads other than its main one (the event loop's)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        if int(tid) == pid:
            continue
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except FileNotFoundError:  # the thread ended
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def _until_a_worker_interprets(pid: int, since: float) -> None:
    """Returns once a thread other than the event loop's has computed for a while: the loop is being interpreted
    there. Never on a participant that interprets on its event loop."""
    deadline = time.monotonic() + 20
    while _worker_cpu_s(pid) - since < INTERPRETING_CPU_S:
        assert time.monotonic() < deadline, "no worker thread is interpreting the loop"
        await asyncio.sleep(0.02)


def _loop_command(alice: str) -> dict:
    return commands([alice], create({"owner": alice}, marker_id(LOOP)))


async def test_a_looping_create_holds_neither_the_server_nor_other_submissions(far_deadline) -> None:
    async for api in _api(far_deadline):
        alice = await api.party("Alice")
        start = (await api.get("/v2/state/ledger-end")).json()["offset"]
        before = _worker_cpu_s(far_deadline.process.pid)
        looping = asyncio.create_task(submit_tx(api, _loop_command(alice), user="Alice"))
        await _until_a_worker_interprets(far_deadline.process.pid, before)

        livez = await api.http.get("/livez")
        assert livez.status_code == 200
        control = asyncio.create_task(api.create_iou(alice, alice, user="Alice"))
        # The loop ends only at its deadline, a minute away: a participant that made the control create wait for
        # it would answer the loop first (or both at once).
        done, _ = await asyncio.wait({looping, control}, return_when=asyncio.FIRST_COMPLETED)
        assert control in done and looping not in done  # answered while the loop still runs
        await control
        assert (await api.get("/v2/state/ledger-end")).json()["offset"] == start + 1
        looping.cancel()  # the server's stop ends the loop


async def test_a_looping_create_is_refused_at_its_deadline_and_writes_nothing(fast_deadline) -> None:
    async for api in _api(fast_deadline):
        alice = await api.party("Alice")
        start = (await api.get("/v2/state/ledger-end")).json()["offset"]
        answer = await submit_tx(api, _loop_command(alice), user="Alice")
        assert answer.json()["code"] == "INTERPRETATION_TIME_EXCEEDED", answer.text
        # Canton's wording: the deadline is the command's ledger time plus the tolerance
        assert answer.json()["cause"].endswith(" + tolerance (2s). Interpretation aborted."), answer.text
        assert answer.status_code == errors.INTERPRETATION_TIME_EXCEEDED.status
        # Nothing written, no completion for the loop either: a create after it takes the next offset.
        assert (await api.get("/v2/state/ledger-end")).json()["offset"] == start
        await api.create_iou(alice, alice, user="Alice")
        assert (await api.get("/v2/state/ledger-end")).json()["offset"] == start + 1


async def test_sigterm_stops_the_server_while_it_interprets_a_loop(tmp_path, dar_bytes) -> None:
    server = _hostile_server(
        tmp_path, dar_bytes
    )  # the default tolerance, 60 s: only the stop can end the loop
    try:
        async for api in _api(server):
            alice = await api.party("Alice")
            before = _worker_cpu_s(server.process.pid)
            looping = asyncio.create_task(submit_tx(api, _loop_command(alice), user="Alice"))
            await _until_a_worker_interprets(server.process.pid, before)
            server.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(server.process.wait, 5)
            except subprocess.TimeoutExpired:
                pytest.fail("the server did not stop within 5 s of SIGTERM while interpreting a loop")
            # uvicorn ends by raising the signal it stopped on again, once it has shut down
            assert server.process.returncode in (0, -signal.SIGTERM)
            try:
                answer = await looping
            except httpx.HTTPError:  # the connection closed with the server: the command was not answered
                pass
            else:  # answered before the server closed: the evaluation was stopped, nothing written
                assert answer.json()["code"] == "ABORTED_DUE_TO_SHUTDOWN", answer.text
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
