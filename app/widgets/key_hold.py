"""The app's hold on the keys, as widgets see it: work that completes after its key (a form built, a row's input
mounted) makes the keys typed meanwhile wait for it, then go on in order (the app's part, `app.app.keys`)."""

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
