"""The config file: connection profiles, key bindings and theme, in TOML.

::

    theme = "textual-dark"           # any Textual theme; "textual-light" for light terminals

    [keys]                           # binding id = keys (see `?` for the ids)
    "acs.filter" = "/"

    [profiles.devnet]
    url = "https://participant.devnet.example.com"
    token_file = "~/.canton/devnet.jwt"     # or token_env, token_command, hs256_secret_file, [profiles.NAME.oauth]
    readonly = true

    [profiles.prod.oauth]            # OAuth2 client credentials (Keycloak, Auth0, ...)
    token_url = "https://auth.example.com/realms/canton/protocol/openid-connect/token"
    client_id = "ledger-tui"
    client_secret_env = "LEDGER_TUI_CLIENT_SECRET"   # or client_secret_file
    audience = "https://daml.com/jwt/aud/participant/participant1::1220..."
    scope = "daml_ledger_api"
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class ConfigError(Exception):
    """The config file cannot be used; the message names the file and the problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OAuth(_Strict):
    token_url: str
    client_id: str
    client_secret_file: Path | None = None
    client_secret_env: str | None = None
    audience: str | None = None
    scope: str | None = None

    @model_validator(mode="after")
    def _one_secret(self) -> OAuth:
        if (self.client_secret_file is None) == (self.client_secret_env is None):
            raise ValueError("give exactly one of client_secret_file and client_secret_env")
        return self


class Profile(_Strict):
    """A participant and how to get a token for it."""

    url: str
    token_file: Path | None = None
    token_env: str | None = None
    token_command: str | None = None
    oauth: OAuth | None = None
    # a development participant with Canton's `unsafe-jwt-hmac-256` auth: tokens minted here, users switchable
    hs256_secret_file: Path | None = None
    user: str | None = None
    readonly: bool = False

    @model_validator(mode="after")
    def _at_most_one_source(self) -> Profile:
        given = [n for n in ("token_file", "token_env", "token_command", "oauth", "hs256_secret_file")
                 if getattr(self, n) is not None]
        if len(given) > 1:
            raise ValueError(f"give one token source, not {' and '.join(given)}")
        return self


class Config(_Strict):
    theme: str = "textual-dark"
    keys: dict[str, str] = Field(default_factory=dict)
    profiles: dict[str, Profile] = Field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Config:
        """The config at `path`; defaults when the file does not exist."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as e:
            raise ConfigError(f"cannot read {path}: {e.strerror or e}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path} is not valid TOML: {e}") from None
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'file'}: {err['msg']}"
                                 for err in e.errors(include_url=False))
            raise ConfigError(f"{path}: {problems}") from None

    def profile(self, name: str, path: Path) -> Profile:
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise ConfigError(f"no profile {name!r} in {path} (profiles there: {known})")
        return self.profiles[name]
