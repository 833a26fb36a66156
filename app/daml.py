"""Daml values and identifiers as people read them: short party and contract ids, template names without the
package hash, numbers without the Decimal padding, and which payload fields tell contracts of a template apart."""

from __future__ import annotations

from typing import Any

from app.cut import MARK, cut, shorten
from participant.daml_lf import scalars


def short_party(party: str) -> str:
    """``Alice::1220abcd…`` as ``Alice::1220ab…``; other strings unchanged."""
    parts = scalars.party_parts(party)
    if parts is None:
        return party
    hint, namespace = parts
    return f"{hint}::{namespace[:6]}…"


def party_hint(party: str) -> str:
    """Just the hint: ``Alice``."""
    return party.split("::", 1)[0]


def short_id(value: str, length: int = 10) -> str:
    return shorten(value, length)


def looks_like_contract_id(text: str) -> bool:
    return scalars.looks_like_contract_id(text)


def template_name(template_id: str) -> str:
    """``<package id>:Iou:Iou`` as ``Iou:Iou``; the package-name form keeps its name: ``model-tests:Iou:Iou``."""
    parts = template_id.split(":")
    if len(parts) < 3:
        return template_id
    package, module, entity = parts[0], ":".join(parts[1:-1]), parts[-1]
    if package.startswith("#"):
        return f"{package[1:]}:{module}:{entity}"
    return f"{module}:{entity}"


def package_name_ref(template_id: str, package_name: str | None) -> str:
    """The ``#package-name:Module:Entity`` form of a template id (what filters and commands should use)."""
    parts = template_id.split(":")
    if len(parts) < 3 or not package_name:
        return template_id
    return f"#{package_name}:{':'.join(parts[1:])}"


def number(text: str) -> str:
    """A Daml Decimal/Numeric string without the scale padding: ``"999.9900000000"`` as ``999.99``."""
    return scalars.unpadded_numeric(text)


def scalar(value: Any, *, parties: bool = True) -> str:
    """A Daml value in one short line (for table cells)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if parties and "::" in value:
            return party_hint(value)
        if scalars.looks_like_contract_id(value):
            return short_id(value)
        return number(value)
    if isinstance(value, list):
        if not value:
            return "[]"
        return (
            "["
            + ", ".join(scalar(v, parties=parties) for v in value[:3])
            + (", …]" if len(value) > 3 else "]")
        )
    if isinstance(value, dict):
        if set(value) == {"tag", "value"}:
            inner = scalar(value["value"], parties=parties)
            return f"{value['tag']}" if inner in ("{}", "—") else f"{value['tag']} {inner}"
        if not value:
            return "{}"
        return (
            "{"
            + ", ".join(f"{k}: {scalar(v, parties=parties)}" for k, v in list(value.items())[:2])
            + (", …}" if len(value) > 2 else "}")
        )
    return str(value)


def summary(value: Any, width: int = 80) -> str:
    """A record's scalar leaves as ``name=value`` pairs (nested names dotted, parties by their hint), as many whole
    pairs as fit in `width`, and ``…`` when some were left out: a one-line payload for a table of mixed templates.
    A first pair longer than `width` is itself cut with ``…`` (`app.cut`): a value never shows shorter than it is."""
    pairs: list[str] = []
    used = -1
    for name, leaf in _leaves(value, ""):
        pairs.append(f"{name}={party_hint(leaf) if isinstance(leaf, str) and '::' in leaf else scalar(leaf)}")
        used += len(pairs[-1]) + 1
        if used > width:
            break  # enough to know that the rest is left out
    if not pairs:
        return cut(scalar(value), width)
    if used <= width:
        return " ".join(pairs)
    shown = pairs[:1]
    for pair in pairs[1:]:  # whole pairs while " …" still fits after them
        if len(" ".join([*shown, pair, MARK])) > width:
            break
        shown.append(pair)
    return cut(" ".join([*shown, MARK]) if len(shown) > 1 or len(shown[0]) + 2 <= width else shown[0], width)


def _leaves(value: Any, prefix: str):
    """(dotted name, value) of each scalar leaf of a record; variants, lists and maps count as leaves."""
    if isinstance(value, dict) and set(value) != {"tag", "value"}:
        for k, v in value.items():
            yield from _leaves(v, f"{prefix}{k}.")
    elif isinstance(value, list) and not value:
        return
    elif prefix:
        yield prefix.rstrip("."), value


def telling_fields(payloads: list[Any], limit: int = 4) -> list[str]:
    """The payload fields that best tell contracts apart: scalar fields whose values vary, in declaration order."""
    records = [p for p in payloads if isinstance(p, dict)]
    if not records:
        return []
    fields = list(records[0])
    scored: list[tuple[int, str]] = []
    for name in fields:
        values = [r.get(name) for r in records]
        if any(isinstance(v, dict | list) for v in values if v is not None):
            if all(isinstance(v, list) and not v for v in values):
                continue  # an empty list everywhere tells nothing
            scored.append((2, name))
            continue
        distinct = len({str(v) for v in values})
        scored.append((0 if distinct > 1 or len(records) == 1 else 1, name))
    ranked = sorted(range(len(scored)), key=lambda i: (scored[i][0], i))
    chosen = {scored[i][1] for i in ranked[:limit]}
    return [name for name in fields if name in chosen]
