"""A Daml Script run against the participant a `LedgerClient` talks to, the interpreter in this process
(`participant.daml_script`), over the JSON Ledger API on the client's connection: what `ledger-tui script` and the
packages screen's `r` share.

The script acts through the token's user, who is granted the right to act and read as each party the script
allocates (an admin may; without auth nobody needs it). Time: on a participant of ours started with
--static-time the script reads and sets its clock; elsewhere it reads the wall clock and `setTime` fails.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from app.client import LedgerClient
from app.client.plain import PlainHttp, plain_http
from participant.daml_script import Outcome, run_script
from participant.daml_script.dars import UnreadableDar, archive_references, code_of
from participant.daml_script.json_ledger import JsonLedger
from participant.daml_script.ledger import Right
from participant.engine.lf.definitions import LfPackages

ADMIN_USER = "participant_admin"
FETCH_CONCURRENCY = 4


class ActingLedger(JsonLedger):
    """The runner's ledger, whose user is granted to act and read as each party the script allocates: on a
    participant with auth a token's user may act only as the parties its rights name. `committed` hears of each
    transaction the script commits (its count so far)."""

    def __init__(
        self, *args: Any, grants: bool, committed: Callable[[int], None] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.grants = grants
        self.committed = committed
        self.transactions = 0

    async def allocate_party(self, id_hint: str, display_name: str) -> str:
        party = await super().allocate_party(id_hint, display_name)
        if self.grants:
            await self.grant_rights(self.user_id, [Right("CanActAs", party), Right("CanReadAs", party)])
        return party

    async def submit(self, *args: Any, **kwargs: Any) -> Any:
        submitted = await super().submit(*args, **kwargs)
        self.transactions += 1
        if self.committed is not None:
            self.committed(self.transactions)
        return submitted


async def acting_user(client: LedgerClient) -> tuple[str, bool]:
    """The token's user, and whether it needs rights granted (not on a participant without auth)."""
    if client.tokens is None:
        return ADMIN_USER, False
    return (await client.authenticated_user()).id, True


async def run_on_participant(
    client: LedgerClient,
    code: LfPackages,
    script_name: str,
    argument: Any = None,
    *,
    committed: Callable[[int], None] | None = None,
    http: PlainHttp | None = None,
) -> Outcome:
    """Run `script_name` of `code` against the client's participant, through `http` (a `plain_http` of the
    client the caller has open for more than the run), else through one of its own. A script's own failure is in
    the outcome."""
    user_id, grants = await acting_user(client)
    async with contextlib.AsyncExitStack() as stack:
        if http is None:
            http = await stack.enter_async_context(plain_http(client))
        ledger = ActingLedger(http, code, user_id=user_id, grants=grants, committed=committed)
        return await run_script(code, script_name, ledger, argument)


async def participant_code(
    main_package_id: str, package_ids: list[str], archive: Callable[[str], Awaitable[bytes]]
) -> LfPackages:
    """The code of a package the participant has (`main_package_id`) with the packages it needs, directly or
    through another, among the participant's (`package_ids`): each archive as the participant's package service
    serves it (`archive`, four at a time), those a package names fetched once it is read, and decoded in a thread.
    The participant's other packages are neither fetched nor decoded (a script's package needs a few dozen of the
    hundreds a participant may hold). Raises `UnreadableDar` for one that does not read, the client's errors for
    one that cannot be fetched."""
    gate = asyncio.Semaphore(FETCH_CONCURRENCY)
    known = set(package_ids)

    async def fetch(package_id: str) -> tuple[str, bytes, frozenset[str]]:
        async with gate:
            payload = await archive(package_id)
        return package_id, payload, await asyncio.to_thread(archive_references, package_id, payload)

    archives: dict[str, bytes] = {}
    wanted = [main_package_id]
    while wanted:  # a breadth-first walk: each round fetches what the packages read last name
        named: set[str] = set()
        for package_id, payload, references in await asyncio.gather(*(fetch(pid) for pid in wanted)):
            archives[package_id] = payload
            named |= references & known
        wanted = sorted(named - archives.keys())
    return await asyncio.to_thread(code_of, main_package_id, archives)


__all__ = [
    "ADMIN_USER",
    "ActingLedger",
    "UnreadableDar",
    "acting_user",
    "participant_code",
    "run_on_participant",
]
