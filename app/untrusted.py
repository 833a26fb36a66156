"""Text that came from a participant (or any other party), made safe to put in front of a person.

A payload string, an id, a party name or an error cause is chosen by whoever wrote it to the ledger: written raw to
the terminal, `ESC ] 52` sets the clipboard, `ESC ] 0` the window title, `ESC ] 8` hides a link, CSI sequences move
the cursor or repaint; the Unicode bidi overrides reorder what is shown around them. `visible` replaces each such
character with an escape a person can read (`\\x1b`, `\\u202e`), so the text keeps every character's identity and
can no longer act on the terminal. Ordinary characters, backslashes and non-Latin scripts are left as they are.
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
