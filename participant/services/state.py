"""The state service's small reads: the ledger end, the pruning offsets, and the synchronizers the participant is
connected to (with a party's permission on them)."""

from __future__ import annotations

from participant.auth import Claims
from participant.services.context import Context


def ledger_end(ctx: Context) -> dict:
    return {"offset": ctx.store.ledger_end}


async def latest_pruned_offsets(ctx: Context) -> dict:
    pruned = await ctx.store.pruned_offset()
    return {"participantPrunedUpToInclusive": pruned, "allDivulgedContractsPrunedUpToInclusive": pruned}


async def connected_synchronizers(ctx: Context, party: str | None, c: Claims | None) -> dict:
    """Every synchronizer; with a party (whose read the claims must allow), its permission on them."""
    permission = "PARTICIPANT_PERMISSION_UNSPECIFIED"
    if party:
        assert c is not None, "the route reads the claims whenever a party is asked for"
        c.require_read_unless_admin([party])
        if await ctx.store.party(party) is not None:
            permission = "PARTICIPANT_PERMISSION_SUBMISSION"
    return {
        "connectedSynchronizers": [
            {"synchronizerAlias": s.alias, "synchronizerId": s.id, "permission": permission}
            for s in ctx.identity.synchronizers
        ]
    }
