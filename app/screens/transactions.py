"""The transactions screen: the updates visible to the chosen parties, newest first, read page by page as the user
scrolls (a bounded window, `app.update_window`), and followed live over the update stream (`f`)."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from app.client import errors
from app.client.updates import StreamState, follow, update_offset
from app.counting import count
from app.daml import party_hint, short_id, short_party
from app.messages import IdentityChanged
from app.screens.base import LedgerScreen
from app.screens.dialogs import PromptDialog
from app.screens.update_detail import UpdateScreen
from app.untrusted import visible
from app.update_filter import UpdateFilter, parse_filter
from app.update_reading import PAGE, UpdateReader
from app.update_rows import UpdateRow, row_of
from app.update_window import CAPACITY, UpdateWindow
from app.widgets.keys import KeyFooter
from app.widgets.status_bar import StatusBar
from app.widgets.update_table import UpdateTable

FLUSH_S = (
    0.1  # live updates join the table at most this often: a burst costs one repaint per tenth of a second
)
YIELD_EVERY = 20  # updates parsed (about 0.2 ms each) between two turns of the event loop for the rest
LIVE, PAUSED, RECONNECTING, CONNECTING = "live", "paused", "reconnecting", "connecting"


class TransactionsScreen(LedgerScreen):
    TITLE_TEXT = "Transactions"
    HELP = """\
