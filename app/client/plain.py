"""A plain HTTP client of the participant a `LedgerClient` talks to, for code that speaks the JSON Ledger API itself
(the Daml Script runner's ledger): the same base URL and token source, the token sent with every request."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import httpx

from app.client.http import TokenSource
from app.client.ledger import LedgerClient

SCRIPT_TIMEOUT_S = 120.0  # a submission of a script may interpret for a while

PlainHttp = httpx.AsyncClient  # what `plain_http` makes, named for modules that may not import httpx


class _Bearer(httpx.Auth):
    def __init__(self, tokens: TokenSource) -> None:
        self.tokens = tokens

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        request.headers["Authorization"] = f"Bearer {await self.tokens.token()}"
        response = yield request
        if response.status_code == 401:  # expired meanwhile: once more with a fresh one
            request.headers["Authorization"] = f"Bearer {await self.tokens.refresh()}"
            yield request


def plain_http(client: LedgerClient) -> httpx.AsyncClient:
    """Close it when done."""
    http = client.http
    return httpx.AsyncClient(
        base_url=http.base_url,
        transport=http.transport,
        verify=http.base_url.startswith("https:"),
        auth=_Bearer(http.tokens) if http.tokens is not None else None,
        timeout=httpx.Timeout(SCRIPT_TIMEOUT_S, connect=http.timeouts.connect_s),
        headers={"User-Agent": "ledger-tui"},
    )
