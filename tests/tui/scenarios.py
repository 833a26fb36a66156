"""Scenarios that bring the app to each of its screens, shared by the snapshot tests and the screenshots script:
each drives the real app through Pilot (keys as a person presses them) and waits until the screen is still."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual import events
from textual.widget import Widget
from textual.widgets import Footer, Input, Static, TextArea

from app.bundled import BundledParticipant, StartupState
from app.screens.acs import AcsScreen
from app.screens.startup import StartupScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import known, wait_for
from tests.tui.helpers import views_of

IOU = "#model-tests:Iou:Iou"


# a one-shot timer shorter than this is work put off until the typing stops (the composer's preview, a filter typed):
# the picture waits for it; a longer one is a toast's life, which the picture shows
DEBOUNCE_S = 1.0


def _debounced_work_pending(app) -> bool:
    nodes = [app, *app.screen.walk_children(with_self=True)]
    return any(
        timer._repeat == 0
        and timer._interval < DEBOUNCE_S
        and timer._task is not None
        and not timer._task.done()
        for node in nodes
        for timer in list(node._timers)
    )


def _still(app) -> bool:
    """Nothing that changes the screen on its own is under way: no request in flight, no work put off until the
    typing stops, no animation (a scroll)."""
    animator = app.animator
    return (
        app.request_log.in_flight == 0
        and not animator._animations
        and not animator._scheduled
        and not _debounced_work_pending(app)
        # the footer shows its keys once the screen's bindings are known, a refresh after the screen is shown
        and all(footer._bindings_ready and footer.children for footer in app.screen.query(Footer))
    )


async def settle(pilot) -> None:
    """Wait until the screen is still (`_still`, and so again once every message it set off was handled), with the
    cursors no longer blinking: a picture of a still screen."""
    app = pilot.app
    for widget in app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
    while True:
        await wait_for(pilot, lambda: _still(app), "a still screen")  # then handles the messages left
        if _still(app):
            return


async def paste(pilot, field: Widget, text: str) -> None:
    """`text` into `field` (once it has the focus) in one go, as a terminal hands over a paste: where a picture
    shows what was entered rather than its typing (a key at a time, each waited for, was most of a scenario's
    time)."""
    if not field.has_focus_within:
        field.focus()
    await wait_for(pilot, lambda: field.has_focus_within, "the field focused")
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


def describes_selection(screen: AcsScreen) -> bool:
    """The line under the table is about the row under the cursor (it follows the cursor a message later)."""
    selected = screen.query_one(ContractTable).selected
    return selected is not None and str(screen.query_one("#acs-detail", Static).content).startswith(
        selected.contract_id
    )


async def contracts_ready(pilot) -> AcsScreen:
    app = pilot.app
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, AcsScreen)
            and not app.screen.reading
            and any(table.row_at(0) is not None for table in app.screen.query(ContractTable))  # once composed
            and describes_selection(app.screen)
        ),
        "the contracts",
    )
    await settle(pilot)
    return app.screen


async def contracts(pilot) -> None:
    await contracts_ready(pilot)


async def history(pilot) -> None:
    screen = await contracts_ready(pilot)
    for _ in range(3):
        before = screen.offset
        await pilot.press("left_square_bracket")

        def stepped_back(before: int | None = before) -> bool:
            return screen.offset != before and not screen.reading

        await wait_for(pilot, stepped_back, "a step back")
    await settle(pilot)


async def filtered(pilot) -> None:
    screen = await contracts_ready(pilot)
    iou = next(t for t, _ in await views_of(screen).templates(known(screen.offset)) if t.endswith(":Iou:Iou"))
    screen.templates = frozenset({iou})
    screen.sort, screen.descending = "payload.amount", True
    await pilot.press("slash")
    await paste(pilot, screen.query_one("#acs-filter", Input), "USD")
    await pilot.press("enter")
    table = screen.query_one(ContractTable)
    await wait_for(
        pilot,
        lambda: (
            table.sort_key == "payload.amount"
            and table.row_at(0) is not None
            and not screen.building
            and describes_selection(screen)
        ),
        "the view",
    )
    await settle(pilot)


async def inspector(pilot) -> None:
    screen = await contracts_ready(pilot)
    table = screen.query_one(ContractTable)
    await pilot.press("enter")
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "InspectorScreen", "the inspector")
    await settle(pilot)
    inspector = pilot.app.screen
    await pilot.press("i")  # the view through the interface the Iou template implements
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "PromptDialog", "the interface prompt")
    await paste(pilot, pilot.app.screen.query_one(Input), "IIou")
    await pilot.press("enter")
    await wait_for(pilot, lambda: inspector.lookup.event.interface_views, "the interface view")
    pilot.app.clear_notifications()  # the toast saying so would expire on a slow machine
    await settle(pilot)
    del table


async def inspector_transaction(pilot) -> None:
    screen = await contracts_ready(pilot)
    await pilot.press("end")  # the newest contracts were made by choices, not plain creates
    await pilot.press("enter")
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "InspectorScreen", "the inspector")
    await settle(pilot)
    await pilot.press("t")
    await settle(pilot)
    del screen


async def _composer(pilot):
    from app.screens.composer import ComposerScreen

    app = pilot.app
    await contracts_ready(pilot)
    await pilot.press("2")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, ComposerScreen) and app.screen.catalog is not None,
        "the composer",
    )
    screen = app.screen
    await wait_for(pilot, lambda: screen.catalog.template_refs(), "templates learned from the ledger")
    await paste(pilot, screen.query_one("#template"), IOU)
    await pilot.press("enter")
    from app.widgets.json_editor import JsonEditor

    create = screen.query_one("#create-arguments", JsonEditor)
    await wait_for(pilot, lambda: '"issuer"' in create.text, "the createArguments skeleton")
    await paste(pilot, screen.query_one("#choice"), "Iou_Split")
    await pilot.press("enter")
    # choosing a choice moves the focus to its argument once that is built: wait for it, so the screen scrolls the same
    await wait_for(pilot, lambda: screen.focused is not screen.query_one("#choice"), "the choice's argument")
    skeleton = json.loads(create.text)
    create.area.load_text(json.dumps({**skeleton, "amount": "250.0"}, indent=2))
    screen.query_one("#choice-argument", JsonEditor).area.load_text('{\n  "splitAmount": "100.0"\n}')
    await settle(pilot)
    return screen


async def composer(pilot) -> None:
    screen = await _composer(pilot)
    # the request shown is of the values loaded: it follows them a moment after the editors' changes are handled,
    # which `settle` alone does not wait for
    body = screen.query_one("#preview-body", TextArea)
    await wait_for(pilot, lambda: '"splitAmount": "100.0"' in body.text, "the preview of the values loaded")
    await settle(pilot)


async def composer_result(pilot) -> None:
    from app.widgets.transaction_result import TransactionResult

    screen = await _composer(pilot)
    await pilot.press("ctrl+s")
    result = screen.query_one(TransactionResult)
    await wait_for(pilot, lambda: result.has_class("-ok") and not screen.submitting, "the transaction")
    pilot.app.clear_notifications()  # its 4 s toast is on the picture or not depending on the machine's speed
    await settle(pilot)


async def composer_rejected(pilot) -> None:
    from app.widgets.json_editor import JsonEditor
    from app.widgets.transaction_result import TransactionResult

    screen = await _composer(pilot)
    create = screen.query_one("#create-arguments", JsonEditor)
    create.area.load_text(json.dumps({**json.loads(create.text), "amount": "-5.0"}, indent=2))
    await settle(pilot)
    await pilot.press("ctrl+s")
    result = screen.query_one(TransactionResult)
    await wait_for(pilot, lambda: result.has_class("-failed") and not screen.submitting, "the rejection")
    await settle(pilot)


async def reassign(pilot) -> None:
    from app.screens.reassign import ReassignScreen

    app = pilot.app
    screen = await contracts_ready(pilot)
    screen.query_one(ContractTable).focus()
    await pilot.press("m")
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, ReassignScreen) and app.screen.ready and app.screen.contract is not None
        ),
        "the reassignment screen",
    )
    moves = app.screen
    await pilot.press("ctrl+s")
    await wait_for(
        pilot,
        lambda: len(moves.steps) == 2 and all(s.done for s in moves.steps) and not moves.busy,
        "a contract moved",
    )
    await wait_for(
        pilot,
        lambda: screen.offset == moves.steps[-1].offset and not screen.reading,
        "the contracts at the new ledger end",
    )
    await settle(pilot)


async def requests(pilot) -> None:
    await contracts_ready(pilot)
    await pilot.press("3")
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "RequestsScreen", "the requests")
    await settle(pilot)


async def request_detail(pilot) -> None:
    await requests(pilot)
    await pilot.press(
        "end", "up", "up", "enter"
    )  # the last page of contracts (the packages are read after them)
    await settle(pilot)


async def help_screen(pilot) -> None:
    await contracts_ready(pilot)
    await pilot.press("question_mark")
    await settle(pilot)


async def user_picker(pilot) -> None:
    await contracts_ready(pilot)
    await pilot.press("U")
    await settle(pilot)


async def parties(pilot) -> None:
    """The parties and users screen as the participant's administrator sees it, the first user's rights shown."""
    from app.screens.parties import PartiesScreen
    from app.tokens import MintedToken
    from tests.conftest import SECRET

    app = pilot.app
    await contracts_ready(pilot)
    app.session.client.use_tokens(MintedToken(SECRET, "participant_admin"))
    await app.session.reload_identity()
    app.status_user = app.session.identity.label
    await pilot.press("7")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, PartiesScreen) and app.screen.directory.admin is True,
        "the parties and users",
    )
    from textual.widgets import DataTable

    parties, users = (app.screen.query_one(f"#{name}-table", DataTable) for name in ("parties", "users"))
    # the tables' columns take their widths from their rows: a picture of them filled, not of their headers alone
    await wait_for(pilot, lambda: parties.row_count == 3 and users.row_count == 4, "the tables filled")
    await settle(pilot)


async def startup(pilot) -> None:
    await contracts_ready(pilot)
    # never started: only its state is shown (the path is where ledger-tui keeps it for a user named alice)
    bundled = BundledParticipant(
        Path("/home/alice/.local/share/ledger-tui/bundled"), Path("/home/alice/.local/state/ledger-tui/log")
    )
    bundled.state = StartupState(phase="seeding", done=280, total=400)
    screen = StartupScreen(bundled)
    await pilot.app.push_screen(screen)
    screen._show(bundled.state)
    await settle(pilot)


async def _upload_richtypes(app) -> None:
    """The richtypes DAR uploaded as an administrator, through the participant's own endpoint."""
    import httpx

    from app.session import BUNDLED_ADMIN
    from app.tokens import MintedToken
    from tests.conftest import SECRET
    from tests.daml_lf.conftest import DARS_DIR, RICHTYPES

    token = await MintedToken(SECRET, BUNDLED_ADMIN).token()
    dar = (DARS_DIR / RICHTYPES).read_bytes()
    async with httpx.AsyncClient(transport=app.transport, base_url=app.connection.url) as http:
        answer = await http.post(
            "/v2/dars",
            content=dar,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
        )
        answer.raise_for_status()


