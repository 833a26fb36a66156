"""`ledger-tui`: the terminal client."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("ledger-tui: the terminal client is not in this release yet.\n"
          "Meanwhile `ledger-participant serve --db ledger.db --demo` runs the bundled participant with demo data.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
