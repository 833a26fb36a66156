"""Token sources: where the bearer token comes from, when it is fetched again, and that it never shows in full."""

from __future__ import annotations

import shlex
import sys
import time
from urllib.parse import parse_qs

import httpx
import jwt
import pytest

from app.client.errors import LedgerApiError, TokenError
from app.tokens import (
    REFRESH_MARGIN_S,
    ClientCredentials,
    CommandToken,
    EnvToken,
    FileToken,
    MintedToken,
    StaticToken,
    TokenInfo,
    redact,
)
from tests.client.conftest import closed_port

KEY = "token-test-secret-with-enough-bytes!!"


def jwt_for(user: str, lifetime_s: float) -> str:
    """A signed JWT that expires `lifetime_s` from now (within the refresh margin: it counts as expiring)."""
    now = time.time()
    return jwt.encode({"sub": user, "iat": int(now), "exp": int(now + lifetime_s)}, KEY, algorithm="HS256")


SHORT = REFRESH_MARGIN_S / 2  # a token this close to its expiry is fetched again before every use
LONG = 3600.0


# --- file ---------------------------------------------------------------------------------------------------------


async def test_file_token_is_read_and_kept_while_valid(tmp_path):
    path = tmp_path / "alice.jwt"
    first = jwt_for("alice", LONG)
    path.write_text(first + "\n")
    source = FileToken(path)
    assert await source.token() == first  # stripped of the newline
    path.write_text(jwt_for("alice", LONG))
    assert await source.token() == first  # still valid: not read again
    assert source.info.subject == "alice" and source.info.expires_at is not None


async def test_file_token_is_read_again_when_it_nears_expiry(tmp_path):
    path = tmp_path / "alice.jwt"
    expiring = jwt_for("alice", SHORT)
    path.write_text(expiring)
    source = FileToken(path)
    assert await source.token() == expiring
    rotated = jwt_for("alice", LONG)
    path.write_text(rotated)  # whatever rotates the file has done its job
    assert await source.token() == rotated


async def test_a_missing_token_file_is_a_token_error(tmp_path):
    source = FileToken(tmp_path / "nowhere.jwt")
    with pytest.raises(TokenError) as caught:
        await source.token()
    assert "nowhere.jwt" in caught.value.message and "--token-file" in caught.value.hint
    assert isinstance(caught.value, LedgerApiError)  # one tree: a screen catches it like any other failure


async def test_an_empty_token_file_is_a_token_error(tmp_path):
    path = tmp_path / "empty.jwt"
    path.write_text("\n")
    with pytest.raises(TokenError, match="empty token"):
        await FileToken(path).token()


# --- environment variable -----------------------------------------------------------------------------------------


async def test_env_token(monkeypatch):
    monkeypatch.setenv("LEDGER_TEST_TOKEN", "  opaque-token-1 ")
    source = EnvToken("LEDGER_TEST_TOKEN")
    assert await source.token() == "opaque-token-1"
    monkeypatch.setenv("LEDGER_TEST_TOKEN", "opaque-token-2")
    assert await source.token() == "opaque-token-1"  # an opaque token has no expiry: kept until a 401
    assert await source.refresh() == "opaque-token-2"


async def test_an_unset_env_token_is_a_token_error(monkeypatch):
    monkeypatch.delenv("LEDGER_TEST_TOKEN", raising=False)
    with pytest.raises(TokenError) as caught:
        await EnvToken("LEDGER_TEST_TOKEN").token()
    assert "LEDGER_TEST_TOKEN" in caught.value.message and "export LEDGER_TEST_TOKEN" in caught.value.hint


# --- command ------------------------------------------------------------------------------------------------------


