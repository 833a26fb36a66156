"""Text from the ledger never acts on the terminal, and text a person types is never read as markup.

A participant holds a contract whose payload carries terminal sequences (window title, clipboard, screen clear, a
hidden link, a C1 CSI, a bidi override); the real app is driven over the contracts screen, the inspector, a
transaction and a rejection whose cause holds the same sequences. Every frame the app would write to a terminal is
captured, and none may carry the data's sequences behind a real ESC, while their escaped form is on screen.
"""

from __future__ import annotations

import json

import httpx
from rich.style import Style
from textual._compositor import CompositorUpdate

from app.screens.acs import AcsScreen
from app.screens.composer import ComposerScreen
from app.screens.inspector import CREATED, InspectorScreen
from app.screens.request_detail import RequestDetailScreen
from app.screens.requests import RequestsScreen
from app.widgets.contract_table import ContractTable
from app.widgets.json_editor import JsonEditor
from app.widgets.payload_tree import PayloadTree
from app.widgets.request_list import RequestList
from app.widgets.transaction_result import TransactionResult
from app.widgets.transaction_view import TransactionView
from tests.conftest import LedgerApi
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_inspector import walk

IOU = "#model-tests:Iou:Iou"
TITLE = "\x1b]0;pwned\x07"
CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;http://x\x07link\x1b]8;;\x07"
HOSTILE = f"{CLIPBOARD}{TITLE}{CLEAR}{LINK}\x9b31m\u202eZ"
SHOWN = "\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07\\x9b31m\\u202eZ"
# what the data would make a terminal do, were its ESC written raw
SEQUENCES = ["\x1b]0;pwned", "\x1b]52;c;ZXZpbA", "\x1b[2J", "\x1b]8;;http://x", "\x9b31m", "\u202e"]


def record_frames(app) -> list[str]:
    """What the app writes to the terminal, frame by frame: the headless driver writes nothing, so each update
    is rendered here as `App._display` renders it for a real terminal."""
    frames: list[str] = []
    display = app._display

    def capture(screen, renderable) -> None:
        if isinstance(renderable, CompositorUpdate):
            frames.append(renderable.render_segments(app.console))
        display(screen, renderable)

    app._display = capture
    return frames


def assert_harmless(frames: list[str]) -> None:
    written = "".join(frames)
    assert frames and "\x1b" in written  # the capture sees the app's own sequences (colours, cursor moves)
    for sequence in SEQUENCES:
        assert sequence not in written, f"{sequence!r} reached the terminal"


async def hostile_contract(server) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        api = LedgerApi(http, check_spec=False)
        alice = await api.party("Alice")
        await api.create_iou(alice, alice, "7.0", HOSTILE, user="Alice")


async def test_ledger_text_is_shown_escaped_and_never_reaches_the_terminal(server, make_app):
    await hostile_contract(server)
    app = make_app(server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        frames = record_frames(app)
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AcsScreen) and app.screen.query_one(ContractTable).row_at(0),
            "the hostile contract in the table",
        )
        await pilot.press("enter")  # the inspector
        await wait_for(
            pilot, lambda: isinstance(app.screen, InspectorScreen) and app.screen.lookup, "the inspector"
        )
        inspector = app.screen
        tree = inspector.query_one(PayloadTree)
        tree.focus()
        await pilot.press("e")  # unfold everything
        await wait_for(
            pilot,
            lambda: "\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07" in screen_text(app),
            "the value escaped",
        )
        currency = next(n for n in walk(tree.root) if n.data and n.data.name == "currency")
        assert f'currency: "{SHOWN}"' == tree.render_label(currency, Style(), Style()).plain

        await pilot.press("t")  # the transaction that created it
        view = inspector.query_one(f"#{CREATED}-view", TransactionView)
        await wait_for(pilot, lambda: view.transaction is not None, "the creating transaction")
        view.query_one("ValueTree").focus()
        await pilot.press("down", "e")
        await wait_for(pilot, lambda: "\\x1b]52;c;ZXZpbA==\\x07" in screen_text(app), "the value escaped")

        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen again")
        acs = app.screen
        table = acs.query_one(ContractTable)
        acs.templates = frozenset(
            {table.row_at(0).template_id}
        )  # a view of one template: its payload's columns
        await pilot.press("slash", *"ZXZpbA", "enter")
        await wait_for(
            pilot, lambda: any(c.key == "payload.currency" for c in table.columns), "the payload's columns"
        )
        await wait_for(pilot, lambda: "\\x1b]52;c;ZXZpbA==" in screen_text(app), "the cell escaped")
        assert_harmless(frames)