**Transactions** lists the updates the chosen parties see (transactions, reassignments, and the parties'
topology events where the participant reports them), newest first: offset, record time, kind, command id (shown
only to the submitting parties), workflow id, the templates and choices involved, the contracts created and
archived, and who acted: the acting parties of the root exercises (the API does not give a transaction's actAs),
or a reassignment's submitter. Scrolling down reads older pages; the screen keeps a window of a thousand rows,
however far back it goes or however long it follows.

`f` follows the ledger: new updates appear on top as they commit (the cursor on the newest row stays there; on any
other row it stays on that row), over the websocket update stream, which resumes after the last offset seen when
the connection drops or the participant restarts. The line above the table says live, paused or reconnecting, and
how far behind the ledger end the screen is. `f` again pauses.

`/` filters: `party:Alice` (or `p:`), `template:#pkg:Module:Template` (`t:`), `interface:#pkg:Module:Interface`
(`i:`), `command:ID` (`c:`), and any other words as text to look for. The participant filters parties, templates
and interfaces; the command id and the text are looked for in the rows. Without a party, the user's parties.
`escape` clears the filter.

`o` goes to an offset or an update id. `enter` opens the update: a transaction's events as an exercise tree
(LEDGER_EFFECTS); `o` there opens a contract it touched in the inspector; `escape` comes back to the same row.
`r` reads the newest updates again.
"""

    BINDINGS = [
        Binding("enter", "open", "Open", id="transactions.open"),
        Binding("f", "follow", "Follow", id="transactions.follow"),
        Binding("slash", "filter", "Filter", id="transactions.filter", key_display="/"),
        Binding("o", "goto", "Go to", id="transactions.goto"),
        Binding("r", "reload", "Newest", id="transactions.reload"),
        Binding("escape", "clear_filter", "Clear filter", id="transactions.escape", show=False),
    ]

    DEFAULT_CSS = """
    TransactionsScreen #tx-state { height: 1; padding: 0 1; background: $boost; text-wrap: nowrap;
                                   text-overflow: ellipsis; }
    TransactionsScreen UpdateTable { height: 1fr; }
    TransactionsScreen #tx-selected { height: 1; padding: 0 1; color: $text-muted; text-wrap: nowrap;
                                      text-overflow: ellipsis; }
    """

    AUTO_FOCUS = "UpdateTable"
    # the rows kept and the updates read at a time (tests make both small to page through a short history)
    window_capacity = CAPACITY
    read_page = PAGE

    def __init__(self) -> None:
        super().__init__()
        self.window = UpdateWindow(self.window_capacity)
        self.filter = UpdateFilter()
        self.stream = PAUSED
        """live, paused, reconnecting or connecting: what the follow is doing."""
        self.stream_cause = ""
        self.last_seen: int | None = None
        """The last offset the stream reported (an update or a checkpoint)."""
        self.reading = False
        self._pending: list[UpdateRow] = []
        self._pending_high = 0  # the last offset the stream reported
        self._flushed_high = 0  # the last offset handed to the window
        self._following = False

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="transactions")
        yield Static("", id="tx-state")
        yield UpdateTable(self.window)
        yield Static("", id="tx-selected")
        yield KeyFooter()

    @property
    def table(self) -> UpdateTable:
        return self.query_one(UpdateTable)

    @property
    def following(self) -> bool:
        """The screen follows the ledger's new updates (f), whatever its stream's state now."""
        return self._following

    def on_mount(self) -> None:
        self.set_interval(FLUSH_S, self._flush)
        self.follow(self.ledger_app.workspace.ledger_end.subscribe, lambda _: self._show_state())
        self._show_state()
        if self.ledger_app.connection.connected:
            self._load_head()

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self.action_reload()

    # --- what is read -------------------------------------------------------------------------------------------

    async def _reader(self) -> UpdateReader:
        """What the screen reads with: the participant's filters (parties, templates, interfaces) and the rest."""
        session = self.ledger_app.session
        return UpdateReader(
            session.client,
            parties=await self._parties(),
            templates=[session.learned.interface_ref(t) or t for t in self.filter.templates],
            interfaces=[session.learned.interface_ref(i) or i for i in self.filter.interfaces],
            keep=self.filter.matches,
            page=self.read_page,
        )

    async def _parties(self) -> list[str] | None:
        """The parties filtered on: those named (a hint such as `Alice` stands for the parties it names, looked up
        in the workspace's directory, which a party allocated from here joins), else the user's (None: any party,
        for a user who may read as any)."""
        readable = self.ledger_app.session.identity.readable()
        if not self.filter.parties:
            return readable
        try:
            known = await self.ledger_app.workspace.directory.party_ids()
        except errors.LedgerApiError:
            known = list(readable or [])
        chosen: list[str] = []
        for name in self.filter.parties:
            if "::" in name:
                chosen.append(name)
            else:
                chosen += [p for p in known if party_hint(p) == name] or [name]
        return list(dict.fromkeys(chosen))

    def _reading(self, reading: bool) -> None:
        self.reading = reading
        self._show_state()

    @work(exclusive=True, group="tx-page", exit_on_error=False)
    async def _load_head(self, *, then_follow: bool = False) -> None:
        """The newest page, replacing the window; with `then_follow`, follow from there."""
        self._stop_following()
        self.window.detach()
        self._reading(True)
        try:
            rows, high, low = await (await self._reader()).newest()
        finally:
            self._reading(False)
        self.window.reset(rows, high=high, low=low, at_head=True)
        self.table.rows_changed(0, replaced=True)
        self._show_state()
        if then_follow:
            self._start_following()

    @work(exclusive=True, group="tx-page", exit_on_error=False)
    async def _load_older(self) -> None:
        window = self.window
        if window.low is None:
            return
        self._reading(True)
        try:
            rows, low = await (await self._reader()).older(window.low)
        finally:
            self._reading(False)
        self.table.rows_changed(window.add_older(rows, low=low, cursor=self.table.cursor))
        self._show_state()

    @work(exclusive=True, group="tx-page", exit_on_error=False)
    async def _load_newer(self) -> None:
        window = self.window
        if window.at_head:
            return
        self._reading(True)
        try:
            # while following, the stream has seen updates the window let by: read up to them too
            rows, high, at_head = await (await self._reader()).newer(window.high, lambda: self.last_seen or 0)
        finally:
            self._reading(False)
        self.table.rows_changed(window.add_newer(rows, high=high, at_head=at_head, cursor=self.table.cursor))
        self._show_state()

    @work(exclusive=True, group="tx-page", exit_on_error=False)
    async def _jump(self, target: str) -> None:
        """Show the updates from an offset (or the offset of an update id) down."""
        reader = await self._reader()
        offset = int(target) if target.isdigit() else await reader.offset_of(target)
        if offset is None:
            self.notify(f"No update {visible(target)} is visible to these parties.", severity="warning")
            return
        self.window.detach()
        self._reading(True)
        try:
            rows, low, at_end = await reader.down_from(offset)
        finally:
            self._reading(False)
        self.window.reset(rows, high=offset, low=low, at_head=at_end)
        position = self.window.index_of(offset)
        self.table.rows_changed(position or 0, replaced=True)
        if not self.window.rows or self.window.rows[0].offset != offset:
            self.notify(
                f"No update at offset {offset} passes the filter: the nearest older one is selected.",
                timeout=4,
            )
        self._show_state()

    def worker_failed(self, worker) -> None:
        if worker.group == "tx-follow":
            self._following = False
            self.stream = PAUSED
        self._show_state()

    # --- following ----------------------------------------------------------------------------------------------

    def _start_following(self) -> None:
        self._following = True
        self.stream = CONNECTING
        self._show_state()
        self._follow(self.window.high if self.window.at_head else max(self.window.high, self.last_seen or 0))

    def _stop_following(self) -> None:
        self.workers.cancel_group(self, "tx-follow")
        self._following = False
        self.stream = PAUSED
        self._flush()

    @work(exclusive=True, group="tx-follow", exit_on_error=False)
    async def _follow(self, after: int) -> None:
        reader = await self._reader()
        self.last_seen = max(after, self.last_seen or 0)
        received = 0
        updates = follow(
            reader.client,
            after=after,
            parties=reader.parties,
            templates=reader.templates,
            interfaces=reader.interfaces,
            on_state=self._stream_state,
        )
        async for update in updates:
            received += 1
            if received % YIELD_EVERY == 0:
                # messages already received come without a pause: let keys and frames in between
                await asyncio.sleep(0)
            offset = update_offset(update)
            self.last_seen = offset
            row = row_of(update)
            if row is not None and self.filter.matches(row):
                self._pending.append(row)
                if len(self._pending) > self.window.capacity:
                    # the screen is not keeping up: only the newest can be shown; the window reads the rest again
                    del self._pending[: len(self._pending) - self.window.capacity]
                    self.window.detach()
            self._pending_high = offset

    def _stream_state(self, state: StreamState) -> None:
        self.stream = LIVE if state.status == "live" else RECONNECTING
        self.stream_cause = state.cause
        self._show_state()

    def _flush(self) -> None:
        """Live updates received since the last flush join the table, in one repaint."""
        if not self._pending and self._pending_high <= self._flushed_high:
            return
        rows, self._pending = self._pending, []
        self._flushed_high = self._pending_high
        table = self.table
        was_at_head = self.window.at_head
        cursor = self.window.add_live(rows, table.cursor, high=self._pending_high, tail=self.is_current)
        if rows and was_at_head:
            table.rows_changed(cursor)
        if self.last_seen is not None:
            # what the stream has shown is committed: the ledger end is at least there, for every screen
            self.ledger_app.workspace.ledger_end.saw(self.last_seen)
        self._show_state()

    # --- the lines around the table -----------------------------------------------------------------------------

    def _show_state(self) -> None:
        if not self.is_mounted:
            return
        window = self.window
        text = Text(no_wrap=True, overflow="ellipsis")
        if self._following:
            mark = {LIVE: ("● live", "bold green"), RECONNECTING: ("◌ reconnecting", "bold yellow")}.get(
                self.stream, ("○ connecting", "yellow")
            )
            text.append(*mark)
            end = self.ledger_app.workspace.ledger_end.value
            seen = self.last_seen
            if self.stream == RECONNECTING:
                text.append(f" after offset {seen}", style="yellow")
                if self.stream_cause:
                    text.append(f" ({visible(self.stream_cause)})", style="dim")
            elif seen is not None and end is not None and end > seen:
                text.append(f" · {count(end - seen, 'offset')} behind the ledger end", style="yellow")
            elif seen is not None:
                text.append(f" · at offset {seen}", style="dim")
        else:
            text.append("○ paused", style="bold")
            text.append(" · f follows", style="dim")
        if self.reading:
            text.append(" · reading…", style="cyan")
        if window.rows:
            text.append(
                f" · {count(len(window), 'row')}, offsets {window.oldest}–{window.newest}", style="dim"
            )
        elif not self.reading:
            text.append(" · no updates", style="dim")
        if window.unseen or (not window.at_head and window.rows):
            text.append(
                f" · {window.unseen:,} newer not shown: g/home goes up"
                if window.unseen
                else " · newer above",
                style="bold yellow",
            )
        if not self.filter.empty:
            text.append(" · filter ", style="dim")
            text.append(visible(self.filter.describe()), style="bold")
        self.query_one("#tx-state", Static).update(text)

    @on(UpdateTable.CursorMoved)
    def _cursor_moved(self, message: UpdateTable.CursorMoved) -> None:
        row = message.row
        line = Text(no_wrap=True, overflow="ellipsis")
        if row is not None:
            line.append(f"offset {row.offset}", style="bold")
            if row.command_id:
                line.append(f" · command {visible(row.command_id)}")
            if row.who:
                line.append(f" · {'submitter' if row.submitter else 'acting'} ")
                line.append(visible(", ".join(short_party(p) for p in row.who)))
            if row.contracts:
                line.append(f" · {count(len(row.contracts), 'contract')}")
            line.append(f" · {visible(row.record_time)} · update {visible(short_id(row.update_id, 12))}")
        self.query_one("#tx-selected", Static).update(line)

    @on(UpdateTable.EdgeReached)
    def _edge(self, message: UpdateTable.EdgeReached) -> None:
        if self.reading:
            return
        if message.direction > 0:
            self._load_older()
        else:
            self._load_newer()

    @on(UpdateTable.NewestWanted)
    def _newest(self, _: UpdateTable.NewestWanted) -> None:
        self._load_head(then_follow=self._following)

    @on(UpdateTable.Chosen)
    def _chosen(self, message: UpdateTable.Chosen) -> None:
        self._open(message.row)

    # --- actions ------------------------------------------------------------------------------------------------

    def action_open(self) -> None:
        row = self.table.selected
        if row is not None:
            self._open(row)

    def _open(self, row: UpdateRow) -> None:
        self.app.push_screen(UpdateScreen(row))

    def action_follow(self) -> None:
        if not self.ledger_app.connection.connected:
            return
        if self._following:
            self._stop_following()
            self._show_state()
        elif self.window.at_head and not self.reading:
            self._start_following()
        else:
            self._load_head(then_follow=True)

    def action_reload(self) -> None:
        if self.ledger_app.connection.connected:
            self._load_head(then_follow=self._following)

    def action_filter(self) -> None:
        def chosen(value: str | None) -> None:
            if value is not None:
                self._apply_filter(parse_filter(value))

        self.app.push_screen(
            PromptDialog(
                "Filter the updates",
                value=self.filter.describe(),
                placeholder="party:Alice template:#pkg:Mod:T interface:… command:… text",
                hint="party: p: · template: t: · interface: i: · command: c: · other words: text in the row",
                select_on_focus=False,
            ),
            chosen,
        )

    def _apply_filter(self, new: UpdateFilter) -> None:
        if new == self.filter:
            return
        self.filter = new
        # the rows of the old filter are not those of the new one, even should reading them fail
        self.window.reset([], high=0, low=0, at_head=False)
        self.table.rows_changed(0, replaced=True)
        self.action_reload()

    def action_clear_filter(self) -> None:
        if not self.filter.empty:
            self._apply_filter(UpdateFilter())

    def action_goto(self) -> None:
        def check(text: str) -> str | None:
            return None if text.strip() else "an offset (a number) or an update id"

        def chosen(value: str | None) -> None:
            if value and value.strip():
                self._jump(value.strip())

        self.app.push_screen(
            PromptDialog(
                "Go to an offset or an update id",
                placeholder="12345 or 1220…",
                validate=check,
                hint="the updates from there down are shown; g/home comes back up",
            ),
            chosen,
        )


__all__ = ["TransactionsScreen"]
