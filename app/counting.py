"""A count and its noun, agreeing in number: "1 contract", "0 contracts", "2,000 contracts". Every count the client
shows goes through here, so that no screen says "1 contracts"."""

from __future__ import annotations


def plural(noun: str) -> str:
    """The noun for any number but one: "entry" → "entries", "match" → "matches", "contract" → "contracts"; a noun
    of several words takes it on its last ("package name" → "package names")."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def count(number: int, noun: str, nouns: str | None = None) -> str:
    """`number` with thousands separated and `noun` in the number it takes (`nouns` where the plural is not the
    regular one: count(2, "datum", "data"))."""
    return f"{number:,} {noun if number == 1 else nouns or plural(noun)}"


__all__ = ["count", "plural"]
