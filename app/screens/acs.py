"""The ACS browser: the active contracts at an offset, for chosen parties and templates, sorted and filtered, with
the rows added and removed since the offset viewed before."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Unmount
from textual.timer import Timer
from textual.widgets import Input, Label, Static
from textual.worker import Worker

from app.client import errors
from app.cut import shorten
from app.daml import looks_like_contract_id, party_hint, template_name
from app.messages import ComposeCommand, IdentityChanged, MoveContract, OpenContract
from app.screens import acs_texts
from app.screens.acs_export import InView, ask_export
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog, MultiChoiceDialog, PromptDialog
from app.snapshot import REMOVED, Row, Snapshot, ViewCancelled, ViewSpec
from app.trace import milestone
from app.untrusted import visible
from app.widgets.keys import FieldInput, KeyFooter
from app.workspace.acs_loader import (
    AcsEvent,
    AcsLoader,
    AtLedgerEnd,
    Failed,
    Loaded,
    Moved,
    Moving,
    NoChange,
    NoParties,
    Read,
    Reading,
    Stepping,
)

if TYPE_CHECKING:
    from app.packages import PackageCatalog
    from app.timeline import AcsTimeline
from app.widgets.acs_columns import ALL_TEMPLATES, ColumnChoices
from app.widgets.acs_view_columns import ViewColumns
from app.widgets.contract_table import FETCH_MARGIN, ContractTable
from app.widgets.row_window import clamp
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain

GROW_EVERY_S = 0.25  # while a snapshot is read, the table grows at most this often
PROGRESS_EVERY_S = 0.2
COUNT_WIDTH = 36  # cells of the count, unless it says more


STEP = Binding.Group("Earlier/later", compact=True)


class AcsScreen(LedgerScreen):
    TITLE_TEXT = "Contracts"
    HELP = """\
**Contracts** shows the active contract set (ACS) at an offset — the ledger end unless you choose another — for
the parties you can read (`p` to choose) and the templates you pick (`t`).

Step through the ledger's history with `[` and `]`: each step goes to the previous or next offset where these
contracts changed. The rows are the contracts at the offset, the same however it was reached; against the offset
viewed before, contracts new here are marked `+` (green), contracts moved to another synchronizer `*`, and those
of the offset viewed before that are not here are shown `-` (red, struck through) for comparison, counted apart:
gone since then after a step forward, not yet created after a step back. A contract in flight between
synchronizers is marked `~`. `e` returns to the ledger end, `o` goes to any offset.

`/` filters the rows by text across ids, parties and payload; `s` sorts by any column or payload field, `c`
chooses the columns (per template, payload fields included); `w` writes the contracts in view (not the struck-out
rows) to a JSON-lines or CSV file.

