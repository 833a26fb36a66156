"""The texts of the budget's errors, printed as Canton prints them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from participant.engine.budget_errors import canton_duration, java_instant


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (3, "3s"), (2.5, "2.5s"), (60, "1m"), (90, "1m 30s"), (3600, "1h"), (3661, "1h 1m 1s")],
)
def test_a_tolerance_as_canton_pretty_prints_a_duration(seconds: float, text: str) -> None:
    assert canton_duration(timedelta(seconds=seconds)) == text


def test_a_ledger_time_as_java_prints_an_instant() -> None:
    assert java_instant(datetime(2025, 1, 2, 3, 4, 5, 600000, tzinfo=UTC)) == "2025-01-02T03:04:05.600Z"
    assert java_instant(datetime(2025, 1, 2, 3, 4, tzinfo=UTC)) == "2025-01-02T03:04:00Z"
    assert java_instant(datetime(2025, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)) == "2025-01-02T03:04:05.123456Z"
