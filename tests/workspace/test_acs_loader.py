"""The workspace's ACS loader against a real participant on loopback (the demo ledger): what it tells while it reads
a snapshot, that a request superseded mid-way tells nothing more and leaves none of its rows in the cache, that a
failure is told once, and moving through the history."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from app.client import LedgerClient, event_format
from app.client.acs import FIRST_PAGE, read_snapshot
from app.client.errors import BadRequest
from app.locations import Locations
from app.tokens import MintedToken
from app.workspace import Workspace
from app.workspace.acs_loader import (
    AcsEvent,
    AcsLoader,
    Failed,
    Loaded,
    Moved,
    Moving,
    NoParties,
    Read,
    Reading,
    Stepping,
)
from tests.conftest import SECRET, ServerProcess, start_demo_server

WAIT_S = 120.0  # a bound on waiting for the participant on a busy machine, not a timing assertion


@pytest.fixture(scope="module")
def participant(tmp_path_factory) -> Iterator[ServerProcess]:
    s = start_demo_server(tmp_path_factory.mktemp("acs-loader") / "ledger.db")
    yield s
    s.stop()


class Heard:
    """What the loader told, and a way to wait for the end of a request."""

    def __init__(self, loader: AcsLoader) -> None:
        self.events: list[AcsEvent] = []
        self.loader = loader
        self._ended = asyncio.Event()
        loader.subscribe(self.told)

    def told(self, event: AcsEvent) -> None:
        self.events.append(event)
        if isinstance(event, (Read, Failed, Moved)):
            self._ended.set()

    async def end(self) -> AcsEvent:
        """The next Read, Moved or Failed."""
        await asyncio.wait_for(self._ended.wait(), WAIT_S)
        self._ended.clear()
        return self.events[-1]

    async def quiet(self) -> None:
        """Until the loader has nothing under way (what a cancelled request might still tell is told by then)."""
        await asyncio.wait_for(self.loader.settled(), WAIT_S)


@pytest.fixture
async def workspace(participant, tmp_path: Path) -> AsyncIterator[Workspace]:
    locations = Locations(
        config_file=tmp_path / "config.toml",
        data_dir=tmp_path / "data",
        cache_dir=tmp_path / "cache",
        log_dir=tmp_path / "logs",
    )
    workspace = Workspace(locations)
    client = LedgerClient(participant.url, MintedToken(SECRET, "Alice"))
    workspace.open_session(client, label="test")
    yield workspace
    await workspace.acs_loader.close()
    await client.aclose()


async def _alice(workspace: Workspace) -> list[str]:
    assert workspace.session is not None
    user = await workspace.session.client.authenticated_user()
    return [user.primary_party]


async def _count_at(client: LedgerClient, offset: int, parties: list[str]) -> int:
    """The contracts at `offset`, read by the client alone (the reference)."""
    count = 0
    async for batch in read_snapshot(client, offset, event_format(parties)):
        count += len(batch.entries)
    return count


async def test_reading_the_ledger_end_tells_its_progress_then_the_whole(workspace):
    loader = workspace.acs_loader
    heard = Heard(loader)
    parties = await _alice(workspace)
    loader.load(parties)
    assert loader.busy
    read = await heard.end()
    assert isinstance(read, Read), read

    end = workspace.ledger_end.value
    assert end is not None and read.offset == end  # the end read for it, and told to the workspace
    first, *progress, last = heard.events
    assert first == Reading(end)
    loaded = [e for e in progress if isinstance(e, Loaded)]
    assert len(loaded) >= 2  # more than one page: the demo's Alice has more than the first page holds
    assert loaded[0].loaded == FIRST_PAGE
    assert [e.loaded for e in loaded] == sorted({e.loaded for e in loaded})  # growing, each batch once
    assert all(e.offset == end and e.form == "page" for e in loaded)
    assert read.total == loaded[-1].loaded == await _count_at(workspace.session.client, end, parties)

    assert (loader.offset, loader.previous, loader.parties) == (end, None, parties)
    assert not loader.reading and not loader.busy
    assert workspace.acs.viewing == end  # the other screens hear of the offset shown
    assert workspace.acs.snapshot is not None and await workspace.acs.snapshot.views.count() == read.total


async def test_a_read_superseded_midway_tells_nothing_more_and_leaves_none_of_its_rows(workspace):
    loader = workspace.acs_loader
    client = workspace.session.client
    parties = await _alice(workspace)
    end = await client.ledger_end()
    earlier = end // 2
    expected = await _count_at(client, earlier, parties)
    assert 0 < expected < await _count_at(client, end, parties)

    heard = Heard(loader)

    def supersede(event: AcsEvent) -> None:
        # the first page of the ledger end is in; the next is on its way when another offset is asked for (as a
        # key handled on the event loop would ask)
        if isinstance(event, Loaded) and event.offset == end and not asked:
            asked.append(earlier)
            asyncio.get_running_loop().call_soon(loader.load, parties, earlier)

    asked: list[int] = []
    loader.subscribe(supersede)
    loader.load(parties, end)
    read = await heard.end()
    await heard.quiet()

    assert asked == [earlier]
    assert isinstance(read, Read)
    assert read == Read(earlier, expected, read.seconds)
    second = heard.events.index(Reading(earlier))
    first_request, second_request = heard.events[:second], heard.events[second:]
    assert first_request[0] == Reading(end)
    assert [e for e in first_request if not isinstance(e, Loaded)] == [
        Reading(end)
    ]  # neither read nor failed
    assert all(getattr(e, "offset", earlier) == earlier for e in second_request), second_request
    assert heard.events[-1] is read  # nothing after it
    snapshot = workspace.acs.snapshot
    assert snapshot is not None and await snapshot.views.count() == expected
    assert loader.offset == earlier and workspace.acs.viewing == earlier


async def test_a_read_that_fails_is_told_once_with_cantons_error(workspace):
    loader = workspace.acs_loader
    heard = Heard(loader)
    parties = await _alice(workspace)
    beyond = await workspace.session.client.ledger_end() + 10
    loader.load(parties, beyond)
    failed = await heard.end()
    await heard.quiet()

    assert isinstance(failed, Failed) and (failed.doing, failed.offset) == ("read", beyond)
    assert isinstance(failed.error, BadRequest) and failed.error.code == "OFFSET_AFTER_LEDGER_END"
    assert heard.events == [Reading(beyond), failed]  # once, and nothing after it
    assert not loader.reading and not loader.busy


async def test_stepping_back_moves_the_cache_and_compares_with_the_offset_left(workspace):
    loader = workspace.acs_loader
    heard = Heard(loader)
    loader.load(await _alice(workspace))
    read = await heard.end()
    assert isinstance(read, Read)
    heard.events.clear()

    loader.step(-1)
    moved = await heard.end()
    assert isinstance(moved, Moved) and moved.old == read.offset and moved.offset < read.offset
    assert moved.previous == read.offset  # the cache covers both: the rows are compared
    assert heard.events == [Stepping(-1), Moving(moved.offset), moved]
    assert (loader.offset, loader.previous) == (moved.offset, read.offset)
    assert workspace.acs.viewing == moved.offset


async def test_cancelling_a_read_tells_nothing_more(workspace):
    loader = workspace.acs_loader
    heard = Heard(loader)
    cancelled: list[bool] = []
    done = asyncio.Event()

    def cancel(event: AcsEvent) -> None:
        if isinstance(event, Loaded) and not cancelled:
            cancelled.append(loader.cancel())
            done.set()

    loader.subscribe(cancel)
    loader.load(await _alice(workspace))
    await asyncio.wait_for(done.wait(), WAIT_S)
    await heard.quiet()
    assert cancelled == [True]
    assert [type(e) for e in heard.events] == [Reading, Loaded]  # the first page's progress, then nothing
    assert not loader.reading and not loader.busy


async def test_closing_leaves_no_offset_viewed_for_any_reader(workspace):
    """The offset viewed is the cache's alone: the loader and the other screens read the same value, also once the
    cache is closed (the status line and the inspector were left with the offset of a file already deleted)."""
    loader = workspace.acs_loader
    heard = Heard(loader)
    viewed: list[int | None] = []
    workspace.acs.subscribe(viewed.append)
    loader.load(await _alice(workspace))
    read = await heard.end()
    assert isinstance(read, Read) and workspace.acs.viewing == loader.offset == read.offset

    await loader.close()
    assert workspace.acs.snapshot is None
    assert loader.offset is None and workspace.acs.viewing is None
    assert viewed == [read.offset, None]  # told, as every move is


async def test_asked_for_no_parties_the_loader_views_no_offset_to_move_from(workspace):
    """Asked for no parties (a user left without rights), no offset is viewed: the rows the cache still holds are
    the parties' asked for before, and a step, a move or a read again read as them (the loader's parties said none
    while its timeline still read the others'), and the workspace would keep them as the rows of no party."""
    loader = workspace.acs_loader
    heard = Heard(loader)
    loader.load(await _alice(workspace))
    assert isinstance(await heard.end(), Read)
    heard.events.clear()

    loader.load([])
    await heard.quiet()
    assert heard.events == [NoParties()]
    assert loader.parties == [] and loader.offset is None and workspace.acs.viewing is None
    loader.step(-1)
    loader.move_to(1)
    loader.reload()
    loader.to_ledger_end()
    assert not loader.busy  # nothing to step, move or read from
    await heard.quiet()
    assert heard.events == [NoParties()]
