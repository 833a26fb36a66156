"""Party management: allocating, listing, looking up and updating parties (their participant-local metadata)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from participant.api import (
    AllocatePartyRequest,
    AllocatePartyResponse,
    GetPartiesResponse,
    ListKnownPartiesResponse,
    ObjectMeta,
    PartyDetails,
    UpdatePartyDetailsRequest,
    UpdatePartyDetailsResponse,
)
from participant.auth import Claims
from participant.base import errors
from participant.base.errors import LedgerError
from participant.base.transactions import AuthorizationNode
from participant.engine import ids
from participant.services.admin import admin_errors, require_idp_admin_of, require_idp_exists
from participant.services.common import PageQuery, next_page_token
from participant.services.context import Context
from participant.services.metadata import check_annotations, resource_version
from participant.services.update_mask import UpdateMask, UpdateMaskError
from participant.store import admin
from participant.store.rows import PartyRow, UpdateRow

MAX_PARTIES_PAGE_SIZE = 10_000


def party_model(p: PartyRow) -> PartyDetails:
    """Every party this participant knows is one it hosts."""
    return PartyDetails(
        party=p.party,
        is_local=True,
        local_metadata=ObjectMeta(resource_version=str(p.resource_version), annotations=p.annotations),
        identity_provider_id=p.identity_provider_id,
    )


def hosting(ctx: Context, party: str, synchronizer_id: str = "") -> Callable[[int], UpdateRow]:
    """The topology transaction that hosts a new party here with submission rights, made by the writer at the
    offset it takes (its record time is read then, so record times grow with offsets). Parties are hosted on every
    connected synchronizer; the transaction is reported on the one the allocation names, or the first."""
    node = AuthorizationNode(0, party, ctx.identity.participant_id, "PARTICIPANT_PERMISSION_SUBMISSION")
    synchronizer = synchronizer_id or ctx.identity.default_synchronizer.id

    def at(offset: int) -> UpdateRow:
        now = ctx.committer.clock.now()
        return UpdateRow(
            offset,
            ctx.committer.ids.update_id(),
            "topology",
            "",
            "",
            "",
            "",
            (),
            now,
            now,
            synchronizer,
            None,
            [node],
        )

    return at


async def allocate_party(ctx: Context, req: AllocatePartyRequest, c: Claims) -> AllocatePartyResponse:
    if not (c.admin or c.idp_admin):
        if not req.user_id or req.user_id != c.user_id:  # self-allocation names the token's own user
            raise errors.PERMISSION_DENIED("allocating a party needs ParticipantAdmin or self-allocation")
    if req.synchronizer_id and ctx.identity.synchronizer(req.synchronizer_id) is None:
        raise errors.INVALID_ARGUMENT(f"Synchronizer id not found: {req.synchronizer_id}")
    hint = req.party_id_hint or f"party-{uuid.uuid4()}"
    party = ctx.identity.party(hint)
    annotations = dict(req.local_metadata.annotations) if req.local_metadata else {}
    check_annotations(annotations, "party_details.local_metadata.annotations", allow_empty_values=False)
    await require_idp_exists(ctx, req.identity_provider_id, "identity_provider_id")
    with admin_errors():
        await admin.allocate_party(
            ctx.store,
            party,
            annotations,
            req.identity_provider_id,
            req.user_id,
            topology=hosting(ctx, party, req.synchronizer_id),
        )
    return AllocatePartyResponse(
        party_details=party_model(PartyRow(party, annotations, 0, req.identity_provider_id))
    )


async def list_parties(ctx: Context, query: PageQuery, prefix: str, c: Claims) -> ListKnownPartiesResponse:
    c.require_admin()
    size, after = query.page(MAX_PARTIES_PAGE_SIZE)
    parties = await ctx.store.parties(after, size + 1, prefix)
    last = parties[size - 1].party if len(parties) > size else None
    return ListKnownPartiesResponse(
        party_details=[party_model(p) for p in parties[:size]], next_page_token=next_page_token(last)
    )


def require_parties(wanted: list[str]) -> list[str]:
    """The parties of a lookup, checked before the caller's claims are read."""
    ids.require_party_ids(wanted)
    return wanted


