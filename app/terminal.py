"""The terminal driver: Textual's own for Linux and macOS, with an input thread that stops at once on quit.

Textual's input thread waits for the terminal in `select` with a 100 ms timeout, and once told to stop it waits
another 100 ms for late input before it ends; quitting waits for that thread, so the shell came back about 200 ms
after `q`. Here the thread also watches a pipe, written to when input is disabled: it wakes at once, reads what
the terminal already holds and ends. Everything else (modes, keys, mouse, resizing) is Textual's.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

POLL_S = 0.1  # as Textual: how often the thread looks at its exit event when nothing wakes it


class PromptExitDriver(LinuxDriver):
    _wake: tuple[int, int] | None = None  # (read end, write end) of the pipe that wakes the input thread

    def start_application_mode(self) -> None:
        self._wake = os.pipe()
        self._wake_read = self._wake[0]  # the thread's own copy: `_wake` is gone once input is disabled
        super().start_application_mode()

    def disable_input(self) -> None:
        wake, self._wake = self._wake, None
        if wake is not None:
            os.write(wake[1], b"\0")
        super().disable_input()  # joins the input thread
        if wake is not None:
            os.close(wake[0])
            os.close(wake[1])

    def run_input_thread(self) -> None:
        """Textual's `LinuxDriver.run_input_thread`, woken by the pipe instead of waiting out its timeouts."""
        wake = self._wake_read
        fileno = self.fileno
        selector = selectors.SelectSelector()
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> bool:
            """Feed what the terminal holds to the parser; False once the pipe says to stop."""
            woken = False
            for last, (key, _mask) in loop_last(ready):
                if key.fd == wake:
                    woken = True
                    continue
                text = decode(os.read(fileno, 1024 * 4), final=final and last)
                if not text:
                    break
                for event in parser.feed(text):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
            return not woken

        try:
            while not self.exit_event.is_set() and process(selector.select(POLL_S)):
                pass
            selector.unregister(wake)
            process(selector.select(0), final=True)  # what the terminal holds already; nothing is waited for
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