async def inspector_typed(pilot) -> None:
    """A RichRecord of the richtypes DAR (created through the API), opened with ctrl+o by the first digits of its
    id: its payload typed, its choices listed."""
    from app.screens.inspector import InspectorScreen
    from app.widgets.payload_tree import PayloadTree
    from participant.api import Command, CreateCommand, JsCommands

    app = pilot.app
    await contracts_ready(pilot)
    await _upload_richtypes(app)
    client, party = app.session.client, app.session.identity.primary_party

    async def submit(command: Command, name: str):
        return await client.submit_and_wait_for_transaction(
            JsCommands(commands=[command], command_id=f"typed-{name}", act_as=[party])
        )

    marker = await submit(
        Command(
            create_command=CreateCommand(
                template_id="#richtypes:RichTypes:Marker", create_arguments={"owner": party}
            )
        ),
        "marker",
    )
    rich = {
        "owner": party,
        "count": "-42",
        "amount": "1234.5",
        "label": "first",
        "active": True,
        "asOf": "2026-01-15",
        "observedAt": "2026-01-15T09:30:00Z",
        "note": "a note",
        "tags": ["b", "a"],
        "attributes": {"colour": "blue"},
        "marker": marker.events[0].created_event.contract_id,
        "profile": {"nickname": "al", "level": "3"},
        "outcome": {"tag": "Win", "value": {"prize": "2.5", "tier": "gold"}},
        "fee": "0.1",
    }
    created = await submit(
        Command(
            create_command=CreateCommand(template_id="#richtypes:RichTypes:RichRecord", create_arguments=rich)
        ),
        "rich",
    )
    contract_id = created.events[0].created_event.contract_id
    acs = await contracts_ready(pilot)
    await pilot.press("e")  # the contracts screen reads the new contracts: ctrl+o expands among them
    offset = created.events[0].created_event.offset
    await wait_for(pilot, lambda: (acs.offset or 0) >= offset and not acs.reading, "the new contracts read")
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "PromptDialog", "the open prompt")
    await paste(pilot, app.screen.query_one(Input), contract_id[:12])
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
    tree = app.screen.query_one(PayloadTree)
    await wait_for(pilot, lambda: tree.types is not None, "the packages read")
    app.clear_notifications()  # the toast saying what the id expanded to would expire on a slow machine
    await settle(pilot)


