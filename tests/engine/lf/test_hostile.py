"""Hostile Daml through the real engine (`tests/engine/hostile_package.py`): code that never ends, or ends only by
taking the machine's memory, is stopped by its budget and answered with Canton's error, nothing written, memory
bounded. Budgets are small so that each test is quick; a timeout fails a test whose evaluation would not stop."""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest

from participant.base import errors
from participant.daml_lf.eval.budget import Budget, limited
from participant.engine.commands import CreateCommand, ExerciseCommand
from participant.engine.lf.definitions import LfPackages
from tests.daml_lf.conftest import RICHTYPES
from tests.engine import hostile_package as hostile
from tests.engine.conftest import ALICE, LEDGER_TIME, Harness

MB = 1 << 20
RSS_GROWTH_LIMIT = 300 * MB


def peak_rss() -> int:
    """The process's peak resident memory so far (a growth of it bounds the growth of the memory in between)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.fixture
def richtypes_dar(dar_bytes: Callable[[str], bytes]) -> bytes:
    return dar_bytes(RICHTYPES)


def harness_with(dar: bytes) -> tuple[Harness, LfPackages]:
    harness = Harness()
    packages = LfPackages.from_dar(dar)
    harness.registry.add(packages.main)
    return harness, packages


@pytest.fixture
def budget() -> Iterator[Callable[..., Budget]]:
    """A budget of a few seconds from now, as the participant sets one: ledger time + tolerance."""

    def make(seconds: float = 5.0, **limits: object) -> Budget:
        made = Budget(
            deadline=time.monotonic() + seconds,
            ledger_time=LEDGER_TIME,
            tolerance=timedelta(seconds=seconds),
        )
        for name, value in limits.items():
            setattr(made, name, value)
        return made

    yield make


async def create_marker(harness: Harness, package_name: str, budget: Budget) -> errors.LedgerError:
    with limited(budget), pytest.raises(errors.LedgerError) as caught:
        await harness.submit(CreateCommand(hostile.marker_id(package_name), {"owner": ALICE}))
    assert harness.ledger.contracts == {}  # nothing written
    return caught.value


@pytest.mark.timeout(60)
async def test_an_ensure_that_loops_ends_past_its_deadline(richtypes_dar: bytes, budget) -> None:
    harness, _ = harness_with(hostile.looping_ensure(richtypes_dar, "hostile-loop"))
    error = await create_marker(harness, "hostile-loop", budget(0.2))
    assert error.code is errors.INTERPRETATION_TIME_EXCEEDED
    assert error.cause == (
        "Time exceeds limit of Ledger Effective Time (2025-01-02T03:04:05.600Z) + tolerance (0.2s). "
        "Interpretation aborted."
    )
    body = error.body()
    assert (body["code"], body["errorCategory"], body["grpcCodeValue"], error.status) == (
        "INTERPRETATION_TIME_EXCEEDED",
        2,
        10,
        409,
    )
    assert body["retryInfo"] == "60 seconds" and body["context"]["definite_answer"] == "false"


@pytest.mark.timeout(60)
async def test_an_ensure_that_loops_stops_when_the_participant_does(richtypes_dar: bytes, budget) -> None:
    harness, _ = harness_with(hostile.looping_ensure(richtypes_dar, "hostile-stop"))
    stop = threading.Event()
    stop.set()
    error = await create_marker(harness, "hostile-stop", budget(60, stop=stop))
    assert error.code is errors.ABORTED_DUE_TO_SHUTDOWN
    assert error.cause == "request aborted due to shutdown"
    assert (error.status, error.body()["retryInfo"]) == (503, "10 seconds")


@pytest.mark.timeout(60)
async def test_an_ensure_that_recurses_for_ever_ends_past_its_memory(richtypes_dar: bytes, budget) -> None:
    harness, _ = harness_with(hostile.recursing_ensure(richtypes_dar, "hostile-grow"))
    before = peak_rss()
    error = await create_marker(harness, "hostile-grow", budget(60, max_memory=32 * MB))
    assert error.code is errors.HEAP_MEMORY_OVER_LIMIT
    assert error.status == 409 and error.context["limit"] == str(32 * MB)
    assert (
        "Daml interpretation memory usage threshold has exceeded the maximum (33554432 bytes)" in error.cause
    )
    assert peak_rss() - before < RSS_GROWTH_LIMIT


@pytest.mark.timeout(60)
async def test_a_recursion_ends_at_the_stack_limit(richtypes_dar: bytes, budget) -> None:
    harness, _ = harness_with(hostile.recursing_ensure(richtypes_dar, "hostile-deep-stack"))
    error = await create_marker(harness, "hostile-deep-stack", budget(60, max_depth=10_000))
    assert error.code is errors.HEAP_MEMORY_OVER_LIMIT
    assert error.context == {"memoryPool": "Daml interpretation stack", "limit": "10000"}


@pytest.mark.timeout(60)
async def test_a_text_that_doubles_itself_stops_before_it_is_made(richtypes_dar: bytes, budget) -> None:
    harness, _ = harness_with(hostile.doubling_ensure(richtypes_dar, "hostile-double"))
    before = peak_rss()
    error = await create_marker(harness, "hostile-double", budget(60, max_memory=64 * MB))
    assert error.code is errors.HEAP_MEMORY_OVER_LIMIT
    assert peak_rss() - before < RSS_GROWTH_LIMIT


@pytest.mark.timeout(120)
async def test_an_ensure_nested_100_000_deep_ends_with_its_own_answer(richtypes_dar: bytes, budget) -> None:
    """The nesting becomes 100,000 stack frames: linear memory, and the precondition's own failure."""
    harness, packages = harness_with(hostile.deep_ensure(richtypes_dar, "hostile-nested", 0))
    hostile.install_deep_sum(packages.program, packages.main.package_id, 100_000)
    before = peak_rss()
    # Under a stack smaller than its depth it ends at the limit, not at the process's.
    error = await create_marker(harness, "hostile-nested", budget(60, max_depth=50_000))
    assert error.code is errors.HEAP_MEMORY_OVER_LIMIT
    error = await create_marker(harness, "hostile-nested", budget(60, max_memory=256 * MB))
    assert error.code is errors.UNHANDLED_EXCEPTION and "Template precondition violated" in error.cause
    assert peak_rss() - before < RSS_GROWTH_LIMIT


