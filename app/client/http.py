"""The HTTP layer of the client: one pooled `httpx.AsyncClient`, the bearer token, retries, the request log, and
the mapping of every failure onto the exception tree of `app.client.errors`."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
import orjson
import pydantic

from app.client import errors
from app.client.requests_log import RequestLog
from participant.api import JsCantonError, WireModel


class TokenSource(Protocol):
    """Where the bearer token comes from (`app.tokens` has one class per source: file, command, OAuth, ...)."""

    async def token(self) -> str:
        """The current token, fetched again shortly before it expires."""
        ...

    async def refresh(self) -> str:
        """A new token now: the participant refused the current one."""
        ...


@dataclass(frozen=True)
class Timeouts:
    """Bounds on one request. `read_s` bounds each wait for the next bytes of an answer, not the whole answer: a
    large page keeps arriving however long it takes. (The websocket ACS has its own bound, `acs.WS_STALL_S`.)"""

    connect_s: float = 5.0
    # Canton's own request timeout is 20 s: a submission or a page that takes that long is answered by then
    read_s: float = 30.0
    pool_s: float = 10.0

    @property
    def request_bound_s(self) -> float:
        """The longest a request of a small answer can wait before it is answered or reported: a free connection,
        the connection, then the answer."""
        return self.pool_s + self.connect_s + self.read_s


@dataclass(frozen=True)
class Retry:
    """Backoff for what is safe to repeat: reads, and a submission with the same commandId."""

    attempts: int = 3  # retries after the first try
    base_delay_s: float = 0.25
    max_delay_s: float = 2.0

    def delay(self, attempt: int) -> float:
        d = min(self.max_delay_s, self.base_delay_s * 2**attempt)
        return d * (0.75 + random.random() / 2)


def encode(body: Any) -> bytes:
    """A request body: wire models with every field written out (a 3.4 participant rejects omitted scalars)."""
    if isinstance(body, WireModel):
        return body.model_dump_json(by_alias=True).encode()
    return orjson.dumps(body)


class Http:
    def __init__(
        self,
        base_url: str,
        tokens: TokenSource | None,
        *,
        log: RequestLog | None = None,
        timeouts: Timeouts = Timeouts(),
        retry: Retry = Retry(),
        transport: httpx.AsyncBaseTransport | None = None,
        owns_transport: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.tokens = tokens
        self.log = log if log is not None else RequestLog()
        self.retry = retry
        self.timeouts = timeouts
        self.transport = transport
        self.owns_transport = owns_transport
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            # the CA bundle takes ~80 ms to load; a plain-HTTP participant (redirects are never followed) has no use
            # for it, and the client is made while the screen is drawn
            verify=self.base_url.startswith("https:"),
            timeout=httpx.Timeout(timeouts.read_s, connect=timeouts.connect_s, pool=timeouts.pool_s),
            limits=httpx.Limits(max_connections=16, max_keepalive_connections=8),
            headers={"Accept": "application/json", "User-Agent": "ledger-tui"},
        )

    async def aclose(self) -> None:
        if self.transport is not None and not self.owns_transport:
            return  # the transport is the connection pool, and another client's
        await self._client.aclose()

    async def headers(self, *, json_body: bool) -> dict[str, str]:
        h = {"Content-Type": "application/json"} if json_body else {}
        if self.tokens is not None:
            h["Authorization"] = f"Bearer {await self.tokens.token()}"
        return h

    async def request(
        self, method: str, path: str, body: Any = None, *, params: dict | None = None, retry: bool = True
    ) -> bytes:
        """Send one request and return the body of its 2xx answer; raise an `errors.LedgerApiError` otherwise.

        `retry` repeats connection failures and 429/502/503/504 answers with backoff, not a timeout: a participant
        that kept silent for the whole bound is reported at once rather than after as many bounds as there are
        tries. A 401 fetches a fresh token and tries once more, whatever `retry` says (the request never reached
        the ledger)."""
        return (await self.request_answer(method, path, body, params=params, retry=retry))[0]

    async def request_answer(
        self, method: str, path: str, body: Any = None, *, params: dict | None = None, retry: bool = True
    ) -> tuple[bytes, httpx.Headers]:
        """`request`, with the answer's headers (a package archive's hash travels in one)."""
        content = None if body is None else encode(body)
        attempt = 0
        refreshed = False
        while True:
            try:
                return await self._once(method, path, content, params)
            except errors.Unauthenticated:
                if refreshed or self.tokens is None:
                    raise
                refreshed = True
                await self.tokens.refresh()
            except errors.LedgerApiError as e:
                timed_out = isinstance(e, errors.RequestTimeout)
                if not (retry and e.retryable) or timed_out or attempt >= self.retry.attempts:
                    raise
                await asyncio.sleep(self.retry.delay(attempt))
                attempt += 1

    async def _once(
        self, method: str, path: str, content: bytes | None, params: dict | None
    ) -> tuple[bytes, httpx.Headers]:
        headers = await self.headers(json_body=content is not None)
        url = self._client.build_request(method, path, params=params).url
        record = self.log.start(method, str(url), path, headers, content or b"")
        try:
            # read through the stream rather than `request`: a response object sits in reference cycles until the
            # collector finds it, and one that had read its body (a snapshot page: a megabyte) kept it that long
            async with self._client.stream(
                method, path, content=content, params=params, headers=headers
            ) as r:
                body = b"".join([part async for part in r.aiter_bytes()])
        except httpx.TimeoutException as e:
            self.log.finish(record, error=f"timed out ({type(e).__name__})")
            connecting = isinstance(e, httpx.ConnectTimeout)
            bound = (
                self.timeouts.connect_s
                if connecting
                else self.timeouts.pool_s
                if isinstance(e, httpx.PoolTimeout)
                else self.timeouts.read_s
            )
            raise errors.RequestTimeout(
                f"{method} {path} got no answer in {bound:g} s ({type(e).__name__})",
                method=method,
                path=path,
                hint=f"Nothing accepts the connection: is the participant running at {self.base_url}?"
                if connecting
                else "The participant accepts connections but does not answer: it may be overloaded or stuck.",
            ) from None
        except httpx.HTTPError as e:
            self.log.finish(record, error=describe_transport_error(e))
            raise errors.TransportError(
                f"{method} {path}: {describe_transport_error(e)}",
                method=method,
                path=path,
                hint=f"Is the participant running at {self.base_url}?",
            ) from None
        except asyncio.CancelledError:
            self.log.finish(record, error="cancelled")
            raise
        self.log.finish(record, status=r.status_code, headers=r.headers, body=body)
        if 200 <= r.status_code < 300:
            return body, r.headers
        if 300 <= r.status_code < 400 and "location" in r.headers:
            # not followed: the request would carry the token to wherever the redirect points
            location = r.headers["location"]
            raise errors.StatusError(
                r.status_code,
                f"{method} {path} is redirected to {location}",
                method=method,
                path=path,
                hint="Give the participant's URL as it redirects (e.g. https://), not this one.",
            )
        raise status_error(r.status_code, r.headers.get("content-type", ""), body, method, path)


def describe_transport_error(e: httpx.HTTPError) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, httpx.ConnectError):
        return f"connection failed ({text})"
    if isinstance(e, httpx.RemoteProtocolError):
        return f"the connection broke ({text})"
    return text


def status_error(status: int, content_type: str, body: bytes, method: str, path: str) -> errors.StatusError:
    """The exception for a non-2xx answer, carrying Canton's error when the body is one."""
    where = f"{method} {path}"
    text = body.decode("utf-8", "replace")
    parsed: Any = None
    if "json" in content_type or text.lstrip().startswith("{"):
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
    if isinstance(parsed, dict) and "code" in parsed and "cause" in parsed:
        try:
            canton = JsCantonError.read(parsed)
        except pydantic.ValidationError:
            canton = None
        if canton is not None:
            cls = errors.status_error_class(status)
            return cls(
                status,
                f"{canton.cause}",
                canton=canton,
                method=method,
                path=path,
                hint=_hint_for(canton, status),
            )
    if status == 404 and isinstance(parsed, dict) and "errors" in parsed:
        return errors.EndpointMissing(
            status, f"{where} is not served by this participant", method=method, path=path, text=text
        )
    cls = errors.status_error_class(status)
    if "text/plain" in content_type and text.strip():
        return cls(
            status,
            text.strip()[:2000],
            text=text,
            method=method,
            path=path,
            hint="The participant could not read the request." if status == 400 else "",
        )
    snippet = " ".join(text.split())[:200] or "(empty body)"
    kind = "HTML page" if "<html" in text[:500].lower() else "body"
    return cls(
        status,
        f"{where} answered {status} with a {kind} that is not a Canton error: {snippet}",
        text=text,
        method=method,
        path=path,
        hint="A proxy or another server may be answering at this URL." if kind == "HTML page" else "",
    )


def _hint_for(canton: JsCantonError, status: int) -> str:
    from app.client.explain import explain

    return explain(canton.code, status)
