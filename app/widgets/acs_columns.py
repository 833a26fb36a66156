"""The columns the contract table can show: the create event's fields and the payload's, and which ones a view
starts with. Users choose per template; the choice is kept in the data directory."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from app.cut import cells
from app.daml import party_hint, scalar, short_id, summary, telling_fields, template_name
from app.private_files import private_dir, private_replacement
from app.snapshot import STATUS_NAMES, Row
from app.widgets.contract_table import Column

ALL_TEMPLATES = "*"


def _parties(parties: list[str]) -> str:
    return ", ".join(party_hint(p) for p in parties) or "—"


def _time(text: str) -> str:
    return text.replace("T", " ")[:19] if text else "—"


def _synchronizer(text: str) -> str:
    return party_hint(text) if text else "—"


def _where(row: Row) -> str:
    """The synchronizer a contract is on; one in flight shows where it is going (`→private`)."""
    if row.in_flight:
        assert row.move is not None
        return "→" + _synchronizer(row.move.target)
    return _synchronizer(row.synchronizer)


BUILTIN: dict[str, Column] = {
    "contract": Column("contract", "Contract", 12, lambda r: short_id(r.contract_id, 10)),
    # a template's entity, at the end of its name, tells it apart more than its module: cut from the left
    "template": Column("template", "Template", 16, lambda r: template_name(r.template_id), keep_end=True),
    "payload": Column("payload", "Payload", 54, lambda r: summary(r.payload, 54)),
    "signatories": Column("signatories", "Signatories", 15, lambda r: _parties(r.signatories)),
    "observers": Column("observers", "Observers", 12, lambda r: _parties(r.observers)),
    "created_at": Column("created_at", "Created at", 19, lambda r: _time(r.created_at)),
    "offset": Column("offset", "Offset", 8, lambda r: str(r.created_offset), right=True),
    "synchronizer": Column("synchronizer", "Sync", 8, lambda r: _where(r)),
    "counter": Column(
        "counter", "Ctr", 4, lambda r: "—" if r.counter is None else str(r.counter), right=True
    ),
}

# What a row is comes first, so that an 80-column terminal shows it whole: the template and the payload's first
# fields (the contract's id is under the table for the row selected, in full).
DEFAULT_MIXED = [
    "template",
    "payload",
    "contract",
    "signatories",
    "observers",
    "created_at",
    "offset",
    "synchronizer",
    "counter",
]


def payload_column(name: str, sample: list) -> Column:
    values = [p.get(name) for p in sample if isinstance(p, dict)]
    numeric = bool(values) and all(isinstance(v, str) and _is_number(v) for v in values if v is not None)
    width = max([len(name), *(len(scalar(v)) for v in values[:50])] or [8])

    def render(row: Row) -> str:
        return scalar(row.payload.get(name)) if isinstance(row.payload, dict) else "?"

    return Column(f"payload.{name}", name, max(6, min(width, 28)), render, right=numeric)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


DECLARED_SHOWN = 5  # fields of a template's declaration shown before any of its contracts is read


def default_for_template(sample: list, declared: Sequence[str] = ()) -> list[str]:
    """The columns of one template's view: the payload fields that tell its contracts apart, or, with no contract
    to tell from, the first fields its package declares."""
    names = telling_fields(sample, limit=5) if sample else list(declared[:DECLARED_SHOWN])
    fields = [f"payload.{name}" for name in names]
    return [
        "contract",
        *fields,
        "signatories",
        "observers",
        "created_at",
        "offset",
        "synchronizer",
        "counter",
    ]


class ColumnChoices:
    """Chosen columns per template (ALL_TEMPLATES for a view of several), kept as JSON in the data directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._chosen: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._chosen = {}

    def get(self, template: str) -> list[str] | None:
        keys = self._chosen.get(template)
        return list(keys) if isinstance(keys, list) else None

    def set(self, template: str, keys: list[str]) -> None:
        self._chosen[template] = keys
        try:
            private_dir(self.path.parent)
            with private_replacement(self.path) as out:
                out.write(json.dumps(self._chosen, indent=1))
        except OSError:
            pass  # the choice still holds for this session


def build_columns(keys: list[str], sample: list, template_ids: Sequence[str] = ()) -> list[Column]:
    """The columns of `keys`; the template column sized to the names of `template_ids` (the templates in view),
    as far as the screen allows (`contract_table.lay_out`)."""
    out: list[Column] = []
    for key in keys:
        if key == "template" and template_ids:
            widest = max(cells(template_name(t)) for t in template_ids)
            out.append(replace(BUILTIN[key], widest=widest))
        elif key in BUILTIN:
            out.append(BUILTIN[key])
        elif key.startswith("payload."):
            out.append(payload_column(key[len("payload.") :], sample))
    return out or [BUILTIN["contract"]]


def available(sample: list, declared: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(key, label) of every column a view of these payloads can show: the template's declared fields (when its
    package is read) in their order, then any other field the payloads hold."""
    fields: list[str] = list(declared)
    for p in sample:
        if isinstance(p, dict):
            fields.extend(k for k in p if k not in fields)
    return [(key, c.label) for key, c in BUILTIN.items()] + [
        (f"payload.{f}", f"payload: {f}") for f in fields
    ]


def row_export_columns(columns: list[Column]) -> list[tuple[str, Callable[[Row], object]]]:
    """CSV columns: full values, not the shortened ones the table shows."""

    def full(key: str):
        if key == "contract":
            return lambda r: r.contract_id
        if key == "template":
            return lambda r: r.template_id
        if key == "signatories":
            return lambda r: " ".join(r.signatories)
        if key == "observers":
            return lambda r: " ".join(r.observers)
        if key == "synchronizer":
            return lambda r: r.synchronizer
        if key == "payload":
            return lambda r: r.payload
        if key.startswith("payload."):
            name = key[len("payload.") :]
            return lambda r: r.payload.get(name) if isinstance(r.payload, dict) else None
        column = BUILTIN.get(key)
        return (lambda r: column.render(r)) if column else (lambda r: None)

    return [("status", lambda r: STATUS_NAMES[r.status])] + [(c.label, full(c.key)) for c in columns]


__all__ = [
    "ALL_TEMPLATES",
    "BUILTIN",
    "DEFAULT_MIXED",
    "ColumnChoices",
    "Row",
    "available",
    "build_columns",
    "default_for_template",
    "row_export_columns",
    "template_name",
]
