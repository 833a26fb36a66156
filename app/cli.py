"""`ledger-tui`: the terminal client."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("ledger-tui: the terminal client is coming in Part 2; run `ledger-participant serve --demo` meanwhile.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
