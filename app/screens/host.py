"""What a screen may ask of the app that shows it: the workspace (what screens share), and the faces of the app's
parts: its connection's state, how failures are said, the routes to other screens, key names, and the keys' hold.

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
    from app.widgets.key_hold import KeyHold
    from app.workspace import Workspace


class ConnectionFace(Protocol):
    """The app's connection to the participant, as screens see it."""

    @property
    def connected(self) -> bool:
        """The participant said who we are (the session's identity and version are read)."""
        ...

    @property
    def url(self) -> str | None:
        """The participant's URL (the bundled participant's once it has started)."""
        ...

    @property
    def state(self) -> str:
        """connecting, ok or down: how the participant answers now (the status line shows it too)."""
        ...

    @property
    def problem(self) -> str:
        """Why the participant refuses our token (what happened and what to do), until it accepts one; else empty."""
        ...

    @property
    def retry_s(self) -> float:
        """How often a connection that failed is tried again."""
        ...


class FailuresFace(Protocol):
    """How the app says what failed."""

    def show_error(self, error: LedgerApiError, context: str = "") -> None:
        """A client error as a notification (Canton's error id, category and cause), after `context`."""
        ...

    def worker_failed(self, worker: Worker) -> None:
        """Say what a screen's worker failed with (a notification and a log line)."""
        ...


class RoutesFace(Protocol):
    """The way from one screen to another."""

    def go(self, mode: str) -> None:
        """That mode's own screen (what its number key does)."""
        ...


class PaletteFace(Protocol):
    def key_names(self, binding: Binding) -> str:
        """The keys of a binding as the footer shows them ("[", "^s"), remapped ones included."""
        ...


class LedgerHost(Protocol):
    workspace: Workspace
    """What the screens share: the session, read-only, the ledger end, the ACS cache, the packages, what was learned."""

    @property
    def session(self) -> Session:
        """The workspace's connection to the participant and what it said of the user (parties, rights, version)."""
        ...

    request_log: RequestLog
    locations: Locations

    @property
    def connection(self) -> ConnectionFace: ...

    @property
    def failures(self) -> FailuresFace: ...

    @property
    def routes(self) -> RoutesFace: ...

    @property
    def palette(self) -> PaletteFace: ...

    @property
    def keys(self) -> KeyHold:
        """The keys' hold: work that completes after its key makes the keys typed meanwhile wait for it."""
        ...
