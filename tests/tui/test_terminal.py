"""The terminal driver's input thread: keys reach the app, and disabling input ends the thread without waiting for
a poll's timeout (here an hour long: only the wake-up pipe can end it)."""

from __future__ import annotations

import faulthandler
import os
import pty
import threading
import time
import tty

from textual.app import App
from textual.events import Key
from textual.message import Message

import app.terminal
from app.app import LedgerApp
from app.config import Config
from app.terminal import PromptExitDriver

BOUND = 60.0  # seconds: how long the test waits at most, not a timing assertion


async def test_disabling_input_wakes_the_input_thread_at_once(monkeypatch):
    monkeypatch.setattr(app.terminal, "POLL_S", 3600.0)
    master, slave = pty.openpty()
    tty.setraw(slave)  # as the app sets its terminal: keys come one by one, not a line at a time
    driver = PromptExitDriver(App(), debug=False, mouse=False)
    driver.fileno = slave
    received: list[Message] = []
    driver.process_message = received.append  # type: ignore[method-assign,assignment]  # what the driver hands the app
    driver._wake = os.pipe()
    driver._wake_read = driver._wake[0]
    driver._key_thread = threading.Thread(target=driver._run_input_thread, name="textual-input")
    driver._key_thread.start()
    try:
        os.write(master, b"q")
        deadline = time.monotonic() + BOUND
        while not any(isinstance(m, Key) and m.key == "q" for m in received):
            assert time.monotonic() < deadline, "the key never reached the app"
            time.sleep(0.01)
        faulthandler.dump_traceback_later(BOUND, exit=True)  # a thread left waiting an hour ends the run
        try:
            driver.disable_input()  # joins the input thread
        finally:
            faulthandler.cancel_dump_traceback_later()
        assert not driver._key_thread.is_alive() and driver._wake is None
    finally:
        os.close(master)
        os.close(slave)


def test_the_app_runs_on_that_driver_where_textual_would_use_its_linux_driver(locations):
    ledger = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9")
    assert ledger.driver_class is PromptExitDriver
