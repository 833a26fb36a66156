"""The headless commands that read: `acs`, `contract`, `updates`, `packages`."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from app.client import LedgerClient, errors
from app.client.acs import read_snapshot
from app.client.ledger import ACS_DELTA, LEDGER_EFFECTS, event_format
from app.client.updates import follow
from app.headless import resolve
from app.headless.connect import reading_parties
from app.headless.output import Column, Output
from app.locations import Locations

SHAPES = {"ledger-effects": LEDGER_EFFECTS, "acs-delta": ACS_DELTA}


class Usage(Exception):
    """The command line asks for something that cannot be done (exit code 2)."""


# --- acs -------------------------------------------------------------------------------------------------------


def _created(entry: dict) -> dict:
    contract_entry = entry.get("contractEntry") or {}
    for kind in contract_entry.values():
        if isinstance(kind, dict):
            created = kind.get("createdEvent") or (kind.get("assignedEvent") or {}).get("createdEvent")
            if isinstance(created, dict):
                return created
            unassigned = kind.get("unassignedEvent")
            if isinstance(unassigned, dict):
                return unassigned
    return {}


def _acs_state(entry: dict) -> str:
    kind = next(iter(entry.get("contractEntry") or {}), "?")
    return {
        "JsActiveContract": "active",
        "JsIncompleteAssigned": "in flight",
        "JsIncompleteUnassigned": "unassigned",
    }.get(kind, kind)


ACS_TABLE: list[Column] = [
    ("contract id", lambda e: _created(e).get("contractId")),
    ("template", lambda e: _created(e).get("templateId")),
    ("state", _acs_state),
    ("created at", lambda e: _created(e).get("createdAt")),
    ("signatories", lambda e: _created(e).get("signatories")),
]


async def acs(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    # who may read what, and the ledger end, asked at the same time: the first contracts come a round trip sooner
    end = client.ledger_end() if args.offset is None else _given(args.offset)
    parties, offset = await asyncio.gather(reading_parties(client, args.party), end)
    fmt = event_format(parties, templates=args.template, verbose=True)
    async for batch in read_snapshot(client, offset, fmt):
        out.emit_raw(batch.entries)


async def _given(offset: int) -> int:
    return offset


# --- contract --------------------------------------------------------------------------------------------------


def _event(document: dict) -> dict:
    (value,) = document.values()
    return value.get("createdEvent") or value.get("archivedEvent") or {}


CONTRACT_TABLE: list[Column] = [
    ("event", lambda d: next(iter(d))),
    ("offset", lambda d: _event(d).get("offset")),
    ("contract id", lambda d: _event(d).get("contractId")),
    ("template", lambda d: _event(d).get("templateId")),
    ("synchronizer", lambda d: next(iter(d.values())).get("synchronizerId")),
]


async def contract(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    parties = await reading_parties(client, args.party)
    contract_id = await resolve.contract_id(client, args.contract_id, parties)
    events = await client.events_by_contract_id(contract_id, event_format(parties))
    if events.created is None and events.archived is None:
        raise errors.NotFound(
            404,
            "Contract events not found, or not visible.",
            method="POST",
            path="/v2/events/events-by-contract-id",
        )
    if events.created is not None:
        out.emit({"created": events.created.model_dump(mode="json")})
    if events.archived is not None:
        out.emit({"archived": events.archived.model_dump(mode="json")})


# --- updates ---------------------------------------------------------------------------------------------------


def _update(document: dict) -> tuple[str, dict]:
    (kind, wrapped) = next(iter(document.items()))
    return kind, wrapped.get("value") or {}


def _events(document: dict) -> int | None:
    events = _update(document)[1].get("events")
    return len(events) if isinstance(events, list) else None


UPDATES_TABLE: list[Column] = [
    ("offset", lambda d: _update(d)[1].get("offset")),
    ("record time", lambda d: _update(d)[1].get("recordTime")),
    ("kind", lambda d: _update(d)[0]),
    ("update id", lambda d: _update(d)[1].get("updateId")),
    ("command id", lambda d: _update(d)[1].get("commandId") or None),
    ("workflow id", lambda d: _update(d)[1].get("workflowId") or None),
    ("events", _events),
]


async def updates(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    if args.follow and args.to is not None:
        raise Usage("--follow reads on without an end: leave out --to")
    parties = await reading_parties(client, args.party)
    if args.follow:
        begin = args.from_ if args.from_ is not None else await client.ledger_end()
        until = None
    else:
        begin = args.from_ or 0
        until = args.to if args.to is not None else await client.ledger_end()
        if until <= begin:
            return
    async for update in follow(
        client,
        after=begin,
        parties=parties,
        templates=args.template,
        interfaces=args.interface,
        shape=SHAPES[args.shape],
        until=until,
    ):
        if update.offset_checkpoint is None:
            out.emit(update.model_dump(mode="json"))


# --- packages --------------------------------------------------------------------------------------------------

PACKAGES_TABLE: list[Column] = [
    ("package id", lambda d: d["packageId"]),
    ("name", lambda d: d.get("name")),
    ("version", lambda d: d.get("version")),
    ("lf version", lambda d: d.get("lfVersion")),
    ("templates", lambda d: d.get("templates")),
    ("problem", lambda d: d.get("problem")),
]


async def packages(client: LedgerClient, args: argparse.Namespace, out: Output, locations: Locations) -> None:
    from app.packages import PackageCatalog

    catalog = PackageCatalog(client, locations.cache_dir)
    await catalog.load()
    if catalog.problem:
        await client.packages()  # raises the participant's refusal as it is
        raise errors.LedgerApiError(catalog.problem)
    rows: list[dict[str, Any]] = []
    for sig in catalog.packages.values():
        rows.append(
            {
                "packageId": sig.package_id,
                "name": sig.name,
                "version": sig.version,
                "lfVersion": sig.lf_version,
                "templates": len(sig.templates),
            }
        )
    for other in catalog.not_daml_lf.values():
        rows.append({"packageId": other.package_id, "name": other.name, "version": other.version})
    for package_id, why in catalog.unreadable.items():
        rows.append({"packageId": package_id, "problem": why})
    rows.sort(key=lambda r: (r.get("name") or "\uffff", r.get("version") or "", r["packageId"]))
    for row in rows:
        out.emit(row)
