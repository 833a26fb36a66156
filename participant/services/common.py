"""What the services share: the list limits of an answer, and the pages of the admin listings."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from participant.base import errors
from participant.base.errors import BadRequestBody

# How long a list form of an open-ended stream (completions, updates without an end) waits for one more element
# when the request gives no `stream_idle_timeout_ms`: Canton's `http-list-wait-time`.
LIST_WAIT_S = 0.5


@dataclass(frozen=True)
class ListLimit:
    """How many elements a list answer may hold: the node's limit (`--max-list-elements`) and the client's
    `limit` query parameter. A client limit at or under the node's truncates silently; more than the node's
    limit is refused with 413, as Canton does (it collects at most limit + 1 to know)."""

    node: int
    client: int | None

    @property
    def take(self) -> int:
        """How many elements to collect at most."""
        return self.node + 1 if self.client is None else min(self.client, self.node + 1)

    def check(self, count: int) -> None:
        if count > self.node:
            raise errors.JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED(
                f"The number of matching elements ({count}) is greater than the node limit ({self.node})."
            )


def parse_int(raw: str | None, where: str) -> int | None:
    """An integer parameter as sent (None when absent), refused as Canton's 400 answers do."""
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadRequestBody(f"Cannot parse integer value '{raw}'", where=where) from None


@dataclass(frozen=True)
class PageQuery:
    """`pageSize` and `pageToken` of an admin listing, as sent."""

    size: str | None
    token: str

    def page(self, max_size: int) -> tuple[int, str]:
        """(page size, the key the page starts after)."""
        size = parse_int(self.size, "query parameter pageSize") or max_size
        if size < 0:
            raise errors.INVALID_ARGUMENT(f"Page size must be non-negative, got {size}")
        token = self.token
        try:
            after = base64.urlsafe_b64decode(token.encode()).decode() if token else ""
        except ValueError:
            raise errors.INVALID_ARGUMENT(f"Invalid page token {token!r}") from None
        return min(size, max_size), after


def next_page_token(last_key: str | None) -> str:
    """The token of the page after the one ending at `last_key` ("" when there is none)."""
    return "" if last_key is None else base64.urlsafe_b64encode(last_key.encode()).decode()
