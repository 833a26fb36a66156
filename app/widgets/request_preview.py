"""The request the composer would send, kept up to date as the form changes: the exact body (shown indented) and
the same request as a curl command line, or the list of what still needs fixing."""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static, TextArea

from app.compose.commands import SUBMIT_PATH, Problem
from app.counting import count
from app.widgets.static_text import show


class RequestPreview(Vertical):
    DEFAULT_CSS = """
    RequestPreview { height: 1fr; }
    RequestPreview > #preview-head { height: auto; padding: 0 1; }
    RequestPreview > #preview-body { height: 1fr; }
    RequestPreview > #preview-curl-title { height: 1; padding: 0 1; color: $text-muted; }
    RequestPreview > #preview-curl { height: 7; }
    RequestPreview.-problems > #preview-body, RequestPreview.-problems > #preview-curl,
    RequestPreview.-problems > #preview-curl-title { display: none; }
    RequestPreview.-problems > #preview-head { border-left: thick $warning; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body: bytes = b""
        self.curl = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-head")
        yield TextArea("", language="json", read_only=True, soft_wrap=False, id="preview-body")
        yield Static("curl (the token as $LEDGER_TOKEN; ctrl+y copies it)", id="preview-curl-title")
        yield TextArea("", read_only=True, soft_wrap=True, id="preview-curl")

    def show_request(self, body: bytes, curl: str) -> None:
        changed = body != self.body
        self.body = body
        self.curl = curl
        self.remove_class("-problems")
        show(
            self.query_one("#preview-head", Static),
            Content.assemble(
                ("POST ", "bold"),
                (SUBMIT_PATH, "bold"),
                (f"   {count(len(body), 'byte')}, sent compact; shown indented", "dim"),
            ),
        )
        if changed:
            self.query_one("#preview-body", TextArea).load_text(
                orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2).decode()
            )
            self.query_one("#preview-curl", TextArea).load_text(curl)

    def show_problems(self, problems: Sequence[Problem]) -> None:
        self.body = b""
        self.curl = ""
        self.add_class("-problems")
        parts: list[str | tuple[str, str]] = [("Not ready to submit:\n", "bold")]
        for problem in problems:
            parts += ["  • ", (problem.path or problem.field, "bold")]
            if problem.line is not None:
                parts.append(f" line {problem.line}, column {problem.column}")
            parts.append(f": {problem.message}\n")
        parts.append(("ctrl+g goes to the first problem", "dim"))
        show(self.query_one("#preview-head", Static), Content.assemble(*parts))
