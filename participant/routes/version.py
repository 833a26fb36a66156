"""Version service, package service, and the health checks at the root."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from participant.engine import ids
from participant.routes.common import claims, context, json

API_VERSION = "3.5.4"


async def version(request: Request):
    """No token needed, as on Canton."""
    return json({
        "version": API_VERSION,
        "features": {
            "experimental": {"staticTime": {"supported": False}, "commandInspectionService": {"supported": False}},
            "userManagement": {"supported": True, "maxRightsPerUser": 1000, "maxUsersPageSize": 1000},
            "partyManagement": {"maxPartiesPageSize": 10000},
            "offsetCheckpoint": {"maxOffsetCheckpointEmissionDelay": {  # as Canton prints a protobuf Duration
                "seconds": 75, "nanos": 0, "unknownFields": {"fields": {}}}},
            "packageFeature": {"maxVettedPackagesPageSize": 100},
        },
    })


async def list_packages(request: Request):
    await claims(request)
    return json({"packageIds": sorted(p.package_id for p in context(request).registry.packages)})


async def package_status(request: Request):
    await claims(request)
    package_id = request.path_params["package_id"]
    known = ids.is_package_id_string(package_id) and context(request).registry.package(package_id) is not None
    return json({"packageStatus": "PACKAGE_STATUS_REGISTERED" if known else "PACKAGE_STATUS_UNSPECIFIED"})


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
    Route("/v2/packages", list_packages, methods=["GET"]),
    Route("/v2/packages/{package_id}/status", package_status, methods=["GET"]),
]
