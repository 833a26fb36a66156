"""What the services share: the list limits of an answer."""

from __future__ import annotations

from dataclasses import dataclass

from participant import errors


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
                f"The number of matching elements ({count}) is greater than the node limit ({self.node}).")
