"""What every screen of the app shares: the status bar on top, the keys in the footer, a help text."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.screen import Screen

if TYPE_CHECKING:
    from app.app import LedgerApp


class LedgerScreen(Screen):
    HELP: ClassVar[str] = ""
    """What the screen is for, in a few lines of Markdown (shown by `?`)."""

    TITLE_TEXT: ClassVar[str] = ""

    def unsent(self) -> str:
        """What quitting would lose on this screen, in a sentence ("" when nothing): the app asks before it quits."""
        return ""

    @property
    def ledger_app(self) -> LedgerApp:
        from app.app import LedgerApp

        assert isinstance(self.app, LedgerApp)
        return self.app
