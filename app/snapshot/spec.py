"""What a view of the cache shows: the question the table asks of it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewSpec:
    """What the table shows: the ACS at `offset`, marked against `previous` (rows added and removed)."""

    offset: int
    previous: int | None = None
    templates: frozenset[str] = frozenset()  # template ids; empty: all
    text: str = ""
    sort: str = "arrival"  # a key of views.BUILTIN_SORTS or "payload.<field>"
    descending: bool = False
