"""A participant whose answers are the same on every run, for snapshot tests: the real bundled participant, in
process, with its clock, its id generators and the demo seeding's run id made deterministic.

`FixedLedgerApp` is the real `LedgerApp` talking to it through `httpx.ASGITransport`, acting as a demo user, with
its own data and cache directories. Only the sources of randomness and time are replaced; every answer is shaped
by the participant's own code.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import itertools
import os
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import httpx

from app.app import LedgerApp
from app.config import Config
from app.locations import Locations
from app.tokens import MintedToken
from participant.base.settings import Settings
from participant.engine.ids import IdGenerator
from participant.server.app import create_app
from tests.conftest import SECRET

EPOCH = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
URL = "http://participant.test"


class _Count:
    """`itertools.count()` whose position can be read and set (to go on from where a seeding left it)."""

    def __init__(self) -> None:
        self.n = 0

    def __next__(self) -> int:
        self.n += 1
        return self.n - 1


class _Counter:
    """Stand-in for `secrets`: bytes and hex derived from a counter, the same sequence on every run."""

    def __init__(self) -> None:
        self._n = _Count()

    def token_bytes(self, n: int = 32) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(f"fixed-{next(self._n)}".encode()).digest()
        return out[:n]

    def token_hex(self, n: int = 32) -> str:
        return self.token_bytes(n).hex()

    def token_urlsafe(self, n: int = 32) -> str:
        return self.token_hex(n)


class _Uuids:
    """Stand-in for the `uuid` module where only `uuid4()` is called."""

    def __init__(self, counter: _Counter) -> None:
        self._counter = counter

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(bytes=self._counter.token_bytes(16), version=4)


class _Clock:
    """Stand-in for the `time` module where only `time()` is read."""

    def __init__(self, now) -> None:
        self.time = now


@dataclass(frozen=True)
class FixedSources:
    """The counters the participant's stand-ins draw from: where they stand after the demo seeding is what a copy
    of the seeded ledger goes on from (`FixedLedgerApp`)."""

    counts: tuple[_Count, ...]

    def positions(self) -> tuple[int, ...]:
        return tuple(c.n for c in self.counts)

    def resume(self, positions: tuple[int, ...]) -> None:
        for count, n in zip(self.counts, positions, strict=True):
            count.n = n


@contextlib.contextmanager
def deterministic(monkeypatch) -> Iterator[FixedSources]:
    """Patch the participant's sources of time and randomness (for the duration of a test)."""
    import time

    import app.client.requests_log
    import app.compose.commands
    import app.reassign
    import app.screens.acs
    import app.workspace.acs_loader
    import participant.base.errors
    import participant.engine.ids
    import participant.ledger.clock
    import participant.server.demo

    counter = _Counter()
    ticks = _Count()
    monkeypatch.setattr(participant.engine.ids, "secrets", counter)
    # minted ids start with the millisecond they were minted in
    minted = _Count()
    monkeypatch.setattr(
        participant.engine.ids,
        "time",
        SimpleNamespace(time_ns=lambda: int(EPOCH.timestamp()) * 10**9 + next(minted) * 10**6),
    )
    monkeypatch.setattr(participant.server.demo, "secrets", counter)
    monkeypatch.setattr(participant.base.errors, "secrets", counter)
    monkeypatch.setattr(participant.ledger.clock, "now", lambda: EPOCH + timedelta(seconds=next(ticks) * 7))
    # the requests pane shows when each request started and how long it took: a clock that ticks per reading
    requests = itertools.count()
    monkeypatch.setattr(
        app.client.requests_log, "time", _Clock(lambda: EPOCH.timestamp() + next(requests) * 0.011)
    )
    # the contracts screen says how long a slow read took ("read 180 in 1.2 s"): a clock that ticks per reading
    reads = itertools.count()
    monkeypatch.setattr(app.screens.acs, "time", SimpleNamespace(monotonic=lambda: next(reads) * 0.001))
    monkeypatch.setattr(
        app.workspace.acs_loader, "time", SimpleNamespace(monotonic=lambda: next(reads) * 0.001)
    )
    monkeypatch.setattr(app.compose.commands, "uuid", _Uuids(counter))  # command ids
    monkeypatch.setattr(app.reassign, "uuid", _Uuids(counter))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield FixedSources((counter._n, ticks, minted))


