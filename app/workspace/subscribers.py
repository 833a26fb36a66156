"""Who wants to hear of a change: callbacks called in the order they subscribed, each until it unsubscribes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Subscribers(Generic[T]):
    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], None]] = []

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Call `callback` with each new value; returns what unsubscribes it."""
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unsubscribe

    def tell(self, value: T) -> None:
        for callback in list(self._callbacks):  # one may unsubscribe while told
            callback(value)
