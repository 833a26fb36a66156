"""The first screen, shown before the contracts screen: while the bundled participant starts (and seeds its demo
ledger the first time), or, for a participant reached by URL, for the moment the contracts screen takes to build
right after it. Built for the first frame, the contracts screen made that frame cost about 1.5 times a bare Textual
app's (Textual parses the styles of every widget class it meets, then lays out and draws them); this screen is a
few labels (README, Startup)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Label, ProgressBar

from app.bundled import BundledParticipant, StartupState
from app.widgets.keys import KeyFooter
from app.widgets.untrusted_text import plain


class StartupScreen(Screen):
    DEFAULT_CSS = """
    StartupScreen { align: center middle; }
    StartupScreen > Middle { width: 100%; }  /* its labels' width: 100% of it, not of their own width */
    StartupScreen Label { width: 100%; content-align: center middle; }
    StartupScreen #startup-title { text-style: bold; margin-bottom: 1; }
    StartupScreen #startup-detail { color: $text-muted; margin-top: 1; }
    StartupScreen ProgressBar { margin-top: 1; }
    """
    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def __init__(self, bundled: BundledParticipant | None = None, *, url: str = "") -> None:
        """`bundled`: the participant starting; else the participant at `url`."""
        super().__init__()
        self.bundled = bundled
        self.url = url

    def compose(self) -> ComposeResult:
        with Middle():
            yield Label("ledger-tui", id="startup-title")
            if self.bundled is None:
                yield Label(plain(f"Opening {self.url}…"), id="startup-message")
            else:
                yield Label("Starting the bundled participant…", id="startup-message")
                with Center():
                    yield ProgressBar(total=None, show_eta=False, id="startup-progress")
                yield Label(plain(f"database {self.bundled.db}"), id="startup-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.bundled is not None:
            self.bundled.subscribe(self._state_changed)

    def _state_changed(self, state: StartupState) -> None:
        # called from the thread that reads the participant's announcements
        try:
            self.app.call_from_thread(self._show, state)
        except RuntimeError:
            self._show(state)  # already on the event loop's thread

    def _show(self, state: StartupState) -> None:
        if not self.is_mounted:
            return
        self.query_one("#startup-message", Label).update(plain(state.describe()))
        bar = self.query_one(ProgressBar)
        if state.phase == "seeding" and state.total:
            bar.update(total=state.total, progress=state.done)
