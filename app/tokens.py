"""Where the bearer token comes from: a file, an environment variable, a command, an OAuth2 token endpoint
(client credentials, as Canton deployments with Keycloak or Auth0 use), or minted here for the bundled participant.

Every source knows when its token expires (the JWT's ``exp``, or the endpoint's ``expires_in``) and fetches a new
one before that; a 401 forces a refresh. Tokens are never shown or logged in full: use `redact`.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import jwt

from app.client.errors import TokenError

REFRESH_MARGIN_S = 60.0
COMMAND_TIMEOUT_S = 30.0
MINTED_TTL_S = 24 * 3600


def redact(token: str) -> str:
    """A token as it may be shown: its first characters and its length."""
    if len(token) <= 12:
        return "<token>"
    return f"{token[:8]}…({len(token)} chars)"


@dataclass(frozen=True)
class TokenInfo:
    """What the unverified claims of a JWT tell a client: who it is for and until when."""

    subject: str | None = None
    expires_at: float | None = None
    audience: str | None = None

    @classmethod
    def of(cls, token: str) -> TokenInfo:
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return cls()  # an opaque token: nothing to learn from it
        exp = claims.get("exp")
        aud = claims.get("aud")
        if isinstance(aud, list):
            aud = " ".join(str(a) for a in aud)
        return cls(
            subject=claims.get("sub"),
            expires_at=float(exp) if isinstance(exp, int | float) else None,
            audience=aud,
        )


class TokenSource:
    """A token, cached until shortly before it expires. Subclasses implement `_fetch`."""

    label = "token"

    @property
    def renewal(self) -> str:
        """How a person gets this source to give a good token (after the participant refused one)."""
        return "start ledger-tui with a good token"

    def __init__(self) -> None:
        self._token: str | None = None
        self._expires_at: float | None = None
        self._fetched_at = 0.0
        self._lock = asyncio.Lock()

    async def token(self) -> str:
        if self._token is not None and not self._expiring():
            return self._token
        return await self.refresh()

    async def refresh(self) -> str:
        """Fetch a new token now (after a 401, or when the current one is about to expire)."""
        async with self._lock:
            token, expires_at = await self._fetch()
            if not token:
                raise TokenError(f"{self.label} gave an empty token")
            self._token = token
            self._expires_at = expires_at if expires_at is not None else TokenInfo.of(token).expires_at
            self._fetched_at = time.time()
            return token

    @property
    def current(self) -> str | None:
        return self._token

    @property
    def info(self) -> TokenInfo:
        return TokenInfo.of(self._token) if self._token else TokenInfo()

    def _expiring(self) -> bool:
        if self._expires_at is None:
            return False
        return time.time() > self._expires_at - self._margin()

    def _margin(self) -> float:
        """How long before expiry to fetch anew: a minute, or the last fifth of a short-lived token's life, so
        that a source that is costly to ask (a command, a token endpoint) is not asked before every request."""
        return min(REFRESH_MARGIN_S, max(0.0, (self._expires_at or 0) - self._fetched_at) / 5)

    async def _fetch(self) -> tuple[str, float | None]:
        raise NotImplementedError


class StaticToken(TokenSource):
    def __init__(self, token: str, label: str = "token given") -> None:
        super().__init__()
        self._given = token.strip()
        self.label = label

    async def _fetch(self) -> tuple[str, float | None]:
        return self._given, None


class FileToken(TokenSource):
    """Read from a file, and read again when it nears expiry: whatever rotates the file keeps us current."""

    def _margin(self) -> float:
        return REFRESH_MARGIN_S  # reading a file is cheap: look for a rotated token a full minute ahead

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path.expanduser()
        self.label = f"token file {self.path}"

    @property
    def renewal(self) -> str:
        return f"write it to {self.path} (--token-file), which is read again at the next try"

    async def _fetch(self) -> tuple[str, float | None]:
        try:
            return self.path.read_text(encoding="utf-8").strip(), None
        except OSError as e:
            raise TokenError(
                f"cannot read the token file {self.path}: {e.strerror or e}",
                hint="Check --token-file (or token_file in the profile).",
            ) from None


class EnvToken(TokenSource):
    def _margin(self) -> float:
        return REFRESH_MARGIN_S

    def __init__(self, variable: str) -> None:
        super().__init__()
        self.variable = variable
        self.label = f"${variable}"

    @property
    def renewal(self) -> str:
        return f"set ${self.variable} (--token-env) to it and start ledger-tui again"

    async def _fetch(self) -> tuple[str, float | None]:
        value = os.environ.get(self.variable, "").strip()
        if not value:
            raise TokenError(
                f"the environment variable {self.variable} is not set or empty",
                hint=f"export {self.variable}=<token>, or choose another token source.",
            )
        return value, None


class CommandToken(TokenSource):
    """Run a command that prints a token (e.g. a CLI of the identity provider); run it again near expiry."""

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command
        self.label = f"token command `{command}`"

    @property
    def renewal(self) -> str:
        return f"check what `{self.command}` prints (--token-command); it runs again at the next try"

    async def _fetch(self) -> tuple[str, float | None]:
        try:
            process = await asyncio.create_subprocess_exec(
                *_split(self.command),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as e:
            raise TokenError(f"cannot run the token command `{self.command}`: {e.strerror or e}") from None
        try:
            out, err = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            raise TokenError(
                f"the token command `{self.command}` did not finish within {COMMAND_TIMEOUT_S:.0f} s"
            ) from None
        if process.returncode != 0:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise TokenError(
                f"the token command `{self.command}` failed with exit code {process.returncode}", hint=tail[0]
            )
        return out.decode(errors="replace").strip(), None


def _split(command: str) -> list[str]:
    if os.name == "nt":
        return ["cmd", "/c", command]
    return ["/bin/sh", "-c", command] if any(c in command for c in "|&;$`<>") else shlex.split(command)


class ClientCredentials(TokenSource):
    """OAuth2 client credentials grant against the identity provider's token endpoint."""

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        audience: str | None = None,
        scope: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__()
        self.token_url = token_url
        self.client_id = client_id
        self._secret = client_secret
        self.audience = audience
        self.scope = scope
        self._transport = transport
        self.label = f"OAuth2 client {client_id} at {token_url}"

    @property
    def renewal(self) -> str:
        return f"check the OAuth2 client {self.client_id}, its secret, audience and scope (--oauth-*)"

    async def _fetch(self) -> tuple[str, float | None]:
        form = {
            "grant_type": "client_credentials",
            "client_id": self.client_id,
            "client_secret": self._secret,
        }
        if self.audience:
            form["audience"] = self.audience
        if self.scope:
            form["scope"] = self.scope
        try:
            async with httpx.AsyncClient(timeout=20, transport=self._transport) as http:
                r = await http.post(self.token_url, data=form, headers={"Accept": "application/json"})
        except httpx.HTTPError as e:
            raise TokenError(f"the token endpoint {self.token_url} is unreachable: {e}") from None
        try:
            body = r.json()
        except ValueError:
            body = {}
        if r.status_code != 200 or not isinstance(body, dict) or not body.get("access_token"):
            reason = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
            raise TokenError(
                f"the token endpoint refused the client credentials (HTTP {r.status_code})",
                hint=str(reason or r.text[:200]),
            )
        expires_in = body.get("expires_in")
        expires_at = time.time() + float(expires_in) if isinstance(expires_in, int | float) else None
        return str(body["access_token"]), expires_at


class MintedToken(TokenSource):
    """Tokens for the bundled participant, signed here with the secret it verifies with (HS256)."""

    def __init__(self, secret: str, user: str, ttl_s: int = MINTED_TTL_S) -> None:
        super().__init__()
        self._secret = secret
        self.user = user
        self.ttl_s = ttl_s
        self.label = f"minted for {user}"

    @property
    def renewal(self) -> str:
        return (
            f"check --hs256-secret-file (the participant's secret) and --user ({self.user}, a user of the "
            "participant)"
        )

    async def _fetch(self) -> tuple[str, float | None]:
        now = int(time.time())
        claims = {"sub": self.user, "scope": "daml_ledger_api", "iat": now, "exp": now + self.ttl_s}
        return jwt.encode(claims, self._secret, algorithm="HS256"), float(now + self.ttl_s)

    def for_user(self, user: str) -> MintedToken:
        return MintedToken(self._secret, user, self.ttl_s)
