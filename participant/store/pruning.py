"""Pruning: drop history up to an offset, safely beside a running server (SQLite serializes the writers)."""

from __future__ import annotations

from pathlib import Path

from participant.store import sql
from participant.store.fetch import fetch_value
from participant.store.store import connect


class PruneError(ValueError):
    pass


async def prune(path: Path | str, up_to: int) -> int:
    """Remove updates, completions and contracts archived at offsets <= `up_to`; returns the new pruning offset.

    Active contracts stay (the ACS at any unpruned offset still shows them), as on a Canton participant, and so
    does the latest reassignment event of each (where it is now, or that it is in flight)."""
    if not Path(path).exists():
        raise PruneError(f"no database at {path}")
    conn = await connect(path)
    try:
        version = await fetch_value(conn, "PRAGMA user_version")
        if version == 0:
            raise PruneError(f"{path} is not a participant database (it has no ledger schema)")
        await conn.execute("BEGIN IMMEDIATE")
        try:
            ledger_end = await fetch_value(conn, sql.LEDGER_END)
            row = await (await conn.execute(sql.GET_META, ("pruned_offset",))).fetchone()
            pruned = int(row[0]) if row else 0
            if up_to <= 0:
                raise PruneError(f"the pruning offset must be positive, got {up_to}")
            if up_to > ledger_end:
                raise PruneError(f"cannot prune up to {up_to}: the ledger end is {ledger_end}")
            if up_to <= pruned:
                raise PruneError(f"already pruned up to {pruned}")
            for statement in (
                sql.PRUNE_UPDATES,
                sql.PRUNE_COMPLETIONS,
                sql.PRUNE_STAKEHOLDERS,
                sql.PRUNE_REASSIGNMENT_EVENTS_OF_CONTRACTS,
                sql.PRUNE_CONTRACTS,
            ):
                await conn.execute(statement, (up_to,))
            await conn.execute(sql.PRUNE_REASSIGNMENT_EVENTS, {"up_to": up_to})
            await conn.execute(sql.SET_META, ("pruned_offset", str(up_to)))
            await conn.commit()
        except BaseException:
            await conn.rollback()
            raise
    finally:
        await conn.close()
    return up_to