async def packages(pilot) -> None:
    """The richtypes DAR uploaded (as an administrator, through the participant's own endpoint), then a template
    of it selected on the packages screen."""
    from app.screens.packages import PackagesScreen

    app = pilot.app
    await contracts_ready(pilot)
    await _upload_richtypes(app)
    await pilot.press("5")
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, PackagesScreen)
            and app.screen.catalog is not None
            # its own reading done too: a reading that lists other packages builds the tree again
            and not any(w.group == "packages-load" and not w.is_finished for w in app.workers)
        ),
        "the packages read",
    )
    screen = app.screen
    node = next(
        n
        for n in _tree_nodes(screen.package_tree.root)
        if n.data is not None and n.data.kind == "template" and n.data.entity == "RichTypes:RichRecord"
    )
    parent = node.parent
    while parent is not None:
        parent.expand()
        parent = parent.parent
    tree = screen.package_tree
    # the tree's lines are made again once expanded: moved to before, the cursor landed on another line
    await wait_for(pilot, lambda: node.line >= 0, "the template's line in the tree")
    tree.move_cursor(node)
    details = screen.query_one("#packages-details", Static)
    await wait_for(
        pilot,
        lambda: tree.cursor_node is node and "RichTypes:RichRecord" in str(details.content),
        "the template's details",
    )
    await settle(pilot)


