"""The transactions screen following the ledger under a burst of updates: delay from commit to screen, event-loop
stalls, memory, and that every update arrives once.

A participant (`ledger-participant serve`, its own process) and a bulk submitter (another process: `--concurrency`
submissions in flight, one Iou per transaction, for `--seconds`). The real `LedgerApp` runs in this process,
headless under Textual's Pilot at 160x45, acting as the submitter's party, on its transactions screen, following
(`f`). Measured:

* delay from commit to screen: from a transaction's record time (the participant's clock, same machine) to the first
  frame the app hands its driver after the row joined the table (`App._display`; the bench renders each frame to
  terminal sequences there, as a terminal driver would). p50, p99 and max;
* event-loop stalls: a task on the app's loop sleeps 5 ms in a loop and records how late it wakes;
* memory of this process (which hosts the TUI): RSS before the burst, and its peak during it (VmHWM, reset first);
* completeness: the offsets the screen received are every offset of the burst, each once; the window's size stays
  within its capacity.

    python -m bench.tui_updates_live [--seconds 10] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from bench.common import RawHttp, Server, bearer, ledger_end, mb, percentile, setup_party, submit_body

USER = "LiveBench"
SIZE = (160, 45)
TICK_S = 0.005
WAIT_S = 120.0  # a bound on waiting, not a target


def _status_bytes(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _reset_hwm() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _submitter(url: str, party: str, concurrency: int, seconds: float) -> int:
    """Another process: submit one-Iou transactions for `seconds`; returns how many committed."""

    async def run() -> int:
        done = 0
        deadline = time.monotonic() + seconds
        counter = iter(range(10**9))

        async def worker() -> None:
            nonlocal done
            async with RawHttp(url, bearer(USER)) as http:
                while time.monotonic() < deadline:
                    body = submit_body(party, f"burst-{next(counter)}")
                    status, content = await http.request(
                        "POST", "/v2/commands/submit-and-wait-for-transaction", body
                    )
                    if status != 200:
                        raise RuntimeError(f"submission failed: {status} {content[:300]!r}")
                    done += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done

    return asyncio.run(run())


def _record_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def measure(url: str, party: str, seconds: float, concurrency: int, profile_to: str = "") -> dict:
    from app.app import LedgerApp, settle_the_collector
    from app.config import Config
    from app.locations import Locations
    from app.screens.transactions import LIVE, TransactionsScreen
    from app.tokens import MintedToken
    from bench.common import SECRET

    tmp = Path(tempfile.mkdtemp(prefix="tui-live-"))
    locations = Locations(
        config_file=tmp / "config.toml", data_dir=tmp / "data", cache_dir=tmp / "cache", log_dir=tmp / "logs"
    )
    app = LedgerApp(
        config=Config(), locations=locations, url=url, tokens=MintedToken(SECRET, USER), label=url
    )
    delays: list[float] = []
    lateness: list[float] = []
    received: list[int] = []
    waiting: list[float] = []  # record times of the rows flushed since the last frame
    peak_window = 0

    settle_the_collector()  # as the CLI does just before app.run()
    async with app.run_test(size=SIZE) as pilot:

        async def until(predicate, what: str) -> None:
            deadline = time.monotonic() + WAIT_S
            while not predicate():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the app never reached {what}")
                await pilot.pause(0.02)

        await until(lambda: app.connected, "the connection")
        await pilot.press("6")
        await until(lambda: isinstance(app.screen, TransactionsScreen), "the transactions screen")
        screen = app.screen
        assert isinstance(screen, TransactionsScreen)
        await until(lambda: not screen.reading, "the first page")
        await pilot.press("f")
        await until(lambda: screen.stream == LIVE, "the stream live")
        start = ledger_end(url, USER)

        window = screen.window
        add_live = window.add_live

        def added(rows, cursor, **kw):  # every flush of live rows into the table goes through here
            nonlocal peak_window
            rows = list(rows)
            result = add_live(rows, cursor, **kw)
            received.extend(r.offset for r in rows)
            waiting.extend(_record_time(r.record_time) for r in rows)
            peak_window = max(peak_window, len(window))
            return result

        setattr(window, "add_live", added)  # noqa: B010  # over the method, on this window only

        display = app._display
        console = app.console

        def shown(target, renderable) -> None:
            display(target, renderable)
            if renderable is None:
                return
            render = getattr(renderable, "render_segments", None)
            if render is not None:
                render(console)
            if waiting:
                now = time.time()
                delays.extend(now - t for t in waiting)
                waiting.clear()

        setattr(app, "_display", shown)  # noqa: B010  # over Textual's method, on this app only

        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                before = time.perf_counter()
                await asyncio.sleep(TICK_S)
                lateness.append(time.perf_counter() - before - TICK_S)

        tick = asyncio.ensure_future(ticker())
        profile = None
        if profile_to:
            import cProfile

            profile = cProfile.Profile()
            profile.enable()
        rss_before = _status_bytes("VmRSS")
        _reset_hwm()
        started = time.monotonic()
        submitter = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.tui_updates_live",
            "--submit",
            url,
            party,
            str(concurrency),
            str(seconds),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await submitter.communicate()
        burst_s = time.monotonic() - started
        if submitter.returncode != 0:
            raise RuntimeError(f"the submitter failed ({submitter.returncode})")
        committed = int(out.split()[-1])
        end = ledger_end(url, USER)
        await until(lambda: screen.last_seen is not None and screen.last_seen >= end, "the ledger end")
        await pilot.pause(0.3)
        if profile is not None:
            profile.disable()
            profile.dump_stats(profile_to)
        stop.set()
        await tick
        peak = _status_bytes("VmHWM")
    expected = list(range(start + 1, end + 1))
    return {
        "committed": committed,
        "rate": committed / burst_s,
        "complete": sorted(received) == expected,
        "repeats": len(received) - len(set(received)),
        "missing": len(set(expected) - set(received)),
        "delays": delays,
        "lateness": lateness,
        "rss_before": rss_before,
        "peak": peak,
        "peak_window": peak_window,
        "capacity": screen.window.capacity,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--profile", default="", help="write a cProfile of the app during the burst to this file"
    )
    parser.add_argument(
        "--submit", nargs=4, metavar=("URL", "PARTY", "CONCURRENCY", "SECONDS"), help="(internal)"
    )
    args = parser.parse_args(argv)
    if args.submit:  # the submitter's own process
        url, party, concurrency, seconds = args.submit
        print(_submitter(url, party, int(concurrency), float(seconds)))
        return 0
    with Server() as server:
        party = setup_party(server.url, USER)
        r = asyncio.run(measure(server.url, party, args.seconds, args.concurrency, args.profile))
    delays = sorted(r["delays"])
    late = sorted(r["lateness"])
    print(
        f"burst: {r['committed']:,} transactions in {args.seconds:.0f} s ({r['rate']:,.0f}/s), "
        f"{args.concurrency} in flight, submitter in another process"
    )
    print(f"every update on screen once: {r['complete']} (missing {r['missing']}, repeated {r['repeats']})")
    print(
        f"commit → screen: p50 {percentile(delays, 50) * 1000:.0f} ms, p99 {percentile(delays, 99) * 1000:.0f} ms, "
        f"max {delays[-1] * 1000:.0f} ms ({len(delays):,} rows)"
    )
    print(
        f"event-loop lateness (5 ms ticks): p50 {percentile(late, 50) * 1000:.1f} ms, "
        f"p99 {percentile(late, 99) * 1000:.1f} ms, max {late[-1] * 1000:.1f} ms; "
        f"{sum(1 for x in late if x > 0.05)} stalls over 50 ms"
    )
    print(
        f"memory: RSS {mb(r['rss_before']):.0f} MB before the burst, peak {mb(r['peak']):.0f} MB during it; "
        f"window at most {r['peak_window']:,} rows (capacity {r['capacity']:,})"
    )
    return 0 if r["complete"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
