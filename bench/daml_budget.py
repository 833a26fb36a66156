"""What the evaluation budget's checks cost (participant/daml_lf/eval/budget.py), measured in the bench's process.

    python -m bench.daml_budget [--dars DIR] [--count 20000] [--runs 15] [--flows 40]

Machine loop: daml-stdlib's ``sum`` (through the ``Additive Int`` dictionary), ``foldl`` with ``ADD_INT64`` over
``--count`` Int64 and ``DA.List.sort`` of ``--count`` // 20, each run without a budget and under one (a far deadline,
a memory limit, a stop event: every check does all its work), alternately ``--runs`` times, in CPU time of the
thread (the machine may be shared); the overhead per workload (best against best, and the median of each pair's
ratio), the steps per second and so the time between two checks, and the cost of one check.

Canton Coin's flows: a participant app on a new database in this process with splice-amulet loaded and set up as
``bench.amulet`` does (the rounds bootstrapped), then ``--flows`` rounds of a tap, a transfer (1 input, the change)
and a transfer whose output is locked to the receiver, the engine's ``interpret`` timed around each; every other
round under a budget, so both see the same ledger and the same drift; p50 of the CPU time per flow with and
without (the store's reads, on their own thread, are not in it), and the ratio (goal: at most 10 % slower).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench import amulet
from bench.common import SECRET, bearer, median
from bench.daml_lf_eval import lookup
from participant.base.settings import Settings
from participant.daml_lf.eval.budget import CHECK_EVERY, Budget, limited
from participant.daml_lf.eval.builtins import BUILTINS
from participant.daml_lf.eval.machine import BuiltinFunction
from participant.daml_lf.eval.program import Program
from participant.daml_lf.eval.values import list_of
from participant.daml_lf.packages import read_packages
from participant.engine.interpreter import Engine
from participant.server.app import create_app

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DARS = REPO_ROOT / ".." / "shared" / "dars"
PATH = "/v2/commands/submit-and-wait-for-transaction"
GB = 1 << 30


def a_budget() -> Budget:
    """A budget that never ends an evaluation but makes every check do its work."""
    return Budget(deadline=time.monotonic() + 3600, max_memory=8 * GB, stop=threading.Event())


def timed(call: Callable[[], Any]) -> float:
    """The CPU time of `call` in this thread: on a machine shared with other work, wall time measures the others."""
    start = time.thread_time()
    call()
    return time.thread_time() - start


def count_checks(budget: Budget) -> list[int]:
    """Count `budget`'s checks in the list returned."""
    checks = [0]
    check = budget.check

    def counting(depth: int) -> None:
        checks[0] += 1
        check(depth)

    budget.check = counting  # type: ignore[method-assign]  # each check counted
    return checks


