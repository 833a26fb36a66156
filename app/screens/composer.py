"""The command composer: build a command with completion from what the ledger shows, see the exact request, submit
it and read the transaction — or the rejection, with everything typed kept."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import partial

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Static, TabbedContent, TabPane

from app.catalog import Catalog
from app.client import errors
from app.client.errors import LedgerApiError
from app.client.ledger import request_body
from app.compose.commands import (
    KINDS,
    CommandForm,
    InvalidForm,
    Problem,
    as_curl,
    build,
    default_user_id,
    new_command_id,
    parties_without_rights,
    pretty_json,
    transaction_format,
)
from app.compose.history import History, HistoryEntry, error_id
from app.daml import party_hint
from app.messages import ComposeCommand, IdentityChanged
from app.packages import PackageCatalog
from app.screens.base import LedgerScreen
from app.screens.command_history import HistoryDialog
from app.screens.dialogs import ChoiceDialog
from app.screens.id_help import expand_contract_id
from app.widgets.command_form import CommandEditor
from app.widgets.completing_input import CompletingInput
from app.widgets.json_editor import JsonEditor
from app.widgets.keys import KeyFooter
from app.widgets.request_preview import RequestPreview
from app.widgets.status_bar import StatusBar
from app.widgets.transaction_result import TransactionResult, failure_context
from participant.api import JsCommands

log = logging.getLogger("ledger_tui")

PREVIEW_DELAY_S = 0.2  # the preview follows typing, a little behind it


@dataclass(frozen=True)
class Checked:
    """A command built from the form, with the parties the user's rights do not cover: reckoned once, when the form
    is checked, and carried to the confirmation and to the failure's explanation."""

    commands: JsCommands
    outside_rights: list[str]


@dataclass(frozen=True)
class Committed:
    """A command that succeeded, and where."""

    commands: JsCommands
    offset: int

    def repeated_by(self, commands: JsCommands) -> bool:
        """`commands` is this command again: every field the same but the commandId, which is renewed after each
        success (so a second submit would run it anew, not be deduplicated)."""
        return commands.model_copy(update={"command_id": ""}) == self.commands.model_copy(
            update={"command_id": ""}
        )


