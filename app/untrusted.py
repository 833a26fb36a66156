"""Text that came from a participant (or any other party), made safe to put in front of a person.

A payload string, an id, a party name or an error cause is chosen by whoever wrote it to the ledger: written raw to
the terminal, `ESC ] 52` sets the clipboard, `ESC ] 0` the window title, `ESC ] 8` hides a link, CSI sequences move
the cursor or repaint; the Unicode bidi overrides reorder what is shown around them. `visible` replaces each such
character with an escape a person can read (`\\x1b`, `\\u202e`), so the text keeps every character's identity and
can no longer act on the terminal. Ordinary characters, backslashes and non-Latin scripts are left as they are.
`csv_cell` and `json_safe` do the same for the files the contract browser exports, which a person may `cat` or open
in a spreadsheet.
"""

from __future__ import annotations

import re

# C0 controls (tab and newline included: one line of a table or a tree must stay one line), DEL and C1 controls.
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
# Bidi embeddings, overrides and isolates, and the line and paragraph separators that break a line like a newline.
_FORMATS = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]

_TABLE = {code: f"\\x{code:02x}" for code in _CONTROLS} | {code: f"\\u{code:04x}" for code in _FORMATS}
_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in _TABLE) + "]")


def visible(text: str) -> str:
    """`text` with every control, bidi and line-separator character written as a visible escape."""
    if _UNSAFE.search(text) is None:  # the common case: nothing to replace, no new string
        return text
    return text.translate(_TABLE)


def is_safe(text: str) -> bool:
    """True when `text` holds nothing that `visible` would replace."""
    return _UNSAFE.search(text) is None


# A spreadsheet that opens a CSV file runs a cell that starts with one of these as a formula (OWASP's list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A plain decimal number (a Daml Int64 or Numeric such as "-5.0", or an offset): data, whatever its sign.
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# JSON encoders escape the C0 controls inside strings already (raw ones would be invalid JSON), and outside strings
# they are whitespace: only the rest is left to escape.
_JSON_TABLE = {code: f"\\u{code:04x}" for code in _TABLE if code >= 0x20}
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
