"""User and party management: users and their rights, the user behind the token, allocating, listing and looking
up parties. The store's refusals become Canton's answers here."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator

from participant import errors
from participant.api import (
    AllocatePartyRequest,
    CreateUserRequest,
    GrantUserRightsRequest,
    RevokeUserRightsRequest,
)
from participant.auth import Claims
from participant.context import Context
from participant.engine import ids
from participant.errors import LedgerError
from participant.services.common import PageQuery, next_page_token
from participant.store import admin
from participant.store.rows import PartyRow, UserRow

MAX_USERS_PAGE_SIZE = 1000
MAX_PARTIES_PAGE_SIZE = 10_000
_PARTY_KINDS = {"CanActAs", "CanReadAs", "CanExecuteAs"}


def user_not_found(user_id: str) -> LedgerError:
    return errors.USER_NOT_FOUND(f'getting user failed for unknown user "{user_id}"', resources=[("USER", user_id)])


@contextlib.contextmanager
def admin_errors() -> Iterator[None]:
    """Canton's answers to the user and party writes the store refuses."""
    try:
        yield
    except admin.UserNotFound as e:
        raise user_not_found(e.user_id) from None
    except admin.UserExists as e:
        raise errors.USER_ALREADY_EXISTS(f'creating user failed for existing user "{e.user_id}"',
                                         resources=[("USER", e.user_id)]) from None
    except admin.PartyExists as e:
        raise errors.INVALID_ARGUMENT(f"Party already exists: party {e.party} is already allocated on this node",
                                      resources=[("PARTY", e.party)]) from None


# --- users

def wire_user(u: UserRow) -> dict:
    return {
        "id": u.id,
        "primaryParty": u.primary_party,
        "isDeactivated": u.is_deactivated,
        "metadata": {"resourceVersion": str(u.resource_version), "annotations": u.annotations},
        "identityProviderId": u.identity_provider_id,
        "primaryPartyAuthentication": u.primary_party_authentication,
    }


def wire_right(kind: str, party: str | None) -> dict:
    return {"kind": {kind: {"value": {"party": party} if kind in _PARTY_KINDS else {}}}}


def rights_of(wire_rights) -> list[tuple[str, str | None]]:
    out = []
    for r in wire_rights:
        kind = r.kind.tag
        if kind == "Empty":
            raise errors.missing_field("kind")
        party = r.kind.value.value.party if kind in _PARTY_KINDS else None
        if kind in _PARTY_KINDS:
            ids.require_party_ids([party], f"right {kind}")
        out.append((kind, party))
    return out


def require_user_id(user_id: str) -> str:
    """The user id of a path, checked before the caller's claims are read."""
    ids.require_user_id(user_id, "user_id")
    return user_id


async def _existing_user(ctx: Context, user_id: str) -> UserRow:
    user = await ctx.store.user(user_id)
    if user is None:
        raise user_not_found(user_id)
    return user


async def create_user(ctx: Context, req: CreateUserRequest, c: Claims) -> dict:
    c.require_admin()
    if req.user is None:
        raise errors.missing_field("user")
    u = req.user
    ids.require_user_id(u.id, "user.id")
    if u.primary_party and not ids.is_party_id_string(u.primary_party):
        raise errors.INVALID_FIELD(f"Invalid field user.primary_party: {u.primary_party!r}",
                                   context={"field_name": "user.primary_party"})
    meta = u.metadata
    row = UserRow(u.id, u.primary_party, u.is_deactivated, dict(meta.annotations) if meta else {}, 0,
                  u.identity_provider_id, u.primary_party_authentication, ())
    with admin_errors():
        created = await admin.create_user(ctx.store, row, rights_of(req.rights))
    return {"user": wire_user(created)}


async def list_users(ctx: Context, query: PageQuery, c: Claims) -> dict:
    c.require_admin()
    size, after = query.page(MAX_USERS_PAGE_SIZE)
    users = await ctx.store.users(after, size + 1)
    last = users[size - 1].id if len(users) > size else None
    return {"users": [wire_user(u) for u in users[:size]], "nextPageToken": next_page_token(last)}


