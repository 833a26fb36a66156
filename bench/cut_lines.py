"""What marking cut text costs a table line: the contracts table's line for a demo Iou (its cells fitted, then the
screen's window over it) drawn the way the table draws it, against the bare slice that drew it before (no `…` at
an edge that cuts a value). Prints the best of `--repeat` runs in microseconds per line, at 80 and 160 columns.

    python -m bench.cut_lines [--lines 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from app.cut import fit, window
from app.daml import summary

PAYLOAD = {
    "issuer": "Bob::1220ab",
    "owner": "Alice::1220cd",
    "currency": "GBP",
    "amount": "938.9100000000",
    "observers": [],
}
# (width, right-aligned, text) of the mixed view's default columns
CELLS = [
    (16, False, "Iou:Iou"),
    (54, False, summary(PAYLOAD, 54)),
    (12, False, "00788db1f0…"),
    (15, False, "Alice, Bob"),
    (12, False, "—"),
    (19, False, "2026-01-15 09:30:21"),
    (8, True, "4"),
    (8, False, "global"),
    (4, True, "0"),
]


def line() -> str:
    return "  " + "".join(fit(text, width, right=right) + " " for width, right, text in CELLS)


def marked(lines: int, width: int) -> float:
    started = time.perf_counter()
    for i in range(lines):
        window(line(), (i % 4) * 12, width)
    return time.perf_counter() - started


def bare(lines: int, width: int) -> float:
    def old_fit(text: str, cells: int, right: bool) -> str:
        if len(text) > cells:
            return text[: cells - 1] + "…"
        return text.rjust(cells) if right else text.ljust(cells)

    started = time.perf_counter()
    for i in range(lines):
        text = "  " + "".join(old_fit(t, w, r) + " " for w, r, t in CELLS)
        scroll_x = (i % 4) * 12
        text[scroll_x : scroll_x + width].ljust(width)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for width in (78, 158):
        before = min(bare(args.lines, width) for _ in range(args.repeat)) / args.lines * 1e6
        after = min(marked(args.lines, width) for _ in range(args.repeat)) / args.lines * 1e6
        print(f"{width + 2} columns: bare slice {before:.2f} µs/line, marked window {after:.2f} µs/line")


if __name__ == "__main__":
    main()
