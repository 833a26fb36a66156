"""A place for the focus while a form is built: the keys typed meanwhile are kept and replayed, in order, into the
field that gets the focus once the form is there (typing on at once after choosing a template or a choice must
neither go into the field just left nor be lost)."""

from __future__ import annotations

from textual import events
from textual.widgets import Static

from app.widgets.untrusted_text import plain


class KeyKeeper(Static):
    DEFAULT_CSS = """
    KeyKeeper { height: 0; color: $text-muted; }
    KeyKeeper.-holding { height: 1; }
    """
    # focusable only while holding (never on tab's way); always displayed, so that it can take the focus at once
    can_focus = False

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._kept: list[events.Key] = []

    @property
    def holding(self) -> bool:
        return self.has_class("-holding")

    def hold(self, what: str) -> None:
        """Show that `what` is being built and take the focus now (not after the keys already queued)."""
        self._kept = []
        self.update(plain(f"⋯ building {what}: what you type is kept for it"))
        self.add_class("-holding")
        self.can_focus = True
        self.screen.set_focus(self, scroll_visible=False)

    def release(self) -> list[events.Key]:
        """Stop holding; the keys kept, oldest first."""
        kept, self._kept = self._kept, []
        self.remove_class("-holding")
        self.can_focus = False
        return kept

    def on_key(self, event: events.Key) -> None:
        # every key that reaches the focused widget: priority bindings (submit, help) have already run
        event.stop()
        event.prevent_default()
        self._kept.append(events.Key(event.key, event.character))


def replay(app, keys: list[events.Key]) -> None:
    """Send `keys` again as if typed now: to the focused widget, through the bindings, in order."""
    for key in keys:
        app.post_message(events.Key(key.key, key.character))
