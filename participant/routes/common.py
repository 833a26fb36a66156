"""What every route shares: the participant's context, decoding bodies as Canton does, the caller's claims,
list limits and pages, and JSON answers (the server renders errors with `error_response` too)."""

from __future__ import annotations

from typing import TypeVar

import orjson
import pydantic
from starlette.requests import Request
from starlette.responses import Response

from participant.auth import Claims
from participant.base.errors import BadRequestBody, LedgerError
from participant.services.common import ListLimit, PageQuery, parse_int
from participant.services.context import Context

M = TypeVar("M", bound=pydantic.BaseModel)


def context(request: Request) -> Context:
    return request.app.state.context


class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"request body exceeds the limit of {limit} bytes")
        self.limit = limit


async def read_body(request: Request) -> bytes:
    """The raw body, refused as soon as it passes the size limit (a declared length is checked before reading)."""
    limit = context(request).settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def decode(request: Request, model: type[M]) -> M:
    return decode_bytes(await read_body(request), model)


def decode_bytes(body: bytes, model: type[M]) -> M:
    """Parse a request body with the wire model; failures read like Canton's tapir/circe 400 answers."""
    if not body.strip():
        raise BadRequestBody("expected json value got '' (line 1, column 1)")
    try:
        return model.model_validate_json(body)
    except pydantic.ValidationError as e:
        raise BadRequestBody(describe_validation_error(e)) from None


def describe_validation_error(e: pydantic.ValidationError) -> str:
    parts = []
    for err in e.errors(include_url=False):
        path = ".".join(str(p) for p in err["loc"])
        if err["type"] == "json_invalid":
            parts.append(f"expected json value got {err.get('ctx', {}).get('error', err['msg'])}")
        elif err["type"] == "missing":
            parts.append(f"Missing required field at '{path}'")
        else:
            msg = err["msg"]
            parts.append(f"{msg} at '{path}'" if path else msg)
    return ", ".join(parts)


async def claims(request: Request) -> Claims:
    return await context(request).authenticator.claims_for(request.headers)


def query_int(request: Request, name: str) -> int | None:
    return parse_int(request.query_params.get(name), f"query parameter {name}")


def list_limit(request: Request) -> ListLimit:
    """The list limits of a request; `stream_idle_timeout_ms` is validated too (finite lists never wait)."""
    limit = query_int(request, "limit")
    query_int(request, "stream_idle_timeout_ms")
    if limit is not None and limit < 0:
        raise BadRequestBody(f"limit must not be negative, got {limit}", where="query parameter limit")
    return ListLimit(context(request).settings.max_list_elements, limit)


def stream_idle_timeout(request: Request) -> float | None:
    """`stream_idle_timeout_ms` in seconds, None when not given."""
    ms = query_int(request, "stream_idle_timeout_ms")
    return None if ms is None else max(ms, 0) / 1000


def path_int(request: Request, name: str) -> int:
    """An integer path parameter, refused as tapir refuses one that does not parse."""
    value = parse_int(request.path_params[name], f"path parameter {name}")
    assert value is not None
    return value


def page_query(request: Request) -> PageQuery:
    """`pageSize` and `pageToken` of the admin listings, as sent (the service checks them)."""
    return PageQuery(request.query_params.get("pageSize"), request.query_params.get("pageToken", ""))


def json(content, status: int = 200) -> Response:
    """A JSON answer from a wire model or plain data (dicts built by `participant.projection.shaping`)."""
    if isinstance(content, pydantic.BaseModel):
        body = content.model_dump_json(by_alias=True).encode()
    else:
        body = orjson.dumps(content)
    return Response(body, status_code=status, media_type="application/json")


def error_response(error: LedgerError) -> Response:
    return Response(orjson.dumps(error.body()), status_code=error.status, media_type="application/json")


def trace_context_of(request: Request) -> dict | None:
    # The raw header list, not `request.headers.get`: that raises and catches a KeyError when the header is
    # missing, which is the usual case. Names are lowercase in ASGI scopes; the first value wins, as in Headers.
    parent = state = None
    for name, value in request.scope["headers"]:
        if name == b"traceparent" and parent is None:
            parent = value.decode("latin-1")
        elif name == b"tracestate" and state is None:
            state = value.decode("latin-1")
    if parent is None:
        return None
    return {"traceparent": parent, "tracestate": state}
