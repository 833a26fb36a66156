"""What every screen of the app shares: the status bar on top, the keys in the footer, a help text."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar, cast

from textual.worker import Worker, WorkerState

from app.screens.dismissal import DismissesOnlyItself
from app.screens.host import LedgerHost

T = TypeVar("T")


class LedgerScreen(DismissesOnlyItself):
    HELP: ClassVar[str] = ""
    """What the screen is for, in a few lines of Markdown (shown by `?`)."""

    TITLE_TEXT: ClassVar[str] = ""

    def unsent(self) -> str:
        """What quitting would lose on this screen, in a sentence ("" when nothing): the app asks before it quits."""
        return ""

    @property
    def ledger_app(self) -> LedgerHost:
        return cast(LedgerHost, self.app)

    def follow(
        self, subscribe: Callable[[Callable[[T], None]], Callable[[], None]], callback: Callable[[T], None]
    ) -> None:
        """Call `callback` with each change of something the workspace holds (`subscribe`: its subscribe method)
        for as long as this screen is mounted."""
        if not hasattr(self, "_unfollow"):
            self._unfollow: list[Callable[[], None]] = []
        self._unfollow.append(subscribe(callback))

    def on_unmount(self) -> None:
        for unsubscribe in getattr(self, "_unfollow", []):
            unsubscribe()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.ledger_app.failures.worker_failed(event.worker)
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """Undo what `worker`, which raised, left half done (a progress line, a busy flag); the app has said
        what failed. A screen with such state overrides this."""
