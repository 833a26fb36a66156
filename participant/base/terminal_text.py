"""Text that came from elsewhere (the ledger, a DAR, a request, a file), made safe to show on a terminal.

One rule for both programs: the client's screens and headless commands (through `app.untrusted`) and the
participant's command line and log lines. It lives in `participant.base`, which imports nothing, so that the client
may import it (its one exception besides the wire models) without loading anything else before its first frame.

A payload string, a party, a DAR's entry name or an error cause is chosen by whoever wrote it: written raw to a
terminal, `ESC ] 52` sets the clipboard, `ESC ] 0` the window title, `ESC ] 8` hides a link, CSI sequences move
the cursor or clear the screen; the Unicode bidi overrides reorder what is shown around them. `visible` replaces each
such character with an escape a person can read (`\\x1b`, `\\u202e`), so the text keeps every character's identity
and can no longer act on the terminal. Ordinary characters, backslashes and non-Latin scripts are left as they are.
"""

from __future__ import annotations

import argparse
import logging
import re
import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

# C0 controls (tab and newline included: one line of a table, a tree or a log must stay one line), DEL and C1
# controls.
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
# Bidi embeddings, overrides and isolates, and the line and paragraph separators that break a line like a newline.
_FORMATS = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]

ESCAPES: dict[int, str] = {code: f"\\x{code:02x}" for code in _CONTROLS} | {
    code: f"\\u{code:04x}" for code in _FORMATS
}
"""Each character `visible` replaces, by code point, and what it writes instead."""

_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in ESCAPES) + "]")
_NEWLINE = 0x0A
_LINES_ESCAPES = {code: escape for code, escape in ESCAPES.items() if code != _NEWLINE}
_LINES_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in _LINES_ESCAPES) + "]")


def visible(text: str) -> str:
    """`text` with every control, bidi and line-separator character written as a visible escape."""
    if _UNSAFE.search(text) is None:  # the common case: nothing to replace, no new string
        return text
    return text.translate(ESCAPES)


def is_safe(text: str) -> bool:
    """True when `text` holds nothing that `visible` would replace."""
    return _UNSAFE.search(text) is None


def visible_lines(text: str) -> str:
    """`visible`, with the line breaks of a text of several lines kept (a help page, a traceback). A carriage
    return is escaped: it would let a line overwrite the one shown before it."""
    if _LINES_UNSAFE.search(text) is None:
        return text
    return text.translate(_LINES_ESCAPES)


def visible_traceback(exc: BaseException) -> str:
    """The traceback Python prints for an uncaught exception, with what its messages quote escaped."""
    return visible_lines("".join(traceback.format_exception(exc)))


class VisibleFormatter(logging.Formatter):
    """Log lines for a terminal (or a file a person reads with `cat`): each message is one line with what it quotes
    (a request's path, a DAR's cause, a Daml `trace`) escaped, so it can neither act on the terminal nor forge a
    line of its own; a traceback keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(super().formatMessage(record))

    def formatException(self, ei) -> str:
        return visible_lines(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return visible_lines(super().formatStack(stack_info))


class VisibleArgumentParser(argparse.ArgumentParser):
    """An argument parser whose messages (usage errors, which quote the arguments given, and help) are written
    through `visible_lines`. Its subcommands' parsers are of the same class."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(visible_lines(message) if message else message, file)