async def transactions(pilot) -> None:
    """The transactions screen: the newest updates of the demo ledger, the cursor a few rows down."""
    from app.screens.transactions import TransactionsScreen

    app = pilot.app
    await contracts_ready(pilot)
    await pilot.press("6")
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, TransactionsScreen) and not app.screen.reading and app.screen.window.rows
        ),
        "the updates",
    )
    await pilot.press("down", "down", "down")
    await settle(pilot)


async def transaction(pilot) -> None:
    """A transaction opened from the transactions screen: its exercise tree."""
    from app.screens.update_detail import UpdateScreen

    await transactions(pilot)
    app = pilot.app
    screen = app.screen
    index = next(i for i, r in enumerate(screen.window.rows) if "Iou_Transfer" in r.choices)
    screen.table.cursor = index
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, UpdateScreen) and app.screen.view.transaction is not None,
        "the transaction",
    )
    await settle(pilot)


async def composer_typed(pilot) -> None:
    """A RichRecord's create arguments in the typed form, partly filled, one value with a problem."""
    from app.screens.composer import ComposerScreen
    from app.widgets.typed_form import TypedForm

    app = pilot.app
    await contracts_ready(pilot)
    await _upload_richtypes(app)
    await pilot.press("2")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, ComposerScreen) and app.screen.packages is not None,
        "the composer with the packages read",
    )
    screen = app.screen
    await pilot.press("ctrl+t")  # Create
    await paste(pilot, screen.query_one("#template"), "#richtypes:RichTypes:RichRecord")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.query("#create-form-typed"), "the typed form")
    form = screen.query_one("#create-form-typed", TypedForm)
    for path, text in (
        ("createArguments.owner", "Alice"),
        ("createArguments.count", "42"),
        ("createArguments.amount", "12.123456789012"),
        ("createArguments.label", "typed"),
    ):
        form.focus_path(path)

        def opened(path: str = path) -> bool:
            return form.editor is not None and form.editor.row.path == path and form.editor.has_focus_within

        await wait_for(pilot, opened, f"{path} open")
        await paste(pilot, form, text)
    form.focus_path("createArguments.label")
    await settle(pilot)


def _tree_nodes(node):
    for child in node.children:
        yield child
        yield from _tree_nodes(child)


# the scenarios that upload the richtypes DAR of the reference DARs (tests skip them without those)
NEEDS_DARS = frozenset({"inspector-typed", "packages", "composer-typed"})

SCREENS: dict[str, tuple[str, Callable[..., Awaitable[None]]]] = {
    "contracts": ("the contracts at the ledger end", contracts),
    "contracts-history": ("three changes back, with what changed marked", history),
    "contracts-filtered": ("one template, its payload columns, filtered and sorted", filtered),
    "inspector": ("a contract's create event and payload, with its view through an interface", inspector),
    "inspector-transaction": ("the transaction that created a contract", inspector_transaction),
    "inspector-typed": ("a contract of a Daml-LF template: its payload typed, its choices", inspector_typed),
    "composer": ("a CreateAndExercise being composed, with the request it sends", composer),
    "composer-result": ("the transaction of a submitted command", composer_result),
    "composer-rejected": ("a command refused by the participant, everything typed kept", composer_rejected),
    "reassign": (
        "a contract moved to the other synchronizer, step by step, and the moves in flight",
        reassign,
    ),
    "requests": ("every HTTP request of the session", requests),
    "request-detail": ("one request and its answer", request_detail),
    "packages": ("the participant's packages, a template's fields and choices", packages),
    "transactions": ("the updates the user's parties see, newest first", transactions),
    "transaction": ("a transaction opened from the transactions screen, as an exercise tree", transaction),
    "composer-typed": (
        "a template's typed form: one input per field, a value checked as typed",
        composer_typed,
    ),
    "help": ("help: what the screen is for and its keys", help_screen),
    "user-picker": ("acting as another user of the bundled participant", user_picker),
    "parties": (
        "the participant's parties and users with their rights, as its administrator sees them",
        parties,
    ),
    "startup": ("the bundled participant seeding its demo ledger", startup),
}
