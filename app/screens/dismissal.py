"""A screen that closes only itself, once.

Textual's `Screen.dismiss` pops whatever screen is on top of the current mode's stack, whoever asks. A dialog
dismissed twice (enter pressed twice before the first one was handled: the second `Input.Submitted` still reaches
the screen once it is off the stack) popped the screen under it, and with nothing under it raised
`ScreenStackError: Can't pop screen`, ending the app; a dialog dismissed while another screen was above it (help
opened over it, the mode switched meanwhile) popped that other screen instead, and ran its own callback with a result
nobody chose. Here a dismissal of a screen that is not the one shown does nothing.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete

from app.screens.mounting import MountsOnlyIfKept


class DismissesOnlyItself(MountsOnlyIfKept):
    def dismiss(self, result: Any = None) -> AwaitComplete:
        if not self.is_shown():
            return AwaitComplete.nothing()
        return super().dismiss(result)

    def is_shown(self) -> bool:
        """On top of the current mode's stack, with a screen under it to go back to."""
        stack = self.app.screen_stack
        return len(stack) > 1 and stack[-1] is self
