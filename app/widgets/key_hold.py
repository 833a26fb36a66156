"""The app's hold on the keys, as widgets see it: work that completes after its key (a form built, a row's input
mounted) makes the keys typed meanwhile wait for it, then go on in order (the app's part, `app.app.keys`). And the
other way round, a widget that takes a key repeated faster than the screen follows as one move (`TakesRepeats`)."""

from __future__ import annotations

from typing import Protocol

from textual.dom import DOMNode


class KeyHold(Protocol):
    def hold(self, owner: object, *, bound_s: float | None = None) -> None:
        """Keys wait until `owner` releases them (or a bound passes: `bound_s`, by default local work's)."""
        ...

    def release(self, owner: object) -> None:
        """`owner`'s work is done or given up: keys go on. Releasing what is not held does nothing."""
        ...


class TakesRepeats(Protocol):
    """A focused widget to which the app gives a run of the same key waiting to be handled (a key held down, repeated
    faster than the screen is painted) at once: a table moves as far as the keys would take it, one by one, and the
    screen is painted once, there, instead of once for each key behind the last one shown."""

    def take_repeats(self, action: str, times: int) -> bool:
        """A key bound to the widget's `action` (as in its bindings: "page(1)") typed `times` times in a row: done
        at once, as `times` presses would have done it (True), or not an action the widget takes so (False: the
        keys are handled one by one, as any key)."""
        ...


class _NoHold:
    """An app that does not order its keys (a bench's, a test's small app): nothing to hold."""

    def hold(self, owner: object, *, bound_s: float | None = None) -> None:
        pass

    def release(self, owner: object) -> None:
        pass


NO_HOLD = _NoHold()


def key_hold(node: DOMNode) -> KeyHold:
    """The hold of the app `node` is in."""
    keys = getattr(node.app, "keys", None)
    return keys if keys is not None else NO_HOLD
