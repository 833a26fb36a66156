"""Daml values told apart by their JSON shape, and shown as people read them (every shape of docs/ledger-api.md §9)."""

from __future__ import annotations

import pytest

from app import daml_values as dv

PARTY = "Alice::1220" + "ab" * 32
CID = "00" + "1f" * 32 + "ca12" + "1220" + "cd" * 32


@pytest.mark.parametrize(
    ("value", "kind", "shown"),
    [
        (PARTY, dv.PARTY, "Alice::1220ab…"),
        (CID, dv.CONTRACT_ID, CID[:12] + "…"),
        ("999.9900000000", dv.NUMERIC, "999.99"),
        ("5.", dv.NUMERIC, "5"),
        ("-0.5000000000", dv.NUMERIC, "-0.5"),
        ("42", dv.INT64, "42"),
        ("-7", dv.INT64, "-7"),
        ("USD", dv.TEXT, '"USD"'),
        ('say "hi"\n', dv.TEXT, '"say \\"hi\\"\\n"'),
        ("ab" * 32, dv.TEXT, '"' + "ab" * 32 + '"'),  # a hash, not a contract id
        (True, dv.BOOL, "True"),
        (False, dv.BOOL, "False"),
        ("2025-01-31", dv.DATE, "2025-01-31"),
        ("2000-01-01T12:12:32.777111Z", dv.TIMESTAMP, "2000-01-01T12:12:32.777111Z"),
        (None, dv.NONE, "None"),
        ({}, dv.UNIT, "()"),
        ("Pending", dv.TEXT, '"Pending"'),  # an enum prints as its constructor, a string
    ],
)
def test_scalars(value, kind, shown):
    assert dv.kind_of(value) == kind
    assert dv.scalar_text(value) == shown
    assert not dv.is_container(value)


def test_full_ids_on_demand():
    assert dv.scalar_text(PARTY, full_ids=True) == PARTY
    assert dv.scalar_text(CID, full_ids=True) == CID


def test_record_fields_in_declaration_order():
    record = {"issuer": PARTY, "amount": "10.0000000000", "observers": []}
    assert dv.kind_of(record) == dv.RECORD
    assert dv.entries(record) == [("issuer", PARTY), ("amount", "10.0000000000"), ("observers", [])]
    assert dv.summary(record) == "3 fields"
    assert dv.preview(record) == "{issuer: Alice::1220ab…, amount: 10, observers: []}"


def test_nested_records_and_tuples():
    value = {"pair": {"_1": "1", "_2": {"inner": "x"}}}
    assert dv.kind_of(value["pair"]) == dv.RECORD
    assert dv.preview(value) == '{pair: {_1: 1, _2: {inner: "x"}}}'


def test_variants():
    unit = {"tag": "None_", "value": {}}
    assert dv.kind_of(unit) == dv.VARIANT
    assert dv.entries(unit) == []
    assert not dv.is_container(unit)
    assert dv.preview(unit) == "None_"
    with_record = {"tag": "Transfer", "value": {"newOwner": PARTY}}
    assert dv.entries(with_record) == [("newOwner", PARTY)]
    assert dv.preview(with_record) == "Transfer {newOwner: Alice::1220ab…}"
    with_scalar = {"tag": "Amount", "value": "3.5000000000"}
    assert dv.entries(with_scalar) == [("value", "3.5000000000")]
    assert dv.preview(with_scalar) == "Amount 3.5"


def test_optionals():
    assert dv.scalar_text(None) == "None"  # None; Some x prints as x
    some_some = [["5"]]
    assert dv.kind_of(some_some) == dv.LIST
    assert dv.note(some_some) == "or, if Optional (Optional _): Some (Some 5)"
    assert dv.note([[]]) == "or, if Optional (Optional _): Some None"
    assert dv.note([]) == ""


def test_lists():
    value = [PARTY, "Bob::1220" + "cd" * 32]
    assert dv.kind_of(value) == dv.LIST
    assert dv.entries(value) == [("[0]", value[0]), ("[1]", value[1])]
    assert dv.summary(value) == "2 items"
    assert dv.preview([]) == "[]"
    assert not dv.is_container([])


def test_textmap():
    value = {"a key": "1", "other-key": "2"}
    assert dv.kind_of(value) == dv.TEXTMAP
    assert dv.entries(value) == [('"a key"', "1"), ('"other-key"', "2")]
    assert dv.summary(value) == "2 entries"
    assert dv.note(value) == "TextMap"


def test_genmap():
    value = [[PARTY, "1.0000000000"], ["Bob::1220" + "cd" * 32, "2.0000000000"]]
    assert dv.kind_of(value) == dv.GENMAP
    assert dv.entries(value) == [("Alice::1220ab…", "1.0000000000"), ("Bob::1220cd…", "2.0000000000")]
    assert dv.preview(value) == "{Alice::1220ab…: 1, Bob::1220cd…: 2}"
    complex_keys = [[{"k": "1"}, "v"]]
    assert dv.entries(complex_keys) == [("entry 0", {"key": {"k": "1"}, "value": "v"})]


def test_preview_is_cut():
    value = {f"field{i}": "x" * 10 for i in range(20)}
    text = dv.preview(value, width=40)
    assert len(text) <= 40 and text.endswith("…")
