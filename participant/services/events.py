"""Contract and event lookups: one contract by id (its witnesses among the querying parties), and the create and
archive events of a contract."""

from __future__ import annotations

import orjson

from participant.api import GetContractRequest, GetEventsByContractIdRequest
from participant.auth import Claims
from participant.base import errors
from participant.engine import ids
from participant.projection.filters import EventFilter, authorize, qualified_name, resolve_event_format
from participant.projection.shaping import archived_event, created_event_of_row
from participant.projection.views_ahead import shaped
from participant.services.context import Context


def _contract_id(contract_id: str) -> str:
    if not contract_id:
        raise errors.missing_field("contract_id")
    return ids.require_contract_id(contract_id, "contract_id")


def check_contract_request(req: GetContractRequest) -> str:
    """The contract id of the request, and its querying parties checked, before the caller's claims are read."""
    contract_id = _contract_id(req.contract_id)
    ids.require_party_ids(req.querying_parties, "querying_parties")
    return contract_id


async def contract_by_id(ctx: Context, req: GetContractRequest, contract_id: str, c: Claims) -> dict:
    c.require_read_of(req.querying_parties, any_party=not req.querying_parties)
    row = await ctx.store.contract(contract_id)
    stakeholders = [] if row is None else row.stakeholders
    witnesses = (
        sorted(set(stakeholders) & set(req.querying_parties)) if req.querying_parties else stakeholders
    )
    if row is None or not witnesses:
        raise errors.CONTRACT_PAYLOAD_NOT_FOUND(
            "Contract payload not found, or not visible.", resources=[("CONTRACT_ID", contract_id)]
        )
    event = created_event_of_row(row, sorted(witnesses), with_blob=True)
    # Fields the service says cannot be populated here carry Canton's placeholders.
    event.update(offset=1, nodeId=0, acsDelta=False, interfaceViews=[])
    return {"createdEvent": event}


def events_request_filter(ctx: Context, req: GetEventsByContractIdRequest) -> tuple[str, EventFilter]:
    """The contract id and the event filter of the request, checked before the caller's claims are read."""
    contract_id = _contract_id(req.contract_id)
    if req.event_format is None:
        raise errors.missing_field("event_format")
    return contract_id, resolve_event_format(req.event_format, ctx.filter_packages)


async def events_by_contract_id(ctx: Context, contract_id: str, event_filter: EventFilter, c: Claims) -> dict:
    authorize(c, event_filter)
    row = await ctx.store.contract(contract_id)
    witnesses = (
        []
        if row is None
        else event_filter.witnesses(row.stakeholders, row.package_name, qualified_name(row.template_id))
    )
    if row is None or not witnesses:
        raise errors.CONTRACT_EVENTS_NOT_FOUND(
            "Contract events not found, or not visible.", resources=[("CONTRACT_ID", contract_id)]
        )
    qn = qualified_name(row.template_id)
    blob = event_filter.blob(witnesses, row.package_name, qn)
    found = row
    views = await shaped(
        [event_filter],
        lambda: event_filter.views(
            witnesses, found.template_id, found.package_name, orjson.loads(found.argument)
        ),
        ctx.committer.evaluate,
    )
    # A contract that moved was created on its first source; it is archived where it was at the end.
    origin, _ = await ctx.store.contract_moves(contract_id)
    created = {
        "createdEvent": created_event_of_row(row, witnesses, blob, views),
        "synchronizerId": origin or row.synchronizer_id,
    }
    archived = None
    if row.archive_offset is not None and row.archive_node_id is not None:  # stored together
        archived = {
            "archivedEvent": archived_event(
                offset=row.archive_offset,
                node_id=row.archive_node_id,
                contract_id=row.contract_id,
                template_id=row.template_id,
                package_name=row.package_name,
                witnesses=witnesses,
                implemented=event_filter.interfaces(witnesses, row.package_name, qn),
            ),
            "synchronizerId": row.synchronizer_id,
        }
    return {"created": created, "archived": archived}
