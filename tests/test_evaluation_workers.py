"""The workers that evaluate Daml: evaluations that never end hold their own workers, never everyone else's."""

from __future__ import annotations

import asyncio
import threading

from participant.daml_lf.eval.budget import Budget
from participant.ledger.evaluation import EvaluationWorkers


async def test_an_evaluation_runs_while_every_first_worker_is_held() -> None:
    workers = EvaluationWorkers(workers=2, max_workers=3)
    release = threading.Event()

    async def held() -> str:
        release.wait()  # computes until released, as a loop would until its deadline
        return "held"

    async def quick() -> str:
        return "quick"

    try:
        holding = [asyncio.ensure_future(workers.run(held, Budget())) for _ in range(2)]
        # on a worker started because it waited (the bound only keeps a broken pool from hanging the suite)
        assert await asyncio.wait_for(workers.run(quick, Budget()), 20) == "quick"
    finally:
        release.set()
        workers.stop()
    assert await asyncio.gather(*holding) == ["held", "held"]


async def test_a_failure_is_the_callers() -> None:
    workers = EvaluationWorkers()

    async def failing() -> None:
        raise ValueError("the evaluation's own")

    try:
        try:
            await workers.run(failing, Budget())
        except ValueError as error:
            assert str(error) == "the evaluation's own"
        else:
            raise AssertionError("the failure was not raised")
    finally:
        workers.stop()
