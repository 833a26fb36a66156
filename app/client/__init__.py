"""The JSON Ledger API v2 client: `LedgerClient`, its errors, its request log. Usable without the UI.

The names load on first use (PEP 562): a screen that only catches `errors` does not pay for httpx and the wire
models at import, which keeps the first frame quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.client.errors import LedgerApiError
    from app.client.ledger import Capabilities, LedgerClient, event_format, update_format
    from app.client.requests_log import RequestLog, RequestRecord

_HOMES = {
    "LedgerApiError": "app.client.errors",
    "Capabilities": "app.client.ledger",
    "LedgerClient": "app.client.ledger",
    "event_format": "app.client.ledger",
    "update_format": "app.client.ledger",
    "RequestLog": "app.client.requests_log",
    "RequestRecord": "app.client.requests_log",
}

__all__ = [
    "Capabilities",
    "LedgerApiError",
    "LedgerClient",
    "RequestLog",
    "RequestRecord",
    "event_format",
    "update_format",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'app.client' has no attribute {name!r}")
