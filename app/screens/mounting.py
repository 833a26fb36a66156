"""A screen removed before it finished mounting does not mount.

Textual composes a screen (mounting its widgets, which yields to the loop) before it sends the screen its `Mount`;
a key handled in between (a number key, escape) can pop the screen, which removes its widgets, and the `Mount`
still comes. Every `on_mount` that looked its own widgets up then raised `NoMatches`, ending the app, and one that
subscribed to the workspace subscribed a screen that was already gone (its `on_unmount` had run). Here the `Mount`
of a screen already being removed (or left mounting as the app quits) is dropped, for every screen, rather than
each `on_mount` checking."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.screen import Screen


class MountsOnlyIfKept(Screen):
    async def _dispatch_message(self, message: Message) -> None:
        if isinstance(message, events.Mount) and (self._pruning or not self.is_attached):
            return  # being removed, or no longer the app's (it quits)
        await super()._dispatch_message(message)
