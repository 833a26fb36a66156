"""What a screen may ask of the app that shows it: the workspace (what screens share), the connection's status and a
few app-wide actions.

Screens see the app through this protocol rather than importing it: the app builds the screens, so a screen that
imported the app would tie the two into a cycle, and every screen could reach into anything the app holds. Nor do
screens reach into each other: what one screen holds that another needs (the ACS cache, the offset viewed, the
ledger end) is the workspace's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.worker import Worker

    from app.client.errors import LedgerApiError
    from app.client.requests_log import RequestLog
    from app.locations import Locations
    from app.session import Session
    from app.workspace import Workspace


class LedgerHost(Protocol):
    workspace: Workspace
    """What the screens share: the session, read-only, the ledger end, the ACS cache, the packages, what was learned."""

    @property
    def session(self) -> Session:
        """The workspace's connection to the participant and what it said of the user (parties, rights, version)."""
        ...

    request_log: RequestLog
    locations: Locations
    url: str | None
    """The participant's URL (the bundled participant's once it has started)."""
    connected: bool
    status_connection: str
    """connecting, ok or down."""
    connect_problem: str
    """Why the participant refused to connect us (a bad token), said until it accepts; else empty."""
    connect_retry_s: float

    def show_error(self, error: LedgerApiError, context: str = "") -> None: ...

    def worker_failed(self, worker: Worker) -> None:
        """Say what a screen's worker failed with (a notification and a log line)."""
        ...

    def show_ledger_end(self) -> None:
        """Have the contracts screen show the ledger end (after a change made elsewhere, e.g. a move)."""
        ...

    def action_mode(self, mode: str) -> None: ...

    def key_names(self, binding: Binding) -> str:
        """The keys of a binding as the footer shows them, remapped ones included."""
        ...
