"""Text from outside the app on screen: never read as markup, its control characters shown as escapes.

Textual reads a `str` given to `Static`, `Label`, `notify` and most other widgets as content markup: a payload or an
error cause holding `[/]` would raise `MarkupError`, one holding `[@click=...]` would act. `plain` makes such text
into `Content` that is only text. Rich `Text` and Textual `Content` built from several parts pass through `escaped`,
which writes their control characters out (`app.untrusted.visible`) and keeps their styles.

`DropControls` is the line filter under everything the app draws: a control character that some path forgot to
escape is dropped from the line before it reaches the terminal (it takes no cell, so the line keeps its width).
"""

from __future__ import annotations

from typing import TypeVar

from rich.segment import Segment
from rich.text import Span as TextSpan
from rich.text import Text
from textual.color import Color
from textual.content import Content
from textual.content import Span as ContentSpan
from textual.filter import LineFilter

from app.untrusted import is_safe, visible

Styled = TypeVar("Styled", Text, Content)


def plain(text: str, style: str = "") -> Content:
    """`text` as content that is never parsed as markup, with its control characters written out."""
    return Content.styled(visible(text), style) if style else Content(visible(text))


def visible_lines(text: str) -> str:
    """`text` with its control characters written out, but for its line breaks: for a message of several lines."""
    return "\n".join(visible(line) for line in text.split("\n"))


def escaped(styled: Styled) -> Styled:
    """`styled` with its control characters written out; each span still covers the characters it covered."""
    text = styled.plain
    if is_safe(text):
        return styled
    where = [0]  # where each character of `text` starts in the new text (and where the new text ends)
    pieces = []
    for character in text:
        piece = visible(character)
        pieces.append(piece)
        where.append(where[-1] + len(piece))
    shown = "".join(pieces)
    if isinstance(styled, Content):
        spans = [ContentSpan(where[s.start], where[s.end], s.style) for s in styled.spans]
        return Content(shown, spans)
    copy = styled.blank_copy(shown)
    copy.spans = [TextSpan(where[s.start], where[s.end], s.style) for s in styled.spans]
    return copy


class DropControls(LineFilter):
    """Removes the control, bidi and line-separator characters left in the text of a drawn line."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if is_safe("".join([text for text, _, control in segments if control is None])):
            return segments
        return [
            segment if segment.control is not None else Segment(_without_unsafe(segment.text), segment.style)
            for segment in segments
        ]


def _without_unsafe(text: str) -> str:
    return text if is_safe(text) else "".join(character for character in text if is_safe(character))
