"""User management service: users, their rights, and the user behind the token."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import (
    CreateUserRequest,
    GrantUserRightsRequest,
    RevokeUserRightsRequest,
    UpdateUserIdentityProviderIdRequest,
    UpdateUserRequest,
)
from participant.routes.common import claims, context, decode, json, page_query
from participant.services import admin


def _user_id(request: Request) -> str:
    return admin.require_user_id(request.path_params["user_id"])


async def create_user(request: Request):
    req = await decode(request, CreateUserRequest)
    c = await claims(request)
    return json(await admin.create_user(context(request), req, c))


async def list_users(request: Request):
    c = await claims(request)
    return json(await admin.list_users(context(request), page_query(request), c))


async def get_user(request: Request):
    user_id = _user_id(request)
    c = await claims(request)
    return json(await admin.get_user(context(request), user_id, c))


async def delete_user(request: Request):
    user_id = _user_id(request)
    c = await claims(request)
    return json(await admin.delete_user(context(request), user_id, c))


async def list_rights(request: Request):
    user_id = _user_id(request)
    c = await claims(request)
    return json(await admin.list_rights(context(request), user_id, c))


async def grant_rights(request: Request):
    user_id = _user_id(request)
    req = await decode(request, GrantUserRightsRequest)
    c = await claims(request)
    return json(await admin.grant_rights(context(request), user_id, req, c))


async def revoke_rights(request: Request):
    user_id = _user_id(request)
    req = await decode(request, RevokeUserRightsRequest)
    c = await claims(request)
    return json(await admin.revoke_rights(context(request), user_id, req, c))


async def update_user(request: Request):
    req = await decode(request, UpdateUserRequest)
    admin.require_user_in_body(request.path_params["user_id"], None if req.user is None else req.user.id)
    c = await claims(request)
    return json(await admin.update_user(context(request), req, c))


async def update_user_idp(request: Request):
    req = await decode(request, UpdateUserIdentityProviderIdRequest)
    admin.require_user_in_body(request.path_params["user_id"], req.user_id)
    c = await claims(request)
    return json(await admin.update_user_idp(context(request), request.path_params["user_id"], req, c))


async def authenticated_user(request: Request):
    c = await claims(request)
    return json(await admin.authenticated_user(context(request), c))


routes = [
    Route("/v2/users", create_user, methods=["POST"]),
    Route("/v2/users", list_users, methods=["GET"]),
    Route("/v2/authenticated-user", authenticated_user, methods=["GET"]),
    Route("/v2/users/{user_id}", get_user, methods=["GET"]),
    Route("/v2/users/{user_id}", delete_user, methods=["DELETE"]),
    Route("/v2/users/{user_id}", update_user, methods=["PATCH"]),
    Route("/v2/users/{user_id}/identity-provider-id", update_user_idp, methods=["PATCH"]),
    Route("/v2/users/{user_id}/rights", list_rights, methods=["GET"]),
    Route("/v2/users/{user_id}/rights", grant_rights, methods=["POST"]),
    Route("/v2/users/{user_id}/rights", revoke_rights, methods=["PATCH"]),
]
