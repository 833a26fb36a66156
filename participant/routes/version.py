"""Version service, and the health checks at the root."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from participant.routes.common import context, json
from participant.services import node


async def version(request: Request):
    return json(node.version(context(request).settings.static_time))


async def livez(request: Request):
    """Liveness, as Canton answers it at the root: 200 with an empty body."""
    return Response(b"", status_code=200)


async def readyz(request: Request):
    """Readiness: the database answers."""
    await context(request).store.pruned_offset()
    return PlainTextResponse("ready")


routes = [
    Route("/livez", livez, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/v2/version", version, methods=["GET"]),
]
