"""Update masks as Canton reads them (`UpdatePathsTrie`, `UpdateMapperBase`): which fields a PATCH changes.

A mask lists dotted proto field paths (`primary_party`, `metadata.annotations`). Every path must lead to (or into)
a field the resource has, and none may repeat. A field is updated when the mask names it exactly, or when the mask
names an enclosing message (`metadata`) and the request gives the field a value other than its default.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class UpdateMaskError(Exception):
    """The reason Canton gives (the detail of INVALID_*_UPDATE_REQUEST)."""


def _shorten(text: str) -> str:
    return text[:50] + "..." if len(text) > 53 else text


class UpdateMask:
    def __init__(self, paths: list[str], resource_fields: Iterable[str]) -> None:
        if not paths:
            raise UpdateMaskError("The update mask contains no entries")
        known = [tuple(f.split(".")) for f in resource_fields]
        self._paths: set[tuple[str, ...]] = set()
        for raw in paths:
            path = tuple(raw.split("."))
            if not any(field[: len(path)] == path for field in known):
                raise UpdateMaskError(f"The update path: '{_shorten(raw)}' points to an unknown field.")
        for raw in paths:
            path = tuple(raw.split("."))
            if path in self._paths:
                raise UpdateMaskError(f"The update path: '{_shorten(raw)}' is duplicated.")
            self._paths.add(path)

    def _match(self, field: str) -> bool | None:
        """True: named exactly; False: an enclosing message is named; None: not in the mask."""
        path = tuple(field.split("."))
        if path in self._paths:
            return True
        if any(path[:n] in self._paths for n in range(len(path) - 1, 0, -1)):
            return False
        return None

    def value(self, field: str, new: Any, default: Any) -> Any | None:
        """The field's new value, or None when the update leaves it as it is."""
        match = self._match(field)
        if match is None or (match is False and new == default):
            return None
        return new

    def named_exactly(self, field: str) -> bool:
        return self._match(field) is True
