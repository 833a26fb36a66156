"""The ACS browser: the active contracts at an offset, for chosen parties and templates, sorted and filtered, with
the rows added and removed since the offset viewed before."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Label, Static

from app.client import errors
from app.counting import count as counted
from app.cut import shorten
from app.daml import looks_like_contract_id, party_hint, template_name
from app.messages import ComposeCommand, IdentityChanged, MoveContract, OpenContract
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog, MultiChoiceDialog, PromptDialog
from app.snapshot import ADDED, CHANGED, REMOVED, Snapshot, ViewCancelled, ViewSpec
from app.trace import milestone
from app.untrusted import visible
from app.widgets.keys import FieldInput, KeyFooter

if TYPE_CHECKING:
    from app.timeline import AcsTimeline, Progress
from app.widgets.acs_columns import (
    ALL_TEMPLATES,
    DEFAULT_MIXED,
    ColumnChoices,
    available,
    build_columns,
    default_for_template,
    row_export_columns,
)
from app.widgets.contract_table import ContractTable, row_mark
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain

GROW_EVERY_S = 0.25  # while a snapshot is read, the table grows at most this often
PROGRESS_EVERY_S = 0.2
COUNT_WIDTH = 36  # cells of the count, unless it says more
SORT_TEMPLATES = 50  # templates whose payload fields the sort offers, at most (their samples are read for it)


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

    offset: reactive[int | None] = reactive(None)

    def __init__(self) -> None:
        super().__init__()
        self.parties: list[str] | None = None
        self.parties_chosen = False
        self.previous: int | None = None
        self.templates: frozenset[str] = frozenset()
        self.text = ""
        self.sort = "arrival"
        self.descending = False
        self.reading = False
        """A snapshot is being read (not Textual's `loading`, which would cover the screen while it grows)."""
        self.building = False
        """A large view is being ordered or filtered; its first rows are shown already."""
        self._shown: ViewSpec | None = None
        self._samples: dict[str, list] = {}
        self._filter_timer: Timer | None = None
        self._last_grow = 0.0
        self._choices: ColumnChoices | None = None

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
        self._choices = ColumnChoices(self.ledger_app.locations.columns_file)
        self.follow(self.ledger_app.workspace.ledger_end.subscribe, self._ledger_end_moved)
        self.watch(self.app, "status_connection", self._connection_changed)
        self.watch(self.app, "connect_problem", self._connection_changed)
        self.query_one(ContractTable).focus()
        if self.ledger_app.connection.connected:
            self.start()

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
        """(Re)start from the session's identity: default parties, ledger end."""
        identity = self.ledger_app.session.identity
        if not self.parties_chosen:
            self.parties = identity.readable()
        self._open_and_load(None)

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self.parties_chosen = False
        self.templates = frozenset()
        self.start()

    def worker_failed(self, worker) -> None:
        if worker.group in ("acs-load", "acs-view"):
            self.reading = self.building = False
            self._progress("")

    async def on_unmount(self) -> None:
        await self.ledger_app.workspace.acs.close()

    @property
    def snapshot(self) -> Snapshot | None:
        """The workspace's local copy of the ACS, which this screen fills and shows."""
        return self.ledger_app.workspace.acs.snapshot

    @property
    def timeline(self) -> AcsTimeline | None:
        return self.ledger_app.workspace.acs.timeline

    # --- loading ------------------------------------------------------------------------------------------------

    def _scope_text(self) -> str:
        if self.parties is None:
            who = "all parties"
        elif not self.parties:
            who = "no parties"
        else:
            who = ", ".join(party_hint(p) for p in self.parties[:4]) + (" …" if len(self.parties) > 4 else "")
        what = (
            "all templates"
            if not self.templates
            else ", ".join(template_name(t) for t in sorted(self.templates))
        )
        return f"{who} · {what}"

    def _show_info(self) -> None:
        scope = self.query_one("#acs-scope", Label)
        text = self._scope_text()
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
        """What the rows in view are: the contracts of the state, and apart the struck-out comparison rows."""
        table = self.query_one(ContractTable)
        gone = self.snapshot.views.view_removed if self.snapshot is not None else 0
        text = counted(table.count - gone, "contract")
        if self.text:
            text += f" matching “{self.text}”"
        if gone:
            text += f" · {gone:,} {self._struck_out()}, shown struck out"
        if self.sort.startswith("payload.") and all(c.key != self.sort for c in table.columns):
            # the order is by a field no column shows: said here, as a column's header would say it
            text += f" · by {self.sort.removeprefix('payload.')} {'▼' if self.descending else '▲'}"
        return text

    def _struck_out(self) -> str:
        """What the struck-out rows are: contracts of the offset viewed before, not of this one. Stepped forward
        they are gone since; stepped back they are not yet created here (they came after)."""
        if self.previous is not None and self.offset is not None and self.offset < self.previous:
            return f"not yet created at {self.offset}, active at {self.previous}"
        return f"gone since {self.previous}"

    def _progress(self, text: str) -> None:
        self.query_one("#acs-progress", Label).update(plain(text), layout=False)

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _open_and_load(self, offset: int | None) -> None:
        app = self.ledger_app
        empty = self.query_one("#acs-empty", Static)
        if self.parties is not None and not self.parties:
            empty.update(
                "This user can read no party's contracts. Press p to choose parties, or U to act as "
                "another user."
                if app.session.can_switch_user
                else "This user can read no party's contracts. Press p to choose parties."
            )
            empty.add_class("shown")
            self.query_one(ContractTable).set_view(0, [], sort_key=self.sort, descending=self.descending)
            self._show_info()
            self._read_packages()
            return
        empty.remove_class("shown")
        # the choice, even if reading it fails
        self.query_one("#acs-scope", Label).update(plain(self._scope_text()))
        await app.workspace.acs.open(app.session.client, self.parties)
        if offset is None:
            offset = await app.session.client.ledger_end()
            app.workspace.ledger_end.saw(offset)
        await self._load(offset)

    async def _load(self, offset: int) -> None:
        assert self.timeline is not None and self.snapshot is not None
        self.reading = True
        self.previous = None
        self.offset = offset
        self._samples.clear()
        self._progress(f"reading the snapshot at offset {offset}…")
        started = time.monotonic()
        table = self.query_one(ContractTable)
        spec = self._spec()
        first = True

        shown = 0.0

        def progress(p: Progress) -> None:
            nonlocal shown
            now = time.monotonic()
            if now - shown < PROGRESS_EVERY_S:
                return
            shown = now
            rate = p.loaded / max(0.001, now - started)
            self._progress(
                f"reading: {counted(p.loaded, 'contract')} ({p.form}, {rate:,.0f}/s) · escape cancels"
            )

        try:
            async for loaded in self._read_batches(offset, progress):
                now = time.monotonic()
                if first or now - self._last_grow > GROW_EVERY_S:
                    self._last_grow = now
                    count = await self.snapshot.views.build_view(spec)
                    if first:
                        await self._apply_view(spec, count)
                        first = False
                    else:
                        table.grow(count)
                    self._show_info()
                del loaded
        except errors.LedgerApiError as e:
            self.reading = False
            self._progress("")
            self.ledger_app.failures.show_error(e, "Reading the contracts failed")
            self._read_packages()
            return
        elapsed = time.monotonic() - started
        total = await self.snapshot.views.count()
        # a template's columns were chosen from the contracts read so far (none, it may be): choose them again from
        # the whole snapshot
        self._samples.clear()
        await self._rebuild()
        self.reading = False
        self._show_banner()
        self._progress(f"read {total:,} in {elapsed:.1f} s" if elapsed > 1 else "")
        self._read_packages()  # after the contracts, which come first (a screen that needs them asks sooner)

    async def _read_batches(self, offset: int, progress):
        """Run the timeline's load, yielding after each batch so the table can grow while it reads."""
        import asyncio

        assert self.timeline is not None
        queue: asyncio.Queue = asyncio.Queue()
        done = object()

        def on_progress(p: Progress) -> None:
            progress(p)
            queue.put_nowait(p.loaded)

        async def run() -> None:
            try:
                await self.timeline.load(offset, on_progress)
            finally:
                queue.put_nowait(done)

        task = asyncio.create_task(run())
        try:
            while True:
                item = await queue.get()
                if item is done:
                    break
                yield item
            await task  # raises what the load raised
        finally:
            if not task.done():
                task.cancel()

    def _spec(self) -> ViewSpec:
        return ViewSpec(
            offset=self.offset or 0,
            previous=self.previous,
            templates=self.templates,
            text=self.text,
            sort=self.sort,
            descending=self.descending,
        )

    async def _columns(self) -> list:
        assert self.snapshot is not None and self._choices is not None
        if len(self.templates) == 1:
            (template,) = self.templates
            sample = await self._sample(template)
            keys = self._choices.get(template) or default_for_template(
                sample, self._declared_fields(template)
            )
            return build_columns(keys, sample, [template])
        keys = self._choices.get(ALL_TEMPLATES) or DEFAULT_MIXED
        in_view = self.templates or await self.snapshot.store.template_ids()
        return build_columns(keys, [], sorted(in_view))

    def _declared_fields(self, template: str) -> list[str]:
        """The template's fields as its package declares them; none while the packages are not read."""
        catalog = self.ledger_app.workspace.packages
        signature = catalog.template_of(template) if catalog is not None else None
        return [f.name for f in signature.fields] if signature is not None else []

    @work(exclusive=True, group="acs-packages", exit_on_error=False)
    async def _read_packages(self) -> None:
        """Read the packages (for every screen) and show a template's declared columns once they are known."""
        if self.ledger_app.workspace.packages is None:
            await self.ledger_app.workspace.read_packages()
            if len(self.templates) == 1 and self.snapshot is not None:
                await self._rebuild()

    async def _sample(self, template: str) -> list:
        if template not in self._samples and self.snapshot is not None:
            self._samples[template] = await self.snapshot.views.sample_payloads(template)
        return self._samples.get(template, [])

    async def _apply_view(
        self, spec: ViewSpec, count: int, *, cursor: int | None = None, keep_rows: bool = False
    ) -> None:
        table = self.query_one(ContractTable)
        table.set_view(
            count,
            await self._columns(),
            sort_key=spec.sort,
            descending=spec.descending,
            cursor=cursor,
            keep_rows=keep_rows,
        )
        self._shown = spec
        self._show_info()
        self._show_banner()

    async def _rebuild(self, *, keep_cursor_on: str | None = None, on_first_change: bool = False) -> None:
        """Materialize the view for the current settings and show it: on a large snapshot, its first rows at
        once and the rest when SQLite has ordered it all. The cursor goes to the contract `keep_cursor_on`, or
        with `on_first_change` to the first row changed since the offset viewed before (as the view shows)."""
        if self.snapshot is None:
            return
        spec = self._spec()
        table = self.query_one(ContractTable)
        columns = await self._columns()
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
            self.call_after_refresh(milestone, "first_rows")

    # --- the ledger end moving on -------------------------------------------------------------------------------

    def _ledger_end_moved(self, end: int | None) -> None:
        self._show_banner()

    def _show_banner(self) -> None:
        banner = self.query_one("#acs-banner", Static)
        end = self.ledger_app.workspace.ledger_end.value
        if end is not None and self.offset is not None and end > self.offset and not self.reading:
            ahead = end - self.offset
            banner.update(
                plain(
                    f"Viewing offset {self.offset}; the ledger end is {end}, {counted(ahead, 'offset')} later. "
                    "Press e to view the ledger end."
                )
            )
            banner.add_class("shown")
        else:
            banner.remove_class("shown")

    def watch_offset(self, offset: int | None) -> None:
        self.ledger_app.workspace.acs.view(offset)
        if self.is_mounted:
            self._show_banner()

    # --- moving through offsets ---------------------------------------------------------------------------------

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _move(self, target: int) -> None:
        assert self.timeline is not None and self.offset is not None
        old = self.offset
        if target == old:
            return
        self._progress(f"moving to offset {target}…")
        try:
            await self.timeline.move_to(target)
        except errors.LedgerApiError as e:
            self._progress("")
            self.ledger_app.failures.show_error(e, f"Cannot show offset {target}")
            return
        self.previous = old if self.timeline.interval.covers(old) else None
        self.offset = target
        await self._rebuild(on_first_change=True)
        changed = await self.snapshot.views.first_changed() if self.snapshot is not None else None
        if changed is not None:
            self.query_one(ContractTable).move_to(changed)
        self._progress(f"offset {old} → {target}" + ("" if self.previous is not None else " (new snapshot)"))

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _step(self, direction: int) -> None:
        assert self.timeline is not None and self.offset is not None
        end = self.ledger_app.workspace.ledger_end.value or self.offset
        self._progress(
            "looking for the previous change…" if direction < 0 else "looking for the next change…"
        )
        try:
            if direction < 0:
                target = await self.timeline.previous_change(self.offset)
            else:
                target = await self.timeline.next_change(self.offset, end)
        except errors.LedgerApiError as e:
            self._progress("")
            self.ledger_app.failures.show_error(e, "Cannot step through the history")
            return
        if target is None:
            self._progress("")
            self.notify(f"No change after offset {self.offset} up to the ledger end ({end}).", timeout=4)
            return
        self._move(target)

    def action_step(self, direction: int) -> None:
        if self.timeline is None or self.offset is None or self.reading:
            return
        self._step(direction)

    def action_ledger_end(self) -> None:
        if self.timeline is None or self.offset is None:
            return
        self._goto_end()

    @work(exclusive=True, group="acs-end", exit_on_error=False)
    async def _goto_end(self) -> None:
        end = await self.ledger_app.session.client.ledger_end()
        self.ledger_app.workspace.ledger_end.saw(end)
        if end == self.offset:
            self.notify(f"Already at the ledger end ({end}).", timeout=3)
            return
        self._move(end)

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
                if self.timeline is None:
                    return
                self._move(int(value))

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
        if self.offset is not None:
            self._reload(self.offset)

    @work(exclusive=True, group="acs-load", exit_on_error=False)
    async def _reload(self, offset: int) -> None:
        await self._load(offset)

    def action_escape(self) -> None:
        if self.reading:
            self.workers.cancel_group(self, "acs-load")
            self.reading = False
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
        fields = [(f"payload: {f}", f"payload.{f}") for f in await self._payload_fields()]
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

    async def _payload_fields(self) -> list[str]:
        """The payload fields of the templates in view, to sort by: each template's declared fields (once its
        package is read) in their order, then any other its contracts hold."""
        if self.snapshot is None:
            return []
        fields: dict[str, None] = {}
        for template in sorted(self.templates or await self.snapshot.store.template_ids())[:SORT_TEMPLATES]:
            fields.update(dict.fromkeys(self._declared_fields(template)))
            for payload in await self._sample(template):
                if isinstance(payload, dict):
                    fields.update(dict.fromkeys(payload))
        return list(fields)

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
        self.parties = None if "*" in chosen else [p for p in chosen if p != "*"]
        self.parties_chosen = True
        self.templates = frozenset()
        self._open_and_load(self.offset)

    @work(exclusive=True, group="acs-dialog", exit_on_error=False)
    async def action_columns(self) -> None:
        if self.snapshot is None or self._choices is None:
            return
        key = next(iter(self.templates)) if len(self.templates) == 1 else ALL_TEMPLATES
        sample = await self._sample(key) if key != ALL_TEMPLATES else []
        table = self.query_one(ContractTable)
        current = [c.key for c in table.columns]
        options = available(sample, self._declared_fields(key) if key != ALL_TEMPLATES else [])
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
        self._choices.set(key, keys or ["contract"])
        await self._rebuild(keep_cursor_on=table.selected.contract_id if table.selected else None)

    # --- rows -----------------------------------------------------------------------------------------------------

    @on(ContractTable.CursorMoved)
    def _cursor_moved(self, event: ContractTable.CursorMoved) -> None:
        row = event.row
        detail = self.query_one("#acs-detail", Static)
        if row is None:
            detail.update("")
            return
        parts = [template_name(row.template_id), f"created at offset {row.created_offset}"]
        location = row.location(party_hint)
        if row.in_flight:
            assert row.move is not None
            parts[1] = f"{location} (reassignment {shorten(row.move.reassignment_id, 16)}; 4 to complete it)"
        elif location:  # a state that an assignment began
            parts[1] = location
        if row.archived_offset is not None:
            parts.append(f"{'moved on' if row.moved_on else 'archived'} at offset {row.archived_offset}")
        if row.status == ADDED:
            parts.insert(0, f"+ active here, not at offset {self.previous}")
        elif row.status == REMOVED and self.offset is not None and row.created_offset > self.offset:
            parts.insert(
                0, f"- not yet created at offset {self.offset}: active at {self.previous} (for comparison)"
            )
        elif row.status == CHANGED:
            parts.insert(
                0, f"{row_mark(row)} elsewhere at offset {self.previous} (moved between synchronizers)"
            )
        elif row.status == REMOVED:
            parts.insert(0, f"- active at offset {self.previous}, not here (shown for comparison)")
        if row.workflow_id:
            parts.append(f"workflow {row.workflow_id}")
        detail.update(Content.assemble(plain(row.contract_id), "\n", plain(" · ".join(parts))))

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
        self._ask_export_path(str(Path.cwd() / f"contracts-at-{self.offset}.jsonl"))

    def _ask_export_path(self, value: str) -> None:
        """Ask where to export, starting from `value`; a file that exists is replaced only once the user says so,
        and saying no asks again from the path typed."""
        assert self.snapshot is not None
        contracts, gone = self.snapshot.views.view_contracts, self.snapshot.views.view_removed

        def check(text: str) -> str | None:
            if not text.endswith((".jsonl", ".csv")):
                return "the file name must end with .jsonl (JSON lines) or .csv"
            path = Path(text).expanduser()
            if path.is_dir():
                return f"{path} is a directory"
            return None if path.parent.is_dir() else f"no such directory: {path.parent}"

        def chosen(typed: str | None) -> None:
            if not typed:
                return
            path = Path(typed).expanduser()
            if not path.exists():
                self._export(path, overwrite=False)
                return

            def answered(overwrite: bool | None) -> None:
                if overwrite:
                    self._export(path, overwrite=True)
                else:
                    self._ask_export_path(typed)

            self.app.push_screen(
                ChoiceDialog(
                    f"{path} exists.",  # the dialog shows its title as plain text
                    [("Overwrite it", True), ("Cancel: choose another file", False)],
                ),
                answered,
            )

        self.app.push_screen(
            PromptDialog(
                f"Export the {counted(contracts, 'contract')} at offset {self.offset} to",
                value=value,
                validate=check,
                hint=".jsonl writes each contract's create event fields "
                "as JSON; .csv the columns in view, with full ids"
                + (
                    f"; the {counted(gone, 'struck-out row')} ({self._struck_out()}) are left out"
                    if gone
                    else ""
                ),
            ),
            chosen,
        )

    @work(exclusive=True, group="acs-export", exit_on_error=False)
    async def _export(self, path: Path, *, overwrite: bool) -> None:
        assert self.snapshot is not None
        table = self.query_one(ContractTable)
        fmt = "csv" if path.suffix == ".csv" else "jsonl"
        self._progress(f"exporting to {path.name}…")
        try:
            written = await self.snapshot.export.write(
                path, fmt, row_export_columns(table.columns), overwrite=overwrite
            )
        except OSError as e:
            self._progress("")
            self.notify(f"Cannot write {path}: {e.strerror or e}", severity="error", title="Export failed")
            return
        self._progress("")
        gone = self.snapshot.views.view_removed
        left_out = f"; not in it: {counted(gone, 'struck-out row')} ({self._struck_out()})" if gone else ""
        self.notify(
            f"Wrote the {counted(written, 'contract')} at offset {self.offset} to {path}{left_out}",
            title="Exported",
            timeout=6,
        )

    def select_contract(self, contract_id: str) -> None:
        """Put the cursor on a contract if it is in view (after an inspector or composer returns)."""
        self._select(contract_id)

    @work(group="acs-select", exit_on_error=False)
    async def _select(self, contract_id: str) -> None:
        if self.snapshot is None:
            return
        position = await self.snapshot.views.position_of(contract_id)
        if position is not None:
            self.query_one(ContractTable).move_to(position)

    def on_paste(self, event) -> None:
        text = event.text.strip()
        if looks_like_contract_id(text):
            self.post_message(OpenContract(text))


__all__ = ["AcsScreen"]
