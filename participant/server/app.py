"""The HTTP application: `create_app(settings)` wires the store, engine, auth and routes together.

Nothing is built at import time; the lifespan opens the database and hands everything to the routes through
`app.state.context`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from participant.auth import Authenticator, TokenVerifier, UserRecord
from participant.base import errors
from participant.base.settings import Settings
from participant.engine.registry import PackageRegistry
from participant.ledger.clock import LedgerClock, StaticClock, WallClock
from participant.ledger.committer import Committer
from participant.ledger.daml_packages import DamlPackages
from participant.ledger.identity import load_identity
from participant.routes import all_routes
from participant.routes.common import BodyTooLarge, error_response
from participant.routes.lazy import LazyRoutes
from participant.services.context import Context
from participant.store.admin import ensure_admin_user
from participant.store.packages import stored_packages
from participant.store.store import Store

if TYPE_CHECKING:
    from participant.engine.lf.definitions import LfPackages

log = logging.getLogger("participant")
access_log = logging.getLogger("participant.access")


def build_registry(settings: Settings) -> PackageRegistry:
    from participant.models import iou

    registry = PackageRegistry()
    registry.add(iou.package)
    for module in settings.packages:
        registry.load_module(module)
    return registry


def build_verifier(settings: Settings, participant_id: str) -> TokenVerifier | None:
    if settings.no_auth:
        return None
    if settings.hs256_secret:
        return TokenVerifier(participant_id, hs256_secret=settings.hs256_secret)
    if settings.public_key:
        return TokenVerifier(participant_id, public_key_pem=settings.public_key.read_bytes())
    if settings.jwks:
        return TokenVerifier(participant_id, jwks_path=settings.jwks)
    raise ValueError(
        "no token verification configured: give --hs256-secret, --public-key, --jwks or --no-auth"
    )


def create_app(
    settings: Settings,
    on_ready: Callable[[Context], None] | None = None,
    on_seeding: Callable[[int, int], None] | None = None,
    code: LfPackages | None = None,
) -> Starlette:
    """`on_seeding(done, total)` hears how far the demo seeding is; `on_ready(context)` is called once the database
    is open and seeded, before the first request is served. `code`: Daml packages decoded and compiled before,
    which the participant shares rather than decoding its stored packages again (see `DamlPackages`)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(settings.db)
        committer: Committer | None = None
        await store.open()
        try:
            identity = await load_identity(store, settings.synchronizer_aliases)
            registry = build_registry(settings)
            await ensure_admin_user(store)

            async def load_user(user_id: str) -> UserRecord | None:
                user = await store.user(user_id)
                # Tokens here come from the default identity provider, and Canton takes a user only from its own.
                if user is None or user.identity_provider_id:
                    return None
                return UserRecord(user.id, user.is_deactivated, user.rights)

            daml_packages = DamlPackages(rows := await stored_packages(store), code)
            await daml_packages.register(store, registry, rows)
            clock: LedgerClock = await StaticClock.restore(store) if settings.static_time else WallClock()
            committer = Committer(
                store,
                registry,
                identity,
                ledger_time_tolerance=timedelta(seconds=settings.ledger_time_tolerance_s),
                max_interpretation_memory=settings.max_interpretation_memory,
                clock=clock,
            )
            app.state.context = Context(
                settings,
                store,
                committer,
                registry,
                identity,
                Authenticator(
                    build_verifier(settings, identity.participant_id), load_user, lambda: store.users_version
                ),
                daml_packages,
                clock=clock,
            )
            if settings.demo:
                from participant.server.demo import seed_demo

                await seed_demo(app.state.context, progress=on_seeding)
            if on_ready is not None:
                on_ready(app.state.context)
            yield
        finally:
            if committer is not None:
                committer.stop()
            await store.close()

    app = ParticipantApp(
        routes=all_routes(static_time=settings.static_time),
        lifespan=lifespan,
        middleware=[Middleware(AccessLog)] if settings.log_requests else [],
        exception_handlers={
            errors.LedgerError: _ledger_error,
            errors.BadRequestBody: _bad_request,
            BodyTooLarge: _too_large,
            HTTPException: _http_exception,
            ClientDisconnect: _client_gone,
            Exception: _internal_error,
        },
    )
    return app


