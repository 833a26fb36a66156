"""The terminal client's process ends without the interpreter's teardown, but after what that teardown does that
others see: threads finished, exit functions run (logging's last flush among them), stdout flushed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ENDING = """
import atexit, sys, threading
from pathlib import Path

from app.process_end import end_process

out = Path(sys.argv[1])
go = threading.Event()


def late_writer() -> None:  # a worker still writing when the session ends: its file is written whole
    go.wait()
    out.with_suffix(".thread").write_text("whole")


threading.Thread(target=late_writer).start()
threading._register_atexit(go.set)  # released only as the interpreter's exit begins, as an executor's workers are
atexit.register(lambda: out.with_suffix(".atexit").write_text("ran"))
sys.stdout.write("said before the end")  # to a pipe: buffered, written by the flush
end_process(3)
"""


def test_the_process_ends_with_its_code_after_threads_exit_functions_and_output(tmp_path: Path):
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as to a pipe
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [sys.executable, "-c", ENDING, str(out)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "said before the end"
    assert out.with_suffix(".thread").read_text() == "whole"
    assert out.with_suffix(".atexit").read_text() == "ran"