async def get_parties(ctx: Context, wanted: list[str], c: Claims) -> GetPartiesResponse:
    c.require_read_unless_admin(wanted)
    found = [row for p in dict.fromkeys(wanted) if (row := await ctx.store.party(p)) is not None]
    return GetPartiesResponse(party_details=[party_model(p) for p in found])


def party_not_found(party: str) -> LedgerError:
    return errors.PARTY_NOT_FOUND(
        f"Party: '{party}' was not found when updating a party record", resources=[("PARTY", party)]
    )


def require_party_in_body(path_party: str, details: PartyDetails | None) -> None:
    """The JSON layer's check, before any other: the body names the party of the path."""
    if details is None or details.party != path_party:
        shown = "None" if details is None else f"Some(PartyDetails({details.party},...))"
        raise errors.INVALID_ARGUMENT(f"{path_party} does not match party in body {shown}")


# The update paths of a party's details (Canton's `PartyDetailsPaths`).
PARTY_FIELDS = (
    "party",
    "is_local",
    "local_metadata.annotations",
    "local_metadata.resource_version",
    "identity_provider_id",
)


async def update_party(ctx: Context, req: UpdatePartyDetailsRequest, c: Claims) -> UpdatePartyDetailsResponse:
    """PATCH a party's participant-local metadata (its annotations); nothing else of a party can change."""
    d = req.party_details
    assert d is not None  # the route checked the body's party against the path
    await require_idp_admin_of(ctx, c, d.identity_provider_id)
    ids.require_party_ids([d.party])
    meta = d.local_metadata or ObjectMeta()
    expected = resource_version(meta.resource_version, "party_details.local_metadata")
    annotations = check_annotations(
        meta.annotations, "party_details.local_metadata.annotations", allow_empty_values=True
    )
    if req.update_mask is None:
        raise errors.missing_field("update_mask")
    await require_idp_exists(ctx, d.identity_provider_id, "identity_provider_id")

    def invalid(reason: str) -> LedgerError:
        return errors.INVALID_PARTY_DETAILS_UPDATE_REQUEST(
            f"Update operation for party '{d.party}' failed due to: {reason}", resources=[("PARTY", d.party)]
        )

    try:
        mask = UpdateMask(req.update_mask.paths, PARTY_FIELDS)
    except UpdateMaskError as e:
        raise invalid(str(e)) from None
    stored = await ctx.store.party(d.party)
    if stored is None:
        raise party_not_found(d.party)
    if mask.value("is_local", d.is_local, False) not in (None, True):
        raise invalid("Update request attempted to modify not-modifiable 'is_local' attribute")
    if d.identity_provider_id != stored.identity_provider_id:
        raise invalid("Use UpdatePartyIdentityProviderId to change identity provider IDs")
    change = admin.PartyChange(
        d.party,
        d.identity_provider_id,
        expected,
        annotations=mask.value("local_metadata.annotations", annotations, {}),
    )
    try:
        updated = await admin.update_party(ctx.store, change)
    except admin.ConcurrentChange:
        raise errors.CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED(
            f"Update operation for party '{d.party}' failed due to a concurrent update to the same party",
            resources=[("PARTY", d.party)],
        ) from None
    except admin.AnnotationsTooLarge:
        raise errors.MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED(
            f"Maximum annotations size for party '{d.party}' has been exceeded",
            resources=[("PARTY", d.party)],
        ) from None
    except admin.PartyNotFound:
        raise party_not_found(d.party) from None
    except admin.WrongIdentityProvider:
        raise invalid("Use UpdatePartyIdentityProviderId to change identity provider IDs") from None
    return UpdatePartyDetailsResponse(party_details=party_model(updated))
