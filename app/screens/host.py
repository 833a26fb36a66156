"""What a screen may ask of the app that shows it: the session, the shared status and a few app-wide actions.

Screens see the app through this protocol rather than importing it: the app builds the screens, so a screen that
imported the app would tie the two into a cycle, and every screen could reach into anything the app holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.worker import Worker

    from app.client.errors import LedgerApiError
    from app.client.requests_log import RequestLog
    from app.locations import Locations
    from app.session import Session
    from app.snapshot import Snapshot


class ContractsView(Protocol):
    """What other screens consult of the contracts screen: its local copy of the ACS and the offset it shows."""

    snapshot: Snapshot | None
    offset: int | None

    def action_ledger_end(self) -> None:
        """Show the ledger end (after a change made elsewhere, e.g. a move)."""
        ...


class LedgerHost(Protocol):
    session: Session
    """The connection to the participant and what it said of the user (parties, rights, version)."""
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
    status_ledger_end: int | None
    """The ledger end last read, shown in the status line."""
    status_viewed: int | None
    """The offset the contracts screen shows, shown in the status line."""

    def show_error(self, error: LedgerApiError, context: str = "") -> None: ...

    def worker_failed(self, worker: Worker) -> None:
        """Say what a screen's worker failed with (a notification and a log line)."""
        ...

    def contracts_screen(self) -> ContractsView | None: ...

    def action_mode(self, mode: str) -> None: ...
