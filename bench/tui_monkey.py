"""A monkey on the terminal client: random keys from a weighted alphabet, pressed into the real app (driven by
Textual's Pilot, headless at 160x45) against a real participant that commits meanwhile; it looks for a crash (an
exception that escaped to the app, an internal error a worker logged) and for stuck states (screens left on a
stack, more than one palette, an app that no longer switches screens).

The keys come from a seeded generator: a seed names one sequence of keys (the app's timing may differ from run to
run, the keys do not). Every `COMMIT_EVERY` keys a create of an Iou is submitted by another client in a background
task, so the screens that follow the ledger (the contracts' ledger end, the transactions screen's live follow) see
commits arrive while keys are pressed. `q` is pressed too: the app asks before it quits when there is work to lose,
and the monkey's app records a quit instead of quitting (`MonkeyApp`).

The test suite runs a few hundred keys (tests/tui/test_monkey.py); a long run is by hand:

    python -m bench.tui_monkey --keys 25000 --seed 1 [--richtypes ../shared/dars/richtypes/richtypes.dar]

It prints keys/s, the crashes found (each with its traceback and seed) and the memory of this process (which
hosts the TUI) as it goes; `--trace-memory N` prints what grew every N keys (`bench.memory_growth`).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import random
import resource
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

SIZE = (160, 45)
COMMIT_EVERY = 40  # keys between two creates submitted by the other client
SETTLE_EVERY = 4  # gestures between two waits for the screen to handle its keys: a person types ahead too
PROGRESS_EVERY = 100  # keys between two progress lines of a long run
WAIT_STEPS = 600  # pauses of 50 ms: a bound on waiting for the app at the end, not a target
STALL_S = 120.0  # a screen that has not taken its keys by then is stuck (a loaded machine takes seconds, not minutes)
RICHRECORD = "#richtypes:RichTypes:RichRecord"

# The alphabet: (what is pressed, weight). A tuple is one gesture of several keys (a screen then what it offers),
# so that the deeper places (the typed form, live follow, the palette's entries) are reached often enough.
ALPHABET: Sequence[tuple[str | tuple[str, ...], int]] = (
    *((str(n), 6) for n in range(1, 7)),
    ("question_mark", 3),
    ("f1", 1),
    ("escape", 14),
    ("enter", 10),
    ("tab", 6),
    ("shift+tab", 2),
    ("up", 5),
    ("down", 8),
    ("left", 2),
    ("right", 2),
    ("pageup", 1),
    ("pagedown", 1),
    ("home", 1),
    ("end", 1),
    ("ctrl+p", 5),
    ("ctrl+o", 3),
    ("ctrl+s", 3),
    ("ctrl+t", 2),
    ("ctrl+r", 1),
    ("ctrl+l", 1),
    ("ctrl+u", 1),
    ("ctrl+g", 1),
    ("ctrl+f", 1),
    ("f2", 2),
    ("slash", 3),
    ("left_square_bracket", 1),
    ("right_square_bracket", 1),
    ("q", 2),
    ("space", 1),
    ("backspace", 3),
    *((letter, 1) for letter in "abcdefghijklmnoprstuvwxyzGY"),
    *((digit, 1) for digit in "0789"),
    (("6", "f"), 2),  # the transactions screen, following the ledger
    (
        ("2", "ctrl+t", "@template", *RICHRECORD, "enter"),
        2,
    ),  # the composer's typed form of a richtypes record
    (("ctrl+p", *"open", "down", "enter"), 1),  # a palette entry run
    (("ctrl+p", *"submit", "enter", "enter"), 1),
)


def keys_of(seed: int, count: int) -> list[str | tuple[str, ...]]:
    """The gestures of a run: `count` draws from the alphabet, the same for the same seed."""
    rng = random.Random(seed)
    gestures = [g for g, _ in ALPHABET]
    weights = [w for _, w in ALPHABET]
    return rng.choices(gestures, weights, k=count)


@dataclass
class Crash:
    key_index: int
    key: str
    trail: list[str]
    text: str


@dataclass
class MonkeyReport:
    seed: int
    keys: int = 0
    seconds: float = 0.0
    commits: int = 0
    commits_this_app: int = 0  # the running app's, added to `commits` when it ends
    quits_asked: int = 0
    peak_screens: int = 0
    crashes: list[Crash] = field(default_factory=list)
    stuck: str = ""
    screens_seen: collections.Counter = field(default_factory=collections.Counter)
    typed_forms: int = 0  # gestures after which the composer showed a typed form
    following: int = 0  # gestures after which the transactions screen followed the ledger live

    @property
    def keys_per_s(self) -> float:
        return self.keys / self.seconds if self.seconds else 0.0


class _InternalErrors(logging.Handler):
    """The app's log records of internal errors (a worker's exception, with its traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def make_monkey_app(**kwargs):
    """The real app, but one whose quitting is recorded rather than done (the monkey presses `q` too)."""
    from app.app import LedgerApp

    class MonkeyApp(LedgerApp):
        quits_asked = 0
        may_exit = False

        def exit(self, *args, **kw) -> None:
            if self.may_exit or self._exception is not None:
                super().exit(*args, **kw)
            else:
                self.quits_asked += 1

    return MonkeyApp(**kwargs)


