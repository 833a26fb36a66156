"""Expanding the long ids a user types: prefixes of package and contract ids, parties' short names."""

from __future__ import annotations

from app.ids import expand_parties, expand_party, expand_prefix, expand_template_id

ALICE = "Alice::1220aaaa"
ALICE_2 = "Alice::1220bbbb"
ALICIA = "Alicia::1220cccc"
BOB = "Bob::1220dddd"
PARTIES = [ALICE, ALICIA, BOB]


def test_a_short_name_expands_to_its_party() -> None:
    found = expand_party("Bob", PARTIES)
    assert (found.value, found.problem, found.expanded) == (BOB, "", True)
    assert found.note() == f"Bob → {BOB}"


def test_a_short_name_wins_over_a_longer_hint_it_begins() -> None:
    # "Alice" is Alice's whole hint and the beginning of nobody else's id but Alice's own
    assert expand_party("Alice", PARTIES).value == ALICE


def test_a_unique_prefix_of_a_party_expands() -> None:
    assert expand_party("Alici", PARTIES).value == ALICIA
    assert expand_party("Alice::1220a", [ALICE, ALICE_2]).value == ALICE


def test_a_full_party_id_is_kept() -> None:
    found = expand_party(ALICE, PARTIES)
    assert (found.value, found.problem, found.expanded) == (ALICE, "", False)
    assert found.note() == ""


def test_an_ambiguous_short_name_or_prefix_is_reported_and_kept_as_typed() -> None:
    found = expand_party("Alice", [ALICE, ALICE_2])
    assert found.value == "Alice" and found.ambiguous
    assert found.problem.startswith("ambiguous: 2 matches (Alice::1220aaaa, Alice::1220bbbb)")
    assert expand_party("Ali", PARTIES).problem.startswith("ambiguous: 2 matches")


def test_an_unknown_party_is_kept_and_named_unknown() -> None:
    found = expand_party("Carol", PARTIES)
    assert (found.value, found.problem, found.ambiguous) == ("Carol", "unknown party", False)


def test_a_list_of_parties_expands_each() -> None:
    assert [e.value for e in expand_parties("Bob, Alicia  Alice", PARTIES)] == [BOB, ALICIA, ALICE]


def test_a_contract_id_prefix_expands_when_unique() -> None:
    cids = ["00abc1", "00abd2", "00ffe3"]
    assert expand_prefix("00f", cids, "contract").value == "00ffe3"
    ambiguous = expand_prefix("00ab", cids, "contract")
    assert (ambiguous.value, ambiguous.matches) == ("00ab", ("00abc1", "00abd2"))
    assert ambiguous.problem.startswith("ambiguous: 2 matches")
    assert expand_prefix("11", cids, "contract").problem == "unknown contract"


def test_many_matches_are_counted_and_only_a_few_named() -> None:
    found = expand_prefix("0", [f"0{i}" for i in range(10)])
    assert found.problem == "ambiguous: 10 matches (00, 01, 02, …)"


def test_blank_text_expands_to_nothing() -> None:
    found = expand_prefix("  ", ["abc"])
    assert (found.value, found.problem, found.expanded) == ("", "", False)


def test_a_template_id_with_a_package_prefix_expands() -> None:
    packages = ["a1" + "0" * 62, "b2" + "0" * 62, "b3" + "0" * 62]
    found = expand_template_id("a1:Main:Iou", packages)
    assert found.value == packages[0] + ":Main:Iou"
    assert expand_template_id("b:Main:Iou", packages).problem.startswith("ambiguous: 2 matches")
    assert expand_template_id("#pkg:Main:Iou", packages).value == "#pkg:Main:Iou"
    assert expand_template_id("Main", packages).value == "Main"
    assert expand_template_id("c:Main:Iou", packages).problem == "unknown package"