def machine_loop(dar: Path, count: int, runs: int) -> None:
    program = Program(read_packages(dar.read_bytes()))
    items = list_of(range(count))
    sum_ = lookup(program, "daml-stdlib", "DA.Internal.Prelude", "sum")
    additive = lookup(program, "daml-prim", "GHC.Num", "$$fAdditiveInt")
    foldl = lookup(program, "daml-stdlib", "DA.Internal.Prelude", "foldl")
    sort = lookup(program, "daml-stdlib", "DA.List", "sort")
    ord_int = lookup(program, "daml-prim", "GHC.Classes", "$$fOrdInt")
    add = BuiltinFunction(BUILTINS["ADD_INT64"])
    reverse = list_of(range(count // 20, 0, -1))
    print(
        f"Machine loop ({count} elements, {runs} runs alternately without and under a budget, CPU time of this "
        "thread):"
    )
    for label, call in (
        ("sum (Additive Int)", lambda: program.call(sum_, additive, items)),
        ("foldl ADD_INT64", lambda: program.call(foldl, add, 0, items)),
        ("DA.List.sort (reversed)", lambda: program.call(sort, ord_int, reverse)),
    ):
        call()  # compiled and warm
        free, budgeted, ratios = [], [], []
        for _ in range(runs):
            free.append(timed(call))
            with limited(a_budget()):
                budgeted.append(timed(call))
            ratios.append(budgeted[-1] / free[-1])
        # the steps of one run: the checks it makes (each CHECK_EVERY steps) and the count left after the last
        counter = a_budget()
        checks = count_checks(counter)
        with limited(counter):
            call()
        steps = checks[0] * CHECK_EVERY + (CHECK_EVERY - counter.countdown)
        best_free, best_budgeted = min(free), min(budgeted)
        print(
            f"  {label:24s} {best_free * 1e3:7.1f} ms free, {best_budgeted * 1e3:7.1f} ms under a budget "
            f"(best {(best_budgeted / best_free - 1) * 100:+5.1f} %, median of pairs {(median(ratios) - 1) * 100:+5.1f} %); "
            f"{steps} steps, "
            f"{steps / best_budgeted / 1e6:.2f} M steps/s: a check every {CHECK_EVERY / (steps / best_budgeted) * 1e3:.2f} ms"
        )
    budget = a_budget()
    with limited(budget):
        n = 20_000
        start = time.thread_time()
        for _ in range(n):
            budget.check(0)
        per_check = (time.thread_time() - start) / n
    print(f"  one check (stop, deadline, depth, /proc/self/statm): {per_check * 1e6:.1f} μs")


async def _flows(dars: Path, rounds: int) -> dict[tuple[str, bool], list[float]]:
    samples: dict[tuple[str, bool], list[float]] = {}
    interpret = Engine.interpret
    current: list[Any] = ["", False]

    async def measured(self: Engine, *args: Any, **kwargs: Any) -> Any:
        flow, budgeted = current
        t0 = time.thread_time()
        try:
            if budgeted:
                with limited(a_budget()):
                    return await interpret(self, *args, **kwargs)
            return await interpret(self, *args, **kwargs)
        finally:
            samples.setdefault((flow, budgeted), []).append(time.thread_time() - t0)

    with tempfile.TemporaryDirectory(prefix="ledger-bench-budget-") as tmp:
        settings = Settings(db=Path(tmp) / "ledger.db", hs256_secret=SECRET, log_requests=False)
        participant = create_app(settings)
        async with participant.router.lifespan_context(participant):
            transport = httpx.ASGITransport(app=participant)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=60) as http:
                await amulet.upload(http, amulet.amulet_dars(dars))
                app = await amulet.setup(http)

                async def submit(flow: str, command: dict, act_as: list[str], n: int) -> dict:
                    current[0] = flow
                    body = amulet.request(command, act_as, [app.dso], f"{flow}-{n}")
                    r = await http.post(PATH, json=body, headers=bearer(app.user))
                    r.raise_for_status()
                    return r.json()["transaction"]

                coin = amulet.tapped(
                    await submit("warm", amulet.tap_command(app, "1000000.0"), [app.sender], 0)
                )
                Engine.interpret = measured  # type: ignore[method-assign]  # each run timed
                try:
                    for n in range(rounds + 2):  # the first two rounds compile what they run: left out
                        current[1] = n % 2 == 1
                        await submit("tap", amulet.tap_command(app, "10.0"), [app.sender], n)
                        both = [app.sender, app.receiver]
                        coin = amulet.change(
                            await submit("transfer", amulet.transfer_command(app, coin, "1.0"), both, n)
                        )
                        coin = amulet.change(await submit("lock", lock_command(app, coin), both, n))
                        if n < 2:
                            samples.clear()
                finally:
                    Engine.interpret = interpret  # type: ignore[method-assign]  # the original back
    return samples


def lock_command(app: amulet.AmuletApp, coin: str) -> dict:
    """A transfer of 1.0 to the receiver, its output locked to the sender for an hour (`Util.lockTo1`)."""
    command = amulet.transfer_command(app, coin, "1.0")
    expires = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    [output] = command["ExerciseCommand"]["choiceArgument"]["transfer"]["outputs"]
    output["lock"] = {"holders": [app.sender], "expiresAt": expires, "optContext": None}
    return command


def flows(dars: Path, rounds: int) -> None:
    samples = asyncio.run(_flows(dars, rounds))
    print(
        f"\nCanton Coin's flows interpreted in this process, {rounds // 2} of each with and without a budget:"
    )
    for flow in ("tap", "transfer", "lock"):
        free, budgeted = median(samples[(flow, False)]), median(samples[(flow, True)])
        print(
            f"  {flow:9s} p50 {free * 1e3:6.2f} ms free, {budgeted * 1e3:6.2f} ms under a budget "
            f"({(budgeted / free - 1) * 100:+5.1f} %)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dars", type=Path, default=DEFAULT_DARS, help="the directory of splice/")
    parser.add_argument("--count", type=int, default=20_000, help="list length of the machine loop (20000)")
    parser.add_argument("--runs", type=int, default=15, help="runs of each machine workload (15)")
    parser.add_argument("--flows", type=int, default=40, help="rounds of tap, transfer and lock (40)")
    args = parser.parse_args(argv)
    machine_loop(args.dars / "splice" / "splice-amulet-0.1.14.dar", args.count, args.runs)
    flows(args.dars, args.flows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