def _python(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


async def test_command_token_runs_the_command(tmp_path):
    token = jwt_for("alice", LONG)
    (tmp_path / "t").write_text(token)
    source = CommandToken(f"cat {shlex.quote(str(tmp_path / 't'))}")
    assert await source.token() == token


async def test_command_token_is_run_again_near_expiry(tmp_path):
    runs = tmp_path / "runs"
    (tmp_path / "t").write_text(jwt_for("alice", -1))  # expired already: its next use runs the command again
    # a shell command line (with ; and >>), as people write them in a profile
    source = CommandToken(f"echo run >> {shlex.quote(str(runs))}; cat {shlex.quote(str(tmp_path / 't'))}")
    first = await source.token()
    (tmp_path / "t").write_text(jwt_for("alice", LONG))
    second = await source.token()
    first_expiry, second_expiry = TokenInfo.of(first).expires_at, TokenInfo.of(second).expires_at
    assert first_expiry is not None and second_expiry is not None
    assert first != second and second_expiry > first_expiry
    assert runs.read_text().count("run") == 2
    await source.token()
    assert runs.read_text().count("run") == 2  # valid for long now: not run again


async def test_a_short_lived_command_token_is_not_fetched_before_every_use(tmp_path):
    runs = tmp_path / "runs"
    (tmp_path / "t").write_text(jwt_for("alice", SHORT))  # lives less than the minute of margin
    source = CommandToken(f"echo run >> {shlex.quote(str(runs))}; cat {shlex.quote(str(tmp_path / 't'))}")
    for _ in range(3):
        await source.token()
    assert runs.read_text().count("run") == 1  # renewed in its last fifth, not on every request


async def test_a_failing_command_is_a_token_error_with_the_last_line_of_stderr():
    command = _python(
        "import sys; print('contacting the identity provider', file=sys.stderr); "
        "print('error: invalid_grant (refresh token expired)', file=sys.stderr); sys.exit(3)"
    )
    with pytest.raises(TokenError) as caught:
        await CommandToken(command).token()
    assert "exit code 3" in caught.value.message
    assert caught.value.hint == "error: invalid_grant (refresh token expired)"


async def test_a_command_that_cannot_run_is_a_token_error():
    with pytest.raises(TokenError, match="cannot run"):
        await CommandToken("/nonexistent/ledger-token-helper --print").token()


# --- OAuth2 client credentials ------------------------------------------------------------------------------------


class TokenEndpoint:
    """An identity provider's token endpoint (ASGI), recording the forms it receives."""

    def __init__(
        self, *, status: int = 200, expires_in: float | None = LONG, body: dict | None = None
    ) -> None:
        self.status = status
        self.expires_in = expires_in
        self.body = body
        self.forms: list[dict[str, str]] = []

    async def __call__(self, scope, receive, send) -> None:
        assert scope["type"] == "http" and scope["method"] == "POST"
        content = b""
        while True:
            message = await receive()
            content += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.forms.append({k: v[0] for k, v in parse_qs(content.decode()).items()})
        if self.body is not None:
            body = self.body
        else:
            body = {"access_token": f"access-{len(self.forms)}", "token_type": "Bearer"}
            if self.expires_in is not None:
                body["expires_in"] = self.expires_in
        payload = httpx.Response(self.status, json=body).content
        await send(
            {
                "type": "http.response.start",
                "status": self.status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def _credentials(endpoint: TokenEndpoint, **kw) -> ClientCredentials:
    return ClientCredentials(
        "https://auth.example.com/realms/canton/protocol/openid-connect/token",
        "ledger-tui",
        "s3cret",
        transport=httpx.ASGITransport(app=endpoint),
        **kw,
    )


async def test_client_credentials_sends_the_form():
    endpoint = TokenEndpoint()
    source = _credentials(
        endpoint, audience="https://daml.com/jwt/aud/participant/p1", scope="daml_ledger_api"
    )
    assert await source.token() == "access-1"
    assert endpoint.forms == [
        {
            "grant_type": "client_credentials",
            "client_id": "ledger-tui",
            "client_secret": "s3cret",
            "audience": "https://daml.com/jwt/aud/participant/p1",
            "scope": "daml_ledger_api",
        }
    ]


async def test_client_credentials_without_audience_and_scope_sends_neither():
    endpoint = TokenEndpoint()
    await _credentials(endpoint).token()
    assert set(endpoint.forms[0]) == {"grant_type", "client_id", "client_secret"}


async def test_client_credentials_honours_expires_in():
    endpoint = TokenEndpoint(expires_in=LONG)
    source = _credentials(endpoint)
    assert [await source.token(), await source.token()] == ["access-1", "access-1"]
    assert len(endpoint.forms) == 1

    endpoint = TokenEndpoint(expires_in=SHORT)  # short-lived: kept until its last fifth, not fetched per use
    source = _credentials(endpoint)
    assert [await source.token(), await source.token()] == ["access-1", "access-1"]

    endpoint = TokenEndpoint(expires_in=0)  # expired at once: fetched again before the next use
    source = _credentials(endpoint)
    assert [await source.token(), await source.token()] == ["access-1", "access-2"]


async def test_client_credentials_refused_is_a_token_error():
    endpoint = TokenEndpoint(
        status=401,
        body={"error": "invalid_client", "error_description": "Invalid client or Invalid client credentials"},
    )
    with pytest.raises(TokenError) as caught:
        await _credentials(endpoint).token()
    assert "HTTP 401" in caught.value.message
    assert caught.value.hint == "Invalid client or Invalid client credentials"
    assert "s3cret" not in caught.value.detail


async def test_client_credentials_without_an_access_token_is_a_token_error():
    endpoint = TokenEndpoint(body={"token_type": "Bearer"})
    with pytest.raises(TokenError, match="refused"):
        await _credentials(endpoint).token()


async def test_an_unreachable_token_endpoint_is_a_token_error():
    source = ClientCredentials(f"http://127.0.0.1:{closed_port()}/token", "ledger-tui", "s3cret")
    with pytest.raises(TokenError, match="unreachable"):
        await source.token()


# --- minted, static, redaction ------------------------------------------------------------------------------------


def test_claims_are_read_as_pyjwt_reads_them_and_opaque_tokens_tell_nothing():
    token = jwt.encode({"sub": "alice", "exp": 2_000_000_000, "aud": ["a", "b"]}, KEY, algorithm="HS256")
    info = TokenInfo.of(token)
    assert (info.subject, info.expires_at, info.audience) == ("alice", 2_000_000_000.0, "a b")
    for opaque in [
        "",
        "opaque-token",
        "a.b.c",
        "a.!!!.c",
        f"x.{jwt.utils.base64url_encode(b'[1]').decode()}.y",
    ]:
        assert TokenInfo.of(opaque) == TokenInfo()


async def test_minted_token_claims():
    source = MintedToken(KEY, "Alice", ttl_s=600)
    token = await source.token()
    claims = jwt.decode(token, KEY, algorithms=["HS256"])
    assert claims["sub"] == "Alice" and claims["scope"] == "daml_ledger_api"
    assert claims["exp"] - claims["iat"] == 600
    assert jwt.get_unverified_header(token)["alg"] == "HS256"
    assert source.info.subject == "Alice"

    bob = await source.for_user("Bob").token()
    assert jwt.decode(bob, KEY, algorithms=["HS256"])["sub"] == "Bob"


async def test_static_token():
    source = StaticToken(" opaque \n")
    assert await source.token() == "opaque" and source.current == "opaque"
    assert source.info == TokenInfo()  # not a JWT: nothing to learn


# ids by kind: a JWT minted now differs from run to run, and parallel workers must collect the same tests
@pytest.mark.parametrize(
    "token",
    ["", "short", "exactly12chr", "a" * 13, jwt_for("alice", LONG), "x" * 5000],
    ids=["empty", "short", "12-chars", "13-chars", "jwt", "5000-chars"],
)
def test_redact_never_returns_the_token(token):
    shown = redact(token)
    if token:
        assert token not in shown
    assert len(shown) < max(40, len(token))


def test_token_info_of_an_audience_list():
    token = jwt.encode({"sub": "u", "aud": ["a", "b"], "exp": 2_000_000_000}, KEY, algorithm="HS256")
    info = TokenInfo.of(token)
    assert info == TokenInfo(subject="u", expires_at=2_000_000_000.0, audience="a b")


def test_an_opaque_token_tells_nothing():
    assert TokenInfo.of("not-a-jwt") == TokenInfo()
