"""What every route shares: the participant's context, decoding bodies as Canton does, the caller's claims,
list limits and pages, and JSON answers (the server renders errors with `error_response` too)."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterator
from typing import TypeVar

import orjson
import pydantic
from starlette.requests import Request
from starlette.responses import Response

from participant import errors
from participant.auth import Claims
from participant.context import Context
from participant.errors import BadRequestBody, LedgerError
from participant.services.common import ListLimit
from participant.store import admin

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
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadRequestBody(f"Cannot parse integer value '{raw}'", where=f"query parameter {name}") from None


def list_limit(request: Request) -> ListLimit:
    """The list limits of a request; `stream_idle_timeout_ms` is validated too (finite lists never wait)."""
    limit = query_int(request, "limit")
    query_int(request, "stream_idle_timeout_ms")
    if limit is not None and limit < 0:
        raise BadRequestBody(f"limit must not be negative, got {limit}", where="query parameter limit")
    return ListLimit(context(request).settings.max_list_elements, limit)


def page_request(request: Request, max_size: int) -> tuple[int, str]:
    """`pageSize` and `pageToken` of the admin listings: (page size, the key the page starts after)."""
    size = query_int(request, "pageSize") or max_size
    if size < 0:
        raise errors.INVALID_ARGUMENT(f"Page size must be non-negative, got {size}")
    token = request.query_params.get("pageToken", "")
    try:
        after = base64.urlsafe_b64decode(token.encode()).decode() if token else ""
    except ValueError:
        raise errors.INVALID_ARGUMENT(f"Invalid page token {token!r}") from None
    return min(size, max_size), after


def next_page_token(last_key: str | None) -> str:
    """The token of the page after the one ending at `last_key` ("" when there is none)."""
    return "" if last_key is None else base64.urlsafe_b64encode(last_key.encode()).decode()


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


def json(content, status: int = 200) -> Response:
    """A JSON answer from a wire model or plain data (dicts built by `participant.shaping`)."""
    if isinstance(content, pydantic.BaseModel):
        body = content.model_dump_json(by_alias=True).encode()
    else:
        body = orjson.dumps(content)
    return Response(body, status_code=status, media_type="application/json")


def error_response(error: LedgerError) -> Response:
    return Response(orjson.dumps(error.body()), status_code=error.status, media_type="application/json")
