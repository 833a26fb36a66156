"""What every screen of the app shares: the status bar on top, the keys in the footer, a help text."""

from __future__ import annotations

from typing import ClassVar, cast

from textual.screen import Screen

from app.screens.host import LedgerHost


class LedgerScreen(Screen):
    HELP: ClassVar[str] = ""
    """What the screen is for, in a few lines of Markdown (shown by `?`)."""

    TITLE_TEXT: ClassVar[str] = ""

    @property
    def ledger_app(self) -> LedgerHost:
        return cast(LedgerHost, self.app)