def screens_held(app) -> int:
    """Screens on every mode's stack (a mode's own screen included)."""
    return sum(len(stack) for stack in app._screen_stacks.values())


def palettes_held(app) -> int:
    from textual.command import CommandPalette

    return sum(isinstance(s, CommandPalette) for stack in app._screen_stacks.values() for s in stack)


class Committer:
    """Another client of the participant: each `kick` submits one Iou create in a background task (one at a time)."""

    def __init__(self, url: str, token: str, party: str) -> None:
        self.http = httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        self.party = party
        self.task: asyncio.Task | None = None
        self.done = 0
        self.failures: list[str] = []

    def kick(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._create(self.done))

    async def _create(self, n: int) -> None:
        body = {
            "commands": {
                "commands": [
                    {
                        "CreateCommand": {
                            "templateId": "#model-tests:Iou:Iou",
                            "createArguments": {
                                "issuer": self.party,
                                "owner": self.party,
                                "currency": "USD",
                                "amount": f"{n % 997}.5",
                                "observers": [],
                            },
                        }
                    }
                ],
                "commandId": f"monkey-{n}-{id(self)}",
                "actAs": [self.party],
            }
        }
        answer = await self.http.post("/v2/commands/submit-and-wait-for-transaction", json=body)
        if answer.status_code == 200:
            self.done += 1
        else:
            self.failures.append(f"{answer.status_code}: {answer.text[:200]}")

    async def close(self) -> None:
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)
        await self.http.aclose()


async def _upload_dar(url: str, admin_token: str, dar: Path) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        answer = await http.post(
            "/v2/dars",
            content=dar.read_bytes(),
            headers={"Authorization": f"Bearer {admin_token}", "Content-Type": "application/octet-stream"},
        )
        answer.raise_for_status()