class ComposerScreen(LedgerScreen):
    TITLE_TEXT = "Compose"
    HELP = """\
**Compose** builds a command, shows the exact request, submits it and shows the transaction it made.

- **Kind** (`ctrl+t` cycles): CreateAndExercise, Create, Exercise (a choice on a contract id), ExerciseByKey.
- **Template**: type or pick (`↓`) a template of any package the participant has (or seen on the ledger), in the
  `#package-name:Module:Entity` form; the right arrow takes the inline completion. For a create, the arguments
  start from the newest active contract of that template, with its signatories set to the acting party.
- **Typed forms**: once the packages are read, the arguments are a form with one input per field, by type. A
  Party completes from the known parties (`Alice` stands for the one party named so); a ContractId lists the
  active contracts of its template (`↓`), or takes a pasted id; an Optional is `none`/`some` (space toggles);
  a list or a map adds (`+ add`), moves (`↑` `↓`) and removes (`✕`) its items; a variant chooses its
  constructor, then shows its fields; Numeric, Date and Time are checked as you type. Each problem is shown
  under its field with its path, and nothing is submitted while one remains. **`F2`** switches to the JSON of
  the same value and back (what was typed is kept both ways). Without the packages (or for a package the
  bundled participant defines in Python) the arguments are JSON, as below.
- **Choice**: the template's choices and its interfaces' (from its package), else those seen exercised on it,
  and Archive; without a form, the argument starts as last exercised.
- **JSON editors** check as you type: an error shows its line and column under the editor, and nothing is
  submitted until every editor parses (`ctrl+g` goes to the first problem, `ctrl+f` indents the JSON).
- **actAs / readAs**: your rights' parties are offered; a bare name (`Alice`) stands for the one known party with
  that name. Parties outside your rights are flagged, and submitting asks first: the participant decides.
- **Preview** (`ctrl+r`) shows the request body exactly as sent and the same request as curl (`ctrl+y` copies it,
  the token as `$LEDGER_TOKEN`). The **Advanced** section holds userId, workflowId, deduplication, minimum ledger
  time, synchronizer, package preference, submissionId and disclosed contracts.
- **Submit** (`ctrl+s`): the events of the transaction appear under Result; enter opens a contract in the
  inspector. A rejection shows Canton's error id, category and cause and what to do, and keeps the form. After a
  success the commandId is renewed (`ctrl+n` renews it any time), and submitting the same command again asks
  first (no, unless you choose yes).
- **History** (`ctrl+l`): every submitted command; enter recalls one as it was, `r` with a fresh commandId.
- **Focus**: choosing a template or a choice (enter, or a pick) moves to the first field still to fill, as `x`,
  `n` and a recall open there; what you type while that form is built goes into it. In a typed form the bottom
  line gives the focused row's full path. In a field `ctrl+u` clears it (`U`, outside a field, acts as another
  user).
- `escape` leaves the field you are in (then `1`, `2`, `3` switch screens); again, back to the contracts.
"""

    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", id="composer.submit", priority=True),
        Binding("ctrl+r", "preview", "Preview/Result", id="composer.preview", priority=True),
        Binding("ctrl+y", "copy_curl", "Copy curl", id="composer.curl", priority=True),
        Binding("ctrl+l", "history", "History", id="composer.history", priority=True),
        Binding("ctrl+n", "new_command_id", "New id", id="composer.new_id", priority=True),
        Binding("ctrl+t", "next_kind", "Kind", id="composer.kind", priority=True),
        Binding("f2", "toggle_view", "Form/JSON", id="composer.view", priority=True),
        Binding("ctrl+g", "goto_problem", "Go to problem", id="composer.problem", show=False, priority=True),
        Binding("ctrl+f", "format_json", "Indent JSON", id="composer.format", show=False, priority=True),
        Binding("escape", "back", "Leave field", id="composer.back", show=False),
    ]

    DEFAULT_CSS = """
    ComposerScreen #composer-banner { height: auto; padding: 0 1; background: $warning 20%; display: none; }
    ComposerScreen #composer-banner.shown { display: block; }
    ComposerScreen #composer-main { height: 1fr; }
    ComposerScreen CommandEditor { width: 55%; min-width: 60; }
    ComposerScreen #composer-output { width: 1fr; border-left: solid $panel; }
    ComposerScreen #composer-output TabPane { padding: 0; height: 1fr; }
    /* too narrow for the form and the preview side by side: the preview and the result under the form */
    ComposerScreen.-narrow #composer-main { layout: vertical; }
    ComposerScreen.-narrow CommandEditor { width: 1fr; min-width: 0; height: 3fr; }
    ComposerScreen.-narrow #composer-output { width: 1fr; height: 2fr; min-height: 10; border-left: none;
                                              border-top: solid $panel; }
    /* a short terminal: the form has the room, the preview its first lines (ctrl+r shows the result there) */
    ComposerScreen.-narrow.-short CommandEditor { height: 1fr; }
    ComposerScreen.-narrow.-short #composer-output { height: 8; min-height: 0; }
    /* the body has the room: ctrl+y still copies the curl */
    ComposerScreen.-narrow #preview-curl, ComposerScreen.-narrow #preview-curl-title { display: none; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    def __init__(self) -> None:
        super().__init__()
        self.catalog: Catalog | None = None
        self.packages: PackageCatalog | None = None
        self.history: History | None = None
        self.problems: list[Problem] = []
        self.submitting = False
        self._marking = False  # fields are marked once a submit or copy was refused, then follow the typing
        self._preview_timer: Timer | None = None
        self._pending: ComposeCommand | None = None
        self._result_of: tuple[str, ...] | None = None  # the command the Result pane shows the outcome of
        # what the form commanded when opened, last submitted or recalled
        self._sent: tuple[str, ...] | None = None
        self._committed: Committed | None = (
            None  # the last command that succeeded, to catch a repeat by mistake
        )

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="compose")
        yield Static("", id="composer-banner")
        with Horizontal(id="composer-main"):
            yield CommandEditor(id="composer-form")
            with TabbedContent(id="composer-output", initial="preview-tab"):
                with TabPane("Preview", id="preview-tab"):
                    yield RequestPreview(id="preview")
                with TabPane("Result", id="result-tab"):
                    yield TransactionResult(id="result")
        yield KeyFooter()

    @property
    def editor(self) -> CommandEditor:
        return self.query_one(CommandEditor)

    @property
    def readonly(self) -> bool:
        return self.ledger_app.workspace.readonly

    # --- start and identity -------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.history = History(self.ledger_app.locations.history_file)
        self.editor.set_command_id(new_command_id())
        self.editor.contract_expander = partial(expand_contract_id, self.ledger_app)
        self.follow(self.ledger_app.workspace.subscribe_packages, self._packages_read)
        if self.readonly:
            banner = self.query_one("#composer-banner", Static)
            banner.update("Read-only session: submitting is off. The preview and copy as curl work.")
            banner.add_class("shown")
        self._sent = _command_of(self.editor.state())
        if self.ledger_app.connection.connected:
            self._start()
        # focused now, not deferred as focus() is: a prefill that comes at once (`x` or `n` before Compose was
        # shown) moves the focus on, and a deferred focus here would take it back to the template after that
        self.set_focus(self.query_one("#template", CompletingInput).input)
        if self._pending is not None:
            self.prefill(self._pending)

    def unsent(self) -> str:
        if self._sent is None or _command_of(self.editor.state()) == self._sent:
            return ""
        form = self.editor.state()
        what = " ".join(part for part in (form.kind, form.template_id, form.choice) if part)
        return f"Compose holds a command not submitted since it changed: {what}."

    def _start(self) -> None:
        """(Re)start for the session's identity: completion from what this user sees, the user's own party."""
        session = self.ledger_app.session
        untouched = not self.unsent()
        if self.catalog is None:
            self.catalog = Catalog(session)
        else:
            self.catalog.forget_examples()
        self.editor.adopt(session, self.catalog)
        self._read_packages()  # the list again (cheap: from the cache): a DAR may have been uploaded since
        if untouched:  # the user's own party filled in is no command of theirs
            self._sent = _command_of(self.editor.state())
        self._survey()
        self._schedule_preview(0)

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self._start()

    def on_screen_resume(self) -> None:
        if self.catalog is not None:
            self._survey()

    @work(exclusive=True, group="composer-survey", exit_on_error=False)
    async def _survey(self) -> None:
        assert self.catalog is not None
        try:
            await self.catalog.survey()
        except LedgerApiError as e:  # completion is a help: the form works without it
            log.info("composer: reading the ledger for completion failed: %s", e.message)
            return
        self.editor.show_choices()

    @work(exclusive=True, group="composer-packages", exit_on_error=False)
    async def _read_packages(self) -> None:
        """The participant's packages, for completion and typed forms: the workspace's, read once per connection for
        every screen."""
        packages = await self.ledger_app.workspace.read_packages(again=True)
        if (
            packages is not self.packages
        ):  # no new reading: the workspace told the others before this one followed
            self._packages_read(packages)

    def _packages_read(self, packages: PackageCatalog) -> None:
        """A new reading of the packages, whichever screen asked: their templates complete here at once, even while
        another screen is shown (a DAR uploaded meanwhile is offered without coming back first)."""
        self.packages = self.editor.packages = packages
        self.editor.offer_forms()
        self.editor.show_choices()

    @on(CommandEditor.Edited)
    def _edited(self) -> None:
        self._schedule_preview()

    # --- building and previewing --------------------------------------------------------------------------------

    def _build(self) -> JsCommands:
        if not self.ledger_app.connection.connected:
            raise InvalidForm([Problem("participant", "not connected yet")])
        session = self.ledger_app.session
        return build(
            self.editor.state(),
            default_user_id=default_user_id(session.identity),
            known_parties=self.editor.parties(),
            value_problems=self.editor.typed_problems(),
        )

    def _schedule_preview(self, delay: float = PREVIEW_DELAY_S) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(delay, self.refresh_preview)

    def refresh_preview(self) -> Checked | None:
        """Build the command from the form and show its request (or its problems); None when it has problems."""
        previews = self.query(RequestPreview)
        if not previews:  # the screen is being taken down (the app quits) while a preview was due
            return None
        preview = previews.first()
        if self._result_of is not None and _command_of(self.editor.state()) != self._result_of:
            self.query_one(TransactionResult).mark_earlier()  # the result stays, said to be another command's
        try:
            commands = self._build()
        except InvalidForm as e:
            self.problems = e.problems
            preview.show_problems(e.problems)
            if self._marking:
                self.editor.mark(e.problems)
            self.editor.note_outside_rights([])
            return None
        self.problems = []
        self._marking = False
        self.editor.mark([])
        body = request_body(commands, transaction_format(commands))
        client = self.ledger_app.session.client
        preview.show_request(body, as_curl(client.base_url, body, authorized=client.tokens is not None))
        checked = Checked(commands, parties_without_rights(commands, self.ledger_app.session.identity))
        self.editor.note_outside_rights(checked.outside_rights)
        return checked

    def _refuse(self, what: str) -> None:
        self._marking = True
        self.editor.mark(self.problems)
        self.query_one(TabbedContent).active = "preview-tab"
        first = self.problems[0]
        self.notify(
            f"{first}" + (f"\n(and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""),
            title=f"Not {what}: fix the form first",
            severity="warning",
            timeout=6,
        )
        self.editor.focus_problem(first)

    def action_preview(self) -> None:
        """Show the preview; from the preview, the last result (when there is one)."""
        tabs = self.query_one(TabbedContent)
        result = self.query_one(TransactionResult)
        if tabs.active == "preview-tab" and (result.has_class("-ok") or result.has_class("-failed")):
            tabs.active = "result-tab"
            result.focus_events()
            return
        tabs.active = "preview-tab"
        self.refresh_preview()

    def action_copy_curl(self) -> None:
        if self.refresh_preview() is None:
            self._refuse("copied")
            return
        self.app.copy_to_clipboard(self.query_one(RequestPreview).curl)
        self.notify("Copied the request as curl; it reads the token from $LEDGER_TOKEN.", timeout=4)

    def action_goto_problem(self) -> None:
        self.refresh_preview()
        if self.problems:
            self.editor.mark(self.problems)
            self.editor.focus_problem(self.problems[0])
        else:
            self.notify("The command has no problems.", timeout=3)

    def action_format_json(self) -> None:
        editor = JsonEditor.around(self.focused)
        if editor is None:
            self.notify("Put the cursor in a JSON editor to indent it.", timeout=3)
        elif not editor.reformat():
            self.notify("Only valid JSON can be indented.", severity="warning", timeout=3)

    def action_back(self) -> None:
        """Escape climbs out: first out of the field (then 1, 2, 3 switch screens), then back to the contracts."""
        if self.focused is not None:
            self.set_focus(None)
            self.notify("Out of the form: 1, 2, 3 switch screens; tab returns to the form.", timeout=3)
        else:
            self.ledger_app.routes.go("contracts")

    def action_new_command_id(self) -> None:
        self.editor.set_command_id(new_command_id())
        self.notify("A fresh commandId: submitting runs the command anew.", timeout=3)

    async def action_toggle_view(self) -> None:
        done = await self.editor.toggle_view()
        self.notify(
            done or "No typed form here: the template's package is not read (or defines it in Python).",
            timeout=4,
        )

    def action_next_kind(self) -> None:
        kind = self.editor.kind
        self.editor.set_kind(KINDS[(KINDS.index(kind) + 1) % len(KINDS)] if kind in KINDS else KINDS[0])

    # --- submitting ---------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit":
            if self.readonly:
                return False  # hidden: a read-only session never submits
            if self.submitting:
                return None  # shown disabled while one is in flight
        return True

    def action_submit(self) -> None:
        if self.readonly:
            self.notify(
                "This session is read-only: commands are not submitted. The preview and copy as curl work.",
                title="Read-only",
                severity="warning",
                timeout=6,
            )
            return
        if self.submitting:
            self.notify("A submission is in flight; wait for its outcome.", timeout=3)
            return
        checked = self.refresh_preview()
        if checked is None:
            self._refuse("submitted")
            return
        self.submitting = True
        self.refresh_bindings()
        form = self.editor.state()
        self._sent = _command_of(form)
        self._submit(checked, form)

    @work(exclusive=True, group="composer-submit", exit_on_error=False)
    async def _submit(self, checked: Checked, form: CommandForm) -> None:
        commands, outside = checked.commands, checked.outside_rights
        try:
            last = self._committed
            if last is not None and last.repeated_by(commands):
                again = await self.app.push_screen_wait(
                    ChoiceDialog(
                        "Submit the same command again?",
                        [("No, go back to the form", False), ("Yes, submit it again: it runs anew", True)],
                        selected=False,
                        hint=f"The form is the command committed at offset {last.offset}, unchanged but for "
                        "its fresh commandId: submitting it creates (or exercises) once more.",
                    )
                )
                if again is not True:
                    self.notify("Not submitted: the form is as it was.", timeout=3)
                    return
            if outside:
                go = await self.app.push_screen_wait(
                    ChoiceDialog(
                        f"Not in your rights: {', '.join(outside)}",
                        [("Submit anyway (the participant decides)", True), ("Go back to the form", False)],
                        selected=False,
                        hint="The user's rights do not include acting (or reading) as these parties; "
                        "the participant will likely answer 403 PERMISSION_DENIED.",
                    )
                )
                if go is not True:
                    return
            await self._send(commands, form, outside)
        finally:
            self.submitting = False
            self.refresh_bindings()

    async def _send(self, commands: JsCommands, form: CommandForm, outside_rights: list[str]) -> None:
        session = self.ledger_app.session
        result = self.query_one(TransactionResult)
        self.query_one(TabbedContent).active = "result-tab"
        result.show_progress(
            f"submitting {commands.command_id} as {', '.join(party_hint(p) for p in commands.act_as)}…"
        )
        entry = HistoryEntry.now(form, participant=session.client.base_url, user=session.identity.label)
        self._result_of = _command_of(form)
        try:
            transaction = await session.client.submit_and_wait_for_transaction(
                commands, transaction_format(commands)
            )
        except LedgerApiError as e:
            result.show_failure(e, commands.command_id, failure_context(e, outside_rights))
            self.ledger_app.failures.show_error(
                e,
                "The command was not executed"
                if isinstance(e, errors.StatusError)
                else "No answer to the submission",
            )
            entry.error = error_id(e)
            await self._remember(entry)
            return
        result.show_transaction(transaction)
        result.focus_events()  # enter opens a created contract; the form keeps everything for the next one
        if self.catalog is not None:
            self.catalog.learn(transaction.events)
        self.ledger_app.workspace.ledger_end.saw(transaction.offset)
        entry.ok, entry.update_id, entry.offset = True, transaction.update_id, transaction.offset
        self._committed = Committed(commands, transaction.offset)
        self.editor.forget_contracts()
        await self._remember(entry)
        self.editor.set_command_id(new_command_id())
        self.notify(f"Committed at offset {transaction.offset}. A fresh commandId is ready.", timeout=4)

    async def _remember(self, entry: HistoryEntry) -> None:
        if self.history is None:
            return
        try:
            await asyncio.to_thread(self.history.append, entry)
        except OSError as e:
            self.notify(
                f"Cannot write the command history {self.history.path}: {e.strerror or e}",
                severity="warning",
                timeout=6,
            )

    # --- history and prefill ------------------------------------------------------------------------------------

    @work(exclusive=True, group="composer-history", exit_on_error=False)
    async def action_history(self) -> None:
        assert self.history is not None
        try:
            entries = await asyncio.to_thread(self.history.load)
        except OSError as e:
            self.notify(f"Cannot read {self.history.path}: {e.strerror or e}", severity="error")
            return
        if not entries:
            self.notify(
                "No command submitted yet: submitted commands are kept here, with their outcome.", timeout=4
            )
            return
        chosen = await self.app.push_screen_wait(HistoryDialog(entries))
        if chosen is None:
            return
        entry, fresh = chosen
        form = CommandForm.from_dict(entry.form.to_dict())
        if fresh:
            form.command_id = new_command_id()
            form.submission_id = ""
        self.editor.load(form)
        self._new_form()
        self.editor.focus_when_built("template")
        self._sent = _command_of(form)
        self._committed = None  # a command recalled is chosen to run again: no question about it
        self.notify(
            "Recalled with a fresh commandId: ctrl+s runs it again."
            if fresh
            else "Recalled as it was, commandId included: if it succeeded, submitting it again is a "
            "DUPLICATE_COMMAND (ctrl+n for a fresh id).",
            timeout=5,
        )

    def prefill(self, message: ComposeCommand) -> None:
        """Start from a contract: exercise a choice on it, or create one like it."""
        if not self.is_mounted:
            self._pending = message
            return
        self._pending = None
        form = self.editor.state()
        form.kind = message.kind if message.kind in KINDS else KINDS[0]
        form.template_id = message.template_id
        form.contract_id = message.contract_id
        form.choice = message.choice
        form.choice_argument = ""
        form.command_id = new_command_id()
        arguments = "" if message.arguments is None else pretty_json(message.arguments)
        if form.kind == "ExerciseByKey":
            form.contract_key = arguments
        elif form.uses_create_arguments:
            form.create_arguments = arguments
        self.editor.load(form)
        self._new_form()
        self.editor.offer_skeleton()  # a create without arguments starts from the template's newest contract
        if message.choice:
            self.editor.offer_argument(message.choice)
        self.editor.focus_when_built("template")

    def _new_form(self) -> None:
        """A form loaded anew (a prefill, a recall): the problems and the result shown were another command's."""
        self.problems = []
        self._marking = False
        self.editor.mark([])
        self.query_one(TransactionResult).mark_earlier()
        self.query_one(TabbedContent).active = "preview-tab"
        self._schedule_preview(0)


def _command_of(form: CommandForm) -> tuple[str, ...]:
    """What a form commands, for telling whether it changed: not its ids, which are renewed without the user."""
    return tuple(
        value for name, value in form.to_dict().items() if name not in ("command_id", "submission_id")
    )
