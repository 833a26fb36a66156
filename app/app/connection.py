"""Connecting to the participant (starting the bundled one first when that is the choice), following its ledger
end, trying again while it is down, restarting the bundled participant when it stops, re-reading the user's rights,
and switching the user the bundled participant's tokens are minted for."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual.app import App
from textual.worker import Worker

from app.app.failures import ERROR_NOTIFY_S, Failures
from app.app.routing import Routes
from app.client import errors
from app.client.errors import LedgerApiError
from app.trace import milestone

if TYPE_CHECKING:  # imported when first needed, after the first frame: the client and its models take a while
    import httpx

    from app.bundled import BundledParticipant, StartupState
    from app.client.http import Timeouts
    from app.client.requests_log import RequestLog, RequestRecord
    from app.session import Session
    from app.tokens import TokenSource
    from app.workspace import Workspace

log = logging.getLogger("ledger_tui")

LEDGER_END_POLL_S = 2.0
CONNECT_RETRY_POLLS = 2  # after a failed connection, try again every this many polls
# The user's rights are read at connecting, after a change made from this client (the parties screen reads them
# itself), after a request refused for a lack of rights (403, PERMISSION_DENIED), and at this slow pace besides: the
# Ledger API tells no one of a change to rights, and a right granted elsewhere (a Daml Script run by `ledger-tui
# script`, another client, an administrator) is seen within this much without reconnecting. Not as the ledger moves:
# a busy ledger moves at every poll, and two requests each time for what seldom changes were most of the polling.
RIGHTS_RECHECK_S = 60.0


class Connection:
    """The app's connection to its participant. Its state: `connected` (once the participant said who we are),
    `state` (connecting, ok or down: how it answers now), `problem` (why it refuses our token, until it accepts
    one), `url` and `tokens_in_use`. Its face: `start` (connect, then poll the ledger end and now and then the rights),
    `switch_user` (the user key) and `retry_s`. It reports through `on_change` (the state, the problem or, once
    connected, who we are changed: the status line reads them again) and the routes (every screen told of whom
    it is connected as, and again after a restart; the start-up screen left once the bundled participant is
    ready). A later change of the user or its rights (switched, read again) is the session's to tell."""

    rights_recheck_s = RIGHTS_RECHECK_S

    def __init__(
        self,
        app: App,
        *,
        workspace: Workspace,
        routes: Routes,
        failures: Failures,
        request_log: RequestLog,
        on_change: Callable[[], None],
        url: str | None,
        tokens: TokenSource | None,
        bundled: BundledParticipant | None,
        label: str,
        first_user: str,
        transport: httpx.AsyncBaseTransport | None,
        timeouts: Timeouts | None,
    ) -> None:
        self._app = app
        self._workspace = workspace
        self._routes = routes
        self._failures = failures
        self._request_log = request_log
        self._on_change = on_change
        self.url = url
        """The participant's URL (the bundled participant's once it has started)."""
        self._tokens = tokens
        """What a connection attempt starts with: the app's tokens by URL, those minted for the first user when
        bundled. Once a session is open its client's are the ones in use (`tokens_in_use`): a switch of user changes
        those, not these."""
        self._bundled = bundled
        self._label = label
        self._first_user = first_user
        self._transport = transport  # tests: a stand-in participant in process
        self._timeouts = timeouts  # None: the client's defaults
        self.connected = False
        self.state = "connecting"
        self.problem = ""
        self.poll_s = LEDGER_END_POLL_S
        self.polls_down = 0
        """Polls of the ledger end while down (every `CONNECT_RETRY_POLLS`th connects again)."""
        # the participant's 5xx answers were notified (once, until it answers again)
        self._failing_said = False
        # the last failure to connect, and when it was shown: retries that fail the same way say it again only once
        # its notification is gone
        self._error_shown: tuple[str, float] | None = None
        self.clock: Callable[[], float] = (
            time.monotonic
        )  # when the rights were read (tests: a clock of their own)
        self._rights_checked = 0.0
        self._rights_doubted = False  # a request was refused for a lack of rights: read them at once
        self._rights_reading: Worker[None] | None = None
        self._connecting: Worker[None] | None = None
        request_log.subscribe(self._request_seen)

    # --- the face -------------------------------------------------------------------------------------------------

    @property
    def retry_s(self) -> float:
        """How often a connection that failed is tried again."""
        return self.poll_s * CONNECT_RETRY_POLLS

    @property
    def tokens_in_use(self) -> TokenSource | None:
        """The tokens the session's client sends (the user switched to), else those the app was started with."""
        session = self._workspace.session
        # the client was built here, with one of `app.tokens`' sources (the client knows only their protocol)
        return cast("TokenSource | None", session.client.tokens) if session is not None else self._tokens

    def start(self, poll_s: float) -> None:
        """Connect, and poll the ledger end every `poll_s` from now on (which also retries a failed connection)."""
        self.poll_s = poll_s
        self._connect()
        self._app.set_interval(poll_s, self._poll_ledger_end)

    def switch_user(self) -> None:
        """Ask which user to act as (the bundled participant's tokens are minted here), or say why one cannot."""
        if not self.connected:
            return
        self._run(self._switch_user, "user")

    # --- connecting -----------------------------------------------------------------------------------------------

    def _run(self, work: Callable[[], Any], group: str) -> Worker[Any]:
        # one at a time in each group, as `textual.work(exclusive=True)`; a failure is said by the app
        return self._app.run_worker(
            work, name=getattr(work, "__name__", group), group=group, exclusive=True, exit_on_error=False
        )

    def _changed(self) -> None:
        self._on_change()

    @property
    def _session(self) -> Session:
        session = self._workspace.session
        assert session is not None, "a connection attempt opens the session"
        return session

    def _client_options(self) -> dict[str, Any]:
        return {} if self._timeouts is None else {"timeouts": self._timeouts}

    def _connect(self) -> None:
        self._connecting = self._run(self._connect_once, "connect")

    async def _connect_once(self) -> None:
        from app.client.ledger import LedgerClient
        from app.session import BUNDLED_ADMIN
        from app.tokens import MintedToken

        if self._bundled is not None:
            # the contracts screen, shown once the participant is ready, is loaded while it starts: not before
            # the first frame (which shows the start-up screen), and not after the participant is ready
            import app.screens.acs  # noqa: F401  (imported for its loading time, used later)

            state = await self._bundled_ready()
            if state.phase != "ready":
                self.state = "down"
                self._changed()
                self._app.notify(
                    state.error, title="The bundled participant did not start", severity="error", timeout=30
                )
                return
            self.url = state.url
            minted = MintedToken(self._bundled.secret(), BUNDLED_ADMIN)
            first_user = self._first_user
            self._tokens = minted.for_user(first_user)
            client = LedgerClient(self.url, self._tokens, log=self._request_log, **self._client_options())
            self._workspace.open_session(
                client, label="bundled", bundled=self._bundled, minted=minted.for_user(first_user)
            )
        else:
            assert self.url is not None
            client = LedgerClient(
                self.url,
                self._tokens,
                log=self._request_log,
                transport=self._transport,
                **self._client_options(),
            )
            minted_token = self._tokens if isinstance(self._tokens, MintedToken) else None
            self._workspace.open_session(client, label=self._label, minted=minted_token)
        try:
            await self._session.connect()
        except LedgerApiError as e:
            refusal = self._failures.refusal_of(e)
            # a refused token is not a connection failure: the participant answered, and said no
            context = "" if refusal is not None else f"Cannot connect to {self.url}"
            self.problem = refusal.text if refusal is not None else ""
            self.state = "down"
            self._changed()
            text, now = self._failures.failure_text(e, context), time.monotonic()
            shown = self._error_shown
            if shown is None or shown[0] != text or now - shown[1] >= ERROR_NOTIFY_S:
                self._error_shown = (text, now)
                self._failures.show_error(e, context)
            if self._bundled is not None and refusal is not None:
                await self._fall_back_to_admin()
                if self._session.identity.user_id is not None:
                    refusal = None
            if refusal is not None or not self._session.version:
                return
        milestone("connected")
        self._error_shown = None
        self.problem = ""
        if self.polls_down:
            self._app.notify(f"Connected to {self.url}.", title="Connected", timeout=4)
        self.connected = True
        self._rights_checked, self._rights_doubted = self.clock(), False  # just read with the connection
        self.state = "ok"
        self._changed()
        self._routes.announce_identity()

    async def _fall_back_to_admin(self) -> None:
        from app.session import BUNDLED_ADMIN

        try:
            await self._session.switch_user(BUNDLED_ADMIN)
        except LedgerApiError:
            pass

    async def _bundled_ready(self) -> StartupState:
        bundled = self._bundled
        assert bundled is not None
        if bundled.state.phase not in ("ready", "failed"):
            worker = self._app.run_worker(
                bundled.wait, thread=True, group="bundled-wait", exit_on_error=False
            )
            await worker.wait()
        if bundled.state.phase == "ready":
            milestone("participant_ready")
        # also when it got ready between the app's mount, which showed the start-up screen, and this worker's start
        await self._routes.leave_startup()
        return bundled.state

    def _request_seen(self, record: RequestRecord) -> None:
        if record.status == 403 and not _reads_rights(record):
            self._rights_doubted = True
            self._read_rights_when_due()

    def _read_rights_when_due(self) -> None:
        """Read the rights again if a request was refused for a lack of them or `rights_recheck_s` has passed, and
        no read of them is under way (a doubt raised meanwhile waits for the next poll), and the token is not refused
        (its refusal is said, and a read of the rights would be refused too, at every poll)."""
        now = self.clock()
        due = self._rights_doubted or now - self._rights_checked >= self.rights_recheck_s
        reading = self._rights_reading is not None and not self._rights_reading.is_finished
        if not self.connected or self.problem or not due or reading:
            return
        self._rights_checked, self._rights_doubted = now, False
        self._rights_reading = self._run(self._reread_rights, "rights")

    async def _reread_rights(self) -> None:
        try:
            await self._session.reload_identity()  # a change, the session tells every screen of
        except LedgerApiError:
            return  # read again at the next interval; a failure to read is the health line's to show

    # --- following the participant --------------------------------------------------------------------------------

    def _poll_ledger_end(self) -> None:
        self._run(self._read_ledger_end, "poll")
        self._read_rights_when_due()

    async def _read_ledger_end(self) -> None:
        if not self.connected:
            self._retry_connect()
            return
        try:
            end = await self._session.client.ledger_end()
        except errors.TransportError as e:
            if self.state != "down":
                self.state = "down"
                self._changed()
                self._explain_down(e)
            return
        except (errors.Unauthenticated, errors.PermissionDenied) as e:
            refusal = self._failures.refusal_of(e)  # e.g. the token expired while the app ran
            if refusal is not None and self.problem != refusal.text:
                self.problem = refusal.text
                self._changed()
                self._failures.show_error(e)
            return
        except errors.ServerError as e:
            if not self._failing_said:
                self._failing_said = True
                self._failures.show_error(
                    e, "The participant is failing; the status line shows when it answers again"
                )
            return
        except LedgerApiError:
            return
        if self.state == "down" or self._failing_said or self.problem:
            self._app.notify("The participant answers again.", title="Reconnected", timeout=4)
        self._failing_said = False
        self.problem = ""
        self.state = "ok"
        self._changed()
        self._workspace.ledger_end.saw(end)

    def _retry_connect(self) -> None:
        """After a failed connection, try again every few polls: the participant may come up."""
        if self.state != "down" or (self._connecting is not None and not self._connecting.is_finished):
            return
        self.polls_down += 1
        if self.polls_down % CONNECT_RETRY_POLLS == 0:
            self._connect()

    def _explain_down(self, e: LedgerApiError) -> None:
        bundled = self._bundled
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
            self._app.notify(
                f"{what} Starting it again… (its log: {bundled.log_dir / 'participant.log'})",
                title="Bundled participant stopped",
                severity="warning",
                timeout=10,
            )
            self._run(self._restart_bundled, "restart")
        else:
            self._failures.show_error(e, "The participant stopped answering; retrying every few seconds")

    async def _restart_bundled(self) -> None:
        bundled = self._bundled
        assert bundled is not None
        bundled.start()  # in the main thread: the child's parent-death signal follows this thread
        state = await self._bundled_ready()
        if state.phase != "ready":
            self._app.notify(state.error, title="Restart failed", severity="error", timeout=30)
            return
        from app.client.ledger import LedgerClient

        self.url = state.url
        session = self._session
        old = session.client
        client = LedgerClient(state.url, old.tokens, log=self._request_log, **self._client_options())
        session.client = client
        await old.aclose()
        self.state = "ok"
        self._changed()
        self._routes.announce_identity()

    # --- the user -------------------------------------------------------------------------------------------------

    async def _switch_user(self) -> None:
        session = self._session
        if not session.can_switch_user:
            identity = session.identity
            self._app.notify(
                f"Acting as {identity.label} (the token decides). To act as someone else, start ledger-tui "
                "with another token or profile.",
                title="User",
                timeout=8,
            )
            return
        from app.screens.dialogs import ChoiceDialog

        users = await session.users()
        current = session.identity.user_id
        choice = await self._app.push_screen_wait(
            ChoiceDialog(
                "Act as user",
                [(u + ("   (current)" if u == current else ""), u) for u in users],
                selected=current,
                hint="The bundled participant's tokens are minted here for the user you pick.",
            )
        )
        if choice is None or choice == current:
            return
        await session.switch_user(choice)  # which the session tells every screen of
        self._app.notify(f"Acting as {choice} now.", timeout=3)


__all__ = ["CONNECT_RETRY_POLLS", "LEDGER_END_POLL_S", "RIGHTS_RECHECK_S", "Connection"]


def _reads_rights(record: RequestRecord) -> bool:
    """One of the requests that read the user and its rights: refused, it says nothing new of them (and must not
    start another read of them)."""
    path = record.path
    return record.method == "GET" and (
        path == "/v2/authenticated-user" or (path.startswith("/v2/users/") and path.endswith("/rights"))
    )
