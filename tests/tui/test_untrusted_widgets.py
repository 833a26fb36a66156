"""The choke points that put text from outside on screen: plain content, escaped styled text, the line filter, the
labels and headers built from ledger data; and a check of the code that no widget is handed text assembled in
place, which Textual would read as markup."""

from __future__ import annotations

import ast
from pathlib import Path

from rich.segment import ControlType, Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.content import Content

from app.widgets.status_bar import StatusBar
from app.widgets.transaction_view import header
from app.widgets.untrusted_text import DropControls, escaped, plain
from app.widgets.value_tree import value_label
from participant.api import JsTransaction
from tests.tui.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]
TITLE = "\x1b]0;pwned\x07"
SHOWN_TITLE = "\\x1b]0;pwned\\x07"


def test_plain_text_is_never_markup_and_shows_its_controls():
    content = plain(f"[b]{TITLE}[/]", "bold")
    assert content.plain == f"[b]{SHOWN_TITLE}[/]"
    assert plain("Zürich [/] 東京").plain == "Zürich [/] 東京"


def test_escaped_styled_text_keeps_each_span_on_its_characters():
    text = Text.assemble(("a\x1bb", "red"), ("c", "blue"))
    shown = escaped(text)
    assert shown.plain == "a\\x1bbc"
    assert [(s.start, s.end, str(s.style)) for s in shown.spans] == [(0, 6, "red"), (6, 7, "blue")]
    content = escaped(Content.assemble(("x\u202ey", "bold"), "z"))
    assert content.plain == "x\\u202eyz"
    assert [(s.start, s.end) for s in content.spans] == [(0, 8)]
    ordinary = Text("nothing to escape")
    assert escaped(ordinary) is ordinary


def test_the_line_filter_drops_what_a_path_left_in():
    segments = [
        Segment("pay\x1b]52;c;eA==\x07me", Style(bold=True)),
        Segment("ok"),
        Segment("\x1b[2J", None, [(ControlType.CLEAR,)]),
    ]
    filtered = DropControls().apply(segments, Color(0, 0, 0))
    assert [s.text for s in filtered] == [
        "pay]52;c;eA==me",
        "ok",
        "\x1b[2J",
    ]  # the app's own control segments stay
    assert filtered[0].style == Style(bold=True)
    assert DropControls().apply(segments[1:2], Color(0, 0, 0)) == segments[1:2]


def test_value_labels_show_names_texts_and_tags_escaped():
    label = value_label(
        f"key{TITLE}", {"tag": f"Tag{TITLE}", "value": f"v{TITLE}"}, full_ids=False, expanded=False
    )
    assert label.plain == f'key{SHOWN_TITLE}: Tag{SHOWN_TITLE} "v{SHOWN_TITLE}"'
    assert value_label("currency", f"[/]{TITLE}", full_ids=False, expanded=False).plain == (
        f'currency: "[/]{SHOWN_TITLE}"'
    )


def test_the_status_line_and_a_transaction_header_show_participant_text_escaped():
    bar = StatusBar(mode="contracts")
    bar.user, bar.participant, bar.version = f"Mallory{TITLE}", "p[/]", f"3.5{TITLE}"
    shown = bar.render().plain
    assert f"user Mallory{SHOWN_TITLE}" in shown and "p[/]" in shown and f"3.5{SHOWN_TITLE}" in shown

    transaction = JsTransaction.model_validate(
        {
            "updateId": "1220ab",
            "commandId": "c\x1b[2J",
            "workflowId": "wf\x1b]52;c;eA==\x1b\\",
            "effectiveAt": "2025-01-01T00:00:00Z",
            "events": [],
            "offset": 3,
            "synchronizerId": "global::1220",
            "recordTime": "2025-01-01T00:00:00Z",
        }
    )
    cells = [
        getattr(cell, "plain", cell)
        for column in header(transaction, full=True).columns
        for cell in column._cells
    ]
    assert "c\\x1b[2J" in cells and "wf\\x1b]52;c;eA==\\x1b\\" in cells


async def test_notifications_are_plain_text_whoever_sends_them(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        app.clear_notifications()
        app.screen.notify(f"cause [/] {TITLE}", title=f"[b]{TITLE}")  # a widget's notify says markup=True
        await pilot.pause()
        (notification,) = list(app._notifications)
        assert notification.message == f"cause [/] {SHOWN_TITLE}"
        assert notification.title == f"[b]{SHOWN_TITLE}"
        assert not notification.markup
        assert app.is_running


# --- a lasting guard ------------------------------------------------------------------------------------------------

# Textual reads a `str` handed to these as markup (a DataTable's cells and a Tree's labels too).
TAKES_MARKUP = {"Static", "Label", "update", "Option", "Selection", "Button", "add_row", "add", "add_leaf"}


def _assembled_in_place(node: ast.expr) -> bool:
    """An f-string, a concatenation or a choice between such: text built from values, never a fixed string."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return (
            _assembled_in_place(node.left) or _assembled_in_place(node.right) or isinstance(node.op, ast.Mod)
        )
    if isinstance(node, ast.IfExp):
        return _assembled_in_place(node.body) or _assembled_in_place(node.orelse)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"


def test_no_widget_is_handed_text_assembled_in_place():
    """Text built from values must go through `plain` (or be a `Content`/`Text`): a value holding `[/]` would
    raise MarkupError, a participant's control characters would reach the terminal."""
    offenders = []
    for package in ("app/screens", "app/widgets"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in TAKES_MARKUP and any(_assembled_in_place(arg) for arg in node.args):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:100]}")
    assert not offenders, "\n".join(offenders)
