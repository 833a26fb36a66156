"""User management service: users, their rights, and the user behind the token."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant import errors
from participant.api import CreateUserRequest, GrantUserRightsRequest, RevokeUserRightsRequest
from participant.engine import ids
from participant.routes.common import (
    admin_errors,
    claims,
    context,
    decode,
    json,
    next_page_token,
    page_request,
    user_not_found,
)
from participant.store import admin
from participant.store.rows import UserRow

MAX_PAGE_SIZE = 1000
_PARTY_KINDS = {"CanActAs", "CanReadAs", "CanExecuteAs"}


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


def _user_id(request: Request) -> str:
    user_id = request.path_params["user_id"]
    ids.require_user_id(user_id, "user_id")
    return user_id


async def _existing_user(request: Request, user_id: str) -> UserRow:
    user = await context(request).store.user(user_id)
    if user is None:
        raise user_not_found(user_id)
    return user


async def create_user(request: Request):
    req = await decode(request, CreateUserRequest)
    (await claims(request)).require_admin()
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
        created = await admin.create_user(context(request).store, row, rights_of(req.rights))
    return json({"user": wire_user(created)})


async def list_users(request: Request):
    (await claims(request)).require_admin()
    size, after = page_request(request, MAX_PAGE_SIZE)
    users = await context(request).store.users(after, size + 1)
    last = users[size - 1].id if len(users) > size else None
    return json({"users": [wire_user(u) for u in users[:size]], "nextPageToken": next_page_token(last)})


async def get_user(request: Request):
    user_id = _user_id(request)
    (await claims(request)).require_self_or_admin(user_id)
    return json({"user": wire_user(await _existing_user(request, user_id))})


async def delete_user(request: Request):
    user_id = _user_id(request)
    (await claims(request)).require_admin()
    with admin_errors():
        await admin.delete_user(context(request).store, user_id)
    return json({})


async def list_rights(request: Request):
    user_id = _user_id(request)
    (await claims(request)).require_self_or_admin(user_id)
    user = await _existing_user(request, user_id)
    return json({"rights": [wire_right(k, p) for k, p in user.rights]})


async def _change_rights(request: Request, model, change, answer_key: str):
    """Grant or revoke: the body's rights, for the user of the path (the body may repeat its id)."""
    user_id = _user_id(request)
    req = await decode(request, model)
    (await claims(request)).require_admin()
    if req.user_id and req.user_id != user_id:
        raise errors.INVALID_ARGUMENT(f"The user id in the body ({req.user_id}) differs from the path ({user_id})")
    with admin_errors():
        changed = await change(context(request).store, user_id, rights_of(req.rights))
    return json({answer_key: [wire_right(k, p) for k, p in changed]})


async def grant_rights(request: Request):
    return await _change_rights(request, GrantUserRightsRequest, admin.grant_rights, "newlyGrantedRights")


async def revoke_rights(request: Request):
    return await _change_rights(request, RevokeUserRightsRequest, admin.revoke_rights, "newlyRevokedRights")


async def authenticated_user(request: Request):
    c = await claims(request)
    if c.user_id is None:
        raise errors.INVALID_TOKEN("the request carries no user: the participant runs without authentication")
    return json({"user": wire_user(await _existing_user(request, c.user_id))})


routes = [
    Route("/v2/users", create_user, methods=["POST"]),
    Route("/v2/users", list_users, methods=["GET"]),
    Route("/v2/authenticated-user", authenticated_user, methods=["GET"]),
    Route("/v2/users/{user_id}", get_user, methods=["GET"]),
    Route("/v2/users/{user_id}", delete_user, methods=["DELETE"]),
    Route("/v2/users/{user_id}/rights", list_rights, methods=["GET"]),
    Route("/v2/users/{user_id}/rights", grant_rights, methods=["POST"]),
    Route("/v2/users/{user_id}/rights", revoke_rights, methods=["PATCH"]),
]
