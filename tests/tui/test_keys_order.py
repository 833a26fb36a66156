"""The app's keys part (`app.app.keys.Keys`) in a small Textual app of its own: keys sent at once (as a terminal
delivers a burst) are handled in order, each after the one before has finished: a binding that opens a dialog on
another screen gets the keys behind it into the dialog, a hold makes them wait (and ends by itself after its
bound), and a widget removed while a key's barrier waits on it holds nothing up."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input

from app.app.keys import Keys
from tests.tui.conftest import wait_for


def burst(app: App, *keys: str) -> None:
    """Keys posted at once: none waits for the app to handle the one before (as tmux sends a string)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else "\r" if key == "enter" else None))


class Recorder(Widget, can_focus=True):
    """Records the keys that reach it (and lets them bubble on to the bindings)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.seen: list[str] = []

    def on_key(self, event: events.Key) -> None:
        self.seen.append(event.key)


class Doomed(Widget, can_focus=True):
    """Removes itself on `x`, handing the focus to the recorder: the barrier behind `x` waits on a removed node."""

    def on_key(self, event: events.Key) -> None:
        if event.key == "x":
            self.app.query_one(Recorder).focus()
            self.remove()


class Question(ModalScreen[str]):
    def compose(self) -> ComposeResult:
        yield Input(id="answer")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)


class KeyedApp(App):
    """Keys from the terminal go through `Keys`, as in the ledger app."""

    BINDINGS = [Binding("o", "ask", "Ask"), Binding("h", "hold", "Hold")]

    def __init__(self, hold_bound_s: float = 2.0) -> None:
        super().__init__()
        self.keys = Keys(self, hold_bound_s=hold_bound_s)
        self.answers: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Recorder(id="recorder")
        yield Doomed(id="doomed")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            await self.keys.handle(event, super().on_event)
            return
        await super().on_event(event)

    def action_ask(self) -> None:
        self.push_screen(Question(), self.answers.append)

    def action_hold(self) -> None:
        self.keys.hold("never released")


async def test_a_burst_across_a_dialog_opened_by_a_binding() -> None:
    """`x o h i ⏎ y z` at once: `hi` is the dialog's answer, and x, o, y, z reach the widget, in order."""
    app = KeyedApp()
    async with app.run_test() as pilot:
        recorder = app.query_one(Recorder)
        recorder.focus()
        await pilot.pause()
        burst(app, "x", "o", "h", "i", "enter", "y", "z")
        await wait_for(pilot, lambda: recorder.seen[-1:] == ["z"], "the last key")
        assert app.answers == ["hi"]
        assert recorder.seen == ["x", "o", "y", "z"]
        assert app.keys.idle


async def test_a_hold_never_released_ends_after_its_bound_and_the_keys_follow_in_order() -> None:
    app = KeyedApp(hold_bound_s=0.3)
    async with app.run_test() as pilot:
        recorder = app.query_one(Recorder)
        recorder.focus()
        await pilot.pause()
        burst(app, "a", "h", "b", "c", "d")
        await wait_for(pilot, lambda: app.keys.holding("never released"), "the hold")
        assert recorder.seen == ["a", "h"] and app.keys.waiting == 3  # held
        await wait_for(pilot, lambda: not app.keys.holding("never released"), "the hold's end")
        await wait_for(pilot, lambda: app.keys.idle, "the keys let through")
        assert recorder.seen == ["a", "h", "b", "c", "d"]


async def test_a_widget_removed_while_a_barrier_waits_on_it_holds_nothing_up() -> None:
    app = KeyedApp()
    async with app.run_test() as pilot:
        doomed = app.query_one(Doomed)
        doomed.focus()
        await pilot.pause()
        burst(app, "x", "a", "b")
        recorder = app.query_one(Recorder)
        await wait_for(pilot, lambda: not doomed.is_attached, "the widget removed")
        await wait_for(pilot, lambda: app.keys.idle, "the keys let through")
        assert recorder.seen == ["a", "b"]


async def test_a_released_hold_lets_the_keys_through_at_once() -> None:
    app = KeyedApp()
    async with app.run_test() as pilot:
        recorder = app.query_one(Recorder)
        recorder.focus()
        await pilot.pause()
        app.keys.hold("work")
        burst(app, "a", "b")
        await pilot.pause()
        assert recorder.seen == [] and app.keys.waiting == 2
        app.keys.release("work")
        app.keys.release("work")  # again: nothing
        await wait_for(pilot, lambda: app.keys.idle, "the keys let through")
        assert recorder.seen == ["a", "b"]


async def test_a_key_whose_turn_comes_when_the_app_has_no_screen_is_dropped() -> None:
    """A key kept while the app quits (its screens popped) is let through after them: with no screen to give it to
    it ends there (Textual's own handling reads the screen and raises ScreenStackError)."""
    app = KeyedApp()
    async with app.run_test() as pilot:
        handled: list[str] = []

        async def textual(key: events.Key) -> None:
            handled.append(key.key)
            await App.on_event(app, key)

        app.keys._screen = lambda: None  # type: ignore[method-assign]  # the screens gone, as when quitting
        await app.keys.handle(events.Key("z", "z"), textual)
        assert handled == []
        assert app.keys.idle
        await pilot.pause()
