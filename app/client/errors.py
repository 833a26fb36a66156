"""One exception tree for everything that can go wrong talking to a participant.

A screen catches `LedgerApiError` once per worker and shows `title` and `detail`; the subclasses let it react to
the cases that need more than a message (an absent endpoint, an expired token, a participant that went away).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from participant.api import JsCantonError

# Canton's categories (docs/ledger-api.md §6.1) in the words a user of the client needs.
_CATEGORY_WORDS = {
    1: "transient server failure, retry later",
    2: "contention on shared resources, retry",
    3: "deadline exceeded, the outcome is unknown",
    4: "internal error of the participant",
    5: "security alert",
    6: "invalid authentication credentials",
    7: "insufficient permission",
    8: "invalid request",
    9: "invalid given the current ledger state",
    10: "already exists",
    11: "not found",
    12: "beyond the ledger end",
    14: "not supported by this participant",
}


def category_words(category: int | None) -> str:
    return _CATEGORY_WORDS.get(category or -1, "")


class LedgerApiError(Exception):
    """Base of every client failure. `title` is one line for a notification, `detail` says what to do."""

    title: str = "request failed"

    def __init__(self, message: str, *, method: str = "", path: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.path = path
        self.hint = hint

    @property
    def detail(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message

    @property
    def retryable(self) -> bool:
        return False


class TransportError(LedgerApiError):
    """The request did not get an HTTP answer: refused, reset, unreachable, timed out."""

    title = "participant unreachable"

    @property
    def retryable(self) -> bool:
        return True


class RequestTimeout(TransportError):
    title = "participant timed out"


class TokenError(LedgerApiError):
    """The token source could not produce a token (file missing, command failed, token endpoint refused)."""

    title = "no token"


class StatusError(LedgerApiError):
    """An HTTP answer other than 2xx. `canton` holds the parsed `JsCantonError` when the body is one; `text` holds
    a plain-text body (Canton's 400 answers for a body it cannot parse)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        canton: JsCantonError | None = None,
        text: str = "",
        method: str = "",
        path: str = "",
        hint: str = "",
    ) -> None:
        super().__init__(message, method=method, path=path, hint=hint)
        self.status = status
        self.canton = canton
        self.text = text

    @property
    def code(self) -> str | None:
        """Canton's error id, e.g. ``CONTRACT_NOT_FOUND`` (None for a body that is not a JsCantonError)."""
        return self.canton.code if self.canton is not None else None

    @property
    def title(self) -> str:  # type: ignore[override]  # the base's class attribute, worked out here
        if self.canton is not None:
            return f"{self.canton.code} ({self.status})"
        return f"HTTP {self.status}"

    @property
    def retryable(self) -> bool:
        return self.status in (429, 502, 503, 504) or (
            self.canton is not None and bool(self.canton.retry_info)
        )


class BadRequest(StatusError):
    """400: the participant refused the request as invalid (a JsCantonError, or Canton's text answer)."""


class Unauthenticated(StatusError):
    """401: no token, or an expired, badly signed or wrongly addressed one."""


class PermissionDenied(StatusError):
    """403: the user lacks a right, is unknown or deactivated."""


class NotFound(StatusError):
    """404 with a JsCantonError: the thing asked for does not exist or is not visible."""


class Conflict(StatusError):
    """409: duplicate command, submission in flight, already exists."""


class ListTooLarge(StatusError):
    """413: more elements than the participant's list limit (or a body over its size limit)."""


class ServerError(StatusError):
    """5xx: the participant (or a proxy in front of it) failed."""


class EndpointMissing(StatusError):
    """404 in Canton's legacy shape (no ``code``): this participant does not have the endpoint (docs/ledger-api.md §0)."""

    title = "endpoint not available"


class UnreadableAnswer(LedgerApiError):
    """An answer that is not what the API promises: HTML from a proxy, truncated JSON, another shape."""

    title = "unreadable answer"


_BY_STATUS: dict[int, type[StatusError]] = {
    400: BadRequest,
    401: Unauthenticated,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: ListTooLarge,
}


def status_error_class(status: int) -> type[StatusError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else StatusError
