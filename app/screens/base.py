"""What every screen of the app shares: the status bar on top, the keys in the footer, a help text."""

from __future__ import annotations

from typing import ClassVar, cast

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from app.screens.host import LedgerHost


class LedgerScreen(Screen):
    HELP: ClassVar[str] = ""
    """What the screen is for, in a few lines of Markdown (shown by `?`)."""

    TITLE_TEXT: ClassVar[str] = ""

    def unsent(self) -> str:
        """What quitting would lose on this screen, in a sentence ("" when nothing): the app asks before it quits."""
        return ""

    @property
    def ledger_app(self) -> LedgerHost:
        return cast(LedgerHost, self.app)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.ledger_app.worker_failed(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Undo what `worker`, which raised, left half done (a progress line, a busy flag); the app has said
        what failed. A screen with such state overrides this."""
