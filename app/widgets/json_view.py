"""A read-only text view for bodies: JSON with syntax highlighting, anything else as wrapped text.

Textual's own JSON highlight query crashes the process with tree-sitter 0.26: freeing that query (which the
TextArea does whenever its document is set again, once already while it is built) corrupts the heap, through the
pattern that matches `#eq?` and `#set!` with escaped quotes. This view highlights JSON with a query of its own that
has no predicates.
"""

from __future__ import annotations

from textual.widgets import TextArea

JSON_HIGHLIGHTS = """
(pair key: (string) @json.label)
(pair value: (string) @string)
(array (string) @string)
(number) @number
[(true) (false)] @boolean
(null) @json.null
(escape_sequence) @string.escape
["," ":"] @punctuation.delimiter
["[" "]" "{" "}"] @punctuation.bracket
(ERROR) @json.error
"""


class BodyView(TextArea):
    """A body to read, scroll, select and copy from; never edited."""

    def __init__(self, text: str, *, json: bool, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            text,
            language=None,
            theme="css",
            read_only=True,
            soft_wrap=not json,
            show_line_numbers=json,
            id=id,
            classes=classes,
        )
        if json:
            self.register_language("json", None, JSON_HIGHLIGHTS)  # type: ignore[arg-type]  # None: the builtin one
            self.language = "json"

    def on_mount(self) -> None:
        if not self.app.current_theme.dark:
            self.theme = "github_light"
