"""The reassignment screen: move a contract to another synchronizer (unassign, then assign, followed through the
completions), assign a contract unassigned elsewhere, and complete the moves left half done."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from app.client import errors
from app.daml import looks_like_contract_id, party_hint, short_id, template_name
from app.ids import expand_prefix
from app.messages import IdentityChanged, OpenContract
from app.reassign import FAILED, SUBMITTED, SUBMITTING, SUCCEEDED, Reassigner, Step
from app.screens.base import LedgerScreen
from app.screens.id_help import could_begin_contract_id, expand_contract_id
from app.snapshot import UNASSIGNED, Row
from app.untrusted import visible
from app.widgets.form_row import LABEL_WIDTH, field_row
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.option_lists import PagedSelect
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain

STATE_TEXT = {
    SUBMITTING: "submitting…",
    SUBMITTED: "accepted, waiting for the outcome…",
    SUCCEEDED: "done",
    FAILED: "failed",
    "unknown": "outcome unknown",
}
STATE_STYLE = {SUCCEEDED: "green", FAILED: "red", "unknown": "yellow"}


class ReassignScreen(LedgerScreen):
    TITLE_TEXT = "Reassign"
    HELP = """\
**Reassign** moves contracts between the synchronizers the participant is connected to. A contract lives on one
synchronizer; it moves by an *unassign* on its source (it leaves it, its reassignment counter goes up by one) and an
*assign* on the target (it is active there again). Between the two it is *in flight*: no choice can be exercised on it.

- **Move a contract**: its id (from the contracts screen, `m` on a row, or pasted), the target synchronizer and the
  submitting party (a stakeholder you can act as). `ctrl+s` unassigns and then assigns with the reassignment id the
  unassign produced, following each step until it completes; `ctrl+b` only unassigns.
- **Assign**: a reassignment id (of an unassignment made elsewhere), its source and target; `ctrl+t` submits it.
- **In flight** (`ctrl+l` goes there): the contracts unassigned and not yet assigned, at the contracts screen's
  offset; `enter` on one completes it (assigns it to its target), `ctrl+r` brings the contracts screen to the ledger
  end and reads again.
- **Submissions**: each step of this session with its commandId and outcome: the offset where it completed, or
  Canton's error id and cause. Submitting is asynchronous: the participant accepts a reassignment at once and tells
  its outcome later, in the command completions, which this screen reads until the step ends.
