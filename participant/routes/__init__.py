"""Starlette routes, one module per Ledger API service."""

from __future__ import annotations

from starlette.routing import BaseRoute


def all_routes() -> list[BaseRoute]:
    from participant.routes import (
        commands,
        contracts,
        idps,
        packages,
        parties,
        reassignments,
        state,
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
    ]
