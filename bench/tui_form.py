"""The composer's typed form for splice-amulet's AmuletRules_Transfer argument: time to build and render it, and
event-loop stalls while it is.

    python -m bench.tui_form [--dar PATH] [--runs 20] [--items 3] [--field PATH] [--keys 20] [--typing-runs 3]

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

Then typing into the filled form, as the composer has it: the form in a scroller beside the request preview
(`RequestPreview`), which follows the form's value 0.2 s after the last change, as the composer's does. Per run the
row of `--field` (a Numeric) is opened and `--keys` digits are typed at its start one key at a time through Pilot,
then a letter (a problem line appears under the row) and backspace (it goes), then the preview is let follow. Prints per key: the
screen layouts (`Screen._refresh_layout`, Textual's own; the two keys that change the form's lines are counted
apart), the app's CPU time (this process's, Pilot's waiting included), the wall time of a key through Pilot, and
the longest stall while the digits are typed, while the problem line comes and goes, and while the preview follows.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

import orjson
from textual import on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer

from app.compose.form import ValueForm
from app.compose.types import TypeResolver
from app.ids import Expansion
from app.widgets.request_preview import RequestPreview
from app.widgets.typed_form import TypedForm
from participant.daml_lf.signatures import Signatures, read_signatures

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DAR = REPO_ROOT / ".." / "shared" / "dars" / "splice" / "splice-amulet-0.1.14.dar"
SIZE = (160, 45)
TICK_S = 0.005
PREVIEW_DELAY_S = 0.2  # as the composer's preview follows typing
DEFAULT_FIELD = "choiceArgument.transfer.outputs[0].amount"
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


class Composer(App):
    """The typed form as the composer shows it: in a scroller, the request preview beside it following its value."""

    CSS = "#host { width: 55%; } RequestPreview { width: 1fr; }"

    def __init__(self, form: ValueForm) -> None:
        super().__init__()
        self.form = form
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="host"):
                yield TypedForm(self.form, Sources())
            yield RequestPreview()

    def on_mount(self) -> None:
        self.show_request()

    @on(TypedForm.Changed)
    def _changed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(PREVIEW_DELAY_S, self.show_request)

    def show_request(self) -> None:
        previews = self.query(RequestPreview)
        if not previews:  # the app is closing
            return
        preview = previews.first()
        problems = self.form.problems()
        if problems:
            preview.show_problems([])
            return
        body = orjson.dumps({"choiceArgument": self.form.to_json()})
        preview.show_request(body, f"curl -d '{body.decode()}'")


class LayoutCount:
    """Screen layouts, counted through Textual's own `Screen._refresh_layout` (those after a scroll included)."""

    def __init__(self) -> None:
        self.layouts = 0
        self._original = Screen._refresh_layout

    def __enter__(self) -> LayoutCount:
        original = self._original

        def counted(screen: Screen, size=None, scroll: bool = False) -> None:
            self.layouts += 1
            original(screen, size, scroll)

        setattr(Screen, "_refresh_layout", counted)  # noqa: B010  (a method replaced for the count)
        return self

    def __exit__(self, *_: object) -> None:
        setattr(Screen, "_refresh_layout", self._original)  # noqa: B010


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


async def typing(signatures: Signatures, runs: int, items: int, field: str, keys: int) -> None:
    """Keys typed into the filled form's row of `field`, the request preview following."""
    digits = [str(i % 10) for i in range(keys)]
    layouts_digits: list[float] = []
    layouts_lines: list[float] = []
    cpu: list[float] = []
    wall: list[float] = []
    # the longest, by what was going on
    stalls = dict.fromkeys(("digits", "a problem line", "the preview"), 0.0)
    for _ in range(runs):
        form = transfer_form(signatures)
        problems = form.load(filled(items))
        if problems:
            raise SystemExit(f"the filled value does not fit: {problems[0]}")
        app = Composer(form)
        async with app.run_test(size=SIZE) as pilot:
            typed = app.query_one(TypedForm)
            await pilot.pause()
            if not typed.focus_path(field):
                raise SystemExit(f"no row {field} in the form")
            while not (typed.editor is not None and typed.editor.has_focus_within):
                await pilot.pause()
            await pilot.press("home")  # the digits before the value's: a Numeric 10 takes 28 of them
            await pilot.pause(PREVIEW_DELAY_S * 2)
            lateness: list[float] = []
            stop = asyncio.Event()
            watcher = asyncio.create_task(watch_loop(lateness, stop))
            with LayoutCount() as count:
                started, cpu_started = time.perf_counter(), time.process_time()
                for key in digits:
                    await pilot.press(key)
                wall.append((time.perf_counter() - started) * 1000 / keys)
                cpu.append((time.process_time() - cpu_started) * 1000 / keys)
                layouts_digits.append(count.layouts / keys)
                stalls["digits"] = max(stalls["digits"], *lateness, 0.0)
                count.layouts = 0
                lateness.clear()
                await pilot.press("x")  # a problem line comes
                await pilot.press("backspace")  # and goes
                layouts_lines.append(count.layouts / 2)
                stalls["a problem line"] = max(stalls["a problem line"], *lateness, 0.0)
                lateness.clear()
                await pilot.pause(PREVIEW_DELAY_S * 2)
                stalls["the preview"] = max(stalls["the preview"], *lateness, 0.0)
            stop.set()
            await watcher
    print(
        f"typing into {field} of the filled form ({items} inputs and outputs), {keys} digits, {runs} runs"
        f", the preview following"
    )
    print(
        f"  screen layouts per digit typed {statistics.median(layouts_digits):5.2f}"
        f"   per key adding or removing a problem line {statistics.median(layouts_lines):5.2f}"
    )
    print(
        f"  per key: CPU {statistics.median(cpu):6.2f} ms   wall through Pilot {statistics.median(wall):6.2f} ms"
    )
    print(
        "  longest stall (<= 50 ms): "
        + "   ".join(f"{what} {stall * 1000:6.1f} ms" for what, stall in stalls.items())
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--items", type=int, default=3)
    parser.add_argument("--field", default=DEFAULT_FIELD, help="the row typed into")
    parser.add_argument("--keys", type=int, default=20, help="digits typed into it per run")
    parser.add_argument("--typing-runs", type=int, default=3)
    args = parser.parse_args()
    signatures = read_signatures(args.dar.read_bytes())
    if args.runs:
        asyncio.run(bench(signatures, args.runs, args.items))
    if args.typing_runs:
        asyncio.run(typing(signatures, args.typing_runs, args.items, args.field, args.keys))
