"""The machine under a budget (`participant.daml_lf.eval.budget`): the checks every `CHECK_EVERY` steps, counted
across runs and folds, and the builtins that ask before making a large value."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from participant.daml_lf.eval.budget import (
    CHECK_EVERY,
    LARGE_VALUE,
    Budget,
    Interrupted,
    MemoryExceeded,
    TimeExceeded,
    current,
    limited,
)
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.machine import BuiltinFunction, Machine
from participant.daml_lf.eval.values import Record, list_of
from tests.daml_lf.eval.helpers import T
from tests.daml_lf.eval.test_evaluator import lam, messages, run, var

MB = 1 << 20


def past() -> Budget:
    """A budget whose deadline has passed: the next check ends the evaluation."""
    return Budget(deadline=time.monotonic() - 1)


def test_without_a_budget_nothing_is_checked() -> None:
    assert current() is None
    assert run(lam("x", var("x"))) is not None


def test_a_run_past_its_deadline_stops_at_the_next_check() -> None:
    identity = run(lam("x", var("x")))
    machine = Machine(messages)
    with limited(past()), pytest.raises(TimeExceeded):
        # Each call is a run of two steps: the count is carried from run to run, as an update's binds are run.
        for _ in range(2 * CHECK_EVERY):
            machine.call(identity, 1)


def test_a_fold_of_a_builtin_is_counted_step_by_step() -> None:
    """FOLDL resumes its continuation once per element without a pending step: those count too."""
    add = BuiltinFunction(BUILTINS["ADD_INT64"])
    foldl = BuiltinFunction(BUILTINS["FOLDL"])
    numbers = list_of(range(3 * CHECK_EVERY))
    assert Machine(messages).call(foldl, add, 0, numbers) == sum(range(3 * CHECK_EVERY))
    with limited(past()), pytest.raises(TimeExceeded):
        Machine(messages).call(foldl, add, 0, numbers)


def test_the_stop_event_interrupts() -> None:
    stop = threading.Event()
    stop.set()
    identity = run(lam("x", var("x")))
    with limited(Budget(stop=stop)), pytest.raises(Interrupted):
        for _ in range(2 * CHECK_EVERY):
            Machine(messages).call(identity, 1)


def test_a_deadline_of_ledger_time_and_tolerance() -> None:
    ledger_time = datetime.now(UTC) - timedelta(seconds=10)
    budget = Budget.until(ledger_time, timedelta(seconds=5))
    assert (budget.ledger_time, budget.tolerance) == (ledger_time, timedelta(seconds=5))
    with pytest.raises(TimeExceeded) as caught:
        budget.check(0)
    assert caught.value.budget is budget
    Budget.until(datetime.now(UTC), timedelta(minutes=1)).check(0)  # a minute ahead: within


def call(name: str, *args: object) -> object:
    return Machine(messages).call(BuiltinFunction(BUILTINS[name]), *args)


def test_a_text_past_the_memory_left_is_refused_before_it_is_made() -> None:
    half = "x" * (2 * MB)
    with limited(Budget(max_memory=3 * MB)):
        assert call("APPEND_TEXT", "ab", "cd") == "abcd"  # small values do not ask
        with pytest.raises(MemoryExceeded) as caught:
            call("APPEND_TEXT", half, half)
        assert (caught.value.pool, caught.value.limit) == ("memory", 3 * MB)
        with pytest.raises(MemoryExceeded):
            call("IMPLODE_TEXT", list_of([half, half]))


def test_a_non_ascii_text_counts_four_bytes_a_character() -> None:
    quarter = "é" * (MB // 2)
    with limited(Budget(max_memory=3 * MB)), pytest.raises(MemoryExceeded):
        call("APPEND_TEXT", quarter, quarter)  # 1 M characters, up to 4 MB


@pytest.mark.parametrize("name", ["EXPLODE_TEXT", "TEXT_TO_CODE_POINTS", "TEXT_TO_HEX"])
def test_lists_and_texts_made_from_a_large_text_are_refused(name: str) -> None:
    text = "y" * MB
    with limited(Budget(max_memory=2 * MB)), pytest.raises(MemoryExceeded):
        call(name, text)


def test_a_value_under_the_threshold_asks_nothing() -> None:
    with limited(past()):
        made = call("APPEND_TEXT", "a" * (LARGE_VALUE // 2), "b")
        assert isinstance(made, str) and len(made) == LARGE_VALUE // 2 + 1


def shared(depth: int) -> Record:
    """A record of two copies of a record of two copies …: `depth` objects, 2 ** `depth` parts once walked."""
    value = Record(T, ("a", "b"), (1, 2))
    for _ in range(depth):
        value = Record(T, ("a", "b"), (value, value))
    return value


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["EQUAL", "LESS"])
def test_a_comparison_of_a_value_of_shared_parts_is_checked_as_it_walks(name: str) -> None:
    """One step of the machine, but 2 ** 60 parts: the walk checks the budget, as the machine does its steps."""
    with limited(past()), pytest.raises(TimeExceeded):
        call(name, shared(60), shared(60))


def test_a_deadline_on_a_static_ledger_clock_counts_from_that_clocks_time() -> None:
    """A static clock (`serve --static-time`) stands at the epoch: the deadline is the tolerance from now, not
    from 1970 on the wall clock."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    Budget.until(epoch, timedelta(minutes=1), now=epoch).check(0)
    with pytest.raises(TimeExceeded):
        Budget.until(epoch, timedelta(seconds=5), now=epoch + timedelta(seconds=10)).check(0)
