"""The contract inspector: everything the participant says about one contract — its create event, its archive
event, its payload, and the transactions that created and archived it."""

from __future__ import annotations

import logging

import orjson
from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from app import daml_values as dv
from app.client import errors, event_format, update_format
from app.client.contracts import ContractLookup, interface_views, look_up_contract
from app.client.ledger import LEDGER_EFFECTS
from app.counting import count
from app.cut import shorten
from app.daml import package_name_ref, party_hint, template_name
from app.messages import ComposeCommand, IdentityChanged, MoveContract
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog, PromptDialog
from app.screens.id_help import expand_interface_id
from app.untrusted import visible
from app.value_types import ChoiceLine, ValueTypes, implemented
from app.widgets.contract_details import ContractDetails, Signature, banner, not_found
from app.widgets.keys import KeyFooter
from app.widgets.payload_tree import PayloadTree
from app.widgets.status_bar import StatusBar
from app.widgets.transaction_view import TransactionView, failure_message
from participant.api import CreatedEvent

CONTRACT, CREATED, ARCHIVED = "ins-contract", "ins-created", "ins-archived"

log = logging.getLogger(__name__)


class InspectorScreen(LedgerScreen):
    HELP = """\
**Inspector** shows one contract: every field of its create event, its archive event once archived (“Archived at
offset N”), and its payload as a tree. It asks the participant both ways it can: contract-by-id (3.5; the payload,
even of an archived contract) and events-by-contract-id (the real offsets, and whether it is archived).

In the payload, `space` or `enter` folds and unfolds, `e` unfolds everything, `c` copies the value under the
cursor, `enter` on a contract id opens that contract. Numbers show without the Decimal padding, parties and ids
short: `f` shows them in full everywhere. The JSON of a value carries no types, so the tree reads them from their
shape and says so where it is ambiguous: `null` is an Optional's None, an array of key-value pairs a GenMap, an
object whose keys are not field names a TextMap, and `[[x]]` may be `Some (Some x)` of an `Optional (Optional _)`.

`t` shows the transaction that created the contract, `a` the one that archived it, in LEDGER_EFFECTS shape: the
exercises with their choice, acting parties, argument and result, and the events each caused. `o` (or enter on an
id) opens any contract of it. `escape` goes back to the contract, and from there to where you came from.

`i` shows the contract through an interface its template implements: name the interface
(`#package-name:Module:Interface`) and its view joins the payload (“view IIou”). A participant cannot list the
interfaces a template implements, so the app remembers the ones named here and the ones it saw exercised, and asks
for their views whenever it shows a contract of that template.

`x` composes an exercise of a choice on this contract, `n` a new command with a copy of its payload. `y` copies
the contract id, `Y` the payload as JSON, `b` the created event blob (for disclosure).

Once the participant's packages are read, the payload shows each field's type, in the order the template declares
its fields; the events list the template's choices (consuming or not, argument, result) and the interfaces it
implements; `x` lets you pick one of those choices; exercise results are labelled with their choice's type.
"""

    BINDINGS = [
        Binding("escape", "back", "Back", id="inspector.back"),
        Binding("t", "transaction('created')", "Created by", id="inspector.created"),
        Binding("a", "transaction('archived')", "Archived by", id="inspector.archived"),
        Binding("x", "exercise", "Exercise", id="inspector.exercise"),
        Binding("n", "clone", "New from", id="inspector.clone"),
        Binding("m", "move", "Move", id="inspector.move"),
        Binding("i", "view", "Interface view", id="inspector.view"),
        Binding("f", "full_ids", "Full ids", id="inspector.full"),
        Binding("y", "copy_id", "Copy id", id="inspector.copy"),
        Binding("Y", "copy_payload", "Copy payload", id="inspector.copy_payload", show=False),
        Binding("b", "copy_blob", "Copy blob", id="inspector.copy_blob", show=False),
        Binding("r", "reload", "Reload", id="inspector.reload"),
    ]

    DEFAULT_CSS = """
    InspectorScreen #ins-banner { height: 1; padding: 0 1; background: $boost; text-wrap: nowrap;
                                  text-overflow: ellipsis; }
    InspectorScreen #ins-message { height: auto; padding: 1 2; }
    InspectorScreen #ins-body { height: 1fr; }
    InspectorScreen #ins-details { width: 45%; max-width: 72; min-width: 36; border: round $panel-lighten-2;
                                   border-title-color: $text-muted; }
    InspectorScreen PayloadTree { width: 1fr; }
    InspectorScreen .hidden { display: none; }
    InspectorScreen TabbedContent { height: 1fr; }
    InspectorScreen TabPane { padding: 0; }
    /* too narrow for the events and the payload side by side: one above the other */
    InspectorScreen.-narrow #ins-body { layout: vertical; }
    InspectorScreen.-narrow #ins-details { width: 1fr; max-width: 100%; height: 1fr; }
    InspectorScreen.-narrow PayloadTree { height: 1fr; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    def __init__(self, contract_id: str) -> None:
        super().__init__()
        self.contract_id = contract_id
        self.lookup: ContractLookup | None = None
        self.full_ids = False
        self._loaded: set[str] = set()  # transaction tabs read since the last reload
        self._where: Text | None = None  # where it is now, when it moved since its creation

    def compose(self) -> ComposeResult:
        yield StatusBar(mode=self.app.current_mode, crumb="Inspector")
        yield Static(banner(None, self.contract_id, self.full_ids), id="ins-banner")
        with TabbedContent(initial=CONTRACT):
            with TabPane("Contract", id=CONTRACT):
                yield Static("", id="ins-message")
                with Horizontal(id="ins-body", classes="hidden"):
                    with VerticalScroll(id="ins-details"):
                        yield ContractDetails()
                    yield PayloadTree()
            with TabPane("Created by", id=CREATED):
                yield TransactionView("Created by", id="ins-created-view")
            with TabPane("Archived by", id=ARCHIVED):
                yield TransactionView("Archived by", id="ins-archived-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#ins-details").border_title = "Events"
        self.follow(self.ledger_app.workspace.subscribe_packages, self._packages_read)
        self._load()

    def on_screen_resume(self) -> None:
        # another inspector may have read transactions that exercised choices of this template meanwhile
        if self.lookup is not None and self.lookup.found:
            self.query_one(ContractDetails).show(self.lookup, choices=self._choices_seen())

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self.action_reload()

    # --- the contract -------------------------------------------------------------------------------------------

    def _parties(self) -> list[str] | None:
        return self.ledger_app.session.identity.readable()

    @work(exclusive=True, group="inspector-load", exit_on_error=False)
    async def _load(self) -> None:
        self._banner()
        self._message(Text(f"Looking up contract {visible(self.contract_id)} …", style="dim"))
        parties = self._parties()
        if parties is not None and not parties:
            self._message(
                Text.assemble(
                    ("This user can read no party's contracts", "bold"),
                    ", so no contract is visible to it. U acts as another user (on the bundled participant).",
                )
            )
            return
        lookup = await look_up_contract(self.ledger_app.session.client, self.contract_id, parties)
        self.lookup = lookup
        if not lookup.found:
            self._message(not_found(lookup, parties))
            self._banner()
            return
        self._where = await self._location()
        self._show(lookup)
        event = lookup.event
        assert event is not None
        if not self.ledger_app.session.packages.has_read(event.template_id.partition(":")[0]):
            # not read yet, or uploaded since they were: read them (again: the cache makes it cheap)
            self._type_when_read(again=self.ledger_app.workspace.packages is not None)
        known = self.ledger_app.workspace.learned.interfaces_of(event.template_id, event.package_name)
        if known:
            self._load_views(known, asked=False)

    @work(exclusive=True, group="inspector-packages", exit_on_error=False)
    async def _type_when_read(self, *, again: bool) -> None:
        """Read the packages; the workspace tells `_packages_read`, which shows the types (the contract is shown
        without them meanwhile)."""
        before = self.ledger_app.workspace.packages
        if await self.ledger_app.workspace.read_packages(again=again) is before:
            self._packages_read(before)  # no new reading, so none told

    def _packages_read(self, _: object) -> None:
        lookup = self.lookup
        if lookup is not None and lookup.found:
            self._show_values(lookup)

    def _types(self) -> ValueTypes | None:
        catalog = self.ledger_app.workspace.packages
        return ValueTypes(catalog.packages) if catalog is not None else None

    def _choice_lines(self, types: ValueTypes | None, template_id: str) -> list[ChoiceLine] | None:
        """The choices of the contract's template and of the interfaces it implements; None when its package is
        not read."""
        template = types.template(template_id) if types is not None else None
        if types is None or template is None:
            return None
        return types.choice_lines(template, {i: types.interface(i) for i in implemented(template)})

    def _signature(self, types: ValueTypes | None, template_id: str) -> Signature | None:
        choices = self._choice_lines(types, template_id)
        template = types.template(template_id) if types is not None else None
        if choices is None or template is None:
            return None
        return Signature(choices, [template_name(i) for i in implemented(template)])

    def _implemented_refs(self, template_id: str) -> list[str]:
        """The interfaces the template's package says it implements, in the ``#package-name`` form."""
        catalog = self.ledger_app.workspace.packages
        template = catalog.template_of(template_id) if catalog is not None else None
        if catalog is None or template is None:
            return []
        return [
            f"#{catalog.packages[ref.package_id].name}:{ref.qualified_name}"
            for ref in template.implements
            if ref.package_id in catalog.packages
        ]

    def worker_failed(self, worker) -> None:
        if worker.group == "inspector-load":
            # the notification says why; the screen stops saying it is looking
            self._message(
                Text(f"Looking up contract {self.contract_id} failed. escape goes back.", style="dim")
            )

    async def _location(self) -> Text | None:
        """Where the contract is now, when it has moved since it was created (from the contracts screen's cache)."""
        acs = self.ledger_app.workspace.acs
        if acs.snapshot is None:
            return None
        row = await acs.snapshot.views.latest(self.contract_id)
        location = None if row is None else row.location(party_hint)
        if row is None or location is None:
            return None
        if row.in_flight:
            return Text(
                f"{visible(location)} (reassignment counter {row.counter}); m completes the move",
                style="yellow",
            )
        return Text(f"{visible(location)} (reassignment counter {row.counter}), as of offset {acs.viewing}")

    def _show(self, lookup: ContractLookup) -> None:
        event = lookup.event
        assert event is not None
        self.query_one("#ins-message").add_class("hidden")
        self.query_one("#ins-body").remove_class("hidden")
        self._show_values(lookup)
        tree = self.query_one(PayloadTree)
        self._banner()
        active = self.query_one(TabbedContent).active
        if active == CONTRACT:
            tree.focus()
        elif active not in self._loaded:
            self._load_transaction(active)
        if lookup.created is None and lookup.events_error is not None:
            pruned = (
                f" (the participant is pruned up to offset {lookup.pruned_offset})"
                if lookup.pruned_offset
                else ""
            )
            self.notify(
                f"contract-by-id has its payload, but its events were not found{pruned}: the offsets and "
                "whether it is archived are not known.",
                title="Events not found",
                severity="warning",
                timeout=8,
            )

    def _show_values(self, lookup: ContractLookup) -> None:
        """The events and the payload, typed where the packages read say how."""
        event = lookup.event
        assert event is not None
        types = self._types()
        self.query_one(ContractDetails).show(
            lookup,
            choices=self._choices_seen(),
            full_ids=self.full_ids,
            where=self._where,
            signature=self._signature(types, event.template_id),
        )
        tree = self.query_one(PayloadTree)
        tree.full_ids = self.full_ids
        tree.types = types
        if types is None:
            tree.show(event)
            return
        view_types = {v.interface_id: types.view_type(v.interface_id) for v in event.interface_views}
        tree.show(
            event,
            argument_type=types.template_type(event.template_id),
            key_type=types.key_type(event.template_id),
            view_types={i: t for i, t in view_types.items() if t is not None},
        )

    def _message(self, text: Text | Group) -> None:
        message = self.query_one("#ins-message", Static)
        message.update(text)
        message.remove_class("hidden")
        self.query_one("#ins-body").add_class("hidden")

    def _banner(self) -> None:
        self.query_one("#ins-banner", Static).update(banner(self.lookup, self.contract_id, self.full_ids))

    def _choices_seen(self) -> set[str]:
        event = self.lookup.event if self.lookup else None
        if event is None:
            return set()
        return self.ledger_app.workspace.learned.choices_of(event.template_id, event.package_name)

    # --- interface views ----------------------------------------------------------------------------------------

    def _loaded_event(self, what: str = "") -> CreatedEvent | None:
        """The create event shown, or None after saying the contract is not loaded (`what`: what cannot be done)."""
        event = self.lookup.event if self.lookup else None
        if event is None:
            self.notify(
                f"{what}the contract is not loaded." if what else "The contract is not loaded.",
                severity="warning",
                timeout=3,
            )
        return event

    def action_view(self) -> None:
        if (event := self._loaded_event()) is not None:
            self._ask_view(event, "")

    def _ask_view(self, event: CreatedEvent, typed: str) -> None:
        learned = self.ledger_app.workspace.learned
        known = sorted(set(learned.known_interfaces()) | set(self._implemented_refs(event.template_id)))
        module = package_name_ref(event.template_id, event.package_name).rpartition(":")[0]
        shown = {v.interface_id for v in event.interface_views}

        def check(text: str) -> str | None:
            parts = text.split(":")
            if len(parts) < 3 or not all(parts):
                return "an interface id is #package-name:Module:Interface"
            found = expand_interface_id(self.ledger_app, text)
            if found.ambiguous:
                return f"package {parts[0]}: {found.problem}"
            if learned.interface_ref(found.value) is None:
                return f"filters take the #package-name form, and the name of package {shorten(parts[0], 12)} is not known"
            return None

        def chosen(value: str | None) -> None:
            if value:
                found = expand_interface_id(self.ledger_app, value)
                if found.expanded:
                    self.notify(found.note(), title="Expanded", timeout=5)
                self._load_views([found.value], asked=True)

        hint = " ".join(
            ["The participant computes the view."]
            + ([f"Shown already: {', '.join(template_name(i) for i in sorted(shown))}."] if shown else [])
            + (["→ takes the suggested interface."] if known else [])
            + ["A package id's beginning is enough (once the packages are read)."]
        )
        self.app.push_screen(
            PromptDialog(
                f"Show {template_name(event.template_id)} through an interface",
                value=typed or (known[0] if len(known) == 1 else f"{module}:"),
                placeholder="#package-name:Module:Interface",
                hint=hint,
                validate=check,
                suggestions=known,
                select_on_focus=False,
            ),
            chosen,
        )

    @work(group="inspector-views", exit_on_error=False)
    async def _load_views(self, interfaces: list[str], *, asked: bool) -> None:
        """Ask for the views of `interfaces`; `asked`: named by the user just now (say what came of it and
        remember it), else remembered for this template (failures only logged: the contract is shown already)."""
        lookup = self.lookup
        event = lookup.event if lookup else None
        if lookup is None or event is None:
            return
        session, learned = self.ledger_app.session, self.ledger_app.workspace.learned
        refs = [learned.interface_ref(i) or i for i in interfaces]
        name = template_name(event.template_id)
        try:
            views = await interface_views(session.client, self.contract_id, self._parties(), refs)
        except errors.LedgerApiError as e:
            if asked:
                self.ledger_app.failures.show_error(e, f"The view of {', '.join(refs)} was not computed.")
                self._ask_view(event, interfaces[0])  # keep what was typed, to be corrected
            else:
                log.info("views of %s not read: %s", refs, e.message)
            return
        if self.lookup is not lookup:
            return  # reloaded meanwhile; the reload asks again
        lookup.add_views(views)
        if asked:  # the others came from what the session knows already
            if views:
                learned.note_interface(event.template_id, event.package_name, refs[0])
                failed = [v for v in views if v.view_status.code != 0]
                self.notify(
                    f"{name} through {template_name(views[0].interface_id)}: "
                    + (
                        f"the view failed ({failed[0].view_status.message})"
                        if failed
                        else "its view is in the payload, and will be for every contract of this template."
                    ),
                    severity="warning" if failed else "information",
                    timeout=5,
                )
            else:
                self.notify(
                    f"{name} does not implement {refs[0]}: the participant computed no view.",
                    severity="warning",
                    timeout=6,
                )
        self._show(lookup)

    # --- the transactions ---------------------------------------------------------------------------------------

    def action_transaction(self, which: str) -> None:
        self._switch_to(CREATED if which == "created" else ARCHIVED)

    def _switch_to(self, pane: str) -> None:
        # the focused widget of the pane left behind would pull the tabs back to its pane
        self.set_focus(None)
        self.query_one(TabbedContent).active = pane

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane in (CREATED, ARCHIVED):
            view = self._view(pane)
            if pane not in self._loaded:
                self._load_transaction(pane)
            if view.transaction is not None:
                view.transaction_tree.focus()
        elif pane == CONTRACT and self.lookup is not None and self.lookup.found:
            self.query_one(PayloadTree).focus()

    def _view(self, pane: str) -> TransactionView:
        return self.query_one(f"#{pane}-view", TransactionView)

    @work(group="inspector-tx", exit_on_error=False)
    async def _load_transaction(self, pane: str) -> None:
        view = self._view(pane)
        lookup = self.lookup
        if lookup is None or not lookup.found:
            view.show_message(Text("The contract is not loaded: nothing to show.", style="dim"))
            return
        if pane == CREATED:
            if lookup.created is None:
                view.show_message(
                    Text(
                        "The offset of the creating transaction is not known: the contract's events "
                        "were not found (contract-by-id does not report offsets).",
                        style="dim",
                    )
                )
                return
            offset = lookup.created.offset
        else:
            if lookup.archived is None:
                view.show_message(
                    Text(
                        "This contract is active: no transaction archived it (yet)."
                        if lookup.active
                        else "Whether this contract is archived is not known.",
                        style="dim",
                    )
                )
                return
            offset = lookup.archived.offset
        self._loaded.add(pane)
        view.show_message(Text(f"Reading the transaction at offset {offset} …", style="dim"))
        session = self.ledger_app.session
        fmt = update_format(event_format(self._parties()), LEDGER_EFFECTS)
        try:
            update = await session.client.update_at(offset, fmt)
        except errors.LedgerApiError as e:
            self._loaded.discard(pane)
            view.show_message(await self._transaction_failure(e, offset))
            return
        if update.transaction is None:
            kind = "a reassignment" if update.reassignment is not None else "not a transaction"
            view.show_message(Text(f"The update at offset {offset} is {kind}.", style="dim"))
            return
        transaction = update.transaction.value
        self.ledger_app.workspace.learned.note_transaction(transaction)
        view.transaction_tree.types = self._types()
        view.set_full_ids(self.full_ids)
        view.show(transaction, self.contract_id)
        if self.query_one(TabbedContent).active == pane:
            view.transaction_tree.focus()
        self.query_one(ContractDetails).show(lookup, choices=self._choices_seen())

    async def _transaction_failure(self, error: errors.LedgerApiError, offset: int) -> Group:
        pruned = 0
        if isinstance(error, errors.NotFound) or (
            isinstance(error, errors.StatusError) and error.code == "PARTICIPANT_PRUNED_DATA_ACCESSED"
        ):
            try:
                pruned = await self.ledger_app.session.client.pruned_offset()
            except errors.LedgerApiError:
                pass
        return failure_message(error, offset, pruned)

    # --- actions ------------------------------------------------------------------------------------------------

    def action_back(self) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active != CONTRACT:
            self._switch_to(CONTRACT)
        else:
            self.dismiss()

    def action_reload(self) -> None:
        self.workers.cancel_group(self, "inspector-tx")
        self._loaded.clear()
        self.lookup = None
        self._switch_to(CONTRACT)
        self._load()

    def action_full_ids(self) -> None:
        self.full_ids = not self.full_ids
        self.query_one(PayloadTree).full_ids = self.full_ids
        self.query_one(ContractDetails).set_full_ids(self.full_ids)
        for pane in (CREATED, ARCHIVED):
            self._view(pane).set_full_ids(self.full_ids)
        self._banner()
        self.notify("Parties and ids in full." if self.full_ids else "Parties and ids shortened.", timeout=2)

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.contract_id)
        self.notify(f"Copied the contract id {dv.short_contract_id(self.contract_id)}", timeout=3)

    def action_copy_payload(self) -> None:
        if (event := self._loaded_event("No payload to copy: ")) is None:
            return
        text = orjson.dumps(event.create_argument, option=orjson.OPT_INDENT_2).decode()
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the payload as JSON ({count(len(text), 'character')}).", timeout=3)

    def action_copy_blob(self) -> None:
        blob = self.lookup.blob if self.lookup else ""
        if not blob:
            self.notify(
                "The participant sent no created event blob for this contract.", severity="warning", timeout=4
            )
            return
        self.app.copy_to_clipboard(blob)
        self.notify(f"Copied the created event blob ({count(len(blob), 'character')} of Base64).", timeout=3)

    def action_exercise(self) -> None:
        if (event := self._loaded_event()) is None:
            return
        lookup = self.lookup
        assert lookup is not None  # it holds the event
        if lookup.archived is not None:
            self.notify(
                f"This contract was archived at offset {lookup.archived.offset}: it has no choices left "
                "to exercise. n starts a new command from its payload.",
                severity="warning",
                timeout=6,
            )
            return
        choices = self._choice_lines(self._types(), event.template_id)
        if not choices:  # the package is not read: the composer asks for the choice
            self.post_message(
                ComposeCommand(kind="Exercise", template_id=event.template_id, contract_id=self.contract_id)
            )
            return
        self._choose_and_exercise(event, choices)

    @work(exclusive=True, group="inspector-dialog", exit_on_error=False)
    async def _choose_and_exercise(self, event: CreatedEvent, choices: list[ChoiceLine]) -> None:
        options = [
            (
                f"{c.name}{f' ({template_name(c.interface_id)})' if c.interface_id else ''}  "
                f"{'consuming' if c.consuming else 'nonconsuming'}  {c.argument} → {c.result}",
                c,
            )
            for c in choices
        ]
        first_kept = next((c for c in choices if not c.consuming), choices[0])
        chosen = await self.app.push_screen_wait(
            ChoiceDialog(
                f"Exercise on {template_name(event.template_id)}",
                options,
                selected=first_kept,
                hint="enter opens it in Compose, the contract and choice filled in",
            )
        )
        if chosen is None:
            return
        self.post_message(
            ComposeCommand(
                kind="Exercise",
                template_id=chosen.interface_id or event.template_id,
                contract_id=self.contract_id,
                choice=chosen.name,
            )
        )

    def action_move(self) -> None:
        lookup = self.lookup
        if lookup is not None and lookup.archived is not None:
            self.notify(
                f"This contract was archived at offset {lookup.archived.offset}: it cannot move.",
                severity="warning",
                timeout=5,
            )
            return
        self.post_message(MoveContract(self.contract_id))

    def action_clone(self) -> None:
        if (event := self._loaded_event()) is None:
            return
        self.post_message(
            ComposeCommand(
                kind="CreateAndExercise", template_id=event.template_id, arguments=event.create_argument
            )
        )


__all__ = ["InspectorScreen"]
