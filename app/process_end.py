"""The end of the terminal client's process, once its session is over: without the interpreter's finalization.

With the terminal restored, the bundled participant stopped and the contracts kept (the file written and closed
at its session's name, then renamed to the kept name: a process killed before the rename leaves the last state
kept, never a file half-written under the kept name), what remains is the interpreter tearing down its modules
and collecting the session's objects. That took 100 to 130 ms of the 165 ms from `q` to the process's exit
(`bench/tui_startup.py`), and leaves nothing on disk that the next start would read."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def end_process(code: int) -> NoReturn:
    """Exit with `code` after what the interpreter's own exit does that matters to anyone else: threads let finish
    (an executor's worker writing a file ends its work first), the exit functions run (logging's last flush
    among them), stdout and stderr flushed."""
    shutdown_threads = getattr(threading, "_shutdown", None)  # what the interpreter calls first at its exit
    if shutdown_threads is not None:
        shutdown_threads()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the terminal is gone, or the stream closed: nothing more to say there
            pass
    os._exit(code)
