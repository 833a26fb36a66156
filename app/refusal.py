"""Why a participant refused our token, in words a person can act on: expired (the token's own `exp`), refused (a
wrong signature, secret, audience or scope: the participant's cause quoted), or a user the participant does not know.

A 401 is always about the token. A 403 is about the token when Canton's JSON layer marks it so (context
`ledger_api_error: invalid token`: the token's user is unknown or deactivated), or where any valid token may ask (who
am I, the ledger end); elsewhere it is a missing right, which the error says as it is. Canton redacts the reason of
both, so what the token itself says (its `exp`, its `sub`) completes the picture.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from app.client import errors
from app.tokens import TokenSource

# what any user with a valid token may ask: a 403 there means the token's user is unknown or deactivated
_ANY_USER_PATHS = ("/v2/authenticated-user", "/v2/state/ledger-end")


@dataclass(frozen=True)
class Refusal:
    title: str
    what: str
    todo: str

    @property
    def text(self) -> str:
        return f"{self.what}\n{self.todo}"


def refusal_of(
    error: errors.LedgerApiError, tokens: TokenSource | None, now: float | None = None
) -> Refusal | None:
    """The refusal of our token that `error` is, or None when it is another failure."""
    if not isinstance(error, errors.StatusError):
        return None
    info = tokens.info if tokens is not None else None
    user = info.subject if info is not None else None
    if error.status == 401:
        if tokens is None:
            return Refusal(
                "Token needed",
                "the participant requires a token",
                "Start ledger-tui with a token source: --token-file, --token-env, --token-command, --oauth-token-url "
                "or --hs256-secret-file (or a profile that names one).",
            )
        expires_at = info.expires_at if info is not None else None
        if expires_at is not None and expires_at <= (time.time() if now is None else now):
            return Refusal(
                "Token expired",
                f"token expired at {_when(expires_at)}",
                f"Get a new token: {tokens.renewal}.",
            )
        cause = error.canton.cause if error.canton is not None else error.message
        return Refusal(
            "Token refused",
            f"the participant refused the token: {cause}",
            "Check that the token is signed with the key or secret the participant verifies with, and is "
            f"for its audience and scope: {tokens.renewal}.",
        )
    marked = error.canton is not None and error.canton.context.get("ledger_api_error") == "invalid token"
    unknown_user = (error.status == 403 and (marked or error.path in _ANY_USER_PATHS)) or (
        error.status == 404 and error.code == "USER_NOT_FOUND" and error.path.startswith("/v2/users/")
    )
    if unknown_user and tokens is not None:
        who = f"the token's user {user!r}" if user else "the token's user"
        return Refusal(
            "Unknown user",
            f"the participant does not know {who}, or the user is deactivated",
            f"Use a token of a user of this participant (a participant admin creates users): {tokens.renewal}.",
        )
    return None


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch))
