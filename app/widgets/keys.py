"""The keys a person sees: the footer of every screen, and the one rule for `?`.

`?` opens the help (every key of the screen) wherever the cursor is, except in a field whose text may contain a
question mark: the JSON editors (a TextArea) and the filters (`/`), made with `FieldInput(free_text=True)`. There `?`
is typed, and F1 opens the help.

The footer shows a screen's most used keys (its bindings with `show=True`) from the left, and keeps the key to the
rest on the right, beside the command palette's, so that it stays in sight however narrow the terminal is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

from app.widgets.virtual_size import repaint_only

MORE_KEYS = "More keys"


class FieldInput(Input):
    """A one-line field. Unless its text is free (`free_text`), `?` is no character of it: the key opens the help."""

    # its virtual width follows its text at each key: a repaint, not a layout of the screen (its own width is its
    # container's; Input asks for a layout itself when it is sized `auto`)
    virtual_size = repaint_only()

    def __init__(self, *args, free_text: bool = False, **kwargs) -> None:
        # Input marks itself valid as it is made; given up front, that class costs no style pass of its own
        # (felt in a form of many inputs)
        kwargs["classes"] = " ".join(filter(None, [kwargs.get("classes"), "-valid"]))
        super().__init__(*args, **kwargs)
        self.free_text = free_text

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?" and not self.free_text:
            return False
        return super().check_consume_key(key, character)


class KeyFooter(Footer):
    """Textual's footer, compact, with the key to every other key (`?`, or F1 where `?` is typed) kept on the right
    by the palette's."""

    DEFAULT_CSS = """
    KeyFooter > .keys-right { dock: right; width: auto; height: 1; border-left: vkey $foreground 20%; }
    KeyFooter > .keys-right > FooterKey, KeyFooter.-compact > .keys-right > FooterKey.-command-palette {
        dock: none; border-left: none; margin: 0; padding: 0 1 0 0;
    }
    KeyFooter > .keys-right > FooterKey.-more-keys { padding: 0 1; }
    KeyFooter.-compact FooterLabel { margin: 0 1 0 0; }
    KeyFooter.-compact KeyGroup.-compact { padding-left: 0; }
    """

    def __init__(self) -> None:
        super().__init__(compact=True)

    def compose(self) -> ComposeResult:
        self._forget_removed_keys()
        right: list[Widget] = []
        more = self._more_keys()
        if more is not None:
            right.append(more)
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action.endswith("help"):
                continue  # shown by _more_keys
            if widget.has_class("-command-palette"):
                right.append(widget)
            else:
                yield widget
        if right:
            yield HorizontalGroup(*right, classes="keys-right")  # no id: recompositions may overlap

    def _forget_removed_keys(self) -> None:
        # Each FooterKey binds `compact` to the footer (`data_bind`), a watcher Textual drops only when `compact`
        # changes, which it never does here: every recomposition (a focus or screen change) left its keys alive in
        # the footer's watchers, a long session's memory growing by the keys removed
        watchers = getattr(self, "__watchers", {}).get("compact")
        if watchers:
            watchers[:] = [(node, callback) for node, callback in watchers if node.is_attached]

    def _more_keys(self) -> FooterKey | None:
        """The key that opens the help here: `?`, unless the field in focus types it; then F1."""
        if not self._bindings_ready:
            return None
        helps = [
            binding
            for _, binding, _, _ in self.screen.active_bindings.values()
            if binding.action.removeprefix("app.").startswith("help")
        ]
        if not helps:
            return None
        binding = min(helps, key=lambda b: b.key != "question_mark")
        key = FooterKey(
            binding.key, self.app.get_key_display(binding), MORE_KEYS, binding.action, classes="-more-keys"
        )
        return key.data_bind(compact=Footer.compact)