"""

    BINDINGS = [
        Binding("ctrl+s", "move", "Move", id="reassign.move", priority=True),
        Binding("ctrl+b", "unassign", "Unassign only", id="reassign.unassign", priority=True),
        Binding("ctrl+t", "assign", "Assign", id="reassign.assign", priority=True),
        Binding("ctrl+l", "in_flight", "In flight", id="reassign.in_flight", priority=True),
        Binding("ctrl+r", "refresh", "Refresh", id="reassign.refresh", priority=True),
        Binding("escape", "back", "Leave field", id="reassign.back", show=False),
    ]

    DEFAULT_CSS = f"""
    ReassignScreen #reassign-main {{ height: 1fr; }}
    ReassignScreen #reassign-form {{ width: 64; padding: 0 1; }}
    ReassignScreen .title {{ text-style: bold; margin-top: 1; color: $accent; }}
    ReassignScreen .field-row {{ height: auto; margin-top: 1; }}
    ReassignScreen .field-label {{ width: {LABEL_WIDTH}; color: $text-muted; }}
    ReassignScreen .field-row Input, ReassignScreen .field-row Select {{ width: 1fr; }}
    ReassignScreen .buttons {{ height: auto; margin-top: 1; }}
    ReassignScreen .buttons Button {{ margin-right: 2; }}
    ReassignScreen #move-contract-info {{ height: auto; min-height: 2; color: $text-muted;
                                          padding-left: {LABEL_WIDTH}; }}
    ReassignScreen #reassign-side {{ width: 1fr; border-left: solid $panel; padding: 0 1; }}
    ReassignScreen #in-flight {{ height: 1fr; min-height: 6; }}
    ReassignScreen #submissions {{ height: 1fr; min-height: 6; }}
    ReassignScreen #reassign-banner {{ height: auto; padding: 0 1; background: $warning 20%; display: none; }}
    ReassignScreen #reassign-banner.shown {{ display: block; }}
    /* narrower than the form and a readable side pane: the two one above the other, scrolled together */
    ReassignScreen.-narrow #reassign-main {{ layout: vertical; overflow-y: auto; }}
    ReassignScreen.-narrow #reassign-form {{ width: 1fr; height: auto; }}
    ReassignScreen.-narrow #reassign-side {{ width: 1fr; height: auto; border-left: none; border-top: solid $panel; }}
    ReassignScreen.-narrow #in-flight, ReassignScreen.-narrow #submissions {{ height: auto; max-height: 12; }}
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[Step] = []
        self.in_flight: list[Row] = []
        self.contract: Row | None = (
            None  # the contract chosen to move, as the contracts screen's cache knows it
        )
        self.busy = False
        self.ready = False  # the synchronizers and parties to choose from are known
        self._pending: str | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="reassign")
        yield Static("", id="reassign-banner")
        with Horizontal(id="reassign-main"):
            with VerticalScroll(id="reassign-form"):
                yield Label("Move a contract", classes="title")
                yield field_row(
                    "contract",
                    FieldInput(
                        placeholder="00… (m on the contracts screen fills it)",
                        compact=True,
                        id="move-contract",
                    ),
                )
                yield Static("", id="move-contract-info")
                yield field_row(
                    "target", PagedSelect([], prompt="synchronizer", compact=True, id="move-target")
                )
                yield field_row(
                    "submitter",
                    PagedSelect([], prompt="a party you act as", compact=True, id="move-submitter"),
                )
                with Horizontal(classes="buttons"):
                    yield Button("Move ctrl+s", id="move-button", variant="primary", compact=True)
                    yield Button("Unassign only ctrl+b", id="unassign-button", compact=True)
                yield Label("Assign an unassigned contract", classes="title")
                yield field_row(
                    "reassign id",
                    FieldInput(
                        placeholder="reassignment id (hex, starts with 00)", compact=True, id="assign-id"
                    ),
                )
                yield field_row(
                    "source", PagedSelect([], prompt="synchronizer", compact=True, id="assign-source")
                )
                yield field_row(
                    "target", PagedSelect([], prompt="synchronizer", compact=True, id="assign-target")
                )
                yield field_row(
                    "submitter",
                    PagedSelect([], prompt="a party you act as", compact=True, id="assign-submitter"),
                )
                with Horizontal(classes="buttons"):
                    yield Button("Assign ctrl+t", id="assign-button", compact=True)
            with Vertical(id="reassign-side"):
                yield Label("In flight", id="in-flight-title", classes="title")
                yield DataTable(id="in-flight", cursor_type="row", zebra_stripes=True)
                yield Label("Submissions", classes="title")
                yield DataTable(id="submissions", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    # --- start and identity -------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        flight = self.query_one("#in-flight", DataTable)
        flight.add_columns("Contract", "Template", "From → to", "Ctr", "Reassignment id", "Submitter")
        subs = self.query_one("#submissions", DataTable)
        subs.add_columns("Step", "Contracts", "From → to", "Outcome", "Offset", "commandId")
        if self.readonly:
            banner = self.query_one("#reassign-banner", Static)
            banner.update("Read-only session: submitting is off.")
            banner.add_class("shown")
        self.follow(self.ledger_app.workspace.acs.subscribe, self._acs_moved)
        if self.ledger_app.connection.connected:
            self._start()
        self.query_one("#move-contract").focus()
        if self._pending is not None:
            self.choose(self._pending)

    @property
    def readonly(self) -> bool:
        return self.ledger_app.workspace.readonly

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self._start()

    def on_screen_resume(self) -> None:
        if self.ledger_app.connection.connected:
            self._refresh_in_flight()

    @work(exclusive=True, group="reassign-start", exit_on_error=False)
    async def _start(self) -> None:
        try:
            await self.ledger_app.session.read_synchronizers()
        except errors.LedgerApiError as e:
            self.ledger_app.failures.show_error(e, "Cannot list the connected synchronizers")
        self._fill_choices()
        self._refresh_in_flight()

    def _fill_choices(self) -> None:
        session = self.ledger_app.session
        synchronizers = [
            (f"{s.synchronizer_alias}  {short_id(s.synchronizer_id, 24)}", s.synchronizer_id)
            for s in session.synchronizers
        ]
        parties = [(party_hint(p), p) for p in session.identity.act_as]
        for select_id in ("#move-target", "#assign-source", "#assign-target"):
            self._set_options(select_id, synchronizers)
        for select_id in ("#move-submitter", "#assign-submitter"):
            self._set_options(select_id, parties)
            if len(parties) == 1:
                self.query_one(select_id, Select).value = parties[0][1]
        self.ready = True

    def _set_options(self, select_id: str, options: list[tuple[str, str]]) -> None:
        select = self.query_one(select_id, Select)
        value = select.value
        select.set_options((plain(label), v) for label, v in options)  # aliases and parties: not markup
        if value in {v for _, v in options}:
            select.value = value

    # --- choosing the contract ----------------------------------------------------------------------------------

    def choose(self, contract_id: str) -> None:
        """Put a contract in the move form (from the contracts screen or the inspector)."""
        if not self.is_mounted:
            self._pending = contract_id
            return
        self._pending = None
        field = self.query_one("#move-contract", Input)
        field.value = contract_id
        # the id's start, which is what the contracts screen shows of it (once the new value is laid out)
        self.call_after_refresh(setattr, field, "cursor_position", 0)
        self._look_up(contract_id)
        self.query_one("#move-target").focus()

    @on(Input.Changed, "#move-contract")
    def _contract_typed(self, event: Input.Changed) -> None:
        text = event.value.strip()
        if looks_like_contract_id(text):
            self._look_up(text)
        elif could_begin_contract_id(text):
            self._expand(text)
        else:
            self.contract = None
            self.query_one("#move-contract-info", Static).update(
                Content.styled("not a contract id: a long hex string starting with 00" if text else "", "red")
            )

    @work(exclusive=True, group="reassign-lookup", exit_on_error=False)
    async def _expand(self, typed: str) -> None:
        """A contract id's beginning: the contract it expands to, looked up as if typed whole."""
        found = await expand_contract_id(self.ledger_app, typed)
        if found.problem:
            self.contract = None
            self.query_one("#move-contract-info", Static).update(Content.styled(found.problem, "yellow"))
            return
        await self._show_contract(found.value, expanded_from=typed)

    @work(exclusive=True, group="reassign-lookup", exit_on_error=False)
    async def _look_up(self, contract_id: str) -> None:
        await self._show_contract(contract_id)

    async def _show_contract(self, contract_id: str, expanded_from: str = "") -> None:
        info = self.query_one("#move-contract-info", Static)
        snapshot = self.ledger_app.workspace.acs.snapshot
        row = await snapshot.views.latest(contract_id) if snapshot is not None else None
        self.contract = row
        if row is None:
            info.update(
                Content.styled(
                    "not among the contracts the contracts screen holds (its parties, its offsets): "
                    "the participant decides",
                    "yellow",
                )
            )
            return
        where = self._alias(row.synchronizer)
        # names and parties are the participant's: assembled as content, never read as markup
        if row.archived_offset is not None and row.kind != UNASSIGNED:
            state = Content.styled(f"archived at offset {row.archived_offset}", "red")
        elif row.in_flight:
            moving = row.location(self._alias)
            assert moving is not None  # a contract in flight is on its way between two synchronizers
            state = Content.assemble(
                plain(moving, "yellow"),
                ": ctrl+t completes it (the Assign form below is filled)",
            )
            self._fill_assign(row)
        else:
            counter = row.counter if row.counter is not None else "—"
            state = Content.assemble("on ", plain(where, "bold"), f" · reassignment counter {counter}")
        stakeholders = ", ".join(party_hint(p) for p in dict.fromkeys([*row.signatories, *row.observers]))
        expanded = (
            Content.assemble("→ ", plain(contract_id, "magenta"), "\n") if expanded_from else Content("")
        )
        info.update(
            Content.assemble(
                expanded,
                plain(template_name(row.template_id)),
                " · ",
                state,
                "\nstakeholders ",
                plain(stakeholders),
            )
        )
        self._default_choices(row)

    def _default_choices(self, row: Row) -> None:
        """The other synchronizer as the target, a stakeholder we act as as the submitter."""
        target = self.query_one("#move-target", Select)
        others = [
            s.synchronizer_id
            for s in self.ledger_app.session.synchronizers
            if s.synchronizer_id != row.synchronizer
        ]
        if others and (target.is_blank() or target.value == row.synchronizer):
            target.value = others[0]
        submitter = self.query_one("#move-submitter", Select)
        ours = self._ours(row)
        if ours and (submitter.is_blank() or submitter.value not in ours):
            submitter.value = ours[0]

    def _alias(self, synchronizer_id: str) -> str:
        for s in self.ledger_app.session.synchronizers:
            if s.synchronizer_id == synchronizer_id:
                return s.synchronizer_alias
        return party_hint(synchronizer_id) or "—"

    # --- in flight ----------------------------------------------------------------------------------------------

    def _acs_moved(self, _offset: int | None) -> None:
        self._refresh_in_flight()

    @work(exclusive=True, group="reassign-flight", exit_on_error=False)
    async def _refresh_in_flight(self) -> None:
        acs = self.ledger_app.workspace.acs
        title = self.query_one("#in-flight-title", Label)
        snapshot, offset = acs.snapshot, acs.viewing
        if snapshot is None or offset is None:
            title.update("In flight (the contracts screen has not read the contracts yet)")
            return
        rows = await snapshot.views.incomplete(offset)
        self.in_flight = rows
        title.update(plain(f"In flight at offset {offset} · {len(rows)} · enter completes one"))
        table = self.query_one("#in-flight", DataTable)
        table.clear()
        for row in rows:
            move = row.move
            table.add_row(
                *map(
                    _cell,
                    [
                        short_id(row.contract_id, 12),
                        template_name(row.template_id),
                        f"{self._alias(move.source)} → {self._alias(move.target)}" if move else "?",
                        "—" if row.counter is None else str(row.counter),
                        short_id(move.reassignment_id, 18) if move else "",
                        party_hint(move.submitter) if move and move.submitter else "",
                    ],
                )
            )
        if self.contract is not None:
            self._look_up(self.contract.contract_id)

    @on(DataTable.RowSelected, "#in-flight")
    def _complete_selected(self, event: DataTable.RowSelected) -> None:
        index = event.cursor_row
        if not 0 <= index < len(self.in_flight):
            return
        row = self.in_flight[index]
        if row.move is not None:
            self._fill_assign(row)
            self.action_assign()

    def _fill_assign(self, row: Row) -> None:
        """The Assign form, filled to complete an in-flight contract's move."""
        assert row.move is not None
        self.query_one("#assign-id", Input).value = row.move.reassignment_id
        known = {s.synchronizer_id for s in self.ledger_app.session.synchronizers}
        for select_id, value in (("#assign-source", row.move.source), ("#assign-target", row.move.target)):
            if value in known:
                self.query_one(select_id, Select).value = value
        ours = self._ours(row)
        if ours:
            self.query_one("#assign-submitter", Select).value = ours[0]

    def _ours(self, row: Row) -> list[str]:
        """The stakeholders of a contract this user acts as: who may submit its reassignment."""
        return [p for p in self.ledger_app.session.identity.act_as if p in (*row.signatories, *row.observers)]

    @on(DataTable.RowSelected, "#submissions")
    def _open_from_step(self, event: DataTable.RowSelected) -> None:
        index = event.cursor_row
        if 0 <= index < len(self.steps) and self.steps[index].contract_ids:
            self.post_message(OpenContract(self.steps[index].contract_ids[0]))

    def action_in_flight(self) -> None:
        self.query_one("#in-flight", DataTable).focus()

    def action_refresh(self) -> None:
        # the workspace's contracts move to the ledger end (the contracts screen draws them); In flight follows them
        self.ledger_app.workspace.acs_loader.to_ledger_end()
        self._refresh_in_flight()

    # --- submitting ---------------------------------------------------------------------------------------------

    def _refuse(self, message: str, field: str | None = None) -> None:
        self.notify(message, severity="warning", title="Cannot submit", timeout=6)
        if field is not None:
            self.query_one(field).focus()

    def _move_form(self) -> tuple[str, str, str, str] | None:
        contract_id = self.query_one("#move-contract", Input).value.strip()
        target = self.query_one("#move-target", Select)
        submitter = self.query_one("#move-submitter", Select)
        if self.contract is not None and self.contract.contract_id.startswith(contract_id) and contract_id:
            contract_id = self.contract.contract_id  # what the beginning typed expanded to
        if not looks_like_contract_id(contract_id):
            self._refuse("Enter the id of the contract to move.", "#move-contract")
            return None
        if target.is_blank():
            self._refuse("Choose the synchronizer to move it to.", "#move-target")
            return None
        if submitter.is_blank():
            self._refuse(
                "Choose the submitting party: a stakeholder of the contract you can act as.",
                "#move-submitter",
            )
            return None
        row = (
            self.contract if self.contract is not None and self.contract.contract_id == contract_id else None
        )
        source = row.synchronizer if row is not None and row.kind != UNASSIGNED else ""
        if not source:
            self._refuse(
                "Its synchronizer is not known here: choose the contract on the contracts screen "
                "(m), or assign it under Assign if it is in flight.",
                "#move-contract",
            )
            return None
        if source == target.value:
            self._refuse(f"It is on {self._alias(source)} already: choose another target.", "#move-target")
            return None
        return contract_id, source, str(target.value), str(submitter.value)

    def _can_submit(self) -> bool:
        if self.readonly:
            self.notify("Read-only session: reassignments are not submitted.", severity="warning", timeout=5)
            return False
        if not self.ledger_app.connection.connected:
            self.notify("Not connected to the participant yet.", severity="warning", timeout=4)
            return False
        if self.busy:
            self.notify("A reassignment is being followed: wait for its outcome.", timeout=4)
            return False
        return True

    def action_move(self) -> None:
        if self._can_submit() and (form := self._move_form()) is not None:
            self._submit_move(*form, assign=True)

    def action_unassign(self) -> None:
        if self._can_submit() and (form := self._move_form()) is not None:
            self._submit_move(*form, assign=False)

    def action_assign(self) -> None:
        if not self._can_submit():
            return
        reassignment_id = self.query_one("#assign-id", Input).value.strip()
        source = self.query_one("#assign-source", Select)
        target = self.query_one("#assign-target", Select)
        submitter = self.query_one("#assign-submitter", Select)
        if not reassignment_id:
            self._refuse(
                "Enter the reassignment id of the unassignment (or pick one under In flight).", "#assign-id"
            )
            return
        in_flight = {row.move.reassignment_id: row for row in self.in_flight if row.move is not None}
        found = expand_prefix(reassignment_id, in_flight, "reassignment")
        if found.ambiguous:
            self._refuse(f"{reassignment_id}: {found.problem} under In flight.", "#assign-id")
            return
        if found.expanded:  # the beginning of one in flight: that one, its synchronizers filled in
            self._fill_assign(in_flight[found.value])
            self.notify(found.note(), title="Expanded", timeout=5)
            reassignment_id = found.value
        for select, what in ((source, "source"), (target, "target"), (submitter, "submitter")):
            if select.is_blank():
                self._refuse(f"Choose the {what}.", f"#{select.id}")
                return
        self._submit_assign(reassignment_id, str(source.value), str(target.value), str(submitter.value))

    @on(Button.Pressed, "#move-button")
    def _move_pressed(self) -> None:
        self.action_move()

    @on(Button.Pressed, "#unassign-button")
    def _unassign_pressed(self) -> None:
        self.action_unassign()

    @on(Button.Pressed, "#assign-button")
    def _assign_pressed(self) -> None:
        self.action_assign()

    def _reassigner(self) -> Reassigner:
        session = self.ledger_app.session
        return Reassigner(session.client, session.identity.user_id or "", self._step_changed)

    @work(exclusive=True, group="reassign-submit", exit_on_error=False)
    async def _submit_move(
        self, contract_id: str, source: str, target: str, submitter: str, *, assign: bool
    ) -> None:
        self.busy = True
        try:
            reassigner = self._reassigner()
            if assign:
                steps = await reassigner.move([contract_id], source, target, submitter)
            else:
                steps = [await reassigner.unassign([contract_id], source, target, submitter)]
        finally:
            self.busy = False
        last = steps[-1]
        if last.state == SUCCEEDED:
            where = self._alias(target)
            self.notify(
                f"{short_id(contract_id, 16)} is on {where} now."
                if assign
                else f"{short_id(contract_id, 16)} left {self._alias(source)}: in flight to {where} until "
                f"assigned (reassignment {short_id(last.reassignment_id, 16)}).",
                title="Moved" if assign else "Unassigned",
                timeout=6,
            )
        self._after_submission()

    @work(exclusive=True, group="reassign-submit", exit_on_error=False)
    async def _submit_assign(self, reassignment_id: str, source: str, target: str, submitter: str) -> None:
        self.busy = True
        try:
            step = await self._reassigner().assign(reassignment_id, source, target, submitter)
        finally:
            self.busy = False
        if step.state == SUCCEEDED:
            self.query_one("#assign-id", Input).value = ""
            self.notify(f"Assigned to {self._alias(target)}.", title="Assigned", timeout=5)
        self._after_submission()

    def _after_submission(self) -> None:
        # the workspace's contracts move to where things are now (the contracts screen draws them); In flight follows
        self.ledger_app.workspace.acs_loader.to_ledger_end()

    def _step_changed(self, step: Step) -> None:
        if step not in self.steps:
            self.steps.append(step)
        self._show_steps()
        if step.done and step.state != SUCCEEDED:
            if step.error is not None and step.state == FAILED:
                refused = isinstance(step.error, errors.StatusError)
                self.ledger_app.failures.show_error(
                    step.error, f"The {step.kind} was {'refused' if refused else 'not submitted'}"
                )
            else:
                title = (
                    f"{step.error_id} · {step.kind} failed" if step.error_id else f"{step.kind}: {step.state}"
                )
                self.notify(step.cause or "no cause given", title=title, severity="error", timeout=12)

    def _show_steps(self) -> None:
        table = self.query_one("#submissions", DataTable)
        table.clear()
        for step in self.steps:
            outcome = STATE_TEXT.get(step.state, step.state)
            if step.state == FAILED:
                outcome = f"{step.error_id or 'failed'}: {step.cause}"
            elif step.state == SUCCEEDED and step.kind == "unassign" and step.reassignment_id:
                outcome = f"done · reassignment {short_id(step.reassignment_id, 14)}"
            style = STATE_STYLE.get(step.state, "")
            table.add_row(
                _cell(step.kind),
                _cell(", ".join(short_id(c, 10) for c in step.contract_ids) or "—"),
                _cell(f"{self._alias(step.source)} → {self._alias(step.target)}"),
                _cell(outcome, style),
                _cell("" if step.offset is None else str(step.offset)),
                _cell(step.command_id),
            )

    def action_back(self) -> None:
        if self.focused is not None:
            self.set_focus(None)
        else:
            self.ledger_app.routes.go("contracts")


__all__ = ["ReassignScreen"]


def _cell(text: str, style: str = "") -> Text:
    """A table cell: DataTable reads a `str` as markup, and the text quotes the participant."""
    return Text(visible(text), style=style)
