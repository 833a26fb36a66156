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

Read with plain dataclasses: the file is read before the first frame, and validating it with pydantic cost more
time than drawing that frame.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """The config file cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class OAuth:
    token_url: str
    client_id: str
    client_secret_file: Path | None = None
    client_secret_env: str | None = None
    audience: str | None = None
    scope: str | None = None

    def __post_init__(self) -> None:
        if (self.client_secret_file is None) == (self.client_secret_env is None):
            raise ValueError("give exactly one of client_secret_file and client_secret_env")


@dataclass(frozen=True)
class Profile:
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

    def __post_init__(self) -> None:
        given = [
            n
            for n in ("token_file", "token_env", "token_command", "oauth", "hs256_secret_file")
            if getattr(self, n) is not None
        ]
        if len(given) > 1:
            raise ValueError(f"give one token source, not {' and '.join(given)}")


@dataclass(frozen=True)
class Config:
    theme: str = "textual-dark"
    keys: dict[str, str] = field(default_factory=dict)
    profiles: dict[str, Profile] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Config:
        """The config at `path`; defaults when the file does not exist."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as e:
            raise ConfigError(f"cannot read {path}: {e.strerror or e}") from None
        import tomllib  # only when there is a file: by URL, without one, the first frame comes without it

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path} is not valid TOML: {e}") from None
        try:
            return cls.of(data)
        except _Invalid as e:
            raise ConfigError(f"{path}: {e}") from None

    @classmethod
    def of(cls, data: dict[str, Any]) -> Config:
        """A config from already parsed data (raises `_Invalid` naming the key at fault)."""
        return _build(cls, data, "")

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)

    def profile(self, name: str, path: Path) -> Profile:
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise ConfigError(f"no profile {name!r} in {path} (profiles there: {known})")
        return self.profiles[name]


class _Invalid(ValueError):
    pass


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise _Invalid(f"{where or 'file'}: a table is expected, not {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in known:
            raise _Invalid(f"{where}{key}: no such setting (settings here: {', '.join(known)})")
    values: dict[str, Any] = {}
    for name, f in known.items():
        at = f"{where}{name}"
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise _Invalid(f"{at}: required")
            continue
        values[name] = _value(hints[name], data[name], at)
    try:
        return cls(**values)
    except ValueError as e:
        raise _Invalid(f"{where.rstrip('.') or 'file'}: {e}") from None


def _value(kind: Any, value: Any, where: str) -> Any:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):  # X | None: a value is an X
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    if kind is str:
        if not isinstance(value, str):
            raise _Invalid(f"{where}: text expected")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise _Invalid(f"{where}: true or false expected")
        return value
    if kind is Path:
        if not isinstance(value, str):
            raise _Invalid(f"{where}: a path (text) expected")
        return Path(value)
    if typing.get_origin(kind) is dict:
        _, item = typing.get_args(kind)
        if not isinstance(value, dict):
            raise _Invalid(f"{where}: a table expected")
        return {k: _value(item, v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _build(kind, value, f"{where}.")
    raise _Invalid(f"{where}: cannot read a setting of type {kind}")
