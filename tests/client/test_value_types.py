"""Values read with their types from the signatures of the richtypes DAR: fields in declared order, nested records
and variants typed, choices described, and what the types do not say left untyped."""

from __future__ import annotations

import pytest

from app.value_types import ValueTypes
from participant.daml_lf.signatures import read_signatures
from tests.daml_lf.conftest import RICHTYPES

PAYLOAD = {  # keys in an order other than the declared one, as a participant may send them
    "fee": "1.00",
    "owner": "Alice::1220aa",
    "tags": ["a", "b"],
    "count": "3",
    "amount": "1.5",
    "label": "x",
    "active": True,
    "asOf": "2024-01-01",
    "observedAt": "2024-01-01T00:00:00Z",
    "attributes": {"k": "v"},
    "marker": "00ab",
    "profile": {"nickname": "n", "level": "2"},
    "outcome": {"tag": "Win", "value": {"prize": "1.00", "tier": "gold"}},
}


@pytest.fixture(scope="module")
def rich(dars_dir):
    signatures = read_signatures((dars_dir / RICHTYPES).read_bytes())
    return ValueTypes(signatures.packages), signatures.main.templates["RichTypes:RichRecord"]


def _shown(types: ValueTypes, entries) -> list[tuple[str, str | None]]:
    return [(e.name, types.show(e.type) if e.type is not None else None) for e in entries]


def test_a_record_lists_its_fields_in_declared_order_with_their_types(rich) -> None:
    types, template = rich
    entries = types.entries(PAYLOAD, types.of_template(template))
    assert _shown(types, entries) == [
        ("owner", "Party"),
        ("count", "Int"),
        ("amount", "Numeric 10"),
        ("label", "Text"),
        ("active", "Bool"),
        ("asOf", "Date"),
        ("observedAt", "Time"),
        ("note", "Optional Text"),  # left out of the JSON: None
        ("tags", "[Text]"),
        ("attributes", "TextMap Text"),
        ("marker", "ContractId RichTypes:Marker"),
        ("profile", "RichTypes:Profile"),
        ("outcome", "RichTypes:Outcome"),
        ("fee", "Numeric 2"),
    ]
    assert entries[7].value is None


def test_nested_records_variants_lists_and_maps_are_typed(rich) -> None:
    types, template = rich
    by_name = {e.name: e for e in types.entries(PAYLOAD, types.of_template(template))}
    profile, outcome, tags = by_name["profile"], by_name["outcome"], by_name["tags"]
    assert _shown(types, types.entries(profile.value, profile.type)) == [
        ("nickname", "Text"),
        ("level", "Int"),
    ]
    assert _shown(types, types.entries(outcome.value, outcome.type)) == [
        ("prize", "Numeric 2"),
        ("tier", "Text"),
    ]
    assert _shown(types, types.entries(tags.value, tags.type)) == [("[0]", "Text"), ("[1]", "Text")]
    pending = {"tag": "Pending", "value": {}}
    assert types.entries(pending, outcome.type) == []


def test_a_field_the_type_does_not_declare_is_kept_untyped(rich) -> None:
    types, template = rich
    entries = types.entries({**PAYLOAD, "addedLater": "1"}, types.of_template(template))
    assert _shown(types, entries)[-1] == ("addedLater", None)


def test_a_value_of_an_unknown_package_is_not_typed(rich) -> None:
    _, template = rich
    assert ValueTypes({}).entries(PAYLOAD, ValueTypes.of_template(template)) is None


def test_choices_show_their_argument_fields_and_result(rich) -> None:
    types, template = rich
    lines = {c.name: c for c in types.choice_lines(template, {})}
    relabel = lines["Relabel"]
    assert (relabel.consuming, relabel.argument, relabel.result) == (
        False,
        "newLabel : Text",
        "ContractId RichTypes:RichRecord",
    )
    assert (lines["Archive"].consuming, lines["Archive"].argument) == (True, "no argument")
