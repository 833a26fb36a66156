"""A count and its noun agree in number (`app.counting`), the rule every count the client shows goes through."""

from __future__ import annotations

from app.counting import count, plural


def test_one_takes_the_singular_and_every_other_number_the_plural():
    assert count(1, "contract") == "1 contract"
    assert count(0, "contract") == "0 contracts"
    assert count(2_000, "contract") == "2,000 contracts"
    assert count(1, "package name") == "1 package name" and count(31, "package name") == "31 package names"


def test_regular_plurals_and_a_given_one():
    assert [plural(n) for n in ("entry", "match", "day", "byte", "box")] == [
        "entries",
        "matches",
        "days",
        "bytes",
        "boxes",
    ]
    assert count(2, "datum", "data") == "2 data" and count(1, "datum", "data") == "1 datum"
