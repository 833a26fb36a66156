"""From request headers to `Claims`: the one place a route gets its authorization from.

Mirrors Canton's JSON layer: the token is verified, then the user it names is loaded and its rights become the
claims (`UserBasedClaimResolver`). With no verifier (`--no-auth`) every request gets `Claims.wildcard()`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Mapping

from participant.base import errors

from .claims import Claims, UserRecord
from .tokens import TokenVerifier

# What a websocket client sends in `Sec-WebSocket-Protocol`, and what the server answers with.
WS_TOKEN_PREFIX = "jwt.token."
WS_AUTH_SUBPROTOCOL = "daml.ws.auth"

LoadUser = Callable[[str], Awaitable[UserRecord | None]]

CACHE_SIZE = 4096


class Authenticator:
    """Verifying a signature and loading a user cost more than most requests, and clients send the same token
    again and again: the claims of a token are kept until it expires or any user or right changes
    (`users_version` counts those changes)."""

    def __init__(
        self,
        verifier: TokenVerifier | None,
        load_user: LoadUser,
        users_version: Callable[[], int] = lambda: 0,
    ) -> None:
        self.verifier = verifier
        self.load_user = load_user
        self.users_version = users_version
        self._cache: dict[str, tuple[Claims, float, int]] = {}

    @property
    def enabled(self) -> bool:
        return self.verifier is not None

    async def claims_for(self, headers: Mapping[str, str]) -> Claims:
        """Claims of an HTTP request, from `Authorization: Bearer <jwt>`."""
        if self.verifier is None:
            return Claims.wildcard()
        return await self.claims_for_token(_bearer_token(headers))

    async def claims_for_websocket(self, headers: Mapping[str, str]) -> Claims:
        """Claims of a websocket upgrade, from `Sec-WebSocket-Protocol: jwt.token.<jwt>, daml.ws.auth`.

        An `Authorization` header is accepted as well when the subprotocol carries no token: browsers cannot send
        one, but other clients can, and the token is verified just the same.
        """
        if self.verifier is None:
            return Claims.wildcard()
        protocols = [p.strip() for p in (_header(headers, "sec-websocket-protocol") or "").split(",")]
        tokens = [p.removeprefix(WS_TOKEN_PREFIX) for p in protocols if p.startswith(WS_TOKEN_PREFIX)]
        if not tokens:
            return await self.claims_for_token(_bearer_token(headers))
        if len(tokens) > 1 or not tokens[0]:
            raise errors.UNAUTHENTICATED(
                "websocket subprotocols must carry exactly one non-empty jwt.token entry"
            )
        return await self.claims_for_token(tokens[0])

    async def claims_for_token(self, token: str) -> Claims:
        if self.verifier is None:
            return Claims.wildcard()
        cached = self._cache.get(token)
        version = self.users_version()
        if cached is not None:
            claims, expires, seen_version = cached
            if seen_version == version and time.time() < expires:
                return claims
            del self._cache[token]
        verified = self.verifier.verify(token)
        # Canton's order: the JSON layer resolves the token's user first, then the Ledger API service checks
        # which participant the token is for.
        claims = await self._claims_of(verified.user_id)
        self.verifier.require_this_participant(verified)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        expires = (
            math.inf if verified.expires_at is None else verified.expires_at + self.verifier.leeway_seconds
        )
        self._cache[token] = (claims, expires, version)
        return claims

    async def _claims_of(self, user_id: str) -> Claims:
        """Canton's `UserBasedClaimResolver`, whose failures the JSON layer marks as a token problem."""
        user = await self.load_user(user_id)
        if user is None:
            raise errors.PERMISSION_DENIED(
                f"token user {user_id!r} does not exist", json_context=errors.TOKEN_PROBLEM
            )
        if user.is_deactivated:
            raise errors.PERMISSION_DENIED(
                f"token user {user_id!r} is deactivated", json_context=errors.TOKEN_PROBLEM
            )
        return Claims.from_rights(user.id, user.rights)


def _bearer_token(headers: Mapping[str, str]) -> str:
    value = _header(headers, "authorization")
    if value is None:
        raise errors.UNAUTHENTICATED("request has no Authorization header")
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise errors.UNAUTHENTICATED(f"Authorization scheme {scheme!r} is not Bearer")
    token = token.strip()
    if not token:
        # Canton's tapir layer rejects this before any auth code runs: 400 text/plain.
        raise errors.BadRequestBody("empty bearer token", where="header Authorization")
    return token


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """Case-insensitive lookup that works for Starlette's `Headers` and for plain dicts alike."""
    value = headers.get(name)
    if value is not None:
        return value
    return next((v for k, v in headers.items() if k.lower() == name), None)
