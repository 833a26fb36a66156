"""Text that came from a participant (or any other party), made safe to put in front of a person.

A payload string, an id, a party name or an error cause is chosen by whoever wrote it to the ledger. `visible` writes
each character that could act on a terminal (controls, bidi overrides, line separators) as an escape a person can
read (`\\x1b`, `\\u202e`); the rule is `participant.base.terminal_text`'s, the one the participant's command line
uses too, and this module is the client's way to it. `csv_cell` and `json_safe` do the same for the files the
contract browser exports and the JSON the headless commands print, which a person may `cat` or open in a
spreadsheet.
"""

from __future__ import annotations

import re

# The one rule for text shown on a terminal, shared with the participant's command line.
from participant.base.terminal_text import (
    ESCAPES,
    VisibleArgumentParser,
    VisibleFormatter,
    is_safe,
    visible,
    visible_lines,
    visible_traceback,
)

__all__ = [
    "VisibleArgumentParser",
    "VisibleFormatter",
    "csv_cell",
    "is_safe",
    "json_safe",
    "visible",
    "visible_lines",
    "visible_traceback",
]

# A spreadsheet that opens a CSV file runs a cell that starts with one of these as a formula (OWASP's list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A plain decimal number (a Daml Int64 or Numeric such as "-5.0", or an offset): data, whatever its sign.
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# JSON encoders escape the C0 controls inside strings already (raw ones would be invalid JSON), and outside strings
# they are whitespace: only the rest is left to escape.
_JSON_TABLE = {code: f"\\u{code:04x}" for code in ESCAPES if code >= 0x20}
_JSON_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in _JSON_TABLE) + "]")


def csv_cell(text: str) -> str:
    """`text` as an exported CSV cell: `visible`, and prefixed with `'` when a spreadsheet would take it for a
    formula, unless it is a plain number (so "-5.0" stays a number, "-1+cmd|..." does not run)."""
    if text.startswith(_FORMULA_STARTS) and _PLAIN_NUMBER.fullmatch(text) is None:
        return "'" + visible(text)
    return visible(text)


def json_safe(json_text: str) -> str:
    """Encoded JSON with DEL, the C1 controls and the bidi and line-separator characters written as JSON escapes
    (`\\u009b`, `\\u202e`): the same JSON value, and nothing in the file that acts on a terminal showing it."""
    if _JSON_UNSAFE.search(json_text) is None:
        return json_text
    return json_text.translate(_JSON_TABLE)
