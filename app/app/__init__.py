"""The App: the composition root. It builds the workspace (what screens share), owns the status line's state, and
holds its parts, each an object with its own state: the routes between screens (`routing.Routes`), the connection
(`connection.Connection`), the palette (`palette.Palette`), how failures are said (`failures.Failures`) and the
order keys are handled in (`keys.Keys`). What
Textual looks for on the App class itself (the key bindings and their actions, message handlers, the modes, the
palette's system commands) stays here, each a call to the part it belongs to."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.events import Paste
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.worker import Worker, WorkerState

from app.app.connection import CONNECT_RETRY_POLLS, LEDGER_END_POLL_S, Connection
from app.app.failures import Failures
from app.app.keys import Keys
from app.app.palette import Palette
from app.app.routing import MODES, Routes
from app.bundled import BundledParticipant
from app.client.health import SLOW_AFTER_S, Health
from app.client.requests_log import RequestLog, RequestRecord
from app.config import Config
from app.locations import Locations
from app.messages import ComposeCommand, MoveContract, OpenContract, ShowTemplateContracts
from app.screens.base import LedgerScreen
from app.screens.host import LedgerHost
from app.screens.startup import StartupScreen
from app.trace import milestone
from app.untrusted import visible
from app.widgets.styles_cache import drop_widgets_from_style_cache
from app.widgets.untrusted_text import DropControls, visible_lines
from app.workspace import Workspace, clean_stale_snapshots

if TYPE_CHECKING:  # imported when first needed, after the first frame: the client and its models take a while
    import httpx
    from textual.driver import Driver

    from app.client.http import Timeouts
    from app.session import Identity, Session
    from app.tokens import TokenSource
    from app.workspace.kept import Kept

HEALTH_CHECK_S = 0.5  # how often the status line looks for a request in flight for too long
# keys typed on the start-up screen wait this long at most for the contracts screen
KEYS_WAIT_FOR_CONTRACTS_S = 3.0


class LedgerApp(App):
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

    MODES = MODES

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
    status_stale: reactive[bool] = reactive(False)
    """The rows shown are the last session's (kept for this participant and user), until the participant answers."""

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
        self.bundled = bundled
        self.workspace = Workspace(locations, readonly=readonly)
        # the status line mirrors what the workspace holds
        self.workspace.ledger_end.subscribe(self._ledger_end_moved)
        self.workspace.acs.subscribe(self._viewed_moved)
        # a new user acting, or new rights (switched, read again, changed from the parties screen): every screen hears
        self.workspace.subscribe_identity(self._identity_changed)
        self.label = label or ("bundled" if bundled is not None else (url or ""))
        self.request_log = RequestLog()
        self.request_log.subscribe(self._request_seen)
        self.health = Health(slow_after_s)
        self.routes = Routes(self, connected=lambda: self.connection.connected)
        self.failures = Failures(
            self,
            log_file=locations.log_dir / "ledger-tui.log",
            tokens=lambda: self.connection.tokens_in_use,
        )
        self.connection = Connection(
            self,
            workspace=self.workspace,
            routes=self.routes,
            failures=self.failures,
            request_log=self.request_log,
            on_change=self._connection_changed,
            url=url,
            tokens=tokens,
            bundled=bundled,
            label=self.label,
            first_user=first_user,
            transport=transport,
            timeouts=timeouts,
        )
        self.palette = Palette(self, self.routes)
        kept_user = _kept_user(bundled, tokens, first_user)
        if kept_user is not None:
            self.workspace.keep_rows(f"bundled:{bundled.db}" if bundled is not None else url or "", kept_user)
        self.keys = Keys(self)
        self.status_participant = self.label
        self.status_readonly = self.workspace.readonly
        if config.keys:
            self.set_keymap(config.keys)

    # --- the workspace --------------------------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        """The workspace's session (opened by the first connection attempt, before any screen asks for it)."""
        session = self.workspace.session
        assert session is not None, "the session is opened by the first connection attempt"
        return session

    @property
    def readonly(self) -> bool:
        return self.workspace.readonly

    @property
    def connected(self) -> bool:
        """The connection's `connected`: the participant said who we are."""
        return self.connection.connected

    def validate_status_ledger_end(self, end: int | None) -> int | None:
        # the line shows what the workspace keeps, the one writer of the ledger end (readers report to it, and it
        # tells the line): a value set here by anyone else is not a report and changes nothing
        return self.workspace.ledger_end.value

    def _ledger_end_moved(self, end: int) -> None:
        self.status_ledger_end = end

    def _viewed_moved(self, offset: int | None) -> None:
        self.status_viewed = offset
        self.status_stale = self.workspace.acs.kept is not None

    def _identity_changed(self, identity: Identity) -> None:
        self.status_user = identity.label
        self.routes.announce_identity()

    # --- the status line --------------------------------------------------------------------------------------

    def _connection_changed(self) -> None:
        connection = self.connection
        self.connect_problem = connection.problem
        self.status_connection = connection.state
        if connection.connected:
            self.status_version = self.session.version
            self.status_user = self.session.identity.label

    def _request_seen(self, record: RequestRecord) -> None:
        self.status_in_flight = self.request_log.in_flight
        self.health.seen(record)
        self._show_health()

    def _show_health(self) -> None:
        self.status_health = self.health.state(time.time())
        self.status_health_cause = self.health.cause

    # --- what is drawn ------------------------------------------------------------------------------------------

    _drop_controls = DropControls()

    def get_line_filters(self) -> Sequence[LineFilter]:
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

    async def on_mount(self) -> None:
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        # the first frame is the start-up screen alone, the contracts screen built after it (app.screens.startup):
        # bundled once the participant is ready or the last session's rows are read, by URL right away
        if self.bundled is None:
            mounted = self.push_screen(StartupScreen(url=self.label))
        elif self.bundled.state.phase != "ready":
            mounted = self.push_screen(StartupScreen(self.bundled))
        else:
            mounted = self.switch_mode("contracts")
        if isinstance(self.screen, StartupScreen) and (self.bundled is None or self.workspace.keeps_rows):
            # keys typed on the start-up screen are for the contracts screen that comes right after it (with the
            # kept rows, or by URL): they wait for it, else the start-up screen took them and they were lost
            self.keys.hold(self, bound_s=KEYS_WAIT_FOR_CONTRACTS_S)
        # the screen's widgets mounted, the next refresh draws them: without the wait, it drew the screen still empty
        # (and the contracts screen, by URL, came before the start-up screen was ever seen)
        await mounted
        self.call_after_refresh(self._first_frame_drawn)

    def _first_frame_drawn(self) -> None:
        # connecting imports the client and its models, which holds the loop for a moment: only once the user
        # has something to look at
        milestone("first_frame")
        self.set_interval(HEALTH_CHECK_S, self._show_health)
        clean_stale_snapshots(self.locations.snapshots_dir)
        kept = self.workspace.find_kept()
        if kept is None and self.bundled is not None:
            # the contracts screen comes once the participant is ready: the keys wait no longer
            self.keys.release(self)
            self._start_participant()
            self.connection.start(self.ledger_end_poll_s)
        else:
            self.run_worker(self._show_contracts_then_connect(kept), group="kept", exit_on_error=False)

    def _start_participant(self) -> None:
        """The bundled participant, once: only after the first frame (app.cli), in this thread, the one its
        parent-death signal follows, which lives as long as we do."""
        if self.bundled is not None and not self.bundled.started:
            self.bundled.start()

    async def _show_contracts_then_connect(self, kept: Kept | None) -> None:
        """The rows the last session of this user kept, at once (marked as not current), then the connection that
        brings them up to date: in this order, so that the participant's first answers find them in the cache.
        By URL, the contracts screen in place of the start-up screen also without them."""
        try:
            if kept is not None and await self.workspace.open_kept(kept):
                await self.routes.show_kept()
            elif self.bundled is None:
                await self.routes.leave_startup()
                # drawn before connecting, whose first step (importing the client) holds the loop for a moment
                # (`wait_for_refresh` would do, but asserts on a task that only `run_test` gives the app)
                drawn = asyncio.Event()
                self.call_after_refresh(drawn.set)
                await drawn.wait()
        finally:
            self.keys.release(self)
            # the participant only now, the kept rows drawn: its start (an interpreter importing the server and the
            # interpreter of Daml) took the CPU the rows were read and drawn with, on a busy machine most of it
            self._start_participant()
            self.connection.start(self.ledger_end_poll_s)

    # --- what Textual looks for on the App: each a call to the part it belongs to ---------------------------------

    async def action_mode(self, mode: str) -> None:
        await self.routes.go_once_mounted(mode)

    def action_help(self) -> None:
        self.routes.help()

    async def action_quit(self) -> None:
        await self.routes.quit()

    def action_open_contract(self) -> None:
        self.routes.ask_contract_to_open()

    def action_switch_user(self) -> None:
        self.connection.switch_user()

    def action_command_palette(self) -> None:
        self.palette.open()

    @on(OpenContract)
    def _open_contract(self, message: OpenContract) -> None:
        self.routes.open_contract(message)

    @on(ComposeCommand)
    async def _compose(self, message: ComposeCommand) -> None:
        await self.routes.compose(message)

    @on(ShowTemplateContracts)
    async def _show_template_contracts(self, message: ShowTemplateContracts) -> None:
        await self.routes.show_template_contracts(message)

    @on(MoveContract)
    async def _move_contract(self, message: MoveContract) -> None:
        await self.routes.move_contract(message)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):  # handled in the order typed (app.app.keys)
            await self.keys.handle(event, super().on_event)
            return
        await super().on_event(event)

    def on_paste(self, event: Paste) -> None:
        self.routes.pasted(event.text)

    def switch_mode(self, mode: str) -> AwaitMount:
        left = self.current_mode
        mounted = super().switch_mode(mode)
        if left != mode:
            self.palette.mode_left(left)
        return mounted

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from self.palette.commands(self.BINDINGS)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.failures.worker_failed(event.worker)


def _kept_user(bundled: BundledParticipant | None, tokens: TokenSource | None, first_user: str) -> str | None:
    """The user whose contracts are kept from one session to the next: one known before connecting, whose tokens
    are minted here (the bundled participant's, or with the participant's secret); with a token from elsewhere,
    only the participant can say whose it is, and no contracts are kept."""
    if bundled is not None:
        return first_user
    if tokens is None:
        return None
    from app.tokens import MintedToken  # loaded already: the tokens are one of its sources

    return tokens.user if isinstance(tokens, MintedToken) else None


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


if TYPE_CHECKING:

    def _is_a_host(app: LedgerApp) -> LedgerHost:
        return app  # the screens' view of the app: mypy checks that the app offers all of it


__all__ = ["CONNECT_RETRY_POLLS", "LedgerApp", "LedgerScreen"]
