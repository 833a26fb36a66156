"""`refusal_of`: which failures are a refusal of our token, and how they are said. Real signed tokens; the errors are
those the client makes of Canton's answers (`status_error`), as a participant sends them."""

from __future__ import annotations

from typing import Any

import orjson

from app.client.http import status_error
from app.refusal import refusal_of
from app.tokens import FileToken, MintedToken
from participant.auth.tokens import mint_token
from tests.conftest import SECRET

REDACTED = "A security-sensitive error has been received"


def canton(status: int, path: str, *, code: str = "NA", cause: str = REDACTED, context: dict | None = None):
    body: dict[str, Any] = {
        "code": code,
        "cause": cause,
        "correlationId": None,
        "traceId": None,
        "context": context or {},
        "resources": [],
        "errorCategory": -1,
        "grpcCodeValue": {401: 16, 403: 7, 404: 5}[status],
        "retryInfo": None,
        "definiteAnswer": None,
    }
    return status_error(status, "application/json", orjson.dumps(body), "GET", path)


async def test_a_401_with_an_expired_token_says_when_it_expired(tmp_path):
    path = tmp_path / "t.jwt"
    path.write_text(mint_token(hs256_secret=SECRET, user_id="Alice", ttl_seconds=-60))
    tokens = FileToken(path)
    await tokens.token()
    refusal = refusal_of(canton(401, "/v2/authenticated-user"), tokens)
    assert refusal is not None and refusal.title == "Token expired"
    assert refusal.what.startswith("token expired at 20") and refusal.what.endswith(" UTC")
    assert str(path) in refusal.todo and "--token-file" in refusal.todo


async def test_a_401_with_a_valid_token_quotes_the_participants_cause():
    tokens = MintedToken("another-secret-of-enough-bytes-for-hs256", "Alice")
    await tokens.token()
    refusal = refusal_of(
        canton(401, "/v2/state/ledger-end", code="UNAUTHENTICATED", cause="bad signature"), tokens
    )
    assert refusal is not None and refusal.what == "the participant refused the token: bad signature"
    assert "--hs256-secret-file" in refusal.todo


async def test_a_403_is_an_unknown_user_where_any_user_may_ask_or_where_canton_marks_it():
    tokens = MintedToken(SECRET, "Nobody")
    await tokens.token()
    for error in (
        canton(403, "/v2/authenticated-user"),
        canton(403, "/v2/state/active-contracts", context={"ledger_api_error": "invalid token"}),
        canton(404, "/v2/users/Nobody/rights", code="USER_NOT_FOUND", cause="no such user"),
    ):
        refusal = refusal_of(error, tokens)
        assert refusal is not None and refusal.title == "Unknown user", error
        assert "'Nobody'" in refusal.what


async def test_a_missing_right_is_not_a_refusal_of_the_token():
    tokens = MintedToken(SECRET, "Alice")
    await tokens.token()
    assert refusal_of(canton(403, "/v2/state/active-contracts"), tokens) is None
    assert refusal_of(canton(404, "/v2/contracts/contract-by-id", code="CONTRACT_NOT_FOUND"), tokens) is None
