"""Dates and timestamps: bounds 0001-01-01 .. 9999-12-31, ISO 8601 text as Daml prints it."""

from __future__ import annotations

import pytest

from participant.daml_lf.eval.errors import DamlArithmeticError
from participant.daml_lf.eval.values import DATE_MAX, DATE_MIN, TIMESTAMP_MAX, TIMESTAMP_MIN, Date, Timestamp

from .helpers import call


@pytest.mark.parametrize(
    ("days", "text"),
    [
        (0, "1970-01-01"),
        (-1, "1969-12-31"),
        (DATE_MIN, "0001-01-01"),
        (DATE_MAX, "9999-12-31"),
        (11016, "2000-02-29"),
    ],
)
def test_date_to_text(days: int, text: str) -> None:
    assert call("DATE_TO_TEXT", Date(days)) == text


@pytest.mark.parametrize(
    ("micros", "text"),
    [
        (0, "1970-01-01T00:00:00Z"),
        (1, "1970-01-01T00:00:00.000001Z"),
        (500_000, "1970-01-01T00:00:00.500Z"),  # the fraction in groups of three digits
        (123_450, "1970-01-01T00:00:00.123450Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
        (TIMESTAMP_MIN, "0001-01-01T00:00:00Z"),
        (TIMESTAMP_MAX, "9999-12-31T23:59:59.999999Z"),
        (951_782_400_000_000 + 3_723_000_000, "2000-02-29T01:02:03Z"),
    ],
)
def test_timestamp_to_text(micros: int, text: str) -> None:
    assert call("TIMESTAMP_TO_TEXT", Timestamp(micros)) == text


def test_unix_conversions_round_trip_at_the_bounds() -> None:
    for days in (DATE_MIN, 0, DATE_MAX):
        assert call("DATE_TO_UNIX_DAYS", call("UNIX_DAYS_TO_DATE", days)) == days
    for micros in (TIMESTAMP_MIN, 0, TIMESTAMP_MAX):
        assert (
            call("TIMESTAMP_TO_UNIX_MICROSECONDS", call("UNIX_MICROSECONDS_TO_TIMESTAMP", micros)) == micros
        )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("UNIX_DAYS_TO_DATE", DATE_MIN - 1),
        ("UNIX_DAYS_TO_DATE", DATE_MAX + 1),
        ("UNIX_MICROSECONDS_TO_TIMESTAMP", TIMESTAMP_MIN - 1),
        ("UNIX_MICROSECONDS_TO_TIMESTAMP", TIMESTAMP_MAX + 1),
    ],
)
def test_out_of_bounds_is_an_arithmetic_error(name: str, value: int) -> None:
    with pytest.raises(DamlArithmeticError) as caught:
        call(name, value)
    assert caught.value.message == f"ArithmeticError while evaluating ({name} {value})."
