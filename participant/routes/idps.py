"""Identity provider config service."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import CreateIdentityProviderConfigRequest, UpdateIdentityProviderConfigRequest
from participant.routes.common import claims, context, decode, json
from participant.services import idps


async def create_idp(request: Request):
    req = await decode(request, CreateIdentityProviderConfigRequest)
    c = await claims(request)
    return json(await idps.create_idp(context(request), req, c))


async def list_idps(request: Request):
    c = await claims(request)
    return json(await idps.list_idps(context(request), c))


async def get_idp(request: Request):
    c = await claims(request)
    return json(await idps.get_idp(context(request), request.path_params["idp_id"], c))


async def update_idp(request: Request):
    req = await decode(request, UpdateIdentityProviderConfigRequest)
    idps.require_idp_in_body(request.path_params["idp_id"], req.identity_provider_config)
    c = await claims(request)
    return json(await idps.update_idp(context(request), req, c))


async def delete_idp(request: Request):
    c = await claims(request)
    return json(await idps.delete_idp(context(request), request.path_params["idp_id"], c))


routes = [
    Route("/v2/idps", create_idp, methods=["POST"]),
    Route("/v2/idps", list_idps, methods=["GET"]),
    Route("/v2/idps/{idp_id}", get_idp, methods=["GET"]),
    Route("/v2/idps/{idp_id}", update_idp, methods=["PATCH"]),
    Route("/v2/idps/{idp_id}", delete_idp, methods=["DELETE"]),
]
