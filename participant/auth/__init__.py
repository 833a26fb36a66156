"""Authentication (JWT verification) and authorization (claims from user rights) for the participant."""

from .authenticator import WS_AUTH_SUBPROTOCOL, WS_TOKEN_PREFIX, Authenticator, LoadUser
from .claims import Claims, Right, UserRecord
from .tokens import AUDIENCE_PREFIX, LEDGER_API_SCOPE, TokenVerifier, VerifiedToken, load_jwks, mint_token

__all__ = [
    "AUDIENCE_PREFIX",
    "LEDGER_API_SCOPE",
    "WS_AUTH_SUBPROTOCOL",
    "WS_TOKEN_PREFIX",
    "Authenticator",
    "Claims",
    "LoadUser",
    "Right",
    "TokenVerifier",
    "UserRecord",
    "VerifiedToken",
    "load_jwks",
    "mint_token",
]
