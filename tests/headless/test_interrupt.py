"""ctrl+c always ends a headless command, even one whose cancellation is lost on the way (a library that swallows
it): `updates --follow` once read on after SIGINT until the test's bound."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 120  # a bound on a hung process, not a timing assertion

STUBBORN = textwrap.dedent(
    """
    import asyncio, sys
    from app.headless.main import INTERRUPTED, _interruptible

    async def stubborn() -> int:
        print("ready", flush=True)
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass  # lost, as a library may lose it

    try:
        sys.exit(asyncio.run(_interruptible(stubborn())))
    except (KeyboardInterrupt, asyncio.CancelledError):
        sys.exit(INTERRUPTED)
    """
)


def test_sigint_ends_a_command_that_loses_its_cancellation() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", STUBBORN], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
        process.send_signal(signal.SIGINT)
        assert process.wait(BOUND_S) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
