"""A submitted document's Party fields found by their Daml types (the richtypes DAR's signatures), short names
expanded there and nowhere else."""

from __future__ import annotations

import pytest

from app.compose.types import ListT, OptionalT, Scalar, TextMapT, TypeResolver
from app.headless.argument_parties import could_name_a_party, expand_parties
from participant.daml_lf.signatures import Signatures, signatures_of
from tests.daml_lf.conftest import dar_bytes, dars_dir, richtypes  # noqa: F401  (pytest fixtures, used by name)

ALICE = "Alice::1220" + "ab" * 32
BOB = "Bob::1220" + "cd" * 32
KNOWN = {"Alice": ALICE, "Bob": BOB}


def expand(typed: str) -> str:
    return KNOWN.get(typed, typed)


@pytest.fixture(scope="module")
def rich(richtypes) -> Signatures:  # noqa: F811  (the fixture imported above)
    return signatures_of(richtypes)


def test_only_party_fields_are_expanded(rich: Signatures) -> None:
    resolver = TypeResolver(rich.packages)
    record = resolver.template_arguments(rich.main.templates["RichTypes:RichRecord"])
    value = {
        "owner": "Alice",
        "label": "Alice",
        "note": "Bob",
        "tags": ["Alice"],
        "attributes": {"Alice": "Bob"},
        "profile": {"nickname": "Bob", "level": "1"},
        "outcome": {"tag": "Win", "value": {"prize": "1.00", "tier": "Alice"}},
        "unknownField": "Alice",
    }
    assert expand_parties(value, record, expand) == {**value, "owner": ALICE}


def test_parties_inside_lists_maps_and_optionals() -> None:
    party = Scalar("PARTY")
    assert expand_parties(["Alice", BOB, "Carol"], ListT(party), expand) == [ALICE, BOB, "Carol"]
    assert expand_parties({"k": "Bob"}, TextMapT(party), expand) == {"k": BOB}
    assert expand_parties("Alice", OptionalT(party), expand) == ALICE
    assert expand_parties(None, OptionalT(party), expand) is None
    nested = OptionalT(OptionalT(party))
    assert (
        expand_parties([["Alice"]], nested, expand) == [[ALICE]] and expand_parties([], nested, expand) == []
    )
    assert expand_parties(5, party, expand) == 5  # not text: the participant says what is wrong


def test_the_packages_are_read_only_when_some_text_could_be_a_short_name() -> None:
    def document(arguments: dict) -> dict:
        return {"commands": [{"CreateCommand": {"templateId": "#p:M:T", "createArguments": arguments}}]}

    known = [ALICE, BOB]
    assert could_name_a_party(document({"owner": "Alice", "currency": "USD"}), known)
    assert could_name_a_party(document({"observers": [{"who": "Bob"}]}), known)
    assert not could_name_a_party(document({"owner": ALICE, "currency": "USD"}), known)
    assert not could_name_a_party(
        {"commands": [{"ArchiveCommand": {"createArguments": {"a": "Alice"}}}]}, known
    )
