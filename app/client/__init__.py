"""The JSON Ledger API v2 client: `LedgerClient`, its errors, its request log. Usable without the UI."""

from app.client.errors import LedgerApiError
from app.client.ledger import Capabilities, LedgerClient, event_format, update_format
from app.client.requests_log import RequestLog, RequestRecord

__all__ = ["Capabilities", "LedgerApiError", "LedgerClient", "RequestLog", "RequestRecord", "event_format",
           "update_format"]
