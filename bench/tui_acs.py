"""The terminal client's contracts browser over a large ACS: loading, repaint latency, event-loop stalls, memory.

A participant (`ledger-participant serve`, its own process) holds N Ious of one party. The real `LedgerApp` runs in
this process, headless, driven by Textual's Pilot at 160x45, acting as that party's user with minted tokens, and
opens its contracts screen. Measured:

* time from the app's start to the first rows on screen, and until the whole snapshot is cached (the screen's
  `loading` over and the table holding all N rows); contracts cached per second;
* reference, same run, same endpoint and request: a bare client reading the snapshot page by page
  (`GET /v2/state/active-contracts-page`, maxPageSize 5000, following nextPageToken), counting entries without
  parsing them, once before the app runs and once after; the ratio uses the faster of the two;
* repaint latency, from the key (or call) to the first frame that shows its result (the cursor where it must be, and
  every row on screen, not placeholders), for PgDn, End, Home, finding a contract by id
  (`AcsScreen.select_contract`), sorting by a column (what the `s` dialog does on a choice) and filtering (`/`, the
  text, enter; then escape). Frames are caught where the app hands them to its driver (`App._display`); the bench
  renders each one to terminal sequences there, as a real terminal driver would, and discards them;
* the same for End, Home and a find by id while the snapshot is still read (`--jumps-while-loading N`: N rounds,
  as long as it is); for each action, the frames painted before its result that lack some row on screen
  (placeholder lines);
* a key held down (`--hold N`): N PgDns posted at a terminal's key-repeat rate (`--hold-rate`, 30 a second) without
  waiting for the screen, once while the snapshot is still being read (from the first rows on) and once after; per
  key, the time to the first frame that shows its page or one beyond it with every row there; how long after the
  last key the screen showed where the keys lead (and whether it moved after that), the frames painted, and those
  with placeholders;
* event-loop stalls: a task on the app's loop sleeps 5 ms in a loop and records how late it wakes, while loading and
  while interacting; the collector's pauses (`gc.callbacks`) by generation in each phase;
* with `--restart`, a second session after the first quits, in the same home: the size of the file kept for it, the
  time to its first rows (the kept ones) and to the participant's;
* memory of this process (which hosts the TUI): RSS when the bench starts, just before the app starts (its modules
  imported, the first bare read done), and its peak while it runs (VmHWM, reset first through /proc/self/clear_refs, and ru_maxrss); the size of the snapshot cache file.

    python -m bench.tui_acs [--contracts 100000] [--db /tmp/tui-1m.db --keep-db] [--seed 1] [--page-downs 100]
                            [--hold 60 --hold-rate 30] [--paging-only] [--restart] [--jumps-while-loading 10]

`--db` names the participant's database file: it is reused when it already holds the contracts (and topped up when
it holds fewer), which spares the minutes seeding a million takes; `--keep-db` keeps it afterwards. Keep it out of
the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import random
import re
import resource
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import httpx

from bench.common import (
    ADMIN_USER,
    SECRET,
    RawHttp,
    Server,
    bearer,
    client_cpu_seconds,
    ledger_end,
    mb,
    percentile,
    seed_ious,
    setup_party,
)

if TYPE_CHECKING:
    from textual.app import App

USER = "TuiBench"
PAGE_PATH = "/v2/state/active-contracts-page"
PAGE_SIZE = 5_000
SIZE = (160, 45)
TICK_S = 0.005
POLL_S = 0.001
LOAD_TIMEOUT_S = 1800.0  # bounds on waiting, not targets
ACTION_TIMEOUT_S = 120.0
STALL_SAMPLE_AFTER_S = 0.03  # --stall-stacks: sample the threads' stacks once the loop is this late
STALL_TOP = 45
QUIET_FRAME_S = 0.25  # a state reached with no frame after it within this long counts as shown when reached
CONTRACT_ID = re.compile(rb'"contractId":"([0-9a-f]+)"')

PAGE_DOWNS = 100
HOLD_KEYS = 60  # PgDns of a key held down: two seconds of a terminal's key repeat
HOLD_RATE = 30.0  # keys a second
# after the screen showed where the held keys lead: any frame that moves it still is counted
HOLD_QUIET_S = 0.5
END_HOME = 20
FINDS = 20
SORTS = [
    ("offset", True),
    ("contract", False),
    ("created_at", True),
    ("payload.amount", False),
    ("payload.currency", True),
]
FILTERS = ["USD", "fff", "00ab", "no-such-text", "{cid}"]  # all rows, ~3%, ~0.2%, none, one

TARGET_FIRST_ROWS_S = 1.0
TARGET_REPAINT_P99_MS = 100.0
TARGET_STALL_MS = 50.0
TARGET_MEMORY_MB = 120.0


# --- this process's memory ----------------------------------------------------------------------------------------


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def rss() -> int:
    return _status_kb("VmRSS")


def hwm() -> int:
    return _status_kb("VmHWM")


def reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- the participant ------------------------------------------------------------------------------------------------


def bench_party(url: str) -> str:
    """The bench user's party, allocated (with the user) on a fresh database."""
    r = httpx.get(f"{url}/v2/users/{USER}", headers=bearer(ADMIN_USER), timeout=30)
    if r.status_code == 200:
        return r.json()["user"]["primaryParty"]
    return setup_party(url, USER)


