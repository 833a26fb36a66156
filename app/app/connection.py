"""Connecting to the participant (starting the bundled one first when that is the choice), following its health
and ledger end, trying again while it is down, restarting the bundled participant when it stops, and switching the
user the bundled participant's tokens are minted for."""

from __future__ import annotations

import logging
import time

from textual import work

from app.app.failures import ERROR_NOTIFY_S, Failures
from app.client import errors
from app.client.errors import LedgerApiError
from app.messages import IdentityChanged
from app.screens.startup import StartupScreen
from app.trace import milestone

log = logging.getLogger("ledger_tui")

LEDGER_END_POLL_S = 2.0
CONNECT_RETRY_POLLS = 2  # after a failed connection, try again every this many polls
HEALTH_CHECK_S = 0.5  # how often the status line looks for a request in flight for too long
# The user's rights are read again when the ledger moves, at most this often: a right granted elsewhere (a Daml
# Script run by `ledger-tui script`, another client, an administrator) is seen without reconnecting; the Ledger API
# tells no one of a change to rights.
RIGHTS_RECHECK_S = 5.0


class Connection(Failures):
    @work(exclusive=True, group="connect", exit_on_error=False)
    async def _connect(self) -> None:
        from app.client.ledger import LedgerClient
        from app.session import BUNDLED_ADMIN
        from app.tokens import MintedToken

        if self.bundled is not None:
            # the contracts screen, shown once the participant is ready, is loaded while it starts: not before
            # the first frame (which shows the start-up screen), and not after the participant is ready
            import app.screens.acs  # noqa: F401

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
            self.workspace.open_session(
                client, label="bundled", bundled=self.bundled, minted=minted.for_user(first_user)
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
            self.workspace.open_session(client, label=self.label, minted=minted)
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
        milestone("connected")
        self._connect_error_shown = None
        self.connect_problem = ""
        if self._connect_attempts:
            self.notify(f"Connected to {self.url}.", title="Connected", timeout=4)
        self.connected = True
        self._rights_checked = time.monotonic()  # just read with the connection
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
        if self.bundled.state.phase == "ready":
            milestone("participant_ready")
        # also when it got ready between on_mount, which showed the startup screen, and this worker's start
        if isinstance(self.screen, StartupScreen):
            await self.switch_mode("contracts")
        return self.bundled.state

    rights_recheck_s = RIGHTS_RECHECK_S
    _rights_checked = 0.0

    def _recheck_rights(self) -> None:
        now = time.monotonic()
        if not self.connected or now - self._rights_checked < self.rights_recheck_s:
            return
        self._rights_checked = now
        self._reread_rights()

    @work(exclusive=True, group="rights", exit_on_error=False)
    async def _reread_rights(self) -> None:
        session = self.session
        before = session.identity
        try:
            await session.reload_identity()
        except LedgerApiError:
            return  # the next move tries again; a failure to read is the health line's to show
        if session.identity != before:
            self.status_user = session.identity.label
            self._announce_identity()

    def _announce_identity(self) -> None:
        for screen in self._mode_screens():
            screen.post_message(IdentityChanged())

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
        self.workspace.ledger_end.saw(end)

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
        from app.screens.dialogs import ChoiceDialog

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
