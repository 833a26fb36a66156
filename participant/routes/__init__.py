"""Starlette routes, one module per Ledger API service."""

from __future__ import annotations

from starlette.routing import BaseRoute

from participant.routes.lazy import LazyRoutes

# The services a client does not need for its first answers, each imported at its first request (the submission
# service and the interpreter behind it, the update shapes): every path of a module starts with one of its prefixes.
LOADED_AT_FIRST_REQUEST: dict[str, tuple[str, ...]] = {
    "participant.routes.commands": ("/v2/commands/",),
    "participant.routes.reassignments": ("/v2/commands/",),
    "participant.routes.contracts": ("/v2/contracts/", "/v2/events/"),
    "participant.routes.updates": ("/v2/updates",),
}


def _lazy(module: str) -> LazyRoutes:
    return LazyRoutes(module, LOADED_AT_FIRST_REQUEST[module])


def all_routes(static_time: bool = False) -> list[BaseRoute]:
    """Every route, in the order they are matched; the time endpoints (ours, not Canton's) only with a static
    clock."""
    from participant.routes import (
        idps,
        packages,
        parties,
        state,
        time,
        unsupported,
        users,
        version,
    )

    return [
        *state.routes,
        _lazy("participant.routes.commands"),
        _lazy("participant.routes.reassignments"),
        _lazy("participant.routes.contracts"),
        _lazy("participant.routes.updates"),
        *parties.routes,
        *users.routes,
        *version.routes,
        *idps.routes,
        *packages.routes,
        *unsupported.routes,
        *(time.routes if static_time else []),
    ]
