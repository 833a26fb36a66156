"""A JSON editor with syntax highlighting that checks its text as it is typed: the first error's line and column
right under it, and the editor's border in the error colour until the text parses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, Static, TextArea

from app.compose.commands import Problem, parse_json, pretty_json
from app.widgets.untrusted_text import plain

_REQUIRED = object()


class JsonEditor(Vertical):
    DEFAULT_CSS = """
    JsonEditor { height: auto; }
    JsonEditor > Horizontal { height: 1; }
    JsonEditor .json-title { width: auto; text-style: bold; }
    JsonEditor .json-note { width: 1fr; color: $text-muted; margin-left: 2; }
    JsonEditor > TextArea { height: 8; }
    JsonEditor > .json-status { height: 1; color: $text-muted; padding: 0 1; }
    JsonEditor.-invalid > .json-status { color: $error; text-style: bold; }
    JsonEditor.-invalid > TextArea { border: tall $error; }
    """

    @dataclass
    class Validated(Message):
        """The text was checked (after every change): `problem` is None when it parses."""

        editor: JsonEditor
        problem: Problem | None

        @property
        def control(self) -> JsonEditor:
            return self.editor

    def __init__(
        self, title: str, field_name: str, *, empty: Any = _REQUIRED, rows: int = 8, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.heading = title
        self.field_name = field_name
        self.empty = empty
        self.rows = rows
        self.problem: Problem | None = None
        self._suggested = ""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label(plain(self.heading), classes="json-title")
            yield Label("", classes="json-note")
        area = TextArea("", language="json", soft_wrap=False, show_line_numbers=True, tab_behavior="focus")
        area.styles.height = self.rows + 2
        yield area
        yield Static("", classes="json-status")

    def on_mount(self) -> None:
        self._check()

    @classmethod
    def around(cls, widget: Widget | None) -> JsonEditor | None:
        """The editor `widget` is part of, if any."""
        return next((n for n in (widget.ancestors_with_self if widget else []) if isinstance(n, cls)), None)

    @property
    def area(self) -> TextArea:
        return self.query_one(TextArea)

    @property
    def text(self) -> str:
        return self.area.text

    @text.setter
    def text(self, value: str) -> None:
        self.set_text(value)

    def set_text(self, text: str, note: str = "", *, suggested: bool = False) -> None:
        """Fill the editor from the program: a recalled command, or (`suggested`) a starting point that a better
        suggestion may replace until the user edits it."""
        self._suggested = text if suggested else ""
        self.area.load_text(text)
        self.set_note(note)
        self._check()

    def set_note(self, note: str) -> None:
        """A word beside the title: where the text came from, why there is none."""
        self.query_one(".json-note", Label).update(plain(note))

    @property
    def replaceable(self) -> bool:
        """Blank, or still the suggestion the program made: nothing the user wrote or recalled would be lost."""
        return not self.text.strip() or (bool(self._suggested) and self.text == self._suggested)

    def value(self) -> Any:
        """The parsed value (call only when `problem` is None)."""
        value, _ = parse_json(self.text, self.field_name, **self._empty_kw())
        return value

    def _empty_kw(self) -> dict[str, Any]:
        return {} if self.empty is _REQUIRED else {"empty": self.empty}

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        self._check()

    def _check(self) -> None:
        text = self.text
        _, problem = parse_json(text, self.field_name, **self._empty_kw())
        status = self.query_one(".json-status", Static)
        blank = not text.strip()
        if problem is None:
            lines = text.count("\n") + 1
            status.update(
                plain(
                    f"empty: sent as {pretty_json(self.empty)}"
                    if blank
                    else f"✓ valid JSON · {lines} line{'s' if lines != 1 else ''}"
                )
            )
        elif blank:
            status.update(plain(problem.message))
        elif problem.line is not None:
            status.update(plain(f"✗ line {problem.line}, column {problem.column}: {problem.message}"))
        else:
            status.update(plain(f"✗ {problem.message}"))
        # a blank editor is unfinished rather than wrong: the preview lists it, the editor stays calm
        self.set_class(problem is not None and not blank, "-invalid")
        if problem != self.problem:
            self.problem = problem
            self.post_message(self.Validated(self, problem))

    def go_to_problem(self, scroll_visible: bool = True) -> None:
        """Put the cursor where the JSON fails to parse (`scroll_visible`: as `Widget.focus`'s)."""
        area = self.area
        area.focus(scroll_visible)
        if self.problem is not None and self.problem.line is not None:
            row = max(0, self.problem.line - 1)
            column = max(0, (self.problem.column or 1) - 1)
            area.cursor_location = (row, column)

    def reformat(self) -> bool:
        """Indent the JSON two spaces a level; False when it does not parse."""
        if self.problem is not None or not self.text.strip():
            return False
        self.area.replace(pretty_json(self.value()), self.area.document.start, self.area.document.end)
        return True
