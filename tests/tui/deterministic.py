"""A participant whose answers are the same on every run, for snapshot tests: the real bundled participant, in
process, with its clock, its id generators and the demo seeding's run id made deterministic.

`FixedLedgerApp` is the real `LedgerApp` talking to it through `httpx.ASGITransport`, acting as a demo user, with
its own data and cache directories. Only the sources of randomness and time are replaced; every answer is shaped
by the participant's own code.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import httpx

from app.app import LedgerApp
from app.config import Config
from app.locations import Locations
from app.tokens import MintedToken
from participant.base.settings import Settings
from participant.server.app import create_app
from tests.conftest import SECRET

EPOCH = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
URL = "http://participant.test"


class _Counter:
    """Stand-in for `secrets`: bytes and hex derived from a counter, the same sequence on every run."""

    def __init__(self) -> None:
        self._n = itertools.count()

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


@contextlib.contextmanager
def deterministic(monkeypatch):
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
    ticks = itertools.count()
    monkeypatch.setattr(participant.engine.ids, "secrets", counter)
    # minted ids start with the millisecond they were minted in
    minted = itertools.count()
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
    yield


class FixedLedgerApp(LedgerApp):
    """The app against the deterministic participant, in process."""

    ledger_end_poll_s = 3600.0  # no request in flight at the moment a snapshot is taken

    def __init__(self, tmp: Path, user: str = "Alice", **kwargs) -> None:
        self._participant = create_app(
            Settings(db=tmp / "ledger.db", hs256_secret=SECRET, demo=True, log_requests=False)
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
        lifespan = self._participant.router.lifespan_context(self._participant)
        self._lifespan = lifespan
        await lifespan.__aenter__()

    async def on_unmount(self) -> None:
        if self._lifespan is not None:
            await self._lifespan.__aexit__(None, None, None)
