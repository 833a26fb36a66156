"""When the client reads the user's rights again, against a real participant: at connecting, at a slow pace, after
a request refused for a lack of rights; not as the ledger moves (each read is two requests, and a busy ledger moves
at every poll). The pace is kept on a clock of the test's own, moved by hand."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from app.app import LedgerApp
from app.app.connection import RIGHTS_RECHECK_S
from app.client import LedgerClient
from app.client import admin as api
from app.config import Config
from app.screens.acs import AcsScreen
from app.tokens import MintedToken
from participant.api import Command, CreateCommand, JsCommands
from tests.conftest import SECRET, ServerProcess, start_demo_server
from tests.tui.conftest import SIZE, screen_of, wait_for
from tests.tui.helpers import client_for, party_of

ADMIN = "participant_admin"


@pytest.fixture
def ledger(tmp_path) -> Iterator[ServerProcess]:
    """A participant with the demo ledger of its own: Alice creates contracts, the ledger moves."""
    s = start_demo_server(tmp_path / "ledger.db")
    yield s
    s.stop()


async def move(alice: LedgerClient) -> int:
    """An Iou created by Alice: a transaction, the ledger end one further. Returns the new end."""
    party = await party_of(alice)
    payload = {"issuer": party, "owner": party, "currency": "CHF", "amount": "1", "observers": []}
    create = CreateCommand(template_id="#model-tests:Iou:Iou", create_arguments=payload)
    await alice.submit_and_wait_for_transaction(
        JsCommands(commands=[Command(create_command=create)], command_id=os.urandom(8).hex(), act_as=[party])
    )
    return await alice.ledger_end()


async def carol_reading_as_alice(ledger: ServerProcess) -> tuple[LedgerClient, LedgerClient, str]:
    """The administrator's and Alice's clients, and Alice's party, which the user carol (made here) reads as."""
    admin, alice = client_for(ledger, ADMIN), client_for(ledger, "Alice")
    party = await party_of(alice)
    await api.create_user(admin, "carol", rights=api.rights_for(read_as=[party]))
    return admin, alice, party


class Clock:
    """The connection's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def carol_app(ledger: ServerProcess, locations, clock: Clock) -> LedgerApp:
    app = LedgerApp(
        config=Config(),
        locations=locations,
        url=ledger.url,
        tokens=MintedToken(SECRET, "carol"),
        label="test",
    )
    app.ledger_end_poll_s = 0.1  # the polls, which are what would read the rights, come often
    app.connection.clock = clock
    return app


def requests_to(app: LedgerApp, tail: str) -> int:
    return sum(1 for r in app.request_log.entries if r.method == "GET" and r.path.endswith(tail))


def rights_reads(app: LedgerApp) -> int:
    return requests_to(app, "/rights")


async def two_polls(pilot, app: LedgerApp) -> None:
    """Let two polls of the ledger end go by: whatever a poll, or the ledger end it saw, set off has started."""
    polls = requests_to(app, "/v2/state/ledger-end")
    await wait_for(pilot, lambda: requests_to(app, "/v2/state/ledger-end") >= polls + 2, "two polls")


async def move_seen(pilot, app: LedgerApp, end: int) -> None:
    await wait_for(pilot, lambda: app.status_ledger_end == end, f"the ledger end {end} seen")
    await two_polls(pilot, app)


async def test_the_rights_are_read_at_a_slow_pace_not_as_the_ledger_moves(ledger, locations):
    admin, alice, party = await carol_reading_as_alice(ledger)
    clock = Clock()
    app = carol_app(ledger, locations, clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        assert rights_reads(app) == 1
        # the ledger moves, a right is granted elsewhere among the moves, and time passes, less than the pace
        erin = (await api.allocate_party(admin, "erin")).party
        await api.grant_rights(admin, "carol", api.rights_for(read_as=[erin]))
        for _ in range(3):
            clock.now += RIGHTS_RECHECK_S / 4
            await move_seen(pilot, app, await move(alice))
        assert rights_reads(app) == 1
        assert app.session.identity.readable() == [party]

        clock.now += RIGHTS_RECHECK_S / 4  # the pace reached: the next poll reads them
        await wait_for(pilot, lambda: app.session.identity.readable() == [party, erin], "the right granted")
        assert rights_reads(app) == 2
        await two_polls(pilot, app)
        assert rights_reads(app) == 2


async def test_a_request_refused_for_a_lack_of_rights_reads_them_again(ledger, locations):
    admin, _, party = await carol_reading_as_alice(ledger)
    clock = Clock()
    app = carol_app(ledger, locations, clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        acs = screen_of(app, AcsScreen)
        await wait_for(pilot, lambda: not acs.reading, "the contracts read")
        # elsewhere: the app is not told
        await api.revoke_rights(admin, "carol", api.rights_for(read_as=[party]))
        assert rights_reads(app) == 1 and app.session.identity.readable() == [party]
        acs.action_reload()  # reads as Alice: refused, 403 PERMISSION_DENIED
        await wait_for(
            pilot,
            lambda: any(r.status == 403 and "active-contracts" in r.path for r in app.request_log.entries),
            "the read refused",
        )
        await wait_for(pilot, lambda: app.session.identity.readable() == [], "the rights read again")
        assert rights_reads(app) == 2
