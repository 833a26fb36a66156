"""The updates client against a real participant on a loopback port: paging back through a long history (through
the page endpoint, and through the list as a 3.4 participant serves it), and following the ledger across a
participant killed and started again on the same database and port."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Iterator

import pytest
from websockets.typing import Subprotocol

from app.client import LedgerClient
from app.client.updates import Backoff, StreamState, follow, update_offset, updates_page
from app.tokens import MintedToken
from participant.api import Update
from tests.client.conftest import Canton34
from tests.conftest import SECRET, ServerProcess, free_port, start_server
from tests.history import allocate, submit_ious

# more than a dozen of the participant's list limit and several pages of 50 and 70: every path of the paging that a
# history of 2,500 under the default limit of 200 took, at a tenth of the transactions to submit
HISTORY = 250
LIST_LIMIT = 20


def command_id(update: Update) -> str | None:
    return update.transaction.value.command_id if update.transaction is not None else None


@pytest.fixture(scope="module")
def long_history(tmp_path_factory) -> Iterator[tuple[ServerProcess, str, list[str]]]:
    """A participant whose user Hist has submitted HISTORY transactions, its list limit LIST_LIMIT."""
    s = start_server(
        tmp_path_factory.mktemp("history") / "ledger.db",
        "--hs256-secret",
        SECRET,
        "--max-list-elements",
        str(LIST_LIMIT),
    )
    party = asyncio.run(allocate(s.url, "Hist"))
    ids = asyncio.run(submit_ious(s.url, "Hist", party, HISTORY))
    yield s, party, ids
    s.stop()


async def page_back(client: LedgerClient, party: str, limit: int) -> list[Update]:
    out: list[Update] = []
    before = None
    for _ in range(HISTORY):
        page = await updates_page(client, before=before, limit=limit, parties=[party])
        assert len(page.updates) <= limit
        out += page.updates
        if page.next_before is None:
            return out
        assert page.next_before <= update_offset(page.updates[-1])
        before = page.next_before
    raise AssertionError("paging did not end")


async def test_paging_back_through_a_long_history(long_history):
    server, party, ids = long_history
    async with LedgerClient(server.url, MintedToken(SECRET, "Hist")) as client:
        updates = await page_back(client, party, 70)  # pages that do not divide the history evenly
        assert client.capabilities.updates_page is True
        offsets = [update_offset(u) for u in updates]
        assert offsets == sorted(offsets, reverse=True) and len(set(offsets)) == len(offsets)
        commands = [u.transaction.value.command_id or "" for u in updates if u.transaction is not None]
        assert sorted(commands) == sorted(ids)  # every transaction, once
        assert any(u.topology_transaction is not None for u in updates)  # the party's allocation

        end = await client.ledger_end()
        newest = await updates_page(client, before=None, limit=3, parties=[party])
        assert update_offset(newest.updates[0]) == end
        below = await updates_page(client, before=newest.next_before, limit=2, parties=[party])
        assert [update_offset(u) for u in below.updates] == offsets[3:5]


async def test_a_34_participant_is_paged_through_windows_of_the_list(long_history):
    server, party, _ = long_history
    transport = Canton34()
    async with (
        LedgerClient(server.url, MintedToken(SECRET, "Hist"), transport=transport) as old,
        LedgerClient(server.url, MintedToken(SECRET, "Hist")) as new,
    ):
        await old.version()
        assert old.capabilities.updates_page is False
        # 50 a page, over the participant's list limit of 20: windows too wide are narrowed after a 413
        through_list = await page_back(old, party, 50)
        assert not [p for _, p, _ in transport.seen if p.endswith("get-updates-page")]
        assert ("POST", "/v2/updates", 413) in transport.seen
        through_pages = await page_back(new, party, 50)
        assert [update_offset(u) for u in through_list] == [update_offset(u) for u in through_pages]
        assert [command_id(u) for u in through_list] == [command_id(u) for u in through_pages]


async def test_a_missing_page_endpoint_is_learnt_from_its_404(long_history):
    """A participant whose version says nothing: the page endpoint is tried once, then the list is used."""
    server, party, _ = long_history
    transport = Canton34()
    async with LedgerClient(server.url, MintedToken(SECRET, "Hist"), transport=transport) as client:
        page = await updates_page(client, before=None, limit=5, parties=[party])
        assert client.capabilities.updates_page is False
        assert len(page.updates) == 5
        transport.seen.clear()
        await updates_page(client, before=page.next_before, limit=5, parties=[party])
        assert [p for _, p, _ in transport.seen] == ["/v2/updates"]


@pytest.fixture
def restartable(tmp_path) -> Iterator[list[ServerProcess]]:
    """A participant on a port of its own; a test that starts it again appends the new process."""
    processes = [start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, port=free_port())]
    yield processes
    processes[-1].stop()


async def test_following_across_a_participant_killed_and_restarted(restartable, tmp_path):
    server = restartable[0]
    party = await allocate(server.url, "Tail")
    start = await _end(server.url, "Tail")
    states: list[StreamState] = []
    seen: list[Update] = []
    live = asyncio.Event()

    def on_state(state: StreamState) -> None:
        states.append(state)
        if state.status == "live":
            live.set()

    async def read() -> None:
        async with LedgerClient(server.url, MintedToken(SECRET, "Tail")) as client:
            updates: AsyncIterator[Update] = follow(
                client,
                after=start,
                parties=[party],
                on_state=on_state,
                backoff=Backoff(base_s=0.05, max_s=0.5),
            )
            async for update in updates:
                seen.append(update)

    reader = asyncio.ensure_future(read())
    try:
        async with asyncio.timeout(120):
            await live.wait()
            before = await submit_ious(server.url, "Tail", party, 30, prefix="before")
            server.stop(signal.SIGKILL)
            live.clear()
            port = int(server.url.rsplit(":", 1)[1])
            restartable.append(start_server(server.db, "--hs256-secret", SECRET, port=port))
            # committed before the stream is open again, and after
            after = await submit_ious(server.url, "Tail", party, 30, prefix="after")
            await live.wait()
            more = await submit_ious(server.url, "Tail", party, 10, prefix="more")
            wanted = {*before, *after, *more}
            while {command_id(u) for u in seen} != wanted:
                await asyncio.sleep(0.05)
    finally:
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
    offsets = [update_offset(u) for u in seen]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)  # in order, nothing twice
    commands = [command_id(u) for u in seen if u.transaction is not None]
    assert len(commands) == len(wanted)
    assert [s.status for s in states][0] == "live"
    assert any(s.status == "reconnecting" and s.cause for s in states)
    assert states[-1].status == "live"


async def test_following_reports_checkpoints_of_what_others_commit(tmp_path):
    server = start_server(
        tmp_path / "ledger.db", "--hs256-secret", SECRET, "--offset-checkpoint-interval", "0.1"
    )
    try:
        mine = await allocate(server.url, "Mine")
        theirs = await allocate(server.url, "Theirs")
        start = await _end(server.url, "Mine")
        async with LedgerClient(server.url, MintedToken(SECRET, "Mine")) as client:
            stream = follow(client, after=start, parties=[mine])
            await submit_ious(server.url, "Theirs", theirs, 1, prefix="theirs")
            their_end = await client.ledger_end()
            async with asyncio.timeout(30):
                checkpoint = await anext(stream)
                (my_tx,) = await submit_ious(server.url, "Mine", mine, 1, prefix="mine")
                mine_next = await anext(stream)
            await stream.aclose()
        assert checkpoint.offset_checkpoint is not None  # the end moved by an update Mine cannot see
        assert update_offset(checkpoint) == their_end
        assert command_id(mine_next) == my_tx and update_offset(mine_next) > their_end
    finally:
        server.stop()


async def test_a_refused_stream_is_raised_not_retried(participant):
    """A pruned or invalid start is the participant's refusal: raised at once, with Canton's error."""
    from app.client import errors

    async with LedgerClient(participant.url, MintedToken(SECRET, "Alice")) as client:
        end = await client.ledger_end()
        states: list[StreamState] = []
        with pytest.raises(errors.StatusError) as refused:
            async with asyncio.timeout(30):
                async for _ in follow(client, after=end + 1000, parties=None, on_state=states.append):
                    pass
        assert refused.value.canton is not None
        assert not [s for s in states if s.status == "reconnecting"]


async def _end(url: str, user: str) -> int:
    async with LedgerClient(url, MintedToken(SECRET, user)) as client:
        return await client.ledger_end()


async def test_a_stream_closed_for_its_policy_is_a_refusal_not_a_break():
    """A participant that cannot refuse the upgrade accepts it and closes with 1008: not retried."""
    from websockets.asyncio.server import serve

    from app.client import errors

    async def refuse(ws) -> None:
        await ws.recv()
        await ws.close(1008, "invalid token")

    async with serve(refuse, "127.0.0.1", 0, subprotocols=[Subprotocol("daml.ws.auth")]) as server:
        port = server.sockets[0].getsockname()[1]
        states: list[StreamState] = []
        async with LedgerClient(f"http://127.0.0.1:{port}") as client:
            with pytest.raises(errors.PermissionDenied, match="invalid token"):
                async with asyncio.timeout(30):
                    async for _ in follow(client, after=0, parties=["A"], on_state=states.append):
                        pass
        assert [s.status for s in states] == ["live"]
