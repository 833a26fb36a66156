"""Keys handled in the order typed, each after the one before has finished: a part of the app (`Keys`).

Why: Textual forwards each key from the terminal to the widget focused *when the app reads it*, while a binding that
is not a priority one runs only once the key has bubbled back up to the app (`App._on_key`): by then the keys typed
behind it were already forwarded to the old focus. `Bob⇥42` typed at once (a terminal, tmux or a paste of keys
delivers them faster than the app handles them) put `42` into the party field, before the tab's binding moved on.

So the app admits one key at a time. A key is finished when a barrier has gone through every node the key can
reach, in order: a callback posted to the widget the key was forwarded to (it runs once the key was handled there and
bubbled on, posted to the parent), posted on from there to the parent, and so up to the screen and the app, where
the bindings run. Anything a handler posts to a node further up the way (a `Committed`, a screen's result callback
on the app) runs before the barrier reaches that node too. If the key moved the focus or changed the screen (a
dialog pushed or popped) the barrier then goes through the new screen and the newly focused widget as well, after
their `ScreenResume` and `Focus`: what those start (a dialog's focus, a form's row being made) has begun before the
next key is let through, re-posted to the app. Keys that arrive meanwhile wait in a queue behind it.

Holds: work that completes later than its key (a form built by a worker, a row's input mounted after a refresh)
holds the keys (`hold(owner)`) until it is done (`release(owner)`); they then go on in order. Every hold ends by
itself (logged) after its bound: `HOLD_BOUND_S` for local work, a request's timeout for work that waits on the
participant. A barrier waiting on a node removed meanwhile (its queue closed: the callback never runs) is passed
over by a watchdog: keys are never stuck, lost or reordered.

Repeats: a run of the same key waiting behind the one in flight (a key held down, repeated faster than the screen is
painted: 30 a second while each key's frame takes longer) is not handled key by key, each with its frame, the screen
showing where the keys led long after the last one: when its turn comes, the focused widget is given the whole run
when the key runs a binding of its own and it takes repeats of that action (`app.widgets.key_hold.TakesRepeats`: a
table's moves), moves as far at once, and the screen is painted once.

Not queued: mouse events and pastes. A mouse event is aimed at what is on screen under the pointer now (delayed
behind keys, it would land on what they drew meanwhile), and moves come by the hundred. A paste is one event, taken
whole by the focused widget without any binding, so nothing typed after it can overtake it, and a person pastes
after seeing where the focus is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import events
from textual.app import ScreenStackError

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump
    from textual.screen import Screen
    from textual.widget import Widget

log = logging.getLogger("ledger_tui")

HOLD_BOUND_S = 2.0  # a hold not released by then ends by itself (its work failed without saying so)
WATCH_S = 0.5  # how often a barrier in flight is looked at: a node removed meanwhile is passed over
BARRIER_BOUND_S = 5.0  # a node that has not let a barrier through by then (busy for that long) is passed over
# a focus moved on by the widget that got it (a form to its row's input) is followed this often
SETTLE_ROUNDS = 3


class _Barrier:
    """One pass through `nodes`, in order, then `then()`."""

    __slots__ = ("at", "nodes", "started", "then", "watch")

    def __init__(self, nodes: list[MessagePump], then: Callable[[], None]) -> None:
        self.nodes = nodes
        self.at = 0
        self.then = then
        self.started = time.monotonic()
        self.watch: asyncio.TimerHandle | None = None


class Keys:
    """The app's keys, one at a time and in order, and the holds that make them wait."""

    def __init__(
        self, app: App, *, hold_bound_s: float = HOLD_BOUND_S, barrier_bound_s: float = BARRIER_BOUND_S
    ) -> None:
        self._app = app
        self._hold_bound_s = hold_bound_s
        self._barrier_bound_s = barrier_bound_s
        self._waiting: deque[events.Key] = deque()
        self._admitted: events.Key | None = None  # re-posted to the app: let through when it arrives
        self._busy = False  # a key in flight (or a settling pass after a release)
        self._barrier: _Barrier | None = None
        self._in_flight: events.Key | None = None  # the key the barrier follows
        # it came back up to the app (where the bindings run) since the barrier last passed
        self._bound = False
        self._holds: dict[object, asyncio.TimerHandle] = {}

    @property
    def waiting(self) -> int:
        """Keys typed and not yet let through."""
        return len(self._waiting)

    @property
    def idle(self) -> bool:
        """No key in flight, none waiting, nothing held."""
        return not (self._busy or self._waiting or self._holds)

    # --- keys -------------------------------------------------------------------------------------------------

    async def handle(self, key: events.Key, handle: Callable[[events.Key], Awaitable[None]]) -> None:
        """A key that reached the app: `handle` it (Textual's own handling). One from the terminal is handled when
        its turn comes (the priority bindings, then forwarded to the focused widget), then followed until it has
        finished; one bubbling back up from the widgets runs the bindings."""
        if key.is_forwarded:
            if key is self._in_flight:
                self._bound = True
            await handle(key)
            return
        if not self._admit(key):
            return
        app = self._app
        screen = self._screen()
        if screen is None:
            # none yet (starting) or any more (closing): nothing to give it to (Textual's own handling would raise
            # ScreenStackError, reading the screen); a key kept while the app was quitting ends here
            self._busy = False
            self._next()
            return
        target = app.focused or screen  # where Textual forwards it
        self._in_flight, self._bound = key, False
        try:
            await handle(key)
        finally:
            chain: list[MessagePump] = [*target.ancestors_with_self]

            def up_to_the_app() -> None:
                # A key that came back up to the app ran a binding there, whose action may have posted to the nodes
                # on the way (an input's enter binding posts its `Submitted` to the input): through them again.
                if self._bound:
                    self._bound = False
                    self._pass(chain, up_to_the_app)
                    return
                self._in_flight = None
                self._settle(screen, target, SETTLE_ROUNDS)

            self._pass(chain, up_to_the_app)

    def _admit(self, key: events.Key) -> bool:
        if key is self._admitted:
            self._admitted = None
            if not self._holds:
                return True
            # a hold began between its re-posting and its arrival: it waits again, first
            self._waiting.appendleft(key)
            self._busy = False
            return False
        if self._busy or self._holds or self._waiting:
            self._waiting.append(key)
            return False
        self._busy = True
        return True

    def _next(self) -> None:
        if self._busy or self._holds or not self._waiting:
            return
        while self._waiting and self._take_repeats():
            pass
        if not self._waiting:
            return
        key = self._waiting.popleft()
        self._busy = True
        self._admitted = key
        if not self._app.post_message(key):  # the app is closing
            self._admitted = None
            self._busy = False

    def _take_repeats(self) -> bool:
        """The run of the same key first in the queue (two or more), given at once to the focused widget when it
        takes repeats: True when it took them (they are handled)."""
        first = self._waiting[0]
        run = 1
        while run < len(self._waiting) and _same(self._waiting[run], first):
            run += 1
        screen = self._screen()
        if run < 2 or screen is None:
            return False
        focused = screen.focused
        take: Callable[[str, int], bool] | None = getattr(focused, "take_repeats", None)
        action = _own_action(screen, first.key)
        if take is None or action is None or not take(action, run):
            return False
        for _ in range(run):
            self._waiting.popleft()
        return True

    # --- holds ------------------------------------------------------------------------------------------------

    def hold(self, owner: object, *, bound_s: float | None = None) -> None:
        """Keys wait until `owner` releases them, at the latest `bound_s` from now: `HOLD_BOUND_S` for local work;
        work that waits on the participant gives the longest its requests may take (a request's timeout), so that
        the keys wait for its answer however slow, and still go on if the work dies without a word."""
        loop = asyncio.get_running_loop()
        timer = self._holds.pop(owner, None)
        if timer is not None:
            timer.cancel()
        bound = self._hold_bound_s if bound_s is None else bound_s
        self._holds[owner] = loop.call_later(bound, self._expired, owner, bound)

    def release(self, owner: object) -> None:
        """`owner`'s work is done (or given up): keys go on, once what it started with the focus has begun."""
        timer = self._holds.pop(owner, None)
        if timer is None:
            return
        timer.cancel()
        if not self._holds and not self._busy:
            # the focus it moved may still be on its way (`Widget.focus` is a callback on the app): settle first
            self._busy = True
            screen = self._screen()
            # the focus now: a focus moved is set by a callback still to come
            focused = screen.focused if screen is not None else None
            self._pass([self._app], lambda: self._settle(screen, focused, SETTLE_ROUNDS))

    def holding(self, owner: object) -> bool:
        return owner in self._holds

    def _expired(self, owner: object, bound_s: float) -> None:
        if owner in self._holds:
            log.warning("keys held by %r for %.1f s: let through", owner, bound_s)
            self.release(owner)

    # --- barriers ---------------------------------------------------------------------------------------------

    def _pass(self, nodes: list[MessagePump], then: Callable[[], None]) -> None:
        barrier = _Barrier(nodes, then)
        self._barrier = barrier
        barrier.watch = asyncio.get_running_loop().call_later(WATCH_S, self._watch, barrier)
        self._post(barrier)

    def _post(self, barrier: _Barrier) -> None:
        while barrier.at < len(barrier.nodes):
            node = barrier.nodes[barrier.at]
            if node.call_later(self._arrived, barrier):
                return
            barrier.at += 1  # its queue is closed: nothing of the key is left to run there
        if barrier.watch is not None:
            barrier.watch.cancel()
        if self._barrier is barrier:
            self._barrier = None
        barrier.then()

    def _arrived(self, barrier: _Barrier) -> None:
        if barrier is not self._barrier:
            return  # passed over by the watchdog meanwhile
        barrier.at += 1
        self._post(barrier)

    def _watch(self, barrier: _Barrier) -> None:
        if barrier is not self._barrier or barrier.at >= len(barrier.nodes):
            return
        node = barrier.nodes[barrier.at]
        # a node removed meanwhile never runs the callback (its queue closed); one that is busy for too long is
        # passed over too (logged), so that no key is ever stuck behind it
        gone = node._closing or node._closed
        late = time.monotonic() - barrier.started > self._barrier_bound_s
        if gone or late:
            if late and not gone:
                log.warning("a key's barrier waited %.1f s on %r: passed over", self._barrier_bound_s, node)
            barrier.at += 1
            self._post(barrier)
        if self._barrier is barrier:  # still on its way
            barrier.watch = asyncio.get_running_loop().call_later(WATCH_S, self._watch, barrier)

    def _screen(self) -> Screen | None:
        try:
            return self._app.screen
        except ScreenStackError:
            return None

    def _settle(self, screen: Screen | None, focused: Widget | None, rounds: int) -> None:
        """Through the screen and the focused widget again if they are not `screen` and `focused` any more (after
        their `ScreenResume` and `Focus`, posted when they changed)."""
        now = self._screen()
        if now is None:
            self._busy = False
            return
        new: list[MessagePump] = [now] if now is not screen else []
        if now.focused is not None and now.focused is not focused:
            new.append(now.focused)
        if new and rounds > 0:
            focused_now = now.focused
            self._pass(new, lambda: self._settle(now, focused_now, rounds - 1))
            return
        self._busy = False
        self._next()


def _same(key: events.Key, other: events.Key) -> bool:
    return key.key == other.key and key.character == other.character


def _own_action(screen: Screen, key: str) -> str | None:
    """The action of the binding `key` runs when it is one of the focused widget's own (the user's keymap applied),
    as Textual's `App._check_bindings` finds it; None when a priority binding of any node takes the key first, or
    the first binding for it is another node's."""
    chain = screen._binding_chain
    if any(binding.priority for _, bindings in chain for binding in bindings.key_to_bindings.get(key, ())):
        return None
    for node, bindings in screen._modal_binding_chain:
        found = bindings.key_to_bindings.get(key)
        if found:
            return found[0].action if node is screen.focused else None
    return None
