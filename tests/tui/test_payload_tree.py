"""The payload tree on its own: every Daml value shape as it shows, full ids on demand, enter on a contract id,
long lists a chunk at a time, copying a value."""

from __future__ import annotations

import orjson
from textual.app import App, ComposeResult

from app.messages import OpenContract
from app.widgets.payload_tree import PayloadTree
from app.widgets.value_tree import CHUNK
from participant.api import CreatedEvent
from tests.tui.conftest import known, screen_text

ALICE = "Alice::1220" + "ab" * 32
BOB = "Bob::1220" + "cd" * 32
CID = "00" + "1f" * 32 + "ca12" + "1220" + "cd" * 32

PAYLOAD = {
    "owner": ALICE,
    "amount": "999.9900000000",
    "count": "42",
    "currency": "USD",
    "due": "2025-01-31",
    "at": "2000-01-01T12:12:32.777111Z",
    "active": True,
    "nothing": None,
    "unit": {},
    "status": {"tag": "Transfer", "value": {"newOwner": BOB}},
    "plain": {"tag": "Closed", "value": {}},
    "nested": {"inner": {"depth": "3"}},
    "observers": [ALICE, BOB],
    "labels": {"a key": "x"},
    "balances": [[ALICE, "1.5000000000"], [BOB, "2.0000000000"]],
    "maybe": [["7"]],
    "ref": CID,
}


def created(payload, key=None) -> CreatedEvent:
    return CreatedEvent.read(
        {
            "offset": 5,
            "nodeId": 0,
            "contractId": CID,
            "templateId": "pkg:Main:T",
            "contractKey": key,
            "createArgument": payload,
            "witnessParties": [ALICE],
            "signatories": [ALICE],
            "observers": [],
            "createdAt": "2025-01-01T00:00:00Z",
            "packageName": "main",
            "representativePackageId": "pkg",
            "acsDelta": True,
        }
    )


class TreeApp(App):
    def __init__(self, event: CreatedEvent) -> None:
        super().__init__()
        self.event = event
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield PayloadTree()

    def on_mount(self) -> None:
        tree = self.query_one(PayloadTree)
        tree.show(self.event)
        tree.focus()

    def on_open_contract(self, message: OpenContract) -> None:
        self.opened.append(message.contract_id)


def line_of(tree: PayloadTree, name: str) -> int:
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None and node.data is not None and node.data.name == name:
            return line
    raise AssertionError(f"no line for {name}")


async def test_every_value_shape_reads_plainly():
    app = TreeApp(created(PAYLOAD, key={"owner": ALICE, "id": "k1"}))
    async with app.run_test(size=(150, 60)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        for shown in [
            "createArgument  17 fields",
            "owner: Alice::1220ab…",
            "amount: 999.99",
            "count: 42",
            'currency: "USD"',
            "due: 2025-01-31",
            "at: 2000-01-01T12:12:32.777111Z",
            "active: True",
            "nothing: None",
            "unit: ()",
            "status: Transfer",
            "newOwner: Bob::1220cd…",
            "plain: Closed",
            "nested  1 field",
            "depth: 3",
            "observers  2 items",
            "[0]: Alice::1220ab…",
            "labels  1 entry  (TextMap)",
            '"a key": "x"',
            "balances  2 entries  (GenMap (pairs of key and value))",
            "Alice::1220ab…: 1.5",
            "Bob::1220cd…: 2",
            "(or, if Optional (Optional _): Some (Some 7))",
            f"ref: {CID[:12]}…",
            "contractKey",
        ]:
            assert shown in text, shown
        assert "999.9900000000" not in text

        tree = app.query_one(PayloadTree)
        tree.full_ids = True
        await pilot.pause()
        text = screen_text(app)
        assert f"owner: {ALICE}" in text
        assert f"ref: {CID}" in text


async def test_enter_on_a_contract_id_opens_it_and_c_copies_a_value():
    app = TreeApp(created(PAYLOAD))
    async with app.run_test(size=(150, 60)) as pilot:
        await pilot.pause()
        tree = app.query_one(PayloadTree)
        tree.move_cursor_to_line(line_of(tree, "ref"))
        await pilot.press("enter")
        await pilot.pause()
        assert app.opened == [CID]

        tree.move_cursor_to_line(line_of(tree, "amount"))
        await pilot.press("c")
        assert app.clipboard == "999.9900000000"
        tree.move_cursor_to_line(line_of(tree, "balances"))
        await pilot.press("c")
        assert orjson.loads(app.clipboard) == PAYLOAD["balances"]


async def test_long_lists_show_a_chunk_at_a_time():
    items = [str(i) for i in range(CHUNK * 2 + 50)]
    app = TreeApp(created({"items": items}))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        tree = app.query_one(PayloadTree)
        node = tree.get_node_at_line(line_of(tree, "items"))
        assert node is not None
        assert len(node.children) == CHUNK + 1
        more = node.children[-1]
        assert more.data is not None and more.data.more_from == CHUNK
        tree.move_cursor(more)
        await pilot.press("enter")
        await pilot.pause()
        assert len(node.children) == 2 * CHUNK + 1
        assert known(node.children[-2].data).value == str(2 * CHUNK - 1)


async def test_e_unfolds_everything_and_folds_it_back():
    deep = {"a": {"b": {"c": {"d": {"e": "bottom"}}}}}
    app = TreeApp(created(deep))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "└─ e: " not in screen_text(app)
        app.query_one(PayloadTree).move_cursor_to_line(0)
        await pilot.press("e")
        await pilot.pause()
        assert '└─ e: "bottom"' in screen_text(app)
        await pilot.press("e")
        await pilot.pause()
        assert '└─ e: "bottom"' not in screen_text(app)
