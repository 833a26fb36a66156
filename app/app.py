"""The App: connects (starting the bundled participant if that is the choice), owns the status line's state, routes
messages between screens, and turns every failure into a notification, never a traceback."""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import Iterable
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from app.bundled import BundledParticipant
from app.client import errors
from app.client.errors import LedgerApiError, category_words
from app.client.health import SLOW_AFTER_S, Health
from app.client.requests_log import RequestLog
from app.config import Config
from app.daml import looks_like_contract_id
from app.locations import Locations
from app.messages import ComposeCommand, IdentityChanged, MoveContract, OpenContract, ShowTemplateContracts
from app.screens.acs import AcsScreen
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog
from app.screens.startup import StartupScreen
from app.trace import milestone
from app.untrusted import visible
from app.widgets.untrusted_text import DropControls, visible_lines

if TYPE_CHECKING:  # imported when first needed, after the first frame: the client and its models take a while
    import httpx
    from textual.driver import Driver

    from app.client.http import Timeouts
    from app.refusal import Refusal
    from app.session import Session
    from app.tokens import TokenSource

log = logging.getLogger("ledger_tui")

LEDGER_END_POLL_S = 2.0
ERROR_NOTIFY_S = 12  # how long an error's notification stays
CONNECT_RETRY_POLLS = 2  # after a failed connection, try again every this many polls
HEALTH_CHECK_S = 0.5  # how often the status line looks for a request in flight for too long


def _composer():
    from app.screens.composer import ComposerScreen

    return ComposerScreen()


def _requests():
    from app.screens.requests import RequestsScreen

    return RequestsScreen()


def _reassign():
    from app.screens.reassign import ReassignScreen

    return ReassignScreen()


def _packages():
    from app.screens.packages import PackagesScreen

    return PackagesScreen()


class LedgerApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "ledger-tui"
    ENABLE_COMMAND_PALETTE = True

    MODES = {
        "contracts": AcsScreen,
        "compose": _composer,
        "requests": _requests,
        "reassign": _reassign,
        "packages": _packages,
    }
    MODE_TITLES = {
        "contracts": "Contracts",
        "compose": "Compose",
        "requests": "Requests",
        "reassign": "Reassign",
        "packages": "Packages",
    }

    BINDINGS = [
        Binding("1", "mode('contracts')", "Contracts", id="app.contracts", show=False),
        Binding("2", "mode('compose')", "Compose", id="app.compose", show=False),
        Binding("3", "mode('requests')", "Requests", id="app.requests", show=False),
        Binding("4", "mode('reassign')", "Reassign", id="app.reassign", show=False),
        Binding("5", "mode('packages')", "Packages", id="app.packages", show=False),
        # priority: from within a field too, but those whose text may hold `?` (app.widgets.keys); F1 from any
        Binding("question_mark", "help", "More keys", id="app.help", key_display="?", priority=True),
        Binding("f1", "help", id="app.help_anywhere", show=False, priority=True),
        Binding("ctrl+u", "switch_user", "User", id="app.user"),
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
        self.config = config
        self.locations = locations
        self.url = url
        self.tokens = tokens
        self.bundled = bundled
        self.readonly = readonly
        self.first_user = first_user
        self.transport = transport  # tests: a stand-in participant in process
        self.timeouts = timeouts  # None: the client's defaults
        self.label = label or ("bundled" if bundled is not None else (url or ""))
        self.request_log = RequestLog()
        self.request_log.subscribe(self._request_seen)
        self.health = Health(slow_after_s)
        # the participant's 5xx answers were notified (once, until it answers again)
        self._failing_said = False
        self.session: Session = None  # type: ignore[assignment]  # set once connected
        self.connected = False
        self._snapshot_ids = count(1)
        self._connect_attempts = 0
        # the last failure to connect, and when it was shown: retries that fail the same way say it again only once
        # its notification is gone
        self._connect_error_shown: tuple[str, float] | None = None
        self.status_participant = self.label
        self.status_readonly = readonly
        if config.keys:
            self.set_keymap(config.keys)

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
        _clean_stale_snapshots(self.locations.snapshots_dir)

    @work(exclusive=True, group="connect", exit_on_error=False)
    async def _connect(self) -> None:
        from app.client.ledger import LedgerClient
        from app.session import BUNDLED_ADMIN, Session
        from app.tokens import MintedToken

        if self.bundled is not None:
            state = await self._bundled_ready()
            if state.phase != "ready":
                self.status_connection = "down"
                self.notify(
                    state.error, title="The bundled participant did not start", severity="error", timeout=30
                )
                return
            self.url = state.url
            minted = MintedToken(self.bundled.secret(), BUNDLED_ADMIN)
            first_user = self.first_user
            self.tokens = minted.for_user(first_user)
            client = LedgerClient(self.url, self.tokens, log=self.request_log, **self._client_options())
            self.session = Session(
                client,
                label="bundled",
                readonly=self.readonly,
                bundled=self.bundled,
                minted=minted.for_user(first_user),
            )
        else:
            assert self.url is not None
            client = LedgerClient(
                self.url,
                self.tokens,
                log=self.request_log,
                transport=self.transport,
                **self._client_options(),
            )
            minted = self.tokens if isinstance(self.tokens, MintedToken) else None
            self.session = Session(client, label=self.label, readonly=self.readonly, minted=minted)
        try:
            await self.session.connect()
        except LedgerApiError as e:
            refusal = self.refusal_of(e)
            # a refused token is not a connection failure: the participant answered, and said no
            context = "" if refusal is not None else f"Cannot connect to {self.url}"
            self.connect_problem = refusal.text if refusal is not None else ""
            self.status_connection = "down"
            text, now = self.failure_text(e, context), time.monotonic()
            shown = self._connect_error_shown
            if shown is None or shown[0] != text or now - shown[1] >= ERROR_NOTIFY_S:
                self._connect_error_shown = (text, now)
                self.show_error(e, context)
            if self.bundled is not None and refusal is not None:
                await self._fall_back_to_admin()
                if self.session.identity.user_id is not None:
                    refusal = None
            if refusal is not None or not self.session.version:
                return
        self._connect_error_shown = None
        self.connect_problem = ""
        if self._connect_attempts:
            self.notify(f"Connected to {self.url}.", title="Connected", timeout=4)
        self.connected = True
        self.status_connection = "ok"
        self.status_version = self.session.version
        self.status_user = self.session.identity.label
        self._announce_identity()

    async def _fall_back_to_admin(self) -> None:
        from app.session import BUNDLED_ADMIN

        try:
            await self.session.switch_user(BUNDLED_ADMIN)
        except LedgerApiError:
            pass

    async def _bundled_ready(self):
        assert self.bundled is not None
        if self.bundled.state.phase not in ("ready", "failed"):
            worker = self.run_worker(
                self.bundled.wait, thread=True, group="bundled-wait", exit_on_error=False
            )
            await worker.wait()
        # also when it got ready between on_mount, which showed the startup screen, and this worker's start
        if isinstance(self.screen, StartupScreen):
            await self.switch_mode("contracts")
        return self.bundled.state

    def _announce_identity(self) -> None:
        for screen in self._mode_screens():
            screen.post_message(IdentityChanged())

    def _mode_screens(self) -> Iterable[Screen]:
        for mode in self.MODES:
            stack = self._screen_stacks.get(mode) or []
            yield from stack

    def snapshot_path(self) -> Path:
        return self.locations.snapshots_dir / f"{os.getpid()}-{next(self._snapshot_ids)}.db"

    # --- status ---------------------------------------------------------------------------------------------------

    def _client_options(self) -> dict:
        return {} if self.timeouts is None else {"timeouts": self.timeouts}

    def _request_seen(self, record) -> None:
        self.status_in_flight = self.request_log.in_flight
        self.health.seen(record)
        self._show_health()

    def _show_health(self) -> None:
        self.status_health = self.health.state(time.time())
        self.status_health_cause = self.health.cause

    @work(exclusive=True, group="poll", exit_on_error=False)
    async def _poll_ledger_end(self) -> None:
        if not self.connected:
            self._retry_connect()
            return
        try:
            end = await self.session.client.ledger_end()
        except errors.TransportError as e:
            if self.status_connection != "down":
                self.status_connection = "down"
                self._explain_down(e)
            return
        except (errors.Unauthenticated, errors.PermissionDenied) as e:
            refusal = self.refusal_of(e)  # e.g. the token expired while the app ran
            if refusal is not None and self.connect_problem != refusal.text:
                self.connect_problem = refusal.text
                self.show_error(e)
            return
        except errors.ServerError as e:
            if not self._failing_said:
                self._failing_said = True
                self.show_error(e, "The participant is failing; the status line shows when it answers again")
            return
        except LedgerApiError:
            return
        if self.status_connection == "down" or self._failing_said or self.connect_problem:
            self.notify("The participant answers again.", title="Reconnected", timeout=4)
        self._failing_said = False
        self.connect_problem = ""
        self.status_connection = "ok"
        self.status_ledger_end = end

    @property
    def connect_retry_s(self) -> float:
        return self.ledger_end_poll_s * CONNECT_RETRY_POLLS

    def _retry_connect(self) -> None:
        """After a failed connection, try again every few polls: the participant may come up."""
        if self.status_connection != "down" or any(
            w.group == "connect" and not w.is_finished for w in self.workers
        ):
            return
        self._connect_attempts += 1
        if self._connect_attempts % CONNECT_RETRY_POLLS == 0:
            self._connect()

    def _explain_down(self, e: LedgerApiError) -> None:
        bundled = self.bundled
        if bundled is not None and (
            not bundled.alive if bundled.owned else bundled.running_elsewhere() is None
        ):
            if bundled.owned:
                code = bundled.process.returncode if bundled.process else None
                what = f"The bundled participant stopped{'' if code is None else f' (exit code {code})'}."
            else:
                what = (
                    "The ledger-tui that ran the bundled participant has quit, and the participant with it."
                )
            self.notify(
                f"{what} Starting it again… (its log: {self.locations.log_dir / 'participant.log'})",
                title="Bundled participant stopped",
                severity="warning",
                timeout=10,
            )
            self._restart_bundled()
        else:
            self.show_error(e, "The participant stopped answering; retrying every few seconds")

    @work(exclusive=True, group="restart", exit_on_error=False)
    async def _restart_bundled(self) -> None:
        assert self.bundled is not None
        self.bundled.start()  # in the main thread: the child's parent-death signal follows this thread
        state = await self._bundled_ready()
        if state.phase != "ready":
            self.notify(state.error, title="Restart failed", severity="error", timeout=30)
            return
        from app.client.ledger import LedgerClient

        self.url = state.url
        old = self.session.client
        client = LedgerClient(state.url, old.tokens, log=self.request_log, **self._client_options())
        self.session.client = client
        await old.aclose()
        self.status_connection = "ok"
        self._announce_identity()

    # --- errors ---------------------------------------------------------------------------------------------------

    def show_error(self, error: LedgerApiError, context: str = "") -> None:
        """A failure as a notification: Canton's error id, category and cause, and what to do (the participant's
        words shown as text, never read as markup); a refused token as what happened to it."""
        refusal = self.refusal_of(error)
        log.warning(
            "%s: %s %s",
            context or (refusal.title if refusal is not None else "request failed"),
            type(error).__name__,
            refusal.what if refusal is not None else error.message,
        )
        self.notify(
            _shown(self.failure_text(error, context, refusal)),
            title=visible(refusal.title if refusal is not None else error.title),
            severity="error",
            timeout=ERROR_NOTIFY_S,
            markup=False,
        )

    def refusal_of(self, error: LedgerApiError) -> Refusal | None:
        """`error` as a refusal of our token (expired, refused, unknown user), None for any other failure."""
        from app.refusal import refusal_of

        session = self.session
        return refusal_of(error, session.client.tokens if session is not None else self.tokens)

    def failure_text(self, error: LedgerApiError, context: str = "", refusal: Refusal | None = None) -> str:
        refusal = refusal or self.refusal_of(error)
        if refusal is None:
            return self.error_text(error, context)
        return "\n".join(line for line in (context, refusal.what, refusal.todo) if line)

    @staticmethod
    def error_text(error: LedgerApiError, context: str = "") -> str:
        lines = []
        if context:
            lines.append(context)
        if isinstance(error, errors.StatusError) and error.canton is not None:
            canton = error.canton
            words = category_words(canton.error_category)
            lines.append(
                f"{canton.code}" + (f" · category {canton.error_category} ({words})" if words else "")
            )
            lines.append(canton.cause)
        else:
            lines.append(error.message)
        if error.hint:
            lines.append(error.hint)
        return "\n".join(lines)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """What a worker raised (of the app, a screen or a widget: their `Worker.StateChanged` does not bubble, so
        each passes it here): a client error as such, anything else as an internal error whose traceback goes to
        the log file and whose one-line cause goes to the screen."""
        error = worker.error
        if isinstance(error, LedgerApiError):
            self.show_error(error)
            return
        log.error("internal error in %s: %s", worker.name, _cause(error), exc_info=error)
        self.notify(
            f"{visible(_cause(error))}\nDetails are in {self.locations.log_dir / 'ledger-tui.log'}",
            title="Internal error",
            severity="error",
            timeout=ERROR_NOTIFY_S,
            markup=False,
        )

    # --- navigation -----------------------------------------------------------------------------------------------

    async def _show_mode(self, mode: str) -> None:
        """A mode's own screen, above whatever was opened on top of it (an inspector opened there)."""
        if self.current_mode != mode:
            await self.switch_mode(mode)
        while len(self.screen_stack) > 1:
            await self.pop_screen()

    def contracts_screen(self) -> AcsScreen | None:
        """The contracts screen (whose cache other screens consult), once it exists."""
        for screen in self._screen_stacks.get("contracts", []):
            if isinstance(screen, AcsScreen):
                return screen
        return None

    def action_mode(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)

    def action_help(self) -> None:
        from app.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        """Quit, after asking when a screen holds work that quitting would lose (an unsent command)."""
        unsent = [
            text
            for screen in self._mode_screens()
            if isinstance(screen, LedgerScreen) and (text := screen.unsent())
        ]
        if not unsent:
            self.exit()
            return
        self._confirm_quit(unsent)

    @work(exclusive=True, group="quit", exit_on_error=False)
    async def _confirm_quit(self, unsent: list[str]) -> None:
        quit_anyway = await self.push_screen_wait(
            ChoiceDialog(
                "Quit and lose the unsent command?",
                [("Stay", False), ("Quit and lose it", True)],
                selected=False,
                hint="\n".join(unsent),
            )
        )
        if quit_anyway:
            self.exit()

    @on(OpenContract)
    def _open_contract(self, message: OpenContract) -> None:
        from app.screens.inspector import InspectorScreen

        if not self.connected:
            return
        self.push_screen(InspectorScreen(message.contract_id))

    @on(ComposeCommand)
    async def _compose(self, message: ComposeCommand) -> None:
        if not self.connected:
            return
        await self._show_mode("compose")
        screen = self.screen
        prefill = getattr(screen, "prefill", None)
        if prefill is not None:
            prefill(message)

    @on(ShowTemplateContracts)
    async def _show_template_contracts(self, message: ShowTemplateContracts) -> None:
        if not self.connected:
            return
        await self._show_mode("contracts")
        screen = self.contracts_screen()
        if screen is not None:
            screen.show_templates(frozenset({message.template_id}))

    @on(MoveContract)
    async def _move_contract(self, message: MoveContract) -> None:
        if not self.connected:
            return
        await self._show_mode("reassign")
        choose = getattr(self.screen, "choose", None)
        if choose is not None:
            choose(message.contract_id)

    def action_open_contract(self) -> None:
        from app.screens.id_help import ask_contract_to_open

        ask_contract_to_open(self)

    def on_paste(self, event) -> None:
        text = event.text.strip()
        if looks_like_contract_id(text) and self.connected:
            self.post_message(OpenContract(text))

    @work(exclusive=True, group="user", exit_on_error=False)
    async def action_switch_user(self) -> None:
        if not self.connected:
            return
        session = self.session
        if not session.can_switch_user:
            identity = session.identity
            self.notify(
                f"Acting as {identity.label} (the token decides). To act as someone else, start ledger-tui "
                "with another token or profile.",
                title="User",
                timeout=8,
            )
            return
        users = await session.users()
        current = session.identity.user_id
        choice = await self.push_screen_wait(
            ChoiceDialog(
                "Act as user",
                [(u + ("   (current)" if u == current else ""), u) for u in users],
                selected=current,
                hint="The bundled participant's tokens are minted here for the user you pick.",
            )
        )
        if choice is None or choice == current:
            return
        await session.switch_user(choice)
        self.status_user = session.identity.label
        self.notify(f"Acting as {choice} now.", timeout=3)
        self._announce_identity()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, factory in self.MODES.items():
            title = self.MODE_TITLES[mode]
            cls = factory if isinstance(factory, type) else None
            bindings = getattr(cls, "BINDINGS", []) if cls else _bindings_of(mode)
            yield SystemCommand(
                f"{title}: open",
                f"Go to the {title.lower()} screen · key {list(self.MODES).index(mode) + 1}",
                lambda mode=mode: self.action_mode(mode),
            )
            for binding in bindings:
                if not isinstance(binding, Binding) or not binding.description or binding.action == "escape":
                    continue
                yield SystemCommand(
                    f"{title}: {binding.description}",
                    f"key {self.key_names(binding)}",
                    lambda mode=mode, action=binding.action: self._run_in_mode(mode, action),
                )
        for binding in self.BINDINGS:
            # the screens' keys (1 to 5) are the "open" entries above
            if (
                isinstance(binding, Binding)
                and binding.description
                and not binding.action.startswith("mode(")
            ):
                yield SystemCommand(
                    binding.description,
                    f"key {self.key_names(binding)}",
                    lambda action=binding.action: self.run_action(action),
                )

    def key_names(self, binding: Binding) -> str:
        """The keys of a binding as the footer shows them ("[", "^s"), remapped ones included."""
        remapped = self._keymap.get(binding.id) if binding.id else None
        if binding.key_display and not remapped:
            return binding.key_display
        keys = (remapped or binding.key).split(",")
        return " ".join(self.get_key_display(Binding(key.strip(), binding.action)) for key in keys)

    @work(group="palette", exit_on_error=False)
    async def _run_in_mode(self, mode: str, action: str) -> None:
        if self.current_mode != mode:
            await self.switch_mode(mode)
        await self.screen.run_action(action)


def _shown(text: str) -> str:
    """Text for a notification, each line's control characters written as visible escapes."""
    return "\n".join(visible(line) for line in text.split("\n"))


def _cause(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


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


def _bindings_of(mode: str) -> list:
    if mode == "compose":
        from app.screens.composer import ComposerScreen

        return ComposerScreen.BINDINGS
    if mode == "requests":
        from app.screens.requests import RequestsScreen

        return RequestsScreen.BINDINGS
    if mode == "reassign":
        from app.screens.reassign import ReassignScreen

        return ReassignScreen.BINDINGS
    if mode == "packages":
        from app.screens.packages import PackagesScreen

        return PackagesScreen.BINDINGS
    return []


def _clean_stale_snapshots(directory: Path) -> None:
    """Snapshot files of ledger-tui processes that no longer run (killed before they could delete them)."""
    if not directory.is_dir():
        return
    for path in directory.glob("*.db"):
        pid = path.name.split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            for suffix in ("", "-journal"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = ["LedgerApp", "LedgerScreen"]
