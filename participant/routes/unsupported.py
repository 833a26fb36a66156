"""The endpoints this participant cannot serve: each answers why, once the caller's claims pass."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import WireModel
from participant.routes.common import claims, decode
from participant.services import unsupported


def _handler(endpoint: unsupported.Unsupported):
    async def refuse(request: Request):
        await decode(request, WireModel)  # any JSON object: nothing of it is used
        raise unsupported.refuse(endpoint, await claims(request))

    return refuse


routes = [
    Route(path, _handler(endpoint), methods=[method])
    for (method, path), endpoint in unsupported.ENDPOINTS.items()
]
