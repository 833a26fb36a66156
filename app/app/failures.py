"""How the app says what failed: a participant's refusal (Canton's error id, category and cause, what to do), a
refused token as what happened to it, and an internal error as its one-line cause (the traceback goes to the log)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.worker import Worker

from app.client import errors
from app.client.errors import LedgerApiError, category_words
from app.untrusted import visible

if TYPE_CHECKING:  # imported when first needed, after the first frame: the client and its models take a while
    from app.refusal import Refusal
    from app.tokens import TokenSource

log = logging.getLogger("ledger_tui")

ERROR_NOTIFY_S = 12  # how long an error's notification stays


class Failures:
    """Says failures as notifications (and log lines). Its face: `show_error` for a client error, `worker_failed` for
    whatever a worker raised, `refusal_of` and `failure_text` for the words without the notification."""

    def __init__(self, app: App, *, log_file: Path, tokens: Callable[[], TokenSource | None]) -> None:
        """`app` shows the notifications; `log_file` is where an internal error's traceback is written; `tokens`
        gives the token source in use now (a refusal is said as what happened to it)."""
        self._app = app
        self._log_file = log_file
        self._tokens = tokens

    def show_error(self, error: LedgerApiError, context: str = "") -> None:
        """A failure as a notification: Canton's error id, category and cause, and what to do (the participant's
        words shown as text, never read as markup); a refused token as what happened to it."""
        refusal = self.refusal_of(error)
        log.warning(
            "%s: %s %s",
            context or (refusal.title if refusal is not None else "request failed"),
            type(error).__name__,
            refusal.what if refusal is not None else error.message,
        )
        self._app.notify(
            _shown(self.failure_text(error, context, refusal)),
            title=visible(refusal.title if refusal is not None else error.title),
            severity="error",
            timeout=ERROR_NOTIFY_S,
            markup=False,
        )

    def refusal_of(self, error: LedgerApiError) -> Refusal | None:
        """`error` as a refusal of our token (expired, refused, unknown user), None for any other failure."""
        from app.refusal import refusal_of

        return refusal_of(error, self._tokens())

    def failure_text(self, error: LedgerApiError, context: str = "", refusal: Refusal | None = None) -> str:
        """What `show_error` says of `error`, after `context` (a line of what was being done)."""
        refusal = refusal or self.refusal_of(error)
        if refusal is None:
            return error_text(error, context)
        return "\n".join(line for line in (context, refusal.what, refusal.todo) if line)

    def worker_failed(self, worker: Worker) -> None:
        """What a worker raised (of the app, a screen or a widget: their `Worker.StateChanged` does not bubble, so
        each passes it here): a client error as such, anything else as an internal error whose traceback goes to
        the log file and whose one-line cause goes to the screen."""
        error = worker.error
        if isinstance(error, LedgerApiError):
            self.show_error(error)
            return
        log.error("internal error in %s: %s", worker.name, _cause(error), exc_info=error)
        self._app.notify(
            f"{visible(_cause(error))}\nDetails are in {self._log_file}",
            title="Internal error",
            severity="error",
            timeout=ERROR_NOTIFY_S,
            markup=False,
        )


def error_text(error: LedgerApiError, context: str = "") -> str:
    """A client error in words: Canton's error id and category, its cause, and the client's hint."""
    lines = []
    if context:
        lines.append(context)
    if isinstance(error, errors.StatusError) and error.canton is not None:
        canton = error.canton
        words = category_words(canton.error_category)
        lines.append(f"{canton.code}" + (f" · category {canton.error_category} ({words})" if words else ""))
        lines.append(canton.cause)
    else:
        lines.append(error.message)
    if error.hint:
        lines.append(error.hint)
    return "\n".join(lines)


def _shown(text: str) -> str:
    """Text for a notification, each line's control characters written as visible escapes."""
    return "\n".join(visible(line) for line in text.split("\n"))


def _cause(error: BaseException | None) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