Large snapshots are read page by page into a local cache (the screen shows the count as it grows; `escape`
cancels), and only the rows on screen are drawn, so a million contracts browse like a hundred.
"""

    # in the order of the footer, most used first: what a narrow terminal cuts from its end is under `?`
    BINDINGS = [
        Binding("enter", "inspect", "Inspect", show=True, id="acs.inspect"),
        Binding("slash", "filter", "Filter", id="acs.filter"),
        Binding("left_square_bracket", "step(-1)", "Earlier", id="acs.earlier", key_display="[", group=STEP),
        Binding("right_square_bracket", "step(1)", "Later", id="acs.later", key_display="]", group=STEP),
        Binding("e", "ledger_end", "Ledger end", id="acs.end"),
        Binding("s", "sort", "Sort", id="acs.sort"),
        Binding("p", "parties", "Parties", id="acs.parties"),
        Binding("t", "templates", "Templates", id="acs.templates"),
        Binding("x", "exercise", "Exercise", id="acs.exercise"),
        Binding("m", "move", "Move", id="acs.move"),
        Binding("w", "export", "Export", id="acs.export"),
        Binding("c", "columns", "Columns", id="acs.columns", show=False),
        Binding("o", "goto_offset", "Offset…", id="acs.offset", show=False),
        Binding("n", "clone", "New from", id="acs.clone", show=False),
        Binding("y", "copy_id", "Copy id", id="acs.copy", show=False),
        Binding("r", "reload", "Reload", id="acs.reload", show=False),
        Binding("escape", "escape", "Cancel", show=False, id="acs.escape"),
    ]

    DEFAULT_CSS = """
    AcsScreen #acs-banner { height: auto; background: $warning 20%; color: $text; padding: 0 1; display: none; }
    AcsScreen #acs-banner.shown { display: block; }
    AcsScreen #acs-info { height: 1; padding: 0 1; background: $boost; }
    AcsScreen #acs-info Label { width: auto; margin-right: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    AcsScreen #acs-info #acs-scope { max-width: 50%; }
    AcsScreen #acs-info #acs-count { width: 36; }
    AcsScreen #acs-info #acs-progress { width: 1fr; color: $accent; }
    AcsScreen #acs-filter { dock: bottom; display: none; margin-bottom: 1; }
    AcsScreen #acs-filter.shown { display: block; }
    AcsScreen ContractTable { height: 1fr; }
    AcsScreen #acs-empty { padding: 1 2; color: $text-muted; display: none; }
    AcsScreen #acs-empty.shown { display: block; }
    AcsScreen #acs-detail { height: 2; padding: 0 1; background: $boost; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.parties_chosen = False
        self.templates: frozenset[str] = frozenset()
        self.text = ""
        self.sort = "arrival"
        self.descending = False
        self.reading = False
        """A snapshot is being read (not Textual's `loading`, which would cover the screen while it grows)."""
        self.building = False
        """A large view is being ordered or filtered; its first rows are shown already."""
        self._shown: ViewSpec | None = None
        self._filter_timer: Timer | None = None
        self._last_grow = 0.0
        self._progress_shown = 0.0
        self._growing = False
        """The table is growing to the rows read so far (once at a time)."""
        self._first_drawn = False
        """The snapshot being read has shown its first rows."""
        self.kept_drawn = asyncio.Event()
        """The rows the last session kept are on screen (`show_kept`)."""

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="contracts")
        yield Static("", id="acs-banner")
        with Horizontal(id="acs-info"):
            yield Label("", id="acs-scope")
            yield Label("", id="acs-count")
            yield Label("", id="acs-progress")
        yield Static("", id="acs-empty")
        yield ContractTable(id="acs-table")
        yield Static("", id="acs-detail")
        yield FieldInput(
            free_text=True,
            placeholder="filter rows: text across ids, parties and payload (enter keeps, escape clears)",
            id="acs-filter",
        )
        yield KeyFooter()

    # --- lifecycle ----------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        workspace = self.ledger_app.workspace
        self._view_columns = ViewColumns(
            ColumnChoices(self.ledger_app.locations.columns_file),
            lambda: workspace.acs.snapshot,
            lambda: workspace.packages,
        )
        self.follow(workspace.ledger_end.subscribe, self._ledger_end_moved)
        self.follow(workspace.acs_loader.subscribe, self._acs_told)
        self.follow(workspace.subscribe_packages, self._packages_read)
        self.watch(self.app, "status_connection", self._connection_changed)
        self.watch(self.app, "connect_problem", self._connection_changed)
        self.query_one(ContractTable).focus()
        if self.ledger_app.connection.connected:
            self.start()
        elif workspace.acs.kept is not None:
            self.show_kept()

    def show_kept(self) -> None:
        """The rows the last session kept (the status line says they are not current), until connected;
        `kept_drawn` is set once they are on screen."""
        self._show_info()
        self._progress("the last session's rows, until the participant answers")
        self._show_kept()

    @work(exclusive=True, group="acs-view", exit_on_error=False)
    async def _show_kept(self) -> None:
        try:
            if self.snapshot is not None:
                spec = self._spec()
                await self._apply_view_with_rows(spec, await self.snapshot.views.build_view(spec))
        finally:
            if not self.query_one(ContractTable).count:
                self.kept_drawn.set()  # no rows to draw

    def _connection_changed(self, _: str = "") -> None:
        connection = self.ledger_app.connection
        if connection.connected or connection.state != "down":
            return  # once connected, a lost connection keeps the rows; the status line says it
        empty = self.query_one("#acs-empty", Static)
        again = (
            f"Trying again every {connection.retry_s:g} s; 3 shows the requests and what they were answered."
        )
        # a refused token, said until the participant accepts one (the cause quoted is the participant's: text)
        problem = connection.problem
        text = f"{problem}\n{again}" if problem else f"Not connected to {connection.url}. {again}"
        empty.update(Content("\n".join(visible(line) for line in text.split("\n"))))
        empty.add_class("shown")

    def start(self) -> None:
        """(Re)start from the session's identity: default parties, ledger end. The last session's rows, shown
        meanwhile, are brought up to date when they are this user's and parties' (as the participant says now),
        and dropped at once otherwise."""
        workspace = self.ledger_app.workspace
        kept = workspace.acs.kept
        if kept is not None:
            if workspace.kept_is_ours(kept):
                self.loader.resume()
                return
            self.query_one(ContractTable).set_view(0, [], sort_key=self.sort, descending=self.descending)
            workspace.acs.kept_current()  # about to be: read again below
        parties = self.parties if self.parties_chosen else self.ledger_app.session.identity.readable()
        self._read(parties, None)

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self.parties_chosen = False
        self.templates = frozenset()
        self.start()

    def worker_failed(self, worker: Worker) -> None:
        if worker.group in ("acs-load", "acs-grow", "acs-view", "acs-failed"):
            self.reading = self.building = False
            self._progress("")

    @on(Unmount)
    async def _close_cache(self, _: Unmount) -> None:
        await self.loader.close(keep_as=self.ledger_app.workspace.whose_rows())

    @property
    def loader(self) -> AcsLoader:
        """What reads the ACS at an offset into the workspace's cache; this screen asks it and draws what it tells."""
        return self.ledger_app.workspace.acs_loader

    @property
    def snapshot(self) -> Snapshot | None:
        """The workspace's local copy of the ACS, which this screen shows."""
        return self.ledger_app.workspace.acs.snapshot

    @property
    def timeline(self) -> AcsTimeline | None:
        return self.ledger_app.workspace.acs.timeline

    # the ledger offset: Widget's `offset` (where `styles.offset` moves a widget) never moves a screen
    @property  # type: ignore[misc]  # a property over Widget's settable `offset` (see above)
    def offset(self) -> int | None:  # type: ignore[override]  # the ledger's offset, not the layout's
        """The ledger offset shown (the cache's); None before the first read."""
        return self.loader.offset

    @property
    def previous(self) -> int | None:
        """The offset viewed before, while the rows are compared with it."""
        return self.loader.previous

    @property
    def parties(self) -> list[str] | None:
        """The parties whose contracts are shown (None: every party)."""
        return self.loader.parties

    # --- loading ------------------------------------------------------------------------------------------------

    def _show_info(self) -> None:
        scope = self.query_one("#acs-scope", Label)
        text = acs_texts.scope(self.parties, self.templates)
        if str(scope.content) != text:
            scope.update(plain(text))
        count = self._count_text()
        label = self.query_one("#acs-count", Label)
        # fixed widths: updating these never moves anything else, so they skip the screen's layout (which a count
        # that names the struck-out rows too, wider, needs once)
        width = max(COUNT_WIDTH, cell_len(count))
        if label.styles.width is None or label.styles.width.value != width:
            label.styles.width = width
        label.update(plain(count), layout=False)

    def _count_text(self) -> str:
        table = self.query_one(ContractTable)
        unshown = self.sort.startswith("payload.") and all(c.key != self.sort for c in table.columns)
        kept = self.ledger_app.workspace.acs.kept
        return acs_texts.count(
            table.count,
            self.snapshot.views.view_removed if self.snapshot is not None else 0,
            text=self.text,
            offset=self.offset,
            previous=self.previous,
            unshown_sort=self.sort.removeprefix("payload.") if unshown else None,
            descending=self.descending,
            first_of=kept.first_of if kept is not None else None,
        )

    def _progress(self, text: str) -> None:
        self.query_one("#acs-progress", Label).update(plain(text), layout=False)

    def _read(self, parties: list[str] | None, offset: int | None) -> None:
        """Have the workspace read the contracts of `parties` at `offset` (None: the ledger end)."""
        self.loader.load(parties, offset)
        if parties is None or parties:
            self.query_one("#acs-empty", Static).remove_class("shown")
            # the choice, even if reading it fails
            self.query_one("#acs-scope", Label).update(plain(acs_texts.scope(parties, self.templates)))

    def _acs_told(self, event: AcsEvent) -> None:
        """What the workspace's reading of the ACS did: drawn here, in the order told."""
        match event:
            case Reading():
                self._reading_started(event)
            case Loaded():
                self._loaded(event)
            case Read():
                self.workers.cancel_group(self, "acs-grow")  # the whole view is built next
                self._growing = False
                self._show_read(event)
            case Moving(target=target):
                self._drawing_superseded()
                self._progress(f"moving to offset {target}…")
            case Stepping(direction=direction):
                self._drawing_superseded()
                self._progress(
                    "looking for the previous change…" if direction < 0 else "looking for the next change…"
                )
            case Moved():
                self._show_banner()
                self._show_moved(event)
            case NoChange(offset=offset, end=end):
                self._progress("")
                self.notify(f"No change after offset {offset} up to the ledger end ({end}).", timeout=4)
            case AtLedgerEnd(end=end):
                self.notify(f"Already at the ledger end ({end}).", timeout=3)
            case NoParties():
                self._drawing_superseded()
                self._no_parties()
            case Failed():
                self._failed(event)

    def _no_parties(self) -> None:
        empty = self.query_one("#acs-empty", Static)
        empty.update(acs_texts.no_parties(self.ledger_app.session.can_switch_user))
        empty.add_class("shown")
        self.query_one(ContractTable).set_view(0, [], sort_key=self.sort, descending=self.descending)
        self._show_info()
        self._read_packages()

    def _drawing_superseded(self) -> None:
        """A new request: what the screen still draws of the one before (its rows growing, its whole view being
        built) would show what is no longer asked for."""
        self.workers.cancel_group(self, "acs-grow")
        self.workers.cancel_group(self, "acs-load")
        self._growing = False
        self.reading = False

    def _reading_started(self, event: Reading) -> None:
        self._drawing_superseded()
        self.reading = True
        self._first_drawn = False
        self._progress_shown = 0.0
        self._view_columns.forget_samples()
        self._show_banner()
        self._progress(f"reading the snapshot at offset {event.offset}…")

    def _loaded(self, event: Loaded) -> None:
        """A batch is in the cache: say how many, now and then, and let the table grow to them (at most every
        `GROW_EVERY_S`, one growth at a time: the rows are counted in the cache while it goes on filling)."""
        now = time.monotonic()
        if now - self._progress_shown >= PROGRESS_EVERY_S:
            self._progress_shown = now
            self._progress(acs_texts.reading(event.loaded, event.form, event.seconds))
        if not self._growing and (not self._first_drawn or now - self._last_grow > GROW_EVERY_S):
            self._last_grow = now
            self._growing = True
            self._grow(event.offset)

    @work(exclusive=True, group="acs-grow", exit_on_error=False)
    async def _grow(self, offset: int) -> None:
        try:
            if self.snapshot is None:
                return
            spec = self._spec()
            count = await self.snapshot.views.build_view(spec)
            if not self.reading or self.offset != offset:
                return  # read whole, or another offset asked for, meanwhile: the view is built again for that
            table = self.query_one(ContractTable)
            if self._first_drawn and count != table.count:
                # the new end's rows given with it: an End while the snapshot is read is drawn at once
                generation = table.generation
                start, rows = await self._rows_around(count - 1, count)
                if not self.reading or self.offset != offset:
                    return
                table.grow(count)
                table.set_rows(start, rows, generation)
            elif not self._first_drawn:
                self._first_drawn = await self._apply_view_with_rows(spec, count)
            self._show_info()
        finally:
            self._growing = False

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _show_read(self, event: Read) -> None:
        # a template's columns were chosen from the contracts read so far (none, it may be): choose them again from
        # the whole snapshot
        self._view_columns.forget_samples()
        await self._rebuild()
        self.reading = False
        self._show_banner()
        self._progress(f"read {event.total:,} in {event.seconds:.1f} s" if event.seconds > 1 else "")
        milestone("rows_read")  # the whole snapshot: what a session may keep for the next one
        self._read_packages()  # after the contracts, which come first (a screen that needs them asks sooner)

    def _failed(self, event: Failed) -> None:
        self._drawing_superseded()
        self._progress("")
        error = event.error
        if not isinstance(error, errors.LedgerApiError):
            self._failed_internally(error)
            return
        if event.doing == "read":
            self.ledger_app.failures.show_error(error, "Reading the contracts failed")
            self._read_packages()
        elif event.doing == "move":
            self.ledger_app.failures.show_error(error, f"Cannot show offset {event.offset}")
        elif event.doing == "step":
            self.ledger_app.failures.show_error(error, "Cannot step through the history")
        else:
            self.ledger_app.failures.show_error(error)

    @work(group="acs-failed", exit_on_error=False)
    async def _failed_internally(self, error: Exception) -> None:
        """A fault of this program while reading the ACS: raised again in a worker, whose failure the app reports
        (its traceback in the log file) as it reports any worker's."""
        raise error

    def _spec(self) -> ViewSpec:
        return ViewSpec(
            offset=self.offset or 0,
            previous=self.previous,
            templates=self.templates,
            text=self.text,
            sort=self.sort,
            descending=self.descending,
        )

    @work(exclusive=True, group="acs-packages", exit_on_error=False)
    async def _read_packages(self) -> None:
        """Have the workspace read the packages (for every screen), unless it has: it tells `_packages_read`."""
        if self.ledger_app.workspace.packages is None:
            await self.ledger_app.workspace.read_packages()

    def _packages_read(self, _: PackageCatalog) -> None:
        """A new reading of the packages, whichever screen asked: a template shown alone gets its declared fields
        as columns (the rows read meanwhile are shown at once, without them)."""
        if len(self.templates) == 1 and self.snapshot is not None and not self.reading:
            self._show_declared_columns()

    @work(exclusive=True, group="acs-packages-shown", exit_on_error=False)
    async def _show_declared_columns(self) -> None:
        await self._rebuild()

    async def _apply_view(
        self, spec: ViewSpec, count: int, *, cursor: int | None = None, keep_rows: bool = False
    ) -> bool:
        """Show the view `spec` of `count` rows, the cursor on `cursor` (where it is, by default). Unless the rows
        held are kept (`keep_rows`: the first rows of the same view, given early), the rows around where the cursor
        will be are read first and given with the view: its first frame draws them, wherever a sort or a filter
        lands, instead of placeholders that ask for them (a frame, a message and a read later). False, nothing
        shown, when superseded while they were read: the view is built again for what is asked now."""
        table = self.query_one(ContractTable)
        columns = await self._view_columns.columns(self.templates)
        start = 0
        rows: list[Row] = []
        if not keep_rows and count and self.snapshot is not None:
            start, rows = await self._rows_around(
                clamp(table.cursor if cursor is None else cursor, count), count
            )
            if self._spec() != spec:
                return False
        generation = table.set_view(
            count, columns, sort_key=spec.sort, descending=spec.descending, cursor=cursor, keep_rows=keep_rows
        )
        if rows:
            table.set_rows(start, rows, generation)  # nothing drawn since the view was set: no await between
        self._shown = spec
        self._show_info()
        self._show_banner()
        return True

    async def _rows_around(self, at: int, count: int) -> tuple[int, list[Row]]:
        """The first position and the rows of the current view around position `at` of `count`: those of
        whichever screen shows it, however tall the table is once laid out (`_reach`), with a margin."""
        assert self.snapshot is not None
        reach = self._reach()
        start = max(0, at - reach - FETCH_MARGIN)
        return start, await self.snapshot.views.window(
            start, min(count, at + reach + 2 * FETCH_MARGIN) - start
        )

    def _reach(self) -> int:
        """Rows either side of the cursor that any screen showing it may show: the table's page, or the screen's
        height when that is more (the table grows as the filter box is hidden)."""
        return max(self.query_one(ContractTable).page_size(), self.size.height)

    async def _apply_view_with_rows(self, spec: ViewSpec, count: int) -> bool:
        """`_apply_view` of a snapshot's first view, which says once its rows are drawn. False when superseded."""
        if not await self._apply_view(spec, count):
            return False
        if count:
            self._rows_drawn()
        return True

    def _rows_drawn(self) -> None:
        kept = self.ledger_app.workspace.acs.kept is not None
        if kept:
            self.call_after_refresh(self.kept_drawn.set)
        self.call_after_refresh(milestone, "first_rows", cached=kept)
        if not kept:
            self.call_after_refresh(milestone, "current_rows")

    async def _rebuild(self, *, keep_cursor_on: str | None = None, on_first_change: bool = False) -> None:
        """Materialize the view for the current settings and show it: on a large snapshot, its first rows at
        once and the rest when SQLite has ordered it all. The cursor goes to the contract `keep_cursor_on`, or
        with `on_first_change` to the first row changed since the offset viewed before (as the view shows)."""
        if self.snapshot is None:
            return
        spec = self._spec()
        table = self.query_one(ContractTable)
        columns = await self._view_columns.columns(self.templates)
        shown = self._shown
        # a new order of the same rows has the count of the old one; a new filter's count is known at the end
        same_rows = shown is not None and (shown.offset, shown.previous, shown.templates, shown.text) == (
            spec.offset,
            spec.previous,
            spec.templates,
            spec.text,
        )
        old_count = table.count
        early = False

        def first(rows: list) -> None:
            nonlocal early
            if self._spec() != spec:
                return  # superseded while it was being found
            early = True
            self.building = True
            count = old_count if same_rows else len(rows)
            generation = table.set_view(
                count, columns, sort_key=spec.sort, descending=spec.descending, cursor=0
            )
            table.set_rows(0, rows, generation)
            self._progress("ordering the rest…" if same_rows else "filtering the rest…")

        self.snapshot.views.cancel_view()
        try:
            count = await self.snapshot.views.build_view(spec, first)
        except ViewCancelled:
            return
        finally:
            self.building = False
        cursor = None
        if (
            keep_cursor_on and not early
        ):  # once the first rows are shown, the cursor stays where the user put it
            cursor = await self.snapshot.views.position_of(keep_cursor_on)
        elif on_first_change and not early:
            cursor = await self.snapshot.views.first_changed()
        elif early:
            cursor = table.cursor
        await self._apply_view(spec, count, cursor=cursor, keep_rows=early)
        if count == 0:
            self._progress("no contracts here" if not self.text else "no row matches the filter")

    @work(exclusive=True, group="acs-view", exit_on_error=False)
    async def rebuild(self, keep_cursor_on: str | None = None) -> None:
        self._progress("updating the view…")
        await self._rebuild(keep_cursor_on=keep_cursor_on)
        if self.query_one(ContractTable).count:
            self._progress("")

    @on(ContractTable.WindowNeeded)
    def _window_needed(self, event: ContractTable.WindowNeeded) -> None:
        self._fetch_window(event.start, event.count, event.generation)

    @work(group="acs-window", exit_on_error=False)
    async def _fetch_window(self, start: int, count: int, generation: int) -> None:
        if self.snapshot is None:
            return
        rows = await self.snapshot.views.window(start, count)
        self.query_one(ContractTable).set_rows(start, rows, generation)
        if rows:
            self._rows_drawn()

    # --- the ledger end moving on -------------------------------------------------------------------------------

    def _ledger_end_moved(self, end: int | None) -> None:
        self._show_banner()

    def _show_banner(self) -> None:
        banner = self.query_one("#acs-banner", Static)
        end = self.ledger_app.workspace.ledger_end.value
        if end is not None and self.offset is not None and end > self.offset and not self.reading:
            banner.update(plain(acs_texts.behind_the_end(self.offset, end)))
            banner.add_class("shown")
        else:
            banner.remove_class("shown")

    # --- moving through offsets ---------------------------------------------------------------------------------

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _show_moved(self, event: Moved) -> None:
        await self._rebuild(on_first_change=True)
        changed = await self.snapshot.views.first_changed() if self.snapshot is not None else None
        if changed is not None:
            self.query_one(ContractTable).move_to(changed)
        self._progress(
            f"offset {event.old} → {event.offset}" + ("" if event.previous is not None else " (new snapshot)")
        )
        milestone("rows_read")

    def action_step(self, direction: int) -> None:
        if self.timeline is None or self.offset is None or self.reading:
            return
        self.loader.step(direction)

    def action_ledger_end(self) -> None:
        self.loader.to_ledger_end()

    def action_goto_offset(self) -> None:
        end = self.ledger_app.workspace.ledger_end.value

        def check(text: str) -> str | None:
            if not text.isdigit():
                return "an offset is a whole number (0 is the ledger begin)"
            if end is not None and int(text) > end:
                return f"the ledger end is {end}"
            return None

        def chosen(value: str | None) -> None:
            if value:
                self.loader.move_to(int(value))

        self.app.push_screen(
            PromptDialog(
                "Go to offset",
                value=str(self.offset or ""),
                validate=check,
                hint=f"0 … {end if end is not None else 'ledger end'}",
            ),
            chosen,
        )

    def action_reload(self) -> None:
        self.loader.reload()

    def action_escape(self) -> None:
        if self.reading:
            self.loader.cancel()
            self._drawing_superseded()
            self._progress("reading cancelled: the rows read so far are shown")
            self.rebuild()
        elif self.text:
            self._set_text("")

    # --- filters, sort, columns ---------------------------------------------------------------------------------

    def action_filter(self) -> None:
        box = self.query_one("#acs-filter", Input)
        box.add_class("shown")
        box.value = self.text
        box.focus()

    @on(Input.Changed, "#acs-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.3, self._apply_typed_filter)

    def _apply_typed_filter(self) -> None:
        box = self.query_one("#acs-filter", Input)
        if box.has_class("shown"):  # the value as it is now, not as it was when the event was posted
            self._set_text(box.value, keep_box=True)

    @on(Input.Submitted, "#acs-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self._set_text(event.value)
        self.query_one(ContractTable).focus()

    def on_key(self, event) -> None:
        box = self.query_one("#acs-filter", Input)
        if event.key == "escape" and box.has_focus:
            event.stop()
            self._set_text("")
            self.query_one(ContractTable).focus()

    def _set_text(self, text: str, keep_box: bool = False) -> None:
        box = self.query_one("#acs-filter", Input)
        if self._filter_timer is not None and not keep_box:
            self._filter_timer.stop()
        if not keep_box and not text:
            box.remove_class("shown")
            box.value = ""
        if text != self.text:
            self.text = text
            selected = self.query_one(ContractTable).selected
            self.rebuild(selected.contract_id if selected else None)

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def action_sort(self) -> None:
        table = self.query_one(ContractTable)
        shown = [(c.label, c.key) for c in table.columns if c.key != "payload"]
        keys = {key for _, key in shown}
        fields = [
            (f"payload: {f}", f"payload.{f}") for f in await self._view_columns.payload_fields(self.templates)
        ]
        choices = [("arrival order (as the participant lists them)", "arrival")]
        choices += [
            (label + (" (descending next)" if key == self.sort and not self.descending else ""), key)
            for label, key in [*shown, *((label, key) for label, key in fields if key not in keys)]
        ]
        key = await self.app.push_screen_wait(
            ChoiceDialog("Sort by (the same column again reverses)", choices, selected=self.sort)
        )
        if key is None:
            return
        if key == self.sort:
            self.descending = not self.descending
        else:
            self.sort, self.descending = key, False
        selected = table.selected
        self.rebuild(selected.contract_id if selected else None)

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def action_templates(self) -> None:
        if self.snapshot is None or self.offset is None:
            return
        counts = await self.snapshot.views.templates(self.offset)
        if not counts:
            self.notify("No contracts at this offset to choose templates from.", timeout=3)
            return
        choices = [
            (
                f"{template_name(t)}  ({n:,})   {shorten(t.split(':')[0], 12)}",
                t,
                not self.templates or t in self.templates,
            )
            for t, n in counts
        ]
        chosen = await self.app.push_screen_wait(MultiChoiceDialog("Templates to show", choices))
        if chosen is None:
            return
        self.templates = frozenset() if len(chosen) == len(counts) else frozenset(chosen)
        await self._rebuild()

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def show_templates(self, templates: frozenset[str]) -> None:
        """Show only the contracts of `templates` (full template ids), as asked from another screen."""
        self.templates = templates
        await self._rebuild()

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def action_parties(self) -> None:
        if not self.ledger_app.connection.connected:
            return  # the rows shown are the last session's, or none: the participant says whose they may be
        session = self.ledger_app.session
        identity = session.identity
        known: list[str] = list(dict.fromkeys([*identity.act_as, *identity.read_as]))
        if identity.read_any or identity.admin:
            try:
                known = list(dict.fromkeys([*known, *(p.party for p in await session.client.parties())]))
            except errors.LedgerApiError:
                pass  # listing parties needs admin rights; what the rights name is still there
        if not known and not identity.read_any:
            self.notify(
                "This user has no rights to read any party. U switches user on the bundled participant.",
                severity="warning",
                timeout=6,
            )
            return
        current = set(self.parties or [])
        choices = []
        if identity.read_any:
            choices.append(("every party (CanReadAsAnyParty)", "*", self.parties is None))
        choices += [(f"{party_hint(p)}   {p}", p, p in current) for p in known]
        chosen = await self.app.push_screen_wait(
            MultiChoiceDialog("Parties whose contracts to show", choices)
        )
        if chosen is None:
            return
        self.parties_chosen = True
        self.templates = frozenset()
        self._read(None if "*" in chosen else [p for p in chosen if p != "*"], self.offset)

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def action_columns(self) -> None:
        if self.snapshot is None:
            return
        key = next(iter(self.templates)) if len(self.templates) == 1 else ALL_TEMPLATES
        table = self.query_one(ContractTable)
        current = [c.key for c in table.columns]
        options = await self._view_columns.options(key)
        ordered = [(label, k, k in current) for k, label in options]
        title = "Columns for " + (
            template_name(key)
            if key != ALL_TEMPLATES
            else "all templates (choose one template with t for its payload fields)"
        )
        chosen = await self.app.push_screen_wait(MultiChoiceDialog(title, ordered))
        if chosen is None:
            return
        keys = [k for k in current if k in chosen] + [k for k in chosen if k not in current]
        self._view_columns.choices.set(key, keys or ["contract"])
        await self._rebuild(keep_cursor_on=table.selected.contract_id if table.selected else None)

    # --- rows -----------------------------------------------------------------------------------------------------

    @on(ContractTable.CursorMoved)
    def _cursor_moved(self, event: ContractTable.CursorMoved) -> None:
        row = event.row
        detail = self.query_one("#acs-detail", Static)
        # two lines high whatever it says: no layout of the screen for each row the cursor passes
        if row is None:
            detail.update("", layout=False)
            return
        detail.update(
            Content.assemble(
                plain(row.contract_id), "\n", plain(acs_texts.row_detail(row, self.offset, self.previous))
            ),
            layout=False,
        )

    @on(ContractTable.Chosen)
    def _chosen(self, event: ContractTable.Chosen) -> None:
        self.post_message(OpenContract(event.row.contract_id))

    def action_inspect(self) -> None:
        row = self.query_one(ContractTable).selected
        if row is not None:
            self.post_message(OpenContract(row.contract_id))

    def action_copy_id(self) -> None:
        row = self.query_one(ContractTable).selected
        if row is not None:
            self.app.copy_to_clipboard(row.contract_id)
            self.notify(f"Copied {shorten(row.contract_id, 16)} to the clipboard.", timeout=3)

    def action_exercise(self) -> None:
        row = self.query_one(ContractTable).selected
        if row is None:
            return
        if row.status == REMOVED or row.archived_offset is not None:
            self.notify("That contract is archived: it has no choices left to exercise.", severity="warning")
            return
        self.post_message(
            ComposeCommand(kind="Exercise", template_id=row.template_id, contract_id=row.contract_id)
        )

    def action_move(self) -> None:
        row = self.query_one(ContractTable).selected
        if row is not None:  # the reassignment screen says where it is now, and whether it can move
            self.post_message(MoveContract(row.contract_id))

    def action_clone(self) -> None:
        row = self.query_one(ContractTable).selected
        if row is not None:
            self.post_message(
                ComposeCommand(kind="CreateAndExercise", template_id=row.template_id, arguments=row.payload)
            )

    def action_export(self) -> None:
        if self.snapshot is None or not self.snapshot.views.view_contracts:
            self.notify("Nothing to export: the view is empty.", timeout=3)
            return
        columns = self.query_one(ContractTable).columns
        struck_out = acs_texts.struck_out(self.offset, self.previous)
        ask_export(self, InView(self.snapshot, self.offset, columns, struck_out), self._progress)

    def select_contract(self, contract_id: str) -> None:
        """Put the cursor on a contract if it is in view (after an inspector or composer returns)."""
        self._select(contract_id)

    @work(group="acs-select", exit_on_error=False)
    async def _select(self, contract_id: str) -> None:
        if self.snapshot is None:
            return
        table = self.query_one(ContractTable)
        generation = table.generation
        reach = self._reach()
        found = await self.snapshot.views.rows_around(
            contract_id, reach + FETCH_MARGIN, reach + 2 * FETCH_MARGIN
        )
        if found is not None:
            position, start, rows = found
            table.set_rows(start, rows, generation)  # given first: the move is drawn at once, its rows there
            table.move_to(position)

    def on_paste(self, event) -> None:
        text = event.text.strip()
        if looks_like_contract_id(text):
            self.post_message(OpenContract(text))


__all__ = ["AcsScreen"]
