"""The client a headless command talks through: the participant the options name, or the bundled one.

Without --url or --profile a command uses the bundled participant as the TUI does: the one a running ledger-tui
serves (shared), or else one started for the command and let go when it ends, with tokens minted for --user
(default Alice, whom the demo ledger has; with --no-demo the participant's administrator). Starting it takes a second or two (the first time, seeding the demo ledger takes longer), so a
script that runs many commands keeps a ledger-tui open, or a `ledger-participant serve`, and names it with --url.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.client import LedgerClient, errors
from app.client.http import TokenSource
from app.client.requests_log import RequestLog
from app.ids import PARTY_SEPARATOR
from app.locations import Locations
from app.options import Choice, bundled_participant
from app.session import BUNDLED_ADMIN, Identity

DEFAULT_USER = "Alice"
# Nobody reads the request log here: keeping the last few requests, within its body budget, spares the shedding
# of old bodies after every page of a large snapshot.
LOG_ENTRIES = 8


def _client(url: str, tokens: TokenSource | None) -> LedgerClient:
    return LedgerClient(url, tokens, log=RequestLog(max_entries=LOG_ENTRIES))


@asynccontextmanager
async def connected(
    args: argparse.Namespace, choice: Choice, locations: Locations
) -> AsyncIterator[LedgerClient]:
    if choice.profile is not None:
        tokens = choice.tokens
        async with _client(choice.profile.url, tokens) as client:
            yield client
        return
    from app.tokens import MintedToken

    bundled = bundled_participant(choice, locations, args.no_demo)
    bundled.start()
    try:
        state = await asyncio.to_thread(bundled.wait)
        if state.phase != "ready":
            raise errors.LedgerApiError(state.error, hint="The bundled participant did not start.")
        user = (
            args.user
            or choice.first_user
            or (BUNDLED_ADMIN if args.no_demo or choice.project else DEFAULT_USER)
        )
        async with _client(state.url, MintedToken(bundled.secret(), user)) as client:
            yield client
    finally:
        bundled.stop()


async def identity(client: LedgerClient) -> Identity:
    """Who the token is for and what it may read and act as; on a participant without auth, anyone."""
    try:
        user = await client.authenticated_user()
    except errors.StatusError as e:
        if client.tokens is None and e.status in (400, 404, 501):
            return Identity(read_any=True, admin=True)
        raise
    return Identity.of_rights(user.id, user.primary_party, await client.user_rights(user.id))


async def reading_parties(client: LedgerClient, given: list[str]) -> list[str] | None:
    """The parties given with --party (a short name expanded, see `resolve`), else every party the user may read
    as (None: any party)."""
    from app.headless import resolve

    if given and all(PARTY_SEPARATOR in p for p in given):
        return list(dict.fromkeys(given))  # party ids: nothing to look up
    who = await identity(client)
    if given:
        return resolve.parties(given, await resolve.known_parties(client, who))
    return who.readable()