# The demo ledger as this process's first `FixedLedgerApp` seeded it, and where the stand-ins' counters and the
# participant's id generators stood then: the next ones start from a copy, set there, and answer as if they had
# seeded it (the seeding, a few hundred durable commits, took a third of a snapshot's time).
@dataclass(frozen=True)
class _Seeded:
    db: Path
    positions: tuple[int, ...]
    generators: tuple[tuple, tuple]  # the random states of the committer's and its engine's id generators


_seeded: _Seeded | None = None


def _id_generators(participant) -> tuple[IdGenerator, IdGenerator]:
    """The participant's id generators, each drawing from a `random.Random` seeded once (the engine's is made at
    the first submission: made here, as seeding made it)."""
    committer = participant.state.context.committer
    return committer.ids, committer.engine.ids


def _copy_database(source: Path, target: Path) -> None:
    """Through SQLite's backup (one consistent state, whatever the WAL beside it holds), made 0600 first as the
    participant makes its database."""
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with (
        contextlib.closing(sqlite3.connect(source)) as src,
        contextlib.closing(sqlite3.connect(target)) as dst,
    ):
        src.backup(dst)


def _keep_seeded(db: Path, participant, sources: FixedSources) -> None:
    global _seeded
    folder = Path(tempfile.mkdtemp(prefix="fixed-demo-"))
    atexit.register(shutil.rmtree, folder, True)
    _copy_database(db, folder / "ledger.db")
    committer_ids, engine_ids = _id_generators(participant)
    _seeded = _Seeded(
        folder / "ledger.db",
        sources.positions(),
        (committer_ids._random.getstate(), engine_ids._random.getstate()),
    )


def _resume_seeded(seeded: _Seeded, participant, sources: FixedSources) -> None:
    for generator, state in zip(_id_generators(participant), seeded.generators, strict=True):
        generator._random.setstate(state)
    sources.resume(seeded.positions)


class FixedLedgerApp(LedgerApp):
    """The app against the deterministic participant, in process. Given the `sources` of `deterministic()`, it
    starts from a copy of the demo ledger this process seeded first (the same database and counters as seeding
    it again would leave)."""

    ledger_end_poll_s = 3600.0  # no request in flight at the moment a snapshot is taken

    def __init__(self, tmp: Path, user: str = "Alice", sources: FixedSources | None = None, **kwargs) -> None:
        self._db = tmp / "ledger.db"
        self._sources = sources
        self._participant = create_app(
            Settings(db=self._db, hs256_secret=SECRET, demo=True, log_requests=False)
        )
        self.transport = httpx.ASGITransport(app=self._participant)  # the client's, and a test's own requests
        locations = Locations(
            config_file=tmp / "config.toml",
            data_dir=tmp / "data",
            cache_dir=tmp / "cache",
            log_dir=tmp / "logs",
        )
        super().__init__(
            config=Config(),
            locations=locations,
            url=URL,
            tokens=MintedToken(SECRET, user),
            label="participant.test",
            transport=self.transport,
            **kwargs,
        )
        self._lifespan: contextlib.AbstractAsyncContextManager[object] | None = None

    async def on_load(self) -> None:
        sources, seeded = self._sources, _seeded
        if sources is not None and seeded is not None:
            _copy_database(seeded.db, self._db)
        lifespan = self._participant.router.lifespan_context(self._participant)
        self._lifespan = lifespan
        fresh = sources is not None and not any(sources.positions())
        await lifespan.__aenter__()
        if sources is not None and seeded is not None:
            _resume_seeded(seeded, self._participant, sources)
        elif sources is not None and fresh:
            _keep_seeded(self._db, self._participant, sources)

    async def on_unmount(self) -> None:
        if self._lifespan is not None:
            await self._lifespan.__aexit__(None, None, None)