class ParticipantApp(Starlette):
    """Starlette with a direct path for the routes that carry the load (`DIRECT_PATHS`): with no middleware
    configured, such a request goes straight to its endpoint and any exception to the same handler the
    exception middleware would pick, without the middleware stack and the router's walk over every route in
    between. The answers, errors included, are the same."""

    DIRECT_PATHS = frozenset({"/v2/commands/submit-and-wait-for-transaction", "/v2/commands/submit-and-wait"})

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # built at the first request to one of them: their routes load with it (`participant.routes.lazy`)
        self._direct: dict[tuple[str, str], Callable] | None = None if not self.user_middleware else {}

    def _direct_endpoint(self, scope) -> Callable | None:
        if scope["type"] != "http" or scope["path"] not in self.DIRECT_PATHS:
            return None
        if self._direct is None:
            self._direct = {}
            for route in self.router.routes:
                if isinstance(route, LazyRoutes):
                    if not any(route.might_hold(path) for path in self.DIRECT_PATHS):
                        continue
                    held = route.routes
                else:
                    held = [route]
                for each in held:
                    if isinstance(each, Route) and each.path in self.DIRECT_PATHS:
                        for method in each.methods or ():
                            self._direct[(method, each.path)] = each.endpoint
        return self._direct.get((scope.get("method"), scope["path"]))

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope["path"] = route_path(scope["path"])
        endpoint = self._direct_endpoint(scope)
        if endpoint is None:
            return await super().__call__(scope, receive, send)
        scope["app"] = self
        request = Request(scope, receive)
        try:
            response = await endpoint(request)
        except Exception as exc:
            handler = next(
                (self.exception_handlers[cls] for cls in type(exc).__mro__ if cls in self.exception_handlers),
                None,
            )
            if handler is None:
                raise
            response = await handler(request, exc)
        await response(scope, receive, send)


def route_path(path: str) -> str:
    """The path as Canton's JSON API matches it. Its tapir routes see the path as a list of segments and skip
    the empty ones, so `//v2/commands/completions` (what a client joining a base URL that ends in `/` sends),
    `/v2//commands/completions` and `/v2/commands/completions/` all reach `/v2/commands/completions`; a
    websocket upgrade is routed the same way."""
    if "//" not in path and (path == "/" or not path.endswith("/")):
        return path
    return "/" + "/".join(segment for segment in path.split("/") if segment)


async def _ledger_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, errors.LedgerError)
    if exc.code.category.redacted:
        log.info("%s %s refused: %s %s", request.method, request.url.path, exc.code.id, exc.cause)
    return error_response(exc)


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, errors.BadRequestBody)
    return PlainTextResponse(exc.text, status_code=400)


async def _too_large(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(f"Invalid value for: body ({exc})", status_code=413)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        # Canton's answer for a route it does not have: the legacy v1 shape, with no `code` key.
        body = {"errors": [f"{request.method}, uri: {request.url}"], "status": 404, "ledgerApiError": None}
        return Response(orjson.dumps(body), status_code=404, media_type="application/json")
    if exc.status_code == 405:
        return PlainTextResponse("Method Not Allowed", status_code=405)
    return PlainTextResponse(exc.detail, status_code=exc.status_code)


async def _client_gone(request: Request, exc: Exception) -> Response:
    # The client left, or its body stalled and the server closed the connection: nobody reads this answer.
    log.info("%s %s: the client went away before its request body was read", request.method, request.url.path)
    return Response(status_code=400)


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.exception("internal error on %s %s", request.method, request.url.path)
    error = errors.LEDGER_API_INTERNAL_ERROR(f"{type(exc).__name__}")
    body = error.body()
    return Response(orjson.dumps(body), status_code=500, media_type="application/json")


class AccessLog:
    """One line per request: method, path, status and time taken."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 0

        async def send_and_note(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            access_log.info(
                "%s %s %d %.1fms",
                scope["method"],
                scope["path"],
                status,
                (time.perf_counter() - start) * 1000,
            )
