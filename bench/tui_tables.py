"""What drawing costs the three windowed tables (contracts, requests, transactions), no participant: each filled from
memory in a headless Textual app at 160x45, then, in the bench's process and CPU time, every line of its screen
drawn afresh (its caches dropped, as after a theme or focus change) and drawn again (the lines kept), 20 screens a
run, and a walk of the cursor: a key's move (down, then page down; `--steps` of each) and the screen drawn after
each, as a repaint after a key draws it. Prints µs of CPU per line, best of `--repeat` runs.

    python -m bench.tui_tables [--rows 5000] [--steps 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.widget import Widget

from app.client.requests_log import RequestRecord
from app.snapshot import Row
from app.update_rows import UpdateRow
from app.update_window import UpdateWindow
from app.widgets.acs_columns import DEFAULT_MIXED, build_columns
from app.widgets.contract_table import ContractTable
from app.widgets.request_list import RequestList
from app.widgets.update_table import UpdateTable
from app.widgets.windowed_table import WindowedTable

SIZE = (160, 45)
SCREENS = 20  # screens drawn per run, afresh and again
PARTY = "Alice::1220" + "ab" * 32


def contract(i: int) -> Row:
    return Row(
        position=i,
        status=0,
        contract_id="00" + f"{i:08x}" * 17,
        template_id="a1b2c3:Iou:Iou",
        created_offset=i + 1,
        archived_offset=None,
        kind=0,
        signatories=[PARTY],
        observers=[],
        synchronizer="global::1220" + "cd" * 32,
        counter=0,
        created_at="2026-11-26T11:12:15.123456Z",
        workflow_id="",
        payload={
            "issuer": PARTY,
            "owner": PARTY,
            "currency": "USD",
            "amount": f"{i}.0000000000",
            "observers": [],
        },
    )


def request(i: int) -> RequestRecord:
    return RequestRecord(
        id=i,
        method="POST",
        url=f"http://127.0.0.1:7575/v2/state/active-contracts-page?i={i}",
        path="/v2/state/active-contracts-page",
        started=1_764_000_000.0 + i,
        request_headers={},
        status=200,
        duration_ms=12.5,
        response_size=48_000,
    )


def update(offset: int) -> UpdateRow:
    return UpdateRow(
        offset=offset,
        update_id=f"1220{offset:060x}",
        record_time="2026-11-26T11:12:15.123456Z",
        kind="transaction",
        command_id=f"cmd-{offset}",
        workflow_id="",
        templates=("a1b2c3:Iou:Iou",),
        choices=("Iou_Transfer",),
        created=1,
        archived=1,
        acting=(PARTY,),
        submitter="",
        parties=frozenset([PARTY]),
        contracts=(),
    )


class Tables(App[None]):
    def __init__(self, table: Widget) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield self.table


def best(repeat: int, run: Callable[[], int]) -> float:
    """µs of CPU per line drawn, best of `repeat` runs of `run` (which returns the lines it drew)."""
    out = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        lines = run()
        out = min(out, (time.process_time() - start) / lines * 1e6)
    return out


async def measure(
    name: str, table: WindowedTable | UpdateTable, fill: Callable[[], None], steps: int, repeat: int
) -> None:
    app = Tables(table)
    async with app.run_test(size=SIZE) as pilot:
        fill()
        await pilot.pause()
        height = table.size.height

        def draw() -> int:
            for y in range(height):
                table.render_line(y)
            return height

        def cold() -> int:
            lines = 0
            for _ in range(SCREENS):
                table.notify_style_update()
                lines += draw()
            return lines

        def again() -> int:
            return sum(draw() for _ in range(SCREENS))

        def walk(action: Callable[[int], None]) -> Callable[[], int]:
            def run() -> int:
                table.action_first()
                lines = 0
                for _ in range(steps):
                    action(1)
                    lines += draw()
                return lines

            return run

        results = {
            "afresh": best(repeat, cold),
            "again": best(repeat, again),
            "down": best(repeat, walk(table.action_cursor)),
            "page down": best(repeat, walk(table.action_page)),
        }
        print(f"{name:<14} " + "  ".join(f"{k} {v:6.1f}" for k, v in results.items()) + "  µs/line")


async def bench(rows: int, steps: int, repeat: int) -> None:
    contracts = ContractTable()

    def fill_contracts() -> None:
        sample = [contract(i) for i in range(rows)]
        generation = contracts.set_view(
            rows, build_columns(DEFAULT_MIXED, sample[:50]), sort_key="arrival", descending=False
        )
        contracts.set_rows(0, sample[:2000], generation)

    requests = RequestList()
    window = UpdateWindow(capacity=rows)
    window.reset([update(o) for o in range(1, rows + 1)], high=rows, low=None, at_head=True)
    updates = UpdateTable(window)
    await measure("contracts", contracts, fill_contracts, min(steps, 2000 // 45), repeat)
    await measure(
        "requests", requests, lambda: requests.reset([request(i) for i in range(rows)]), steps, repeat
    )
    await measure("transactions", updates, lambda: updates.rows_changed(0, replaced=True), steps, repeat)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tui_tables", description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=5000)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    asyncio.run(bench(args.rows, args.steps, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
