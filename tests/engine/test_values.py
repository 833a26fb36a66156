"""The JSON value codec: every type's output form, the accepted input forms, and the errors for bad values."""

from __future__ import annotations

import datetime as dt
import enum
from decimal import Decimal as D

import pytest

from participant.base import errors
from participant.engine import coding, pydsl
from participant.engine.pydsl import (
    Bool,
    Date,
    Decimal,
    Int64,
    List,
    Optional,
    Package,
    Party,
    Record,
    Some,
    Text,
    TextMap,
    Time,
    Unit,
    Variant,
)
from participant.engine.pydsl.types import to_type
from participant.engine.values import DamlType
from tests.engine.conftest import ALICE


def dsl(annotation: str) -> DamlType:
    """The Daml type an annotation names, read as a field's is: to a type checker the DSL's names are types, so a
    test that handles them as values writes them as the annotation's text."""
    return to_type(annotation, {**vars(pydsl), **globals()})


CID = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32
shapes = Package("value-tests", "0.1.0")


@shapes.enum("Shapes:Color")
class Color(enum.Enum):
    Red = "Red"
    Green = "Green"


@shapes.record("Shapes:Point")
class Point(Record):
    x: Int64
    y: Int64


@shapes.variant("Shapes:Shape")
class Shape(Variant):
    Circle: Decimal
    Polygon: List[Point]
    Empty: Unit


@shapes.record("Shapes:Drawing")
class Drawing(Record):
    owner: Party
    color: Color
    shape: Shape
    name: Optional[Text]
    tags: TextMap[Int64]
    note: Optional[Text]
    nested: Optional[Optional[Int64]]


def decode(annotation, json_value, path=""):
    """Decode as the engine does: a bad value is Canton's error for it."""
    return coding.decode(to_type(annotation), json_value, path)


def encode(annotation, python_value):
    return to_type(annotation).encode(python_value)


def round_trip(daml_type, python_value, json_value):
    assert encode(daml_type, python_value) == json_value
    assert decode(daml_type, json_value) == python_value


@pytest.mark.parametrize(
    "daml_type,python_value,json_value",
    [
        (Unit, (), {}),
        (Bool, True, True),
        (Int64, -42, "-42"),
        (Int64, 2**63 - 1, "9223372036854775807"),
        (Decimal, D("999.99"), "999.9900000000"),
        (Decimal, D("-0.0000000001"), "-0.0000000001"),
        (dsl("Numeric[0]"), D(5), "5."),
        (dsl("Numeric[2]"), D("1.5"), "1.50"),
        (Text, "héllo", "héllo"),
        (Party, ALICE, ALICE),
        (Date, dt.date(2024, 2, 29), "2024-02-29"),
        (Time, dt.datetime(2000, 1, 1, 12, 12, 32, 777111, tzinfo=dt.UTC), "2000-01-01T12:12:32.777111Z"),
        (Time, dt.datetime(2000, 1, 1, tzinfo=dt.UTC), "2000-01-01T00:00:00Z"),
        (Time, dt.datetime(2000, 1, 1, 0, 0, 0, 500000, tzinfo=dt.UTC), "2000-01-01T00:00:00.5Z"),
        (dsl('ContractId["Shapes:Point"]'), CID, CID),
        (dsl("List[Int64]"), [1, 2], ["1", "2"]),
        (dsl("Optional[Int64]"), None, None),
        (dsl("Optional[Int64]"), 3, "3"),
        (dsl("Optional[Optional[Int64]]"), None, []),
        (dsl("Optional[Optional[Int64]]"), Some(None), [[]]),
        (dsl("Optional[Optional[Int64]]"), Some(7), [["7"]]),
        (dsl("Optional[Optional[Optional[Text]]]"), Some(Some("x")), [[["x"]]]),
        (dsl("TextMap[Bool]"), {"a": True}, {"a": True}),
        (dsl("GenMap[Point, Text]"), {Point(x=1, y=2): "p"}, [[{"x": "1", "y": "2"}, "p"]]),
        (dsl("Tuple2[Int64, Text]"), (1, "a"), {"_1": "1", "_2": "a"}),
        (Color, Color.Green, "Green"),
        (Shape, Shape("Circle", D("1.5")), {"tag": "Circle", "value": "1.5000000000"}),
        (Shape, Shape("Empty", ()), {"tag": "Empty", "value": {}}),
        (Shape, Shape("Polygon", [Point(x=0, y=1)]), {"tag": "Polygon", "value": [{"x": "0", "y": "1"}]}),
    ],
)
def test_round_trip(daml_type, python_value, json_value):
    round_trip(daml_type, python_value, json_value)


def test_record_output_drops_trailing_nones_only():
    drawing = Drawing(
        owner=ALICE, color=Color.Red, shape=Shape("Empty"), name=None, tags={}, note=None, nested=None
    )
    assert encode(Drawing, drawing) == {
        "owner": ALICE,
        "color": "Red",
        "shape": {"tag": "Empty", "value": {}},
        "name": None,
        "tags": {},
    }
    assert decode(Drawing, encode(Drawing, drawing)) == drawing
    with_nested = drawing.with_(nested=Some(None))
    assert encode(Drawing, with_nested)["nested"] == [[]] and encode(Drawing, with_nested)["note"] is None