def page_request(offset: int, party: str, token: str | None) -> bytes:
    """The page request the app sends (its own event format and encoding), so both readers read the same bytes."""
    from app.client.http import encode
    from app.client.ledger import event_format
    from participant.api import GetActiveContractsPageRequest

    return encode(
        GetActiveContractsPageRequest(
            active_at_offset=offset,
            event_format=event_format([party]),
            max_page_size=PAGE_SIZE,
            page_token=token,
        )
    )


async def raw_read(url: str, party: str, rng: random.Random | None = None) -> dict:
    """Read the snapshot at the ledger end page by page, counting entries; with `rng`, one contract id per page."""
    offset = ledger_end(url, USER)
    count, pages, size, ids = 0, 0, 0, []
    token: str | None = None
    started = time.perf_counter()
    async with RawHttp(url, bearer(USER)) as http:
        while True:
            status, content = await http.request("GET", PAGE_PATH, page_request(offset, party, token))
            if status != 200:
                raise RuntimeError(f"{PAGE_PATH} answered {status}: {content[:300]!r}")
            count += content.count(b'"contractEntry"')
            pages += 1
            size += len(content)
            if rng is not None and content:
                match = CONTRACT_ID.search(content, rng.randrange(len(content))) or CONTRACT_ID.search(
                    content
                )
                if match:
                    ids.append(match.group(1).decode())
            tail = content[content.rfind(b'"nextPageToken":') + len(b'"nextPageToken":') :].rstrip(b"}")
            token = None if tail.startswith(b"null") else tail.strip(b'"').decode()
            if not token:
                break
    return {
        "count": count,
        "seconds": time.perf_counter() - started,
        "pages": pages,
        "bytes": size,
        "ids": ids,
        "offset": offset,
    }


async def prepare(url: str, contracts: int) -> str:
    party = bench_party(url)
    have = (await raw_read(url, party))["count"]
    if have > contracts:
        raise SystemExit(
            f"the database holds {have:,} contracts of {USER}, more than --contracts {contracts:,}"
        )
    if have < contracts:
        print(f"seeding {contracts - have:,} Ious (the database holds {have:,})…", flush=True)
        seconds, _ = await seed_ious(url, party, USER, contracts - have)
        print(f"  seeded in {seconds:.0f} s", flush=True)
    return party


# --- watching the app -----------------------------------------------------------------------------------------------


@dataclass
class Watch:
    predicate: Callable[[], bool]
    shown_at: float | None = None
    reached_at: float | None = None


