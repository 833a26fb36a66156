"""A route module loaded at its first request: the participant starts, and answers what a client asks first, without
importing what only commands and update streams need (the submission service, the interpreter behind it, the
update shapes and their wire models): these were most of its start."""

from __future__ import annotations

import importlib
import threading
from typing import Any

from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send


class LazyRoutes(BaseRoute):
    """Stands, in the route list, where the `routes` of `module` would be, and matches as they do; the module is
    imported when a request's path starts with one of `prefixes` (every path of the module does: a test checks it)."""

    def __init__(self, module: str, prefixes: tuple[str, ...]) -> None:
        self.module = module
        self.prefixes = prefixes
        self._routes: list[BaseRoute] | None = None
        self._lock = threading.Lock()  # the app may be called from more than one thread (tests' clients)

    @property
    def routes(self) -> list[BaseRoute]:
        if self._routes is None:
            with self._lock:
                if self._routes is None:
                    self._routes = list(importlib.import_module(self.module).routes)
        return self._routes

    def might_hold(self, path: str) -> bool:
        return path.startswith(self.prefixes)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] not in ("http", "websocket") or not self.might_hold(scope["path"]):
            return Match.NONE, {}
        partial: tuple[Match, Scope] | None = None
        for route in self.routes:
            match, child = route.matches(scope)
            if match == Match.FULL:
                return match, child
            if match == Match.PARTIAL and partial is None:
                partial = (match, child)
        return partial or (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the route that matched is found again (matching is stateless): a full match first, else the partial one
        # that answers 405, as the router picks among its own routes
        partial: BaseRoute | None = None
        for route in self.routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                await route.handle(scope, receive, send)
                return
            if match == Match.PARTIAL and partial is None:
                partial = route
        assert partial is not None, "handled only after it matched"
        await partial.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)  # the participant's routes are never reversed

    def __repr__(self) -> str:
        return f"LazyRoutes({self.module!r}, {self.prefixes!r})"
