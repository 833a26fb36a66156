"""`serve --init-script Module:name`: a DAR's Daml Script run once, on a new ledger, before anything is served.

The script runs through the participant's own JSON Ledger API, in process (`httpx.ASGITransport` on an app over the
same database, with the DARs loaded and no listening socket), as the runner runs against any participant. That
app trusts its caller as a participant without auth does: nobody else can reach it.

Whether it ran is kept in the database (`meta`), so a restart does not run it again: `running` while it runs,
`done` (with the parties it allocated) once it passed. A ledger left `running` holds what a failed run did up to its
failure; it is refused rather than served as if it had been set up. A ledger that is not new (it has updates) and
never ran the script is served as it is, the script not run.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx

from participant.base.settings import Settings
from participant.services.context import Context
from participant.store import admin
from participant.store.rows import Right, UserRow

log = logging.getLogger("participant")

INIT_SCRIPT_KEY = "init_script"
PARTIES_PAGE = 1000


class InitScriptFailed(Exception):
    """The init script failed, or the ledger holds a failed run of it; the message says which and where."""


async def _parties(ctx: Context) -> set[str]:
    found: set[str] = set()
    after = ""
    while page := await ctx.store.parties(after, PARTIES_PAGE):
        found.update(p.party for p in page)
        after = page[-1].party
    return found


async def _record(ctx: Context, **state: Any) -> None:
    await ctx.store.set_meta(INIT_SCRIPT_KEY, json.dumps(state, sort_keys=True))


async def grant_every_party(ctx: Context, user_id: str, parties: list[str]) -> None:
    """`user_id` (created if missing) acts and reads as each of `parties` and administers the participant: whoever
    opens the ledger the script set up sees all of it, can act in it, and sets it up further (parties, users)."""
    rights: list[Right] = [("ParticipantAdmin", None)]
    rights += [(kind, party) for party in parties for kind in ("CanActAs", "CanReadAs")]
    if await ctx.store.user(user_id) is None:
        try:
            await admin.create_user(ctx.store, UserRow(user_id, "", False, {}, 0, "", False, ()), rights)
            return
        except admin.UserExists:  # made meanwhile: grant instead
            pass
    await admin.grant_rights(ctx.store, user_id, rights)


async def run_init_script(
    settings: Settings, script: str, user: str | None, say: Callable[[str], None]
) -> None:
    """Run `script` on the ledger of `settings.db` if it is new and has not run it yet; then, when `user` is given,
    let that user act and read as every party the script allocated. Raises `InitScriptFailed`."""
    from participant.store.store import read_meta

    # read before the app is built: a restart starts no second one
    stored = await read_meta(settings.db, INIT_SCRIPT_KEY) if settings.db.exists() else None
    if stored is not None and json.loads(stored).get("state") == "done":
        say(f"the init script {json.loads(stored).get('script')} ran on this ledger before: not run again")
        return
    from participant.daml_script import run_script
    from participant.daml_script.json_ledger import JsonLedger
    from participant.server.app import create_app

    trusted = dataclasses.replace(
        settings,
        demo=False,  # seeded, if asked, by the server that serves: the script runs on the ledger as it is
        log_requests=False,
        no_auth=True,
        hs256_secret=None,
        public_key=None,
        jwks=None,
    )
    logging.getLogger("httpx").setLevel(
        logging.WARNING
    )  # a line per request of the script's: not the server's
    contexts: list[Context] = []
    app = create_app(trusted, on_ready=contexts.append)
    async with app.router.lifespan_context(app):
        ctx = contexts[0]
        stored = await ctx.store.meta(INIT_SCRIPT_KEY)
        if stored is not None:
            record = json.loads(stored)
            if record.get("state") == "done":
                say(f"the init script {record.get('script')} ran on this ledger before: not run again")
                return
            raise InitScriptFailed(
                f"the init script {record.get('script')} failed on this ledger before, which holds what it did up "
                f"to its failure: start on a new ledger (another --db, or remove {settings.db})"
            )
        if ctx.store.ledger_end > 0:
            say(f"the ledger in {settings.db} is not new: the init script {script} is not run")
            return
        before = await _parties(ctx)
        await _record(ctx, script=script, state="running")
        say(f"running the init script {script} …")
        code = ctx.daml_packages.code
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://init-script", timeout=None
        ) as http:
            outcome = await run_script(code, script, JsonLedger(http, code))
        if not outcome.passed:
            where = f" at {outcome.location}" if outcome.location else ""
            raise InitScriptFailed(f"the init script {script} failed{where}: {outcome.error}")
        allocated = sorted(await _parties(ctx) - before)
        if user is not None:
            await grant_every_party(ctx, user, allocated)
        await _record(ctx, script=script, state="done", parties=allocated, transactions=outcome.transactions)
        say(
            f"the init script {script} passed: {outcome.transactions} transactions, "
            f"{len(allocated)} parties allocated" + (f", {user} acts and reads as each" if user else "")
        )
