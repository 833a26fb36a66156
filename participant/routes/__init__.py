"""Starlette routes, one module per Ledger API service."""

from __future__ import annotations

from starlette.routing import BaseRoute


def all_routes(static_time: bool = False) -> list[BaseRoute]:
    """Every route; the time endpoints (ours, not Canton's) only with a static clock."""
    from participant.routes import (
        commands,
        contracts,
        idps,
        packages,
        parties,
        reassignments,
        state,
        time,
        unsupported,
        updates,
        users,
        version,
    )

    return [
        *state.routes,
        *commands.routes,
        *reassignments.routes,
        *contracts.routes,
        *updates.routes,
        *parties.routes,
        *users.routes,
        *version.routes,
        *idps.routes,
        *packages.routes,
        *unsupported.routes,
        *(time.routes if static_time else []),
    ]