async def get_user(ctx: Context, user_id: str, c: Claims) -> dict:
    c.require_self_or_admin(user_id)
    return {"user": wire_user(await _existing_user(ctx, user_id))}


async def delete_user(ctx: Context, user_id: str, c: Claims) -> dict:
    c.require_admin()
    with admin_errors():
        await admin.delete_user(ctx.store, user_id)
    return {}


async def list_rights(ctx: Context, user_id: str, c: Claims) -> dict:
    c.require_self_or_admin(user_id)
    user = await _existing_user(ctx, user_id)
    return {"rights": [wire_right(k, p) for k, p in user.rights]}


async def _change_rights(ctx: Context, user_id: str, req, c: Claims, change: Callable, answer_key: str) -> dict:
    """Grant or revoke: the body's rights, for the user of the path (the body may repeat its id)."""
    c.require_admin()
    if req.user_id and req.user_id != user_id:
        raise errors.INVALID_ARGUMENT(f"The user id in the body ({req.user_id}) differs from the path ({user_id})")
    with admin_errors():
        changed = await change(ctx.store, user_id, rights_of(req.rights))
    return {answer_key: [wire_right(k, p) for k, p in changed]}


async def grant_rights(ctx: Context, user_id: str, req: GrantUserRightsRequest, c: Claims) -> dict:
    return await _change_rights(ctx, user_id, req, c, admin.grant_rights, "newlyGrantedRights")


async def revoke_rights(ctx: Context, user_id: str, req: RevokeUserRightsRequest, c: Claims) -> dict:
    return await _change_rights(ctx, user_id, req, c, admin.revoke_rights, "newlyRevokedRights")


async def authenticated_user(ctx: Context, c: Claims) -> dict:
    if c.user_id is None:
        raise errors.INVALID_TOKEN("the request carries no user: the participant runs without authentication")
    return {"user": wire_user(await _existing_user(ctx, c.user_id))}


# --- parties

def wire_party(p: PartyRow) -> dict:
    return {
        "party": p.party,
        "isLocal": True,
        "localMetadata": {"resourceVersion": str(p.resource_version), "annotations": p.annotations},
        "identityProviderId": p.identity_provider_id,
    }


async def allocate_party(ctx: Context, req: AllocatePartyRequest, c: Claims) -> dict:
    if not (c.admin or c.idp_admin):
        if not req.user_id or req.user_id != c.user_id:  # self-allocation names the token's own user
            raise errors.PERMISSION_DENIED("allocating a party needs ParticipantAdmin or self-allocation")
    if req.synchronizer_id and ctx.identity.synchronizer(req.synchronizer_id) is None:
        raise errors.INVALID_ARGUMENT(f"Synchronizer id not found: {req.synchronizer_id}")
    hint = req.party_id_hint or f"party-{uuid.uuid4()}"
    party = ctx.identity.party(hint)
    annotations = dict(req.local_metadata.annotations) if req.local_metadata else {}
    with admin_errors():
        await admin.allocate_party(ctx.store, party, annotations, req.identity_provider_id, req.user_id)
    return {"partyDetails": wire_party(PartyRow(party, annotations, 0, req.identity_provider_id))}


async def list_parties(ctx: Context, query: PageQuery, prefix: str, c: Claims) -> dict:
    c.require_admin()
    size, after = query.page(MAX_PARTIES_PAGE_SIZE)
    parties = await ctx.store.parties(after, size + 1, prefix)
    last = parties[size - 1].party if len(parties) > size else None
    return {"partyDetails": [wire_party(p) for p in parties[:size]], "nextPageToken": next_page_token(last)}


def require_parties(wanted: list[str]) -> list[str]:
    """The parties of a lookup, checked before the caller's claims are read."""
    ids.require_party_ids(wanted)
    return wanted


async def get_parties(ctx: Context, wanted: list[str], c: Claims) -> dict:
    c.require_read_unless_admin(wanted)
    found = [row for p in dict.fromkeys(wanted) if (row := await ctx.store.party(p)) is not None]
    return {"partyDetails": [wire_party(p) for p in found]}
