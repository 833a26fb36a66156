"""Package service, and the preferred packages of the interactive submission service."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from participant.api import GetPreferredPackagesRequest, UploadDarFileResponse
from participant.base.errors import BadRequestBody
from participant.routes.common import claims, context, decode, json, read_body
from participant.services import packages


async def list_packages(request: Request):
    c = await claims(request)
    return json(packages.list_packages(context(request), c))


async def package_status(request: Request):
    c = await claims(request)
    return json(packages.package_status(context(request), request.path_params["package_id"], c))


async def get_package(request: Request):
    c = await claims(request)
    archive = await packages.package_archive(context(request), request.path_params["package_id"], c)
    return Response(
        archive.content, media_type="application/octet-stream", headers={"Canton-Package-Hash": archive.hash}
    )


def _flag(request: Request, name: str) -> None:
    """A boolean query parameter, checked as Canton decodes it (its value changes nothing here)."""
    value = request.query_params.get(name)
    if value is not None and value not in ("true", "false"):
        raise BadRequestBody(f"{value!r} is not a boolean", where=f"query parameter {name}")


async def upload_dar(request: Request):
    _flag(request, "vetAllPackages")
    c = await claims(request)
    c.require_admin()
    data = await read_body(request)
    from participant.services import dars  # the Daml-LF reader, loaded with the first DAR (not at the start)

    await dars.upload(context(request), data, request.query_params.get("synchronizerId"), c)
    return json(UploadDarFileResponse())


async def validate_dar(request: Request):
    c = await claims(request)
    c.require_admin()
    data = await read_body(request)
    from participant.services import dars

    await dars.validate(context(request), data, request.query_params.get("synchronizerId"), c)
    return Response(status_code=200)


async def preferred_package_version(request: Request):
    query = request.query_params
    name = query.get("package-name")
    if name is None:
        raise BadRequestBody("missing", where="query parameter package-name")
    c = await claims(request)
    return json(
        packages.preferred_package_version(
            context(request),
            name,
            query.getlist("parties"),
            query.get("synchronizer-id", ""),
            query.get("vetting_valid_at"),
            c,
        )
    )


async def preferred_packages(request: Request):
    req = await decode(request, GetPreferredPackagesRequest)
    c = await claims(request)
    return json(packages.preferred_packages(context(request), req, c))


routes = [
    Route("/v2/packages", list_packages, methods=["GET"]),
    Route("/v2/packages", upload_dar, methods=["POST"]),
    Route("/v2/dars", upload_dar, methods=["POST"]),
    Route("/v2/dars/validate", validate_dar, methods=["POST"]),
    Route("/v2/packages/{package_id}", get_package, methods=["GET"]),
    Route("/v2/packages/{package_id}/status", package_status, methods=["GET"]),
    Route("/v2/interactive-submission/preferred-package-version", preferred_package_version, methods=["GET"]),
    Route("/v2/interactive-submission/preferred-packages", preferred_packages, methods=["POST"]),
]