def _send_key(app, key: str) -> None:
    """One key as the terminal's driver hands it to the app, without waiting for the app to be idle (as Pilot's
    `press` does, up to a second per key): a person's keys do not wait for the app either."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def _press(pilot, gesture: str | tuple[str, ...], settle: bool) -> None:
    """The keys of a gesture, each taken by the app; with `settle`, a wait until the screen has handled what was
    queued (not until its workers end)."""
    app = pilot.app
    for key in (gesture,) if isinstance(gesture, str) else gesture:
        if app._exception is not None or not app.is_running or app._driver is None:
            return
        if key == "@template":
            # the composer's template field, focused as a click on it would (keys alone reach it by chance only)
            await _settle(pilot)
            found = app.screen.query("#template")
            if found:
                found.first().focus()
            continue
        _send_key(app, key)
        await _app_caught_up(app)
    if settle:
        await _settle(pilot)


class Stalled(Exception):
    """The screen did not take the keys queued to it within `STALL_S`: a handler that never returns."""


async def _settle(pilot) -> None:
    """Wait until the keys queued so far were handled: a callback queued behind them has gone through each node a key
    goes through (the focused widget, its ancestors, the screen, the app), as the app's own order of keys reckons a
    key finished. Pilot's wait sent one to every widget on the screen, hundreds on a typed form, none of which the
    keys reached."""
    app = pilot.app
    try:
        screen = app.screen
    except Exception:  # no screen: the app is ending, which the caller sees
        return
    focused = screen.focused
    nodes = list(dict.fromkeys([app, screen, *(focused.ancestors_with_self if focused is not None else ())]))
    passed = [asyncio.Event() for _ in nodes]
    waits = [event.wait() for node, event in zip(nodes, passed, strict=True) if node.call_later(event.set)]
    if not waits:
        return
    done = asyncio.ensure_future(asyncio.gather(*waits))
    ended = asyncio.ensure_future(app._exception_event.wait())
    try:
        await asyncio.wait([done, ended], timeout=STALL_S, return_when=asyncio.FIRST_COMPLETED)
    finally:
        ended.cancel()
    if not done.done() and not app._exception_event.is_set():
        done.cancel()
        raise Stalled(_stalled_where(app))
    done.cancel()


def _stalled_where(app) -> str:
    """The nodes that still hold messages, each with where its message loop waits."""
    lines = [f"the screen held its keys over {STALL_S:.0f} s; the nodes with messages left:"]
    for node in [app, *app.screen.walk_children(with_self=True)]:
        if node._message_queue.qsize() == 0:
            continue
        lines.append(f"  {node!r}: {node._message_queue.qsize()} messages")
        if node._task is not None:
            lines += [f"    {frame.f_code.co_filename}:{frame.f_lineno}" for frame in node._task.get_stack()]
    return "\n".join(lines)


async def _app_caught_up(app) -> None:
    """Let the loop run until the app has taken the keys sent from its queue (handed on to the screen)."""
    for _ in range(1000):
        await asyncio.sleep(0)
        if app._message_queue.qsize() == 0:
            return


def _note_where(app, gesture, report: MonkeyReport) -> None:
    # imported here, as the app imports them: with their screens, not at start
    from app.screens.transactions import TransactionsScreen
    from app.widgets.typed_form import TypedForm

    if app._exception is not None or not app.screen_stack:
        return
    screen = app.screen
    report.screens_seen[type(screen).__name__] += 1
    if isinstance(screen, TransactionsScreen) and screen.following:
        report.following += 1
    if (
        isinstance(gesture, tuple)
        and "@template" in gesture
        and any(isinstance(form, TypedForm) and form.rows.rows for form in screen.query("#create-form-typed"))
    ):
        report.typed_forms += 1


def _crashed(app, errors: _InternalErrors) -> str:
    if app._exception is not None:
        error = app._exception
        return "".join(traceback.format_exception(type(error), error, error.__traceback__))
    if errors.records:
        record = errors.records[0]
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += "\n" + "".join(traceback.format_exception(type(error), error, error.__traceback__))
        return text
    if not app.is_running:
        return "the app stopped"
    return ""


async def _escape(pilot) -> None:
    """escape, and a wait (of a second at most) until the screen on top changed: a key may be held behind what the
    screen is building, past the wait for the nodes it goes through; an escape that leaves a field changes none."""
    app = pilot.app
    top, depth = app.screen, len(app.screen_stack)
    await _press(pilot, "escape", settle=True)
    for _ in range(100):
        if app.screen is not top or len(app.screen_stack) != depth:
            return
        await asyncio.sleep(0.01)


async def _unwind(pilot) -> str:
    """Go to the contracts (key 1) and close what was opened over them (escape, up to a bound): "" when the app
    answers so, else what is stuck. A mode keeps what was opened over its screen when another mode is shown. The
    keys are pressed as the others are: Pilot's `press` waits after each until this process's CPU rests, which it
    did not while the app followed the ledger (a second a wait, half of a 300-key run's time)."""
    from app.screens.acs import AcsScreen

    app = pilot.app
    for _ in range(20):
        if len(app.screen_stack) <= 1:
            break
        await _escape(pilot)
    app.screen.set_focus(None)  # a field would take the key as text
    await _press(pilot, "1", settle=True)
    for _ in range(WAIT_STEPS):
        if app.current_mode == "contracts":
            break
        await pilot.pause(0.05)
    else:
        return f"key 1 never showed the contracts (mode {app.current_mode})"
    for _ in range(20):
        if isinstance(app.screen, AcsScreen):
            return ""
        await _escape(pilot)
    stacks = {mode: [type(s).__name__ for s in stack] for mode, stack in app._screen_stacks.items()}
    return f"escape never went back to the contracts screen (the stacks {stacks})"


async def run_monkey(
    *,
    url: str,
    secret: str,
    locations,
    seed: int,
    keys: int,
    richtypes: Path | None = None,
    user: str = "Alice",
    on_progress: Callable[[int, MonkeyReport], None] | None = None,
    max_crashes: int = 1,
    stop_at: float | None = None,
) -> MonkeyReport:
    """Press `keys` gestures of the seed's sequence into the app against the participant at `url` (one with the
    demo ledger, its tokens signed with `secret`), commits happening meanwhile. A crash ends the run (after
    `max_crashes` of them; the app is started again for the next ones), and so does `time.monotonic()` passing
    `stop_at`."""
    from app.session import BUNDLED_ADMIN
    from app.tokens import MintedToken

    report = MonkeyReport(seed=seed)
    if richtypes is not None:
        await _upload_dar(url, await MintedToken(secret, BUNDLED_ADMIN).token(), richtypes)
    sequence = keys_of(seed, keys)
    if stop_at is not None:
        sequence = _Until(sequence, stop_at)
    errors = _InternalErrors()
    logger = logging.getLogger("ledger_tui")
    logger.addHandler(errors)
    started = time.perf_counter()
    index = 0
    try:
        while index < len(sequence) and len(report.crashes) < max_crashes:
            index = await _one_app(url, secret, user, locations, sequence, index, report, errors, on_progress)
            errors.records.clear()
    finally:
        logger.removeHandler(errors)
        report.seconds = time.perf_counter() - started
    return report


async def _one_app(url, secret, user, locations, sequence, index, report, errors, on_progress) -> int:
    """Run the app from gesture `index` until the end or a crash; returns the index to go on from."""
    from app.config import Config
    from app.tokens import MintedToken

    tokens = MintedToken(secret, user)
    app = make_monkey_app(config=Config(), locations=locations, url=url, tokens=tokens, label=url)
    crashes = len(report.crashes)
    pressed = report.keys
    try:
        await _drive(app, tokens, url, sequence, index, report, errors, on_progress)
    except (Exception, asyncio.CancelledError):
        if len(report.crashes) == crashes:
            raise
        # the app's own teardown after the crash reported may fail too (its stack was left broken, or a stalled
        # handler is cancelled)
    # on from the gesture after the last one pressed, teardown failed or not (else the run would start over)
    return index + report.keys - pressed


async def _drive(app, tokens, url, sequence, index, report, errors, on_progress) -> int:
    committer: Committer | None = None
    trail: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(WAIT_STEPS):
            if app.connected and app.session is not None and app.session.identity is not None:
                break
            await pilot.pause(0.05)
        party = app.session.identity.primary_party
        committer = Committer(url, await tokens.token(), party)
        try:
            while index < len(sequence):
                gesture = sequence[index]
                index += 1
                report.keys += 1
                shown = gesture if isinstance(gesture, str) else "+".join(gesture)
                trail = [*trail[-29:], shown]
                try:
                    await _press(pilot, gesture, settle=index % SETTLE_EVERY == 0)
                except Stalled as stalled:
                    report.crashes.append(Crash(index - 1, shown, trail, str(stalled)))
                    break
                if index % COMMIT_EVERY == 0:
                    committer.kick()
                report.peak_screens = max(report.peak_screens, screens_held(app))
                _note_where(app, gesture, report)
                crash = _crashed(app, errors)
                if not crash and palettes_held(app) > 1:
                    crash = f"{palettes_held(app)} command palettes held at once"
                if crash:
                    report.crashes.append(Crash(index - 1, shown, trail, crash))
                    break
                if on_progress is not None and index % PROGRESS_EVERY == 0:
                    report.commits_this_app = committer.done
                    on_progress(index, report)
            else:
                report.stuck = await _unwind(pilot)
                crash = _crashed(app, errors)
                if crash:
                    report.crashes.append(Crash(index - 1, "(unwinding)", trail, crash))
        except Exception as error:
            # said here: the app's teardown that follows may raise an error of its own in its place
            text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            report.crashes.append(Crash(index - 1, trail[-1] if trail else "", trail, text))
        finally:
            await committer.close()
            report.commits += committer.done
            report.commits_this_app = 0
            report.quits_asked += app.quits_asked
            app.may_exit = True
            app._exception = None  # said in the report; the test harness would raise it again
    return index


class _Until(list):
    """A sequence of gestures that ends early once `time.monotonic()` passes a bound."""

    def __init__(self, gestures, stop_at: float) -> None:
        super().__init__(gestures)
        self.stop_at = stop_at

    def __len__(self) -> int:
        return super().__len__() if time.monotonic() < self.stop_at else 0


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keys", type=int, default=25_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--richtypes", type=Path, default=Path("../shared/dars/richtypes/richtypes.dar"))
    parser.add_argument("--max-crashes", type=int, default=5, help="crashes to collect before stopping")
    parser.add_argument(
        "--minutes", type=float, default=None, help="stop after this long, whatever the keys left"
    )
    parser.add_argument(
        "--trace-memory",
        type=int,
        default=0,
        metavar="N",
        help=f"every N keys, trace the next {PROGRESS_EVERY} and print what they left in memory (tracemalloc)",
    )
    args = parser.parse_args(argv)

    from app.locations import Locations
    from bench.common import SECRET, Server
    from bench.memory_growth import MemoryGrowth, rss_mb

    richtypes = args.richtypes if args.richtypes.is_file() else None
    tmp = Path(tempfile.mkdtemp(prefix="tui-monkey-"))
    locations = Locations(
        config_file=tmp / "config" / "config.toml",
        data_dir=tmp / "data",
        cache_dir=tmp / "cache",
        log_dir=tmp / "logs",
    )

    growth = MemoryGrowth() if args.trace_memory else None

    said = 0  # crashes printed so far: each is printed once found, a long run may be stopped before its end

    def progress(index: int, report: MonkeyReport) -> None:
        nonlocal said
        rate = report.keys / (time.perf_counter() - began)
        print(
            f"  {index:>6} keys  {rate:6.1f} keys/s  commits {report.commits + report.commits_this_app}  crashes {len(report.crashes)}  "
            f"rss {rss_mb():.0f} MB  peak {_peak_rss_mb():.0f} MB",
            flush=True,
        )
        for crash in report.crashes[said:]:
            _print_crash(report.seed, crash)
        said = len(report.crashes)
        if growth is not None and growth.tracing:
            print(growth.report(f"{index} keys, {PROGRESS_EVERY} keys traced"), flush=True)
        elif growth is not None and index % args.trace_memory == 0:
            growth.start()

    print(f"seed {args.seed}, {args.keys} keys, richtypes {'loaded' if richtypes else 'absent'}", flush=True)
    with Server(extra=("--demo",)) as server:
        began = time.perf_counter()
        report = asyncio.run(
            run_monkey(
                url=server.url,
                secret=SECRET,
                locations=locations,
                seed=args.seed,
                keys=args.keys,
                richtypes=richtypes,
                on_progress=progress,
                max_crashes=args.max_crashes,
                stop_at=time.monotonic() + args.minutes * 60 if args.minutes else None,
            )
        )
    print(f"keys pressed      {report.keys} in {report.seconds:.1f} s ({report.keys_per_s:.1f} keys/s)")
    print(f"creates committed {report.commits} by the other client meanwhile")
    print(f"quits asked       {report.quits_asked} (recorded, not done)")
    print(f"screens held      peak {report.peak_screens} across every mode's stack")
    print(f"peak memory       {_peak_rss_mb():.0f} MB (this process: the TUI)")
    print(f"stuck             {report.stuck or 'no'}")
    print(f"typed forms shown {report.typed_forms} times; live follow on during {report.following} keys")
    print(f"screens seen      {dict(report.screens_seen.most_common())}")
    print(f"crashes           {len(report.crashes)}")
    for crash in report.crashes:
        _print_crash(report.seed, crash)
    return 1 if report.crashes or report.stuck else 0


def _print_crash(seed: int, crash: Crash) -> None:
    print(f"--- seed {seed}, key #{crash.key_index} ({crash.key}); the keys before: {' '.join(crash.trail)}")
    print(crash.text, flush=True)


if __name__ == "__main__":
    sys.exit(main())
