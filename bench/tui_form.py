"""The composer's typed form for splice-amulet's AmuletRules_Transfer argument: time to build and render it, and
event-loop stalls while it is.

    python -m bench.tui_form [--dar PATH] [--runs 20] [--items 3]

The signatures are read from the DAR once (not timed: the package catalog's bench times that). Each run, in a
Textual app headless at 160x45 under Pilot, the form is built from the choice's argument type (`TypeResolver`,
`ValueForm`) and its `TypedForm` mounted; the time runs until the first frame after the mount is painted (the
form draws the lines in view; no row has widgets until it has the focus), then until Pilot's pause returns (every
message handled, the screen refreshed). Two shapes: the form as it opens (empty lists, Optionals
none) and a filled one, loaded from JSON, with `--items` inputs and outputs, every output's lock set (more than a
hundred inputs). A task on the app's loop sleeps 5 ms in a loop and records how late it wakes: its worst lateness
while a shape is built and shown is that shape's longest stall. Prints, per shape, the rows and the widgets laid
out, the first paint (median and max), the time until settled and the longest stall. Targets, for the filled form: first paint <= 150 ms,
no stall over 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from app.compose.form import ValueForm
from app.compose.types import TypeResolver
from app.ids import Expansion
from app.widgets.typed_form import TypedForm
from participant.daml_lf.signatures import Signatures, read_signatures

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "splice" / "splice-amulet-0.1.14.dar"
SIZE = (160, 45)
TICK_S = 0.005
PARTY = "Alice::1220" + "ab" * 32
CONTRACT = "00" + "11" * 32


class Sources:
    """Completion for the bench: one party, no contracts read."""

    def parties(self) -> list[str]:
        return [PARTY]

    def contract_ids(self, template: str) -> list[str]:
        return []

    def contract_label(self, contract_id: str) -> str:
        return ""

    def want_contracts(self, template: str) -> None:
        return None

    async def expand_contract_id(self, typed: str) -> Expansion:
        return Expansion(typed, typed)


class Host(App):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="host")


def transfer_form(signatures: Signatures) -> ValueForm:
    template = signatures.main.templates["Splice.AmuletRules:AmuletRules"]
    choice = template.choice("AmuletRules_Transfer")
    assert choice is not None
    return ValueForm(TypeResolver(signatures.packages).choice_argument(choice), "choiceArgument")


def filled(items: int) -> dict:
    lock = {"holders": [PARTY, PARTY], "expiresAt": "2031-01-01T00:00:00Z", "optContext": "bench"}
    return {
        "transfer": {
            "sender": PARTY,
            "provider": PARTY,
            "inputs": [{"tag": "InputAmulet", "value": CONTRACT} for _ in range(items)],
            "outputs": [
                {"receiver": PARTY, "receiverFeeRatio": "0.0", "amount": f"{i + 1}.0", "lock": lock}
                for i in range(items)
            ],
            "beneficiaries": [{"beneficiary": PARTY, "weight": "1.0"}],
        },
        "context": {
            "openMiningRound": CONTRACT,
            "issuingMiningRounds": [[{"number": str(i)}, CONTRACT] for i in range(items)],
            "validatorRights": [[PARTY, CONTRACT]],
            "featuredAppRight": CONTRACT,
        },
        "expectedDso": PARTY,
    }


async def watch_loop(lateness: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(TICK_S)
        lateness.append(time.perf_counter() - started - TICK_S)


async def bench(signatures: Signatures, runs: int, items: int) -> None:
    app = Host()
    timings: dict[str, list[float]] = {"as it opens": [], f"filled ({items} inputs and outputs)": []}
    complete: dict[str, list[float]] = {shape: [] for shape in timings}  # every message handled
    rows: dict[str, int] = {}
    widgets: dict[str, int] = {}
    stalls: dict[str, float] = dict.fromkeys(timings, 0.0)
    lateness: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        host = app.query_one("#host", VerticalScroll)
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch_loop(lateness, stop))
        for _ in range(runs):
            for shape in timings:
                await host.remove_children()
                await pilot.pause()
                lateness.clear()
                started = time.perf_counter()
                form = transfer_form(signatures)
                if shape != "as it opens":
                    problems = form.load(filled(items))
                    if problems:
                        raise SystemExit(f"the filled value does not fit: {problems[0]}")
                typed = TypedForm(form, Sources())
                painted = asyncio.Event()
                await host.mount(typed)
                typed.call_after_refresh(painted.set)
                await painted.wait()
                timings[shape].append((time.perf_counter() - started) * 1000)
                await pilot.pause()
                complete[shape].append((time.perf_counter() - started) * 1000)
                rows[shape] = len(typed.rows.rows)
                widgets[shape] = len(typed.query("*")) + 1  # the form's own widget and those of a row open
                stalls[shape] = max(stalls[shape], *lateness, 0.0)
        stop.set()
        await watcher
    print(f"AmuletRules_Transfer argument, {runs} runs, {SIZE[0]}x{SIZE[1]}")
    for shape, values in timings.items():
        print(
            f"{shape:<32} {rows[shape]:3d} rows {widgets[shape]:4d} widgets   first paint median"
            f" {statistics.median(values):6.1f} ms   max {max(values):6.1f} ms (<= 150)   settled"
            f" {statistics.median(complete[shape]):6.1f} ms   longest stall {stalls[shape] * 1000:6.1f} ms (<= 50)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--items", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(bench(read_signatures(args.dar.read_bytes()), args.runs, args.items))
