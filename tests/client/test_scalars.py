"""The builtin scalars' JSON forms, read and written by one set of rules: what the participant's codec refuses and
what the composer's form asks a person to fix are the same values, said two ways."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from app.compose.form import FormContext, TextNode
from app.compose.types import NumericT, Scalar
from participant.daml_lf import scalars
from participant.daml_lf.scalars import ScalarProblem
from participant.engine import values as codec


def _kind(read, *args, **kwargs) -> str | None:
    try:
        read(*args, **kwargs)
    except ScalarProblem as problem:
        return problem.kind
    return None


def test_int64_reads_digits_in_range_and_never_converts_a_huge_number() -> None:
    assert scalars.int64_of_text("-9223372036854775808") == scalars.INT64_MIN
    assert scalars.int64_of_text("+0009223372036854775807") == scalars.INT64_MAX
    assert _kind(scalars.int64_of_text, "9223372036854775808") == "range"
    assert _kind(scalars.int64_of_text, "1" * 5000) == "range"  # more digits than int() converts
    assert _kind(scalars.int64_of_text, "1.0") == "shape"


def test_numeric_fits_its_scale_and_its_38_digits() -> None:
    assert scalars.numeric_of_text(" 1.5 ", 10) == Decimal("1.5000000000")
    assert scalars.numeric_text(scalars.numeric_of_text("5", 0), 0) == "5."
    assert scalars.numeric_text(scalars.numeric_of_text("-0.000", 3), 3) == "0.000"  # never -0
    assert _kind(scalars.numeric_of_text, "1.00000000001", 10) == "precision"
    assert _kind(scalars.numeric_of_text, "1" * 29, 10) == "range"
    assert _kind(scalars.numeric_of_text, "NaN", 10) == "range"
    assert _kind(scalars.numeric_of_text, "one", 10) == "shape"
    # past the digits fitting is computed with (the decimal module refused them: InvalidOperation)
    assert _kind(scalars.numeric_of_text, "1" * 200, 10) == "range"
    assert _kind(scalars.numeric_of_text, "1e500", 10) == "range"
    with pytest.raises(codec.DecodeError, match="without loss of precision"):
        codec.Numeric(10).decode("-" + "9" * 120)
    assert scalars.unpadded_numeric("999.9900000000") == "999.99" and scalars.unpadded_numeric("5.") == "5"


def test_dates_and_times_say_what_is_wrong() -> None:
    assert scalars.date_of_text("2024-02-29") == dt.date(2024, 2, 29)
    with pytest.raises(ScalarProblem, match="February 2023 has 28"):
        scalars.date_of_text("2023-02-29")
    moment = scalars.timestamp_of_text("2030-01-31T12:00:00.5+01:00")
    assert scalars.timestamp_text(moment) == "2030-01-31T11:00:00.5Z"
    assert _kind(scalars.timestamp_of_text, "2030-01-31 12:00Z") == "shape"  # the JSON form is strict
    assert scalars.timestamp_of_text("2030-01-31 12:00Z", typed=True) == dt.datetime(
        2030, 1, 31, 12, tzinfo=dt.UTC
    )
    assert _kind(scalars.timestamp_of_text, "2030-01-31T12:00:00", typed=True) == "zone"
    assert _kind(scalars.timestamp_of_text, "2030-01-31T12:00:00.0000001Z") == "precision"
    assert _kind(scalars.timestamp_of_text, "2030-01-31T24:00:00Z") == "clock"
    assert _kind(scalars.timestamp_of_text, "0001-01-01T00:00:00+01:00") == "range"  # before year 1 in UTC
    assert scalars.timestamp_text(dt.datetime(1, 1, 1, tzinfo=dt.UTC)) == "0001-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("type_", "text", "problem", "sent"),
    [
        # an Int of 5000 digits: int() refuses to convert it (ValueError), the rules never try
        (Scalar("INT64"), "1" * 5000, "Int is out of range (64 bits)", "1" * 5000),
        # 30 digits: past the decimal module's default precision, which quantizing at it refused (InvalidOperation)
        (NumericT(10), "1" * 30, "Numeric 10 has at most 28 digits before the point", "1" * 30),
        # year 1: written with its four digits (strftime's %Y writes "1")
        (Scalar("TIMESTAMP"), "0001-01-01 00:00Z", None, "0001-01-01T00:00:00Z"),
    ],
)
def test_the_form_checks_and_sends_what_it_is_typed_by_the_same_rules(type_, text, problem, sent) -> None:
    node = TextNode(type_, FormContext())
    node.text = text
    assert node.problem() == problem
    assert node.to_json() == sent


def test_the_codec_and_the_form_refuse_the_same_values() -> None:
    cases: list[tuple[codec.DamlType, Scalar | NumericT, list[str]]] = [
        (codec.Int64, Scalar("INT64"), ["12", "-0", "9223372036854775808", "1e3", "12a"]),
        (codec.Numeric(2), NumericT(2), ["1.25", "1.255", "1" * 37, "x", "Infinity"]),
        (codec.Date, Scalar("DATE"), ["2024-02-29", "2023-02-29", "2023-13-01", "0000-01-01", "24-1-1"]),
        (
            codec.Time,
            Scalar("TIMESTAMP"),
            ["2030-01-31T12:00:00Z", "2030-01-31T12:60:00Z", "2030-01-31T12:00:00"],
        ),
    ]
    for daml_type, form_type, texts in cases:
        for text in texts:
            node = TextNode(form_type, FormContext())
            node.text = text
            try:
                daml_type.decode(text)
                refused = False
            except codec.DecodeError:
                refused = True
            assert refused == (node.problem() is not None), (form_type, text)