@pytest.mark.timeout(60)
async def test_a_constant_interrupted_half_way_is_evaluated_again(richtypes_dar: bytes, budget) -> None:
    """The constant's evaluation stopped by the participant's shutdown leaves nothing cached: the next command
    evaluates it whole, and the contract is created."""
    harness, packages = harness_with(hostile.slow_constant(richtypes_dar, "hostile-constant", 20_000))
    stop = threading.Event()
    stop.set()
    error = await create_marker(harness, "hostile-constant", budget(60, stop=stop))
    assert error.code is errors.ABORTED_DUE_TO_SHUTDOWN
    tx = await harness.submit(CreateCommand(hostile.marker_id("hostile-constant"), {"owner": ALICE}))
    assert len(tx.created) == 1
    with limited(budget(60)):  # and under a budget, from the cached value
        tx = await harness.submit(CreateCommand(hostile.marker_id("hostile-constant"), {"owner": ALICE}))
    assert len(tx.created) == 1


async def nest(harness: Harness, level: int) -> tuple[object, object]:
    tx = await harness.submit(CreateCommand(hostile.marker_id("hostile-nest"), {"owner": ALICE}))
    [marker] = tx.created
    return await harness.exercise(
        marker.contract_id,
        hostile.NEST,
        {"nickname": "n", "level": str(level)},
        template=hostile.marker_id("hostile-nest"),
    )


async def test_a_choice_result_nested_100_deep_is_stored(richtypes_dar: bytes) -> None:
    harness, _ = harness_with(hostile.nesting_choice(richtypes_dar, "hostile-nest"))
    _, result = await nest(harness, 100)
    lists = 0
    while isinstance(result, list):  # the codec writes `level` nested optionals as `level` + 1 nested lists
        result = result[0] if result else None
        lists += 1
    assert lists == 101


async def test_a_choice_result_nested_101_deep_is_refused(richtypes_dar: bytes) -> None:
    harness, _ = harness_with(hostile.nesting_choice(richtypes_dar, "hostile-nest"))
    contracts_before = None
    with pytest.raises(errors.LedgerError) as caught:
        tx = await harness.submit(CreateCommand(hostile.marker_id("hostile-nest"), {"owner": ALICE}))
        contracts_before = dict(harness.ledger.contracts)
        [marker] = tx.created
        await harness.submit(
            ExerciseCommand(
                hostile.marker_id("hostile-nest"),
                marker.contract_id,
                hostile.NEST,
                {"nickname": "n", "level": "101"},
            )
        )
    assert caught.value.code is errors.VALUE_NESTING
    assert caught.value.cause == "Interpretation error: Error: Value exceeds maximum nesting value of 100"
    assert (caught.value.status, caught.value.body()["errorCategory"]) == (400, 8)
    assert harness.ledger.contracts == contracts_before  # the exercise wrote nothing


@pytest.mark.timeout(60)
async def test_a_choice_that_exercises_itself_ends_at_the_stack(richtypes_dar: bytes, budget) -> None:
    """Each exercise nests the engine's calls: the transaction's stack is spent, answered as a machine's is."""
    harness, _ = harness_with(hostile.recursing_choice(richtypes_dar, "hostile-recurse"))
    tx = await harness.submit(CreateCommand(hostile.marker_id("hostile-recurse"), {"owner": ALICE}))
    [marker] = tx.created
    contracts_before = dict(harness.ledger.contracts)
    with limited(budget(60)), pytest.raises(errors.LedgerError) as caught:
        await harness.submit(
            ExerciseCommand(
                hostile.marker_id("hostile-recurse"),
                marker.contract_id,
                hostile.RECURSE,
                {"nickname": "n", "level": "1"},
            )
        )
    assert caught.value.code is errors.HEAP_MEMORY_OVER_LIMIT
    assert caught.value.context["memoryPool"] == "Daml interpretation stack"
    assert harness.ledger.contracts == contracts_before
