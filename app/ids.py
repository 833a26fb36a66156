"""The long ids a user types, expanded from what is shorter to type: a unique prefix of a package id or a contract
id, a party's short name (its hint, before ``::``) or a unique prefix of it, a template id whose package id is a
prefix. Each is expanded against a set the caller knows (parties, cached contracts, the packages read), and the
answer says what it expanded to or why it could not: several matches, or none.

Text nobody knows is kept as typed (with the problem "unknown …"): the participant may know what the client does
not (another participant's party, a contract not cached), so only an ambiguous prefix is a refusal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.cut import shorten

PARTY_SEPARATOR = "::"
SHOWN_MATCHES = 3  # how many of an ambiguous prefix's matches the problem names


@dataclass(frozen=True, slots=True)
class Expansion:
    typed: str
    value: str
    """What to use: the id expanded, or the text as typed when it expands to nothing (unknown or ambiguous)."""
    problem: str = ""
    """Empty, or why the text was not expanded: ``ambiguous: 3 matches (…)`` or ``unknown party``."""
    matches: tuple[str, ...] = ()
    """The known ids the text matches, sorted (one when expanded)."""

    @property
    def expanded(self) -> bool:
        """The value differs from what was typed."""
        return self.value != self.typed

    @property
    def ambiguous(self) -> bool:
        return len(self.matches) > 1

    def note(self) -> str:
        """What to tell the user: ``Alice → Alice::1220…`` or the problem; empty when nothing happened."""
        if self.problem:
            return f"{self.typed}: {self.problem}"
        return f"{self.typed} → {self.value}" if self.expanded else ""


def _answer(typed: str, matches: Iterable[str], what: str) -> Expansion:
    found = tuple(sorted(set(matches)))
    if len(found) == 1:
        return Expansion(typed, found[0], matches=found)
    if not found:
        return Expansion(typed, typed, f"unknown {what}")
    shown = ", ".join(_short(m) for m in found[:SHOWN_MATCHES])
    more = ", …" if len(found) > SHOWN_MATCHES else ""
    return Expansion(typed, typed, f"ambiguous: {len(found)} matches ({shown}{more})", found)


def _short(full_id: str) -> str:
    """An id short enough to name among others in one line."""
    return full_id if len(full_id) <= 24 else shorten(full_id, 20)


HEX = frozenset("0123456789abcdef")
SHORTEST = 4  # hex digits a contract id's beginning needs to be looked for: "00" and a digit or two match all


def could_begin_contract_id(text: str) -> bool:
    return len(text) >= SHORTEST and set(text) <= HEX


def expand_prefix(typed: str, known: Iterable[str], what: str = "id") -> Expansion:
    """`typed` itself when known, else the one known id it begins (package ids, contract ids)."""
    typed = typed.strip()
    known = set(known)
    if not typed or typed in known:
        return Expansion(typed, typed, matches=(typed,) if typed else ())
    return _answer(typed, (k for k in known if k.startswith(typed)), what)


def expand_party(typed: str, parties: Iterable[str]) -> Expansion:
    """A party id itself; else the party whose hint (before ``::``) is `typed`; else the one party whose id
    begins with `typed` (a prefix of the hint, or of the hint and fingerprint)."""
    typed = typed.strip()
    parties = set(parties)
    if not typed or typed in parties:
        return Expansion(typed, typed, matches=(typed,) if typed else ())
    named = [p for p in parties if p.partition(PARTY_SEPARATOR)[0] == typed]
    if named:
        return _answer(typed, named, "party")
    return _answer(typed, (p for p in parties if p.startswith(typed)), "party")


def expand_parties(typed: str, parties: Iterable[str]) -> list[Expansion]:
    """A comma- or space-separated list of parties, each expanded."""
    parties = set(parties)
    return [expand_party(part, parties) for part in typed.replace(",", " ").split()]


def expand_template_id(typed: str, package_ids: Iterable[str]) -> Expansion:
    """``packageId:Module:Entity`` whose package id is a unique prefix of a known one, expanded; ``#name:…`` (a
    package name) and text that names no module are kept as typed."""
    typed = typed.strip()
    package_ref, sep, rest = typed.partition(":")
    if not sep or not rest or package_ref.startswith("#") or not package_ref:
        return Expansion(typed, typed)
    package = expand_prefix(package_ref, package_ids, "package")
    if package.problem:
        return Expansion(typed, typed, package.problem, tuple(f"{m}:{rest}" for m in package.matches))
    value = f"{package.value}:{rest}"
    return Expansion(typed, value, matches=(value,))


__all__ = ["Expansion", "expand_parties", "expand_party", "expand_prefix", "expand_template_id"]


def distinguishing_length(ids: Iterable[str], least: int) -> int:
    """How many first characters tell each of `ids` apart from the others (at least `least`): one more than the
    longest beginning two of them share. Neighbours in sorted order share the longest beginnings."""
    ordered = sorted(set(ids))
    shared = 0
    for before, after in zip(ordered, ordered[1:], strict=False):
        same = 0
        for a, b in zip(before, after, strict=False):
            if a != b:
                break
            same += 1
        shared = max(shared, same)
    return max(least, shared + 1)
