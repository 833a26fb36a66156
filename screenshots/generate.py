"""Regenerate the SVGs in this directory from the real application.

    python screenshots/generate.py [--size 160x42] [--only NAME ...]

The app runs headless (Textual's Pilot) against the bundled participant's own code with the demo ledger, in
process and made deterministic as the snapshot tests make it (fixed clock, ids and seeding run id), so a
regeneration without a change on screen gives the same files. The scenarios are the snapshot tests' own
(`tests/tui/scenarios.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.tui.deterministic import FixedLedgerApp, deterministic  # noqa: E402  (once the project is on the path)
from tests.tui.scenarios import SCREENS  # noqa: E402  (once the project is on the path)


class _Patches:
    """What `deterministic` needs of pytest's monkeypatch."""

    def setattr(self, target, name: str, value) -> None:
        setattr(target, name, value)

    def setenv(self, name: str, value: str) -> None:
        import os

        os.environ[name] = value


async def shoot(name: str, size: tuple[int, int]) -> Path:
    _, scenario = SCREENS[name]
    with deterministic(_Patches()):
        app = FixedLedgerApp(Path(tempfile.mkdtemp()))
        async with app.run_test(size=size) as pilot:
            await scenario(pilot)
            path = Path(app.save_screenshot(f"{name}.svg", str(HERE)))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="160x42", help="terminal size, COLSxLINES (default: %(default)s)")
    parser.add_argument("--only", nargs="*", choices=sorted(SCREENS), help="just these screens")
    args = parser.parse_args()
    logging.getLogger().addHandler(
        logging.NullHandler()
    )  # the app logs to its log file, not to this terminal
    logging.lastResort = None
    cols, lines = (int(n) for n in args.size.split("x"))
    for name in args.only or SCREENS:
        path = asyncio.run(shoot(name, (cols, lines)))
        print(f"{path.relative_to(HERE.parent)}: {SCREENS[name][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