@dataclass
class Probe:
    """Frames and event-loop lateness of an app running in this loop."""

    app: App
    watches: list[Watch] = field(default_factory=list)
    frames: int = 0
    lateness: dict[str, list[tuple[float, float, float]]] = field(
        default_factory=dict
    )  # (late, main CPU, all CPU)
    phase: str = "loading"
    describe: Callable[[], str] = lambda: ""
    stall_stacks: bool = False
    stacks: dict[str, collections.Counter] = field(default_factory=dict)  # phase -> "thread: module:function"
    frame_listeners: list[Callable[[float], None]] = field(default_factory=list)
    gc_pauses: dict[str, list[tuple[int, float]]] = field(
        default_factory=dict
    )  # phase -> (generation, seconds)
    _gc_started: float = 0.0
    _task: asyncio.Task | None = None
    _woke: float = 0.0
    _watchdog: threading.Thread | None = None
    _stopped: threading.Event = field(default_factory=threading.Event)

    def install(self) -> None:
        app = self.app
        display = app._display
        console = app.console

        def shown(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is None:
                return
            render = getattr(renderable, "render_segments", None)
            if render is not None:
                render(console)  # what a terminal driver does with a frame before writing it
            self.frames += 1
            now = time.perf_counter()
            for listener in self.frame_listeners:
                listener(now)
            for watch in self.watches:
                if watch.shown_at is None and watch.predicate():
                    watch.shown_at = now
            self.watches = [w for w in self.watches if w.shown_at is None]

        setattr(app, "_display", shown)  # noqa: B010  # over Textual's method, on this app only
        gc.callbacks.append(self._collected)
        self._task = asyncio.get_running_loop().create_task(self._monitor())
        if self.stall_stacks:
            self._woke = time.perf_counter()
            self._watchdog = threading.Thread(
                target=self._sample_stalls, args=(threading.get_ident(),), daemon=True, name="stall-watchdog"
            )
            self._watchdog.start()

    def _collected(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_started
            self.gc_pauses.setdefault(self.phase, []).append((info["generation"], pause))

    def _sample_stalls(self, loop_thread: int) -> None:
        """While the loop is late, sample every thread's stack each millisecond: where a stall's time goes."""
        while not self._stopped.wait(0.001):
            if time.perf_counter() - self._woke < STALL_SAMPLE_AFTER_S:
                continue
            counts = self.stacks.setdefault(self.phase, collections.Counter())
            for ident, top in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                name = "loop" if ident == loop_thread else "other"
                seen = set()
                frame: FrameType | None = top
                while frame is not None:
                    code = frame.f_code
                    key = f"{name}: {Path(code.co_filename).name}:{code.co_name}"
                    if key not in seen:
                        seen.add(key)
                        counts[key] += 1
                    frame = frame.f_back

    async def _monitor(self) -> None:
        """Lateness of 5 ms sleeps, with the CPU time the loop's thread and the whole process used meanwhile: a late
        wake-up with the loop's thread busy is the app's own work; with other threads busy, the GIL; with neither,
        the machine's other processes."""
        while True:
            before, main_cpu, all_cpu = time.perf_counter(), time.thread_time(), time.process_time()
            await asyncio.sleep(TICK_S)
            self._woke = time.perf_counter()
            late = self._woke - before - TICK_S
            self.lateness.setdefault(self.phase, []).append(
                (late, time.thread_time() - main_cpu, time.process_time() - all_cpu)
            )

    def stop(self) -> None:
        self._stopped.set()
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        if self._task is not None:
            self._task.cancel()

    async def shown(self, predicate: Callable[[], bool], timeout: float, what: str) -> float:
        """The perf_counter time of the first frame painted while `predicate` held."""
        watch = Watch(predicate)
        self.watches.append(watch)
        deadline = time.perf_counter() + timeout
        while watch.shown_at is None:
            now = time.perf_counter()
            if watch.reached_at is None and predicate():
                watch.reached_at = now
            if watch.reached_at is not None and now - watch.reached_at > QUIET_FRAME_S:
                self.watches.remove(watch)  # reached, and nothing left to paint: it was on screen already
                return watch.reached_at
            if now > deadline:
                raise TimeoutError(f"the app never showed {what} within {timeout:.0f} s; {self.describe()}")
            await asyncio.sleep(POLL_S)
        return watch.shown_at


def rows_shown(table) -> bool:
    """The cursor row and every row on screen are there (not placeholders)."""
    if table.count == 0:
        return True
    if table.row_at(table.cursor) is None:
        return False
    top = int(table.scroll_y)
    page = max(1, table.scrollable_content_region.height - 1)
    return len(table.visible_rows()) == min(page, table.count - top)


def press(app, key: str) -> None:
    """A key as the terminal driver posts it (Pilot.press also waits for the process to go idle: not timed here)."""
    from textual import events

    char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app.post_message(event)


async def hold_key(probe: Probe, app, table, keys: int, rate: float, key: str = "pagedown") -> dict:
    """`keys` PgDns posted `rate` a second, as a terminal repeats a key held down, without waiting for the screen;
    what the frames showed meanwhile and after the last key."""
    page = table.page_size()
    start = table.cursor
    frames: list[tuple[float, int, int, bool]] = []  # (when, cursor, top row, every row on screen there)

    def painted(now: float) -> None:
        frames.append((now, table.cursor, int(table.scroll_y), rows_shown(table)))

    probe.frame_listeners.append(painted)
    sent: list[float] = []
    targets: list[int] = []
    began = time.perf_counter()
    try:
        for k in range(keys):
            delay = began + k / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            targets.append(min(table.count - 1, start + (k + 1) * page))
            sent.append(time.perf_counter())
            press(app, key)
        final = targets[-1]
        await probe.shown(
            lambda: table.cursor >= final and rows_shown(table),
            ACTION_TIMEOUT_S,
            f"row {final} after {keys} keys",
        )
        await asyncio.sleep(HOLD_QUIET_S)
    finally:
        probe.frame_listeners.remove(painted)
    latencies = []
    for target, at in zip(targets, sent, strict=True):
        shown = next(
            (when for when, cursor, _, whole in frames if when >= at and cursor >= target and whole), None
        )
        latencies.append((shown if shown is not None else frames[-1][0]) - at)
    arrived = next(when for when, cursor, _, whole in frames if cursor >= final and whole)
    last_place = (frames[-1][1], frames[-1][2])
    settled = next(
        when
        for when, cursor, top, whole in frames
        if (cursor, top) == last_place and whole and when >= arrived
    )
    return {
        "keys": keys,
        "latencies": latencies,
        "arrived_after_last_s": arrived - sent[-1],
        "settled_after_last_s": settled - sent[-1],
        "frames": sum(1 for when, *_ in frames if when >= sent[0]),
        "placeholder_frames": sum(1 for when, _, _, whole in frames if when >= sent[0] and not whole),
        "moving_after_last": len({(c, t) for when, c, t, _ in frames if when > sent[-1]}),
        "rows": (start, final, table.cursor),
        "rate": rate,
    }


async def restart_from_kept(url: str, locations) -> dict:
    """A second session of the same user on the same participant, in the same home, after the first one quit: the
    files it kept and their size, the time to the first rows (the kept ones, if any) and to the participant's."""
    from app.app import LedgerApp
    from app.config import Config
    from app.screens.acs import AcsScreen
    from app.tokens import MintedToken
    from app.widgets.contract_table import ContractTable

    kept = sorted(locations.snapshots_dir.glob("kept-*.db"))
    out: dict = {"kept_bytes": sum(p.stat().st_size for p in kept), "kept_files": len(kept)}
    app = LedgerApp(
        config=Config(), locations=locations, url=url, tokens=MintedToken(SECRET, USER), label=url
    )
    probe = Probe(app)

    def table():
        s = app.screen
        return s.query_one(ContractTable) if isinstance(s, AcsScreen) else None

    first: dict = {}

    def first_rows() -> bool:
        t = table()
        if t is None or t.row_at(0) is None:
            return False
        first.setdefault("kept", app.workspace.acs.kept is not None)
        first.setdefault("generation", t.generation)
        first.setdefault("count", t.count)
        return True

    def current_rows() -> bool:
        t = table()
        return (
            t is not None
            and app.workspace.acs.kept is None
            and t.generation > first["generation"]
            and t.row_at(0) is not None
        )

    started = time.perf_counter()
    async with app.run_test(size=SIZE):
        probe.install()
        try:
            out["first_rows_s"] = (
                await probe.shown(first_rows, LOAD_TIMEOUT_S, "the first rows again") - started
            )
            out["first_rows_kept"], out["first_count"] = first["kept"], first["count"]
            if first["kept"]:
                shown = await probe.shown(current_rows, LOAD_TIMEOUT_S, "the participant's rows")
                out["current_rows_s"] = shown - started
        finally:
            probe.stop()
    return out


# --- the run ---------------------------------------------------------------------------------------------------------


async def run_tui(
    url: str,
    contracts: int,
    ids: list[str],
    rng: random.Random,
    server: Server,
    stall_stacks: bool = False,
    page_downs: int = PAGE_DOWNS,
    hold: int = 0,
    hold_rate: float = HOLD_RATE,
    paging_only: bool = False,
    restart: bool = False,
    jumps_while_loading: int = 0,
) -> dict:
    from app.app import LedgerApp, settle_the_collector
    from app.config import Config
    from app.locations import Locations
    from app.screens.acs import AcsScreen
    from app.tokens import MintedToken
    from app.widgets.contract_table import ContractTable

    home = Path(tempfile.mkdtemp(prefix="tui-acs-"))
    locations = Locations(
        config_file=home / "config" / "config.toml",
        data_dir=home / "data",
        cache_dir=home / "cache",
        log_dir=home / "logs",
    )
    app = LedgerApp(
        config=Config(), locations=locations, url=url, tokens=MintedToken(SECRET, USER), label=url
    )
    out: dict = {}
    latencies: dict[str, list[float]] = {}
    placeholders: dict[str, int] = {}  # per action: the frames with placeholder lines it painted
    probe = Probe(app, stall_stacks=stall_stacks)

    def screen():
        s = app.screen
        return s if isinstance(s, AcsScreen) else None

    def table():
        s = screen()
        found = s.query(ContractTable) if s is not None else None
        return found.first() if found else None  # None until the screen has composed its table

    def describe() -> str:
        s, t = screen(), table()
        if s is None or t is None:
            return f"the screen is {app.screen!r}"
        return (
            f"text={s.text!r} sort={s.sort} reading={s.reading} rows={t.count} cursor={t.cursor} "
            f"generation={t.generation} focused={app.focused!r} rows shown={rows_shown(t)} "
            f"scroll_y={t.scroll_y} max_scroll_y={t.max_scroll_y} height={t.scrollable_content_region.height} "
            f"missing={[p for p in range(int(t.scroll_y), int(t.scroll_y) + 44) if t.row_at(p) is None][:5]} "
            f"pending={sorted(t._pending)[:3]}…{len(t._pending)} cached={sorted(t._rows)[:2]}…{len(t._rows)}"
        )

    probe.describe = describe

    async def timed(name: str, act: Callable[[], object], done: Callable[[], bool]) -> None:
        started = time.perf_counter()
        partial = 0  # frames painted before the result that lack some row on screen (placeholder lines)

        def painted(_: float) -> None:
            nonlocal partial
            t = table()
            if t is not None and not rows_shown(t):
                partial += 1

        probe.frame_listeners.append(painted)
        try:
            act()
            shown = await probe.shown(done, ACTION_TIMEOUT_S, name)
        finally:
            probe.frame_listeners.remove(painted)
        latencies.setdefault(name, []).append(shown - started)
        placeholders[name] = placeholders.get(name, 0) + partial
        await settle()

    async def jumps_during_load(pairs: int) -> int:
        """End and Home, then a find by id of a row in view, `pairs` times while the snapshot is still read;
        returns how many rounds began while it was."""
        s, t = screen(), table()
        assert s is not None and t is not None and s.snapshot is not None
        t.focus()
        probe.phase = "jumps while loading"
        rounds = 0
        try:
            for _ in range(pairs):
                if not s.reading:
                    break
                rounds += 1
                last = t.count - 1  # the end when pressed: the view only grows

                def at_end(last: int = last) -> bool:
                    return t.cursor >= last and rows_shown(t)

                await timed("End while loading", lambda: press(app, "end"), at_end)
                await timed(
                    "Home while loading", lambda: press(app, "home"), lambda: t.cursor == 0 and rows_shown(t)
                )
                found = await s.snapshot.views.window(rng.randrange(max(1, t.count)), 1)
                if not found:
                    continue
                cid = found[0].contract_id

                def find(cid: str = cid) -> None:
                    s.select_contract(cid)

                def found_(cid: str = cid) -> bool:
                    return t.selected is not None and t.selected.contract_id == cid and rows_shown(t)

                await timed("find while loading", find, found_)
        finally:
            probe.phase = "loading"
        return rounds

    async def settle() -> None:
        await pilot.pause()  # untimed: whatever the action left running finishes before the next one

    try:
        out["rss_before_app"] = rss()
        out["hwm_reset"] = reset_hwm()
        server_cpu0, client_cpu0 = server.cpu_seconds(), client_cpu_seconds()
        settle_the_collector()  # as the CLI does just before app.run()
        started = time.perf_counter()
        async with app.run_test(size=SIZE) as pilot:
            probe.install()
            first_rows = await probe.shown(
                lambda: (t := table()) is not None and t.row_at(0) is not None,
                LOAD_TIMEOUT_S,
                "the first rows",
            )
            out["first_rows_s"] = first_rows - started
            holds: dict[str, dict] = {}
            if hold:
                t = table()
                assert t is not None
                t.focus()
                needed = (hold + 2) * t.page_size()
                await probe.shown(
                    lambda: t.count >= needed, LOAD_TIMEOUT_S, f"{needed:,} rows to page through"
                )
                if screen() is not None and screen().reading:
                    probe.phase = "held while loading"
                    holds["while loading"] = await hold_key(probe, app, t, hold, hold_rate)
                    holds["while loading"]["reading_after"] = screen().reading
                    probe.phase = "loading"
            if jumps_while_loading:
                out["jumps_while_loading"] = await jumps_during_load(jumps_while_loading)
            cached = await probe.shown(
                lambda: (
                    (s := screen()) is not None
                    and not s.reading
                    and s.query_one(ContractTable).count == contracts
                    and rows_shown(table())
                ),
                LOAD_TIMEOUT_S,
                f"all {contracts:,} contracts",
            )
            out["cached_s"] = cached - started
            out["server_cpu_load_s"] = server.cpu_seconds() - server_cpu0
            out["client_cpu_load_s"] = client_cpu_seconds() - client_cpu0
            out["hwm_loaded"] = hwm()
            s, t = screen(), table()
            assert s is not None and t is not None and s.snapshot is not None
            out["form"] = "page" if app.session.client.capabilities.acs_page else "websocket or list"
            out["cache_file_bytes"] = s.snapshot.path.stat().st_size
            await pilot.pause()
            if hold:
                await timed("Home", lambda: press(app, "home"), lambda: t.cursor == 0 and rows_shown(t))
                latencies.clear()
                placeholders.clear()
                probe.phase = "held after loading"
                holds["after loading"] = await hold_key(probe, app, t, hold, hold_rate)
                await timed("Home", lambda: press(app, "home"), lambda: t.cursor == 0 and rows_shown(t))
                latencies.clear()
                placeholders.clear()
            out["holds"] = holds
            probe.phase = "interacting"

            # PgDn from the top, then End / Home
            t.focus()
            for _ in range(page_downs):
                target = min(t.count - 1, t.cursor + max(1, t.scrollable_content_region.height - 1))

                def at_target(target: int = target) -> bool:
                    return t.cursor == target and rows_shown(t)

                await timed("PgDn", lambda: press(app, "pagedown"), at_target)
            for _ in range(END_HOME):
                await timed(
                    "End", lambda: press(app, "end"), lambda: t.cursor == t.count - 1 and rows_shown(t)
                )
                await timed("Home", lambda: press(app, "home"), lambda: t.cursor == 0 and rows_shown(t))

            if not paging_only:
                # find by id, in the default (arrival) order
                for cid in rng.sample(ids, min(FINDS, len(ids))):

                    def find(cid: str = cid) -> None:
                        s.select_contract(cid)

                    def found(cid: str = cid) -> bool:
                        return t.selected is not None and t.selected.contract_id == cid and rows_shown(t)

                    await timed("find by id", find, found)

                # sort, as the `s` dialog does on a choice (the cursor stays on its contract)
                for key, descending in SORTS:
                    generation = t.generation

                    def sort(key: str = key, descending: bool = descending) -> None:
                        s.sort, s.descending = key, descending
                        s.rebuild(t.selected.contract_id if t.selected else None)

                    def sorted_(
                        key: str = key, descending: bool = descending, generation: int = generation
                    ) -> bool:
                        return (
                            t.sort_key == key
                            and t.descending == descending
                            and t.generation > generation
                            and rows_shown(t)
                        )

                    await timed(f"sort {key}", sort, sorted_)
                generation = t.generation
                s.sort, s.descending = "arrival", False
                s.rebuild()
                await probe.shown(
                    lambda: t.sort_key == "arrival" and t.generation > generation and rows_shown(t),
                    ACTION_TIMEOUT_S,
                    "the arrival order again",
                )

                # filter: `/`, the text, enter; then escape clears it
                box = s.query_one("#acs-filter")
                for text in FILTERS:
                    text = text.format(cid=rng.choice(ids))
                    press(app, "slash")
                    await probe.shown(lambda: box.has_focus, ACTION_TIMEOUT_S, "the filter box")
                    for ch in text:
                        press(app, ch)

                    def typed(text: str = text) -> bool:
                        return box.value == text

                    await probe.shown(typed, ACTION_TIMEOUT_S, "the typed text")
                    generation = t.generation

                    def filtered(text: str = text, generation: int = generation) -> bool:
                        return s.text == text and t.generation > generation and rows_shown(t)

                    await timed("filter (enter)", lambda: press(app, "enter"), filtered)
                    generation = t.generation

                    def cleared(generation: int = generation) -> bool:
                        return (
                            s.text == ""
                            and t.generation > generation
                            and t.count == contracts
                            and rows_shown(t)
                        )

                    await timed("filter cleared (escape)", lambda: press(app, "escape"), cleared)
            probe.stop()
            out["hwm"] = hwm()
            entries = app.request_log.entries
            out["log"] = (len(entries), sum(len(r.request_body) + len(r.response_body) for r in entries))
            out["maxrss"] = maxrss()
        if restart:
            out["restart"] = await restart_from_kept(url, locations)
    finally:
        probe.stop()
        shutil.rmtree(home, ignore_errors=True)
    out["latencies"] = latencies
    out["placeholders"] = placeholders
    out["lateness"] = probe.lateness
    out["frames"] = probe.frames
    out["stacks"] = probe.stacks
    out["gc"] = probe.gc_pauses
    return out


async def bench(
    contracts: int,
    db: Path | None,
    keep_db: bool,
    seed: int,
    stall_stacks: bool = False,
    page_downs: int = PAGE_DOWNS,
    hold: int = 0,
    hold_rate: float = HOLD_RATE,
    paging_only: bool = False,
    restart: bool = False,
    jumps_while_loading: int = 0,
) -> int:
    rss_start = rss()
    rng = random.Random(seed)
    if db is not None:
        db = db.expanduser().resolve()
        db.parent.mkdir(parents=True, exist_ok=True)
    server = Server(db_file=db)
    server.start()
    try:
        party = await prepare(server.url, contracts)
        before = await raw_read(server.url, party, rng)
        if before["count"] != contracts:
            raise SystemExit(f"the bare reader counted {before['count']:,} contracts, not {contracts:,}")
        tui = await run_tui(
            server.url,
            contracts,
            before["ids"],
            rng,
            server,
            stall_stacks,
            page_downs,
            hold,
            hold_rate,
            paging_only,
            restart,
            jumps_while_loading,
        )
        tui["rss_start"] = rss_start
        after = await raw_read(server.url, party)
    finally:
        server.stop()
        if db is not None and not keep_db:
            for suffix in ("", "-wal", "-shm", "-journal", ".lock", ".serving.json"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    report(contracts, before, after, tui)
    return 0


def report(contracts: int, before: dict, after: dict, tui: dict) -> None:
    raw_s = min(before["seconds"], after["seconds"])
    raw_rate = contracts / raw_s
    tui_rate = contracts / tui["cached_s"]
    print()
    print(
        f"ACS of {contracts:,} contracts (one party), TUI at {SIZE[0]}x{SIZE[1]}, read through the {tui['form']} "
        f"endpoint; {before['pages']} pages of up to {PAGE_SIZE:,}, {mb(before['bytes']):.0f} MB"
    )
    print()
    print(f"{'loading':<44} {'value':>12}  target")
    print(f"{'first rows on screen':<44} {tui['first_rows_s']:>10.2f} s  < {TARGET_FIRST_ROWS_S:.0f} s")
    print(f"{'whole snapshot cached':<44} {tui['cached_s']:>10.2f} s")
    print(f"{'TUI caching rate':<44} {tui_rate:>10,.0f}/s")
    print(
        f"{'bare client read (before / after the TUI)':<44} {before['seconds']:>6.2f} / {after['seconds']:.2f} s"
    )
    print(f"{'bare client rate (the faster read)':<44} {raw_rate:>10,.0f}/s")
    print(f"{'ratio TUI / bare client':<44} {tui_rate / raw_rate:>12.2f}  1.00")
    print(
        f"{'CPU while loading: server / TUI process':<44} {tui['server_cpu_load_s']:>6.1f} / "
        f"{tui['client_cpu_load_s']:.1f} s"
    )
    print()
    print(
        f"{'repaint after':<26} {'n':>4} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'placeholder frames':>19}"
        f"   target p99 < {TARGET_REPAINT_P99_MS:.0f} ms, no placeholder frame"
    )
    for name, values in tui["latencies"].items():
        ms = [v * 1000 for v in values]
        print(
            f"{name:<26} {len(ms):>4} {percentile(ms, 50):>8.1f} {percentile(ms, 99):>8.1f} {max(ms):>8.1f}"
            f" {tui['placeholders'].get(name, 0):>19}"
        )
    if "jumps_while_loading" in tui:
        print(
            f"  ('... while loading': {tui['jumps_while_loading']} rounds began while the snapshot was read)"
        )
    print()
    print(
        f"{'event-loop lateness (5 ms ticks)':<18} {'ticks':>6} {'p99 ms':>7} {'max ms':>7}  {'> 50 ms':>7}  "
        f"{'loop busy':>9} {'GIL':>5} {'other':>5}   target max < {TARGET_STALL_MS:.0f} ms"
    )
    for phase, ticks in tui["lateness"].items():
        ms = [late * 1000 for late, _, _ in ticks]
        stalls = [(late, main, every) for late, main, every in ticks if late * 1000 > TARGET_STALL_MS]
        wall = [late + TICK_S for late, _, _ in stalls]
        # where each stall's time went: the loop's thread on CPU, other threads of this process on CPU, neither
        busy = sum(min(main, w) for (_, main, _), w in zip(stalls, wall, strict=True))
        gil = sum(
            min(max(0.0, every - main), w - min(main, w))
            for (_, main, every), w in zip(stalls, wall, strict=True)
        )
        total = sum(wall) or 1.0
        print(
            f"{phase:<18} {len(ms):>6} {percentile(ms, 99):>7.1f} {max(ms):>7.1f}  {len(stalls):>7}  "
            f"{100 * busy / total:>8.0f}% {100 * gil / total:>4.0f}% {100 * (total - busy - gil) / total:>4.0f}%"
        )
    print()
    print(f"{'collector pauses':<18} {'gen 0':>14} {'gen 1':>14} {'gen 2':>14}   (count, p99 ms, max ms)")
    for phase, pauses in tui["gc"].items():
        cells = []
        for generation in range(3):
            ms = [p * 1000 for g, p in pauses if g == generation]
            cells.append(
                f"{len(ms):>4} {percentile(ms, 99):>4.1f} {max(ms, default=0):>4.1f}" if ms else f"{'-':>14}"
            )
        print(f"{phase:<18} {cells[0]:>14} {cells[1]:>14} {cells[2]:>14}")
    for name, held in tui["holds"].items():
        ms = [v * 1000 for v in held["latencies"]]
        start, final, cursor = held["rows"]
        print()
        print(
            f"PgDn held {name}: {held['keys']} keys at {held['rate']:.0f}/s, row {start} -> {final} (cursor {cursor})"
        )
        print(
            f"  per key, to its page on screen  p50 {percentile(ms, 50):.1f}  p99 {percentile(ms, 99):.1f}  max {max(ms):.1f} ms"
        )
        print(
            f"  after the last key: there in {held['arrived_after_last_s'] * 1000:.1f} ms, still in "
            f"{held['settled_after_last_s'] * 1000:.1f} ms; {held['moving_after_last']} places shown after it"
        )
        print(f"  frames {held['frames']}, with placeholders {held['placeholder_frames']}")
    restart = tui.get("restart")
    if restart is not None:
        print()
        print(
            f"restart in the same home: {restart['kept_files']} file(s) kept, {mb(restart['kept_bytes']):.1f} MB"
        )
        whose = "the last session's" if restart["first_rows_kept"] else "the participant's"
        print(
            f"  first rows on screen ({whose}, {restart['first_count']:,} rows) {restart['first_rows_s']:.2f} s"
        )
        if "current_rows_s" in restart:
            print(f"  the participant's rows on screen {restart['current_rows_s']:.2f} s")
    print()
    print("memory of the process hosting the TUI")
    print(f"{'RSS when the bench starts (python, httpx)':<44} {mb(tui['rss_start']):>8.0f} MB")
    print(f"{'RSS before the app starts':<44} {mb(tui['rss_before_app']):>8.0f} MB")
    peak_label = "peak RSS while it runs (VmHWM" + (", reset at start)" if tui["hwm_reset"] else ")")
    print(f"{peak_label:<44} {mb(tui['hwm']):>8.0f} MB  < {TARGET_MEMORY_MB:.0f} MB")
    print(f"{'  of which once the snapshot was cached':<44} {mb(tui['hwm_loaded']):>8.0f} MB")
    print(f"{'ru_maxrss (the whole process life)':<44} {mb(tui['maxrss']):>8.0f} MB")
    print(f"{'snapshot cache file':<44} {mb(tui['cache_file_bytes']):>8.0f} MB")
    requests, kept = tui["log"]
    print(f"{f'bodies kept by the request log ({requests} requests)':<44} {mb(kept):>8.0f} MB")
    print(f"{'frames painted':<44} {tui['frames']:>8}")
    for phase, counts in tui["stacks"].items():
        loop_total = max((n for key, n in counts.items() if key.startswith("loop: ")), default=0) or 1
        print(
            f"\nwhile the loop was late ({phase}): functions on the stacks, as % of the loop thread's samples"
        )
        for key, n in counts.most_common(STALL_TOP):
            print(f"  {100 * n / loop_total:6.1f}  {key}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tui_acs", description=__doc__.split("\n\n")[0])
    p.add_argument("--contracts", type=int, default=100_000)
    p.add_argument(
        "--db", type=Path, help="the participant's database file, reused if it holds the contracts"
    )
    p.add_argument("--keep-db", action="store_true", help="keep --db afterwards")
    p.add_argument("--seed", type=int, default=1, help="for the ids found and the filter texts chosen")
    p.add_argument(
        "--page-downs",
        type=int,
        default=PAGE_DOWNS,
        help=f"PgDns timed from the top ({PAGE_DOWNS}: the p99 is then the slowest one)",
    )
    p.add_argument(
        "--hold",
        type=int,
        default=0,
        metavar="N",
        help="PgDn held: N keys posted at --hold-rate without waiting, while the snapshot is read and after",
    )
    p.add_argument("--hold-rate", type=float, default=HOLD_RATE, help="keys a second of --hold")
    p.add_argument(
        "--paging-only", action="store_true", help="leave out finding, sorting and filtering after the paging"
    )
    p.add_argument(
        "--restart",
        action="store_true",
        help="then quit and start again in the same home: the file kept, and the first rows from it",
    )
    p.add_argument(
        "--jumps-while-loading",
        type=int,
        default=0,
        metavar="N",
        help="N rounds of End, Home and a find by id while the snapshot is still read (as long as it is)",
    )
    p.add_argument(
        "--stall-stacks",
        action="store_true",
        help="sample the threads' stacks while the event loop is late, and print where stalls go",
    )
    args = p.parse_args(argv)
    if args.keep_db and args.db is None:
        p.error("--keep-db needs --db")
    return asyncio.run(
        bench(
            args.contracts,
            args.db,
            args.keep_db,
            args.seed,
            args.stall_stacks,
            args.page_downs,
            args.hold,
            args.hold_rate,
            args.paging_only,
            args.restart,
            args.jumps_while_loading,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
