"""Milestones of a session, for the startup benchmark: with LEDGER_TUI_TRACE=<file> set, each milestone appends
one JSON line ``{"event": ..., "t": <unix time>}``. Off (and free) otherwise."""

from __future__ import annotations

import json
import os
import time

_PATH = os.environ.get("LEDGER_TUI_TRACE")
_seen: set[str] = set()


def milestone(event: str, **data: object) -> None:
    """Record `event` once per process."""
    if not _PATH or event in _seen:
        return
    _seen.add(event)
    try:
        with open(_PATH, "a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "t": time.time(), **data}) + "\n")
    except OSError:
        pass
