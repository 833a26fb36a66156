"""The App: the composition root. It builds the workspace (what screens share), owns the status line's state, and
is made of its parts: routing between screens (`routing`), the connection (`connection`), the palette
(`palette`) and how failures are said (`failures`)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import reactive

from app.app.connection import CONNECT_RETRY_POLLS, HEALTH_CHECK_S, LEDGER_END_POLL_S, Connection
from app.app.palette import Palette
from app.app.routing import Routing
from app.bundled import BundledParticipant
from app.client.health import SLOW_AFTER_S, Health
from app.client.requests_log import RequestLog
from app.config import Config
from app.locations import Locations
from app.screens.base import LedgerScreen
from app.screens.startup import StartupScreen
from app.trace import milestone
from app.untrusted import visible
from app.widgets.styles_cache import drop_widgets_from_style_cache
from app.widgets.untrusted_text import DropControls, visible_lines
from app.workspace import DirectoryChange, Workspace, clean_stale_snapshots

if TYPE_CHECKING:  # imported when first needed, after the first frame: the client and its models take a while
    import httpx
    from textual.driver import Driver

    from app.client.http import Timeouts
    from app.session import Session
    from app.tokens import TokenSource


class LedgerApp(Routing, Connection, Palette):
    CSS_PATH = Path(__file__).parent.with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "ledger-tui"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("1", "mode('contracts')", "Contracts", id="app.contracts", show=False),
        Binding("2", "mode('compose')", "Compose", id="app.compose", show=False),
        Binding("3", "mode('requests')", "Requests", id="app.requests", show=False),
        Binding("4", "mode('reassign')", "Reassign", id="app.reassign", show=False),
        Binding("5", "mode('packages')", "Packages", id="app.packages", show=False),
        Binding("6", "mode('transactions')", "Transactions", id="app.transactions", show=False),
        Binding("7", "mode('parties')", "Parties & users", id="app.parties", show=False),
        # priority: from within a field too, but those whose text may hold `?` (app.widgets.keys); F1 from any
        Binding("question_mark", "help", "More keys", id="app.help", key_display="?", priority=True),
        Binding("f1", "help", id="app.help_anywhere", show=False, priority=True),
        Binding("U", "switch_user", "User", id="app.user", key_display="U"),
        Binding("ctrl+o", "open_contract", "Open id", id="app.open", show=False),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    ledger_end_poll_s = LEDGER_END_POLL_S

    status_participant: reactive[str] = reactive("")
    status_version: reactive[str] = reactive("")
    status_user: reactive[str] = reactive("")
    status_ledger_end: reactive[int | None] = reactive(None)
    status_viewed: reactive[int | None] = reactive(None)
    status_in_flight: reactive[int] = reactive(0)
    status_connection: reactive[str] = reactive("connecting")
    status_health: reactive[str] = reactive("ok")  # ok, slow, failing: how the participant answers lately
    status_health_cause: reactive[str] = reactive("")
    connect_problem: reactive[str] = reactive("")
    """Why the participant refuses our token (what happened and what to do), until it accepts it."""
    status_readonly: reactive[bool] = reactive(False)

    def __init__(
        self,
        *,
        config: Config,
        locations: Locations,
        url: str | None = None,
        tokens: TokenSource | None = None,
        bundled: BundledParticipant | None = None,
        readonly: bool = False,
        label: str = "",
        first_user: str = "Alice",
        transport: httpx.AsyncBaseTransport | None = None,
        timeouts: Timeouts | None = None,
        slow_after_s: float = SLOW_AFTER_S,
    ) -> None:
        super().__init__()
        drop_widgets_from_style_cache()  # else the last 1,024 widgets drawn outlive their screens (its docstring)
        self.config = config
        self.locations = locations
        self.url = url
        self.tokens = tokens
        self.bundled = bundled
        self.workspace = Workspace(locations, readonly=readonly)
        # the status line mirrors what the workspace holds
        self.workspace.ledger_end.subscribe(self._ledger_end_moved)
        self.workspace.acs.subscribe(self._viewed_moved)
        # a change to the acting user's rights (from the parties screen) reaches every screen as a new identity
        self.workspace.directory.subscribe(self._directory_changed)
        self.first_user = first_user
        self.transport = transport  # tests: a stand-in participant in process
        self.timeouts = timeouts  # None: the client's defaults
        self.label = label or ("bundled" if bundled is not None else (url or ""))
        self.request_log = RequestLog()
        self.request_log.subscribe(self._request_seen)
        self.health = Health(slow_after_s)
        # the participant's 5xx answers were notified (once, until it answers again)
        self._failing_said = False
        self.connected = False
        self._connect_attempts = 0
        # the last failure to connect, and when it was shown: retries that fail the same way say it again only once
        # its notification is gone
        self._connect_error_shown: tuple[str, float] | None = None
        self.status_participant = self.label
        self.status_readonly = self.workspace.readonly
        if config.keys:
            self.set_keymap(config.keys)

    # --- the workspace --------------------------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        """The workspace's session; None until the first connection attempt opens one."""
        return self.workspace.session  # type: ignore[return-value]

    @property
    def readonly(self) -> bool:
        return self.workspace.readonly

    def validate_status_ledger_end(self, end: int | None) -> int | None:
        # the line shows what the workspace keeps, the one writer of the ledger end (readers report to it, and it
        # tells the line): a value set here by anyone else is not a report and changes nothing
        return self.workspace.ledger_end.value

    def _ledger_end_moved(self, end: int) -> None:
        self.status_ledger_end = end
        self._recheck_rights()

    def _viewed_moved(self, offset: int | None) -> None:
        self.status_viewed = offset

    def _directory_changed(self, change: DirectoryChange) -> None:
        if change.identity:
            self.status_user = self.session.identity.label
            self._announce_identity()

    # --- what is drawn ------------------------------------------------------------------------------------------

    _drop_controls = DropControls()

    def get_line_filters(self):
        return [*super().get_line_filters(), self._drop_controls]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification is plain text, whatever `markup` says (widgets pass True by default): its message
        often quotes a participant or what a person typed, so it is never read as markup and its control
        characters are written out (its line breaks stay)."""
        super().notify(
            visible_lines(message), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    def get_driver_class(self) -> type[Driver]:
        # Textual's own driver, but one that quits without waiting out its input thread's poll (app.terminal)
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            from app.terminal import PromptExitDriver

            return PromptExitDriver
        return driver

    # --- start --------------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        if self.bundled is not None and self.bundled.state.phase != "ready":
            # the startup screen alone, the contracts screen built once the participant is ready: built under it,
            # the contracts screen made the first frame cost four times as much (Textual rebuilds every footer as
            # screens come and go)
            self.push_screen(StartupScreen(self.bundled))
        else:
            self.switch_mode("contracts")
        self.call_after_refresh(self._first_frame_drawn)

    def _first_frame_drawn(self) -> None:
        # connecting imports the client and its models, which holds the loop for a moment: only once the user
        # has something to look at
        milestone("first_frame")
        self._connect()
        self.set_interval(self.ledger_end_poll_s, self._poll_ledger_end)
        self.set_interval(HEALTH_CHECK_S, self._show_health)
        clean_stale_snapshots(self.locations.snapshots_dir)


def settle_the_collector() -> None:
    """Tune the garbage collector for a long-running screen, once the app is built (before `run`).

    What exists by then (modules, classes) lives as long as the process: frozen out of the collector's way, a full
    collection takes about 25 ms instead of 110 ms. And drawing makes cyclic garbage at a high rate (each of
    Textual's strips holds caches that refer back to it): with the default thresholds the collector ran dozens of
    times a second while a large snapshot was read, for pauses of up to 70 ms; collecting young objects every
    20,000 allocations instead of 700 kept every pause under 45 ms and read the snapshot 40% faster (measured with
    `python -m bench.tui_acs --contracts 100000`)."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)


__all__ = ["CONNECT_RETRY_POLLS", "LedgerApp", "LedgerScreen"]