@pytest.mark.parametrize(
    "daml_type,json_value,python_value",
    [
        (Int64, 42, 42),  # 3.4 clients send numbers
        (Int64, "+7", 7),
        (Decimal, 999.99, D("999.99")),
        (Decimal, "5", D(5)),
        (Decimal, 12, D(12)),
        (dsl("Numeric[0]"), "5.", D(5)),
        (
            Time,
            "2000-01-01T13:12:32.777111+01:00",
            dt.datetime(2000, 1, 1, 12, 12, 32, 777111, tzinfo=dt.UTC),
        ),
        (Time, "2000-01-01T12:00:00.123456000Z", dt.datetime(2000, 1, 1, 12, 0, 0, 123456, tzinfo=dt.UTC)),
        (dsl("Optional[Text]"), None, None),
        (Unit, None, ()),
    ],
)
def test_lenient_inputs(daml_type, json_value, python_value):
    assert decode(daml_type, json_value) == python_value


def test_record_input_any_order_absent_optionals_and_null_unknown_keys():
    value = {
        "tags": {"a": "1"},
        "shape": {"tag": "Empty", "value": {}},
        "color": "Red",
        "owner": ALICE,
        "extra": None,
    }
    drawing = decode(Drawing, value)
    assert drawing.name is None and drawing.nested is None and drawing.tags == {"a": 1}


def assert_bad(daml_type, json_value, code=errors.COMMAND_PREPROCESSING_FAILED, text=""):
    with pytest.raises(errors.LedgerError) as caught:
        decode(daml_type, json_value, "arg")
    assert caught.value.code is code and caught.value.status == 400
    assert text in caught.value.cause, caught.value.cause


@pytest.mark.parametrize(
    "daml_type,json_value,text",
    [
        (Int64, "4.5", "Expected Int64"),
        (Int64, True, "Expected Int64"),
        (Int64, str(2**63), "out of range"),
        (Decimal, "1.00000000001", "without loss of precision"),
        (Decimal, "1" * 29, "without loss of precision"),
        (Decimal, "NaN", "without loss of precision"),
        (Decimal, "abc", "Could not read Numeric"),
        (dsl("Numeric[0]"), "1.5", "without loss of precision"),
        (Text, 5, "Expected Text"),
        (Bool, "true", "Expected Bool"),
        (Party, "Alice@bank", "Invalid party"),
        (Party, "", "Invalid party"),
        (dsl('ContractId["X"]'), "not-a-cid", "Invalid contract id"),
        (Date, "2024-02-30", "Invalid date"),
        (Date, "24-01-01", "Expected Date"),
        (Time, "2000-01-01T00:00:00", "Expected Timestamp"),
        (Time, "2000-01-01T00:00:00.1234567Z", "more precise than microseconds"),
        (dsl("List[Int64]"), ["1", "x"], "at arg[1]"),
        (dsl("Optional[Optional[Int64]]"), None, "nested Optional"),
        (dsl("Optional[Optional[Int64]]"), ["1", "2"], "nested Optional"),
        (dsl("GenMap[Int64, Text]"), [["1", "a"], ["1", "b"]], "Duplicate GenMap key"),
        (dsl("GenMap[Int64, Text]"), [["1"]], "[key, value] pair"),
        (Color, "Blue", "enum Shapes:Color"),
        (Point, [], "Expected a record object"),
    ],
)
def test_bad_values(daml_type, json_value, text):
    assert_bad(daml_type, json_value, text=text)


def test_missing_fields_are_all_listed():
    assert_bad(Drawing, {"owner": ALICE}, text="Missing non-optional fields: Set(color, shape, tags) at arg")


def test_unexpected_fields():
    assert_bad(Point, {"x": "1", "y": "2", "z": "3", "w": None}, text="Unexpected fields: Set(z)")


def test_nested_errors_carry_their_path():
    assert_bad(
        Drawing,
        {"owner": ALICE, "color": "Red", "shape": {"tag": "Empty", "value": {}}, "tags": {"k": "x"}},
        text="at arg.tags.k",
    )


@pytest.mark.parametrize("json_value", [{"tag": "Square", "value": {}}, {"tag": "Circle"}, "Circle"])
def test_bad_variants_are_invalid_arguments(json_value):
    assert_bad(Shape, json_value, code=errors.INVALID_ARGUMENT)


def test_encode_rejects_values_that_do_not_fit():
    with pytest.raises(ValueError):
        encode(Decimal, D("0.00000000001"))
    with pytest.raises(ValueError):
        encode(Int64, 2**63)
    with pytest.raises(ValueError):
        encode(dsl("Optional[Optional[Int64]]"), 5)  # must be Some(...)


def test_records_compare_and_hash_by_value():
    assert Point(x=1, y=2) == Point(x=1, y=2) != Point(x=2, y=1)
    assert len({Point(x=1, y=2), Point(x=1, y=2)}) == 1
    assert Point(x=1, y=2).with_(y=5) == Point(x=1, y=5)
    with pytest.raises(TypeError):
        Point(x=1)