async def test_a_rejection_cause_holding_sequences_is_shown_escaped(server, make_app):
    await hostile_contract(server)
    app = make_app(server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        frames = record_frames(app)
        await wait_for(pilot, lambda: app.connected, "the connection")
        await pilot.press("2")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ComposerScreen) and app.screen.catalog is not None,
            "the composer",
        )
        screen = app.screen
        await wait_for(pilot, lambda: screen.catalog.template_refs(), "templates learned from the ledger")
        screen.query_one("#template").focus()
        await pilot.press(*IOU, "enter")
        create = screen.query_one("#create-arguments", JsonEditor)
        await wait_for(pilot, lambda: '"issuer"' in create.text, "the createArguments skeleton")
        # a field the template lacks: the participant names it in its cause, sequences and all
        create.area.load_text(json.dumps({**json.loads(create.text), "amount": "1.0", HOSTILE: 1}))
        await pilot.pause(0.3)
        screen.query_one("#choice").focus()
        await pilot.press(*"Archive", "enter")
        await pilot.press("ctrl+s")
        result = screen.query_one(TransactionResult)
        await wait_for(pilot, lambda: result.has_class("-failed") and not screen.submitting, "the rejection")
        await wait_for(pilot, lambda: "\\x1b]0;pwned\\x07" in screen_text(app), "the cause escaped")
        (notification,) = [n for n in app._notifications if n.severity == "error"]
        assert "\\x1b]0;pwned\\x07" in notification.message and not notification.markup

        await pilot.press("escape", "3")  # the requests: the failed submission, its note and its detail
        await wait_for(pilot, lambda: isinstance(app.screen, RequestsScreen), "the requests")
        await pilot.press("slash", *"4xx", "enter")
        await wait_for(
            pilot, lambda: app.screen.query_one(RequestList).count == 1, "only the failed submission"
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestDetailScreen), "the request's detail")
        cause = "Unexpected fields: Set(\\x1b]52;c;ZXZpbA==\\x07"  # under the status
        await wait_for(pilot, lambda: cause in screen_text(app), "the detail drawn")
        shown = screen_text(app)
        assert "\\u001b]0;pwned" in shown  # the bodies, as JSON writes them
        assert_harmless(frames)


async def test_markup_typed_in_the_composer_stays_text(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        await pilot.press("2")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ComposerScreen) and app.screen.catalog is not None,
            "the composer",
        )
        await pilot.press("tab", "tab")
        field = app.focused  # the choice's input: enter commits "[/]" as the choice, whose note quotes it
        await pilot.press("left_square_bracket", "slash", "right_square_bracket", "enter")
        await pilot.pause(0.3)
        assert app.is_running and isinstance(app.screen, ComposerScreen)
        assert getattr(field, "value", None) == "[/]"


async def test_markup_typed_in_the_filters_stays_text(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AcsScreen) and app.screen.query_one(ContractTable).row_at(0),
            "the contracts",
        )
        await pilot.press("slash", "left_square_bracket", "slash", "enter")
        await wait_for(pilot, lambda: "matching “[/”" in screen_text(app), "the filter's note")
        assert app.is_running

        await pilot.press("3")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestsScreen), "the requests")
        await pilot.press("slash", "left_square_bracket", "slash")
        await pilot.pause(0.3)
        assert app.is_running and isinstance(app.screen, RequestsScreen)
        assert app.focused.value == "[/"
        assert "matching “[/”" in screen_text(app)
