"""Daml values in their JSON form, told apart by shape so that a tree can show them readably.

The JSON Ledger API prints values without their types (docs/ledger-api.md §9), so what a value *is* has to be read from its
shape: ``{"tag","value"}`` is a variant, an array of two-element arrays a GenMap, ``null`` an Optional's None,
``"Alice::1220…"`` a party. Where the shape is ambiguous the reading says so (`note`) instead of guessing silently.
"""

from __future__ import annotations

import re
from typing import Any

from app.counting import count
from app.cut import cut, shorten
from app.daml import number, short_party

PARTY = "party"
CONTRACT_ID = "contract id"
NUMERIC = "numeric"
INT64 = "int64"
TEXT = "text"
BOOL = "bool"
DATE = "date"
TIMESTAMP = "timestamp"
NONE = "none"
UNIT = "unit"
RECORD = "record"
TEXTMAP = "textmap"
VARIANT = "variant"
LIST = "list"
GENMAP = "genmap"

CONTAINERS = frozenset({RECORD, TEXTMAP, VARIANT, LIST, GENMAP})

_PARTY = re.compile(r"^[^:\s]+::[0-9a-f]{8,}$")
# V1 ids are 138 hex digits starting 00, V2 start 01; a shorter hex text (a hash) is not taken for one.
_CONTRACT_ID = re.compile(r"^0[01][0-9a-f]{64,}$")
_INT = re.compile(r"^-?\d+$")
_NUMERIC = re.compile(r"^-?\d+\.\d*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
_FIELD = re.compile(r"^[A-Za-z$_][A-Za-z0-9$_]*$")

SHORT_ID = 12


def is_party(text: str) -> bool:
    return bool(_PARTY.match(text))


def is_contract_id(text: str) -> bool:
    return bool(_CONTRACT_ID.match(text))


def kind_of(value: Any) -> str:
    """What a value looks like it is (one of the kinds above)."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int | float):
        return NUMERIC if isinstance(value, float) else INT64
    if isinstance(value, str):
        if _PARTY.match(value):
            return PARTY
        if _CONTRACT_ID.match(value):
            return CONTRACT_ID
        if _INT.match(value):
            return INT64
        if _NUMERIC.match(value):
            return NUMERIC
        if _DATE.match(value):
            return DATE
        if _TIMESTAMP.match(value):
            return TIMESTAMP
        return TEXT
    if isinstance(value, dict):
        if not value:
            return UNIT
        if set(value) == {"tag", "value"} and isinstance(value["tag"], str):
            return VARIANT
        # record field names are Daml identifiers; a key that is not one can only be a TextMap's
        return RECORD if all(_FIELD.match(k) for k in value) else TEXTMAP
    if isinstance(value, list):
        if value and all(isinstance(v, list) and len(v) == 2 for v in value):
            return GENMAP
        return LIST
    return TEXT


def _nested_optional(value: list) -> bool:
    """`[[x]]` / `[[]]`: how an Optional (Optional _) prints Some (Some x) / Some None."""
    return len(value) == 1 and isinstance(value[0], list) and len(value[0]) <= 1


def short_contract_id(cid: str) -> str:
    return shorten(cid, SHORT_ID)


def show_party(party: str, full: bool = False) -> str:
    return party if full else short_party(party)


def show_contract_id(cid: str, full: bool = False) -> str:
    return cid if full else short_contract_id(cid)


def scalar_text(value: Any, *, full_ids: bool = False) -> str:
    """One scalar as people read it: ``999.99`` not ``"999.9900000000"``, ``Alice::1220ab…``, ``"USD"``."""
    kind = kind_of(value)
    if kind == NONE:
        return "None"
    if kind == BOOL:
        return "True" if value else "False"
    if kind == UNIT:
        return "()"
    if kind == PARTY:
        return show_party(value, full_ids)
    if kind == CONTRACT_ID:
        return show_contract_id(value, full_ids)
    if kind == NUMERIC:
        if not isinstance(value, str):
            return repr(value)
        return number(value).removesuffix(".")  # scale 0 prints "5."
    if kind in (INT64, DATE, TIMESTAMP):
        return str(value)
    if kind == TEXT:
        return _quoted(value)
    return preview(value, full_ids=full_ids)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def entries(value: Any) -> list[tuple[str, Any]]:
    """The children of a container value as (label, value): record fields, list positions, map keys, a variant's
    payload. A GenMap key that is not a scalar becomes an entry with ``key`` and ``value`` under it."""
    kind = kind_of(value)
    if kind in (RECORD, TEXTMAP):
        return [(k if kind == RECORD else _quoted(k), v) for k, v in value.items()]
    if kind == VARIANT:
        inner = value["value"]
        if kind_of(inner) == RECORD:
            return list(inner.items())
        return [] if kind_of(inner) == UNIT else [("value", inner)]
    if kind == LIST:
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    if kind == GENMAP:
        out: list[tuple[str, Any]] = []
        for i, (k, v) in enumerate(value):
            if kind_of(k) in CONTAINERS:
                out.append((f"entry {i}", {"key": k, "value": v}))
            else:
                out.append((scalar_text(k), v))
        return out
    return []


def is_container(value: Any) -> bool:
    return kind_of(value) in CONTAINERS and bool(entries(value))


def preview(value: Any, *, full_ids: bool = False, width: int = 60) -> str:
    """A container in one line, cut at about `width` characters: ``{issuer: Alice::1220ab…, owner: …}``."""
    text = _preview(value, full_ids, width)
    return cut(text, width)


def _preview(value: Any, full_ids: bool, width: int) -> str:
    kind = kind_of(value)
    if kind == VARIANT:
        inner = value["value"]
        if kind_of(inner) == UNIT:
            return value["tag"]
        return f"{value['tag']} {_preview(inner, full_ids, width)}"
    if kind in (RECORD, TEXTMAP, GENMAP, LIST):
        items = entries(value)
        parts: list[str] = []
        used = 0
        for label, v in items:
            if used > width:
                break
            part = _preview(v, full_ids, width)
            if kind != LIST:
                part = f"{label}: {part}"
            parts.append(part)
            used += len(part) + 2
        more = ", …" if len(parts) < len(items) else ""
        opening, closing = ("[", "]") if kind == LIST else ("{", "}")
        return opening + ", ".join(parts) + more + closing
    return scalar_text(value, full_ids=full_ids)


def summary(value: Any) -> str:
    """What a container holds, in a few words: ``3 items``, ``2 entries``, ``4 fields``."""
    kind = kind_of(value)
    n = len(entries(value))
    if kind == LIST:
        return count(n, "item")
    if kind in (TEXTMAP, GENMAP):
        return count(n, "entry")
    if kind == RECORD:
        return count(n, "field")
    return ""


def note(value: Any) -> str:
    """What else an ambiguous shape may mean, in Daml terms ("" when it is clear)."""
    kind = kind_of(value)
    if kind == LIST and _nested_optional(value):
        inner = value[0]
        return "or, if Optional (Optional _): " + (
            "Some None" if not inner else f"Some (Some {scalar_text(inner[0])})"
        )
    if kind == GENMAP:
        return "GenMap (pairs of key and value)"
    if kind == TEXTMAP:
        return "TextMap"
    return ""
