"""The one rule for text shown on a terminal, as both programs' command lines use it: lines kept where a text has
several (help, a traceback), log lines kept to one line each."""

from __future__ import annotations

import logging
import sys

from participant.base.terminal_text import VisibleFormatter, visible, visible_lines

HOSTILE = "a\x1b]0;title\x07\r\u202eb"


def test_visible_lines_keeps_line_breaks_and_escapes_the_rest():
    assert visible_lines(f"one {HOSTILE}\ntwo\n") == "one a\\x1b]0;title\\x07\\x0d\\u202eb\ntwo\n"
    assert visible(f"one\n{HOSTILE}") == "one\\x0aa\\x1b]0;title\\x07\\x0d\\u202eb"
    text = "usage: ledger-tui [-h]\n  --url URL\n"
    assert visible_lines(text) is text


def test_a_log_line_stays_one_line_and_its_traceback_keeps_its_lines():
    formatter = VisibleFormatter("%(levelname)s %(name)s: %(message)s")
    try:
        raise ValueError(HOSTILE)
    except ValueError:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "participant", logging.INFO, __file__, 1, "refused: %s", (f"x\n{HOSTILE}",), exc_info
    )
    first, *rest = formatter.format(record).split("\n")
    assert first == "INFO participant: refused: x\\x0aa\\x1b]0;title\\x07\\x0d\\u202eb"
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "ValueError: a\\x1b]0;title\\x07\\x0d\\u202eb"
