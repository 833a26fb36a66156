"""The config file: profiles, key bindings and theme from TOML; every problem a `ConfigError` naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import token_source
from app.config import Config, ConfigError
from app.tokens import ClientCredentials, CommandToken, EnvToken, FileToken

GOOD = """\
theme = "textual-light"

[keys]
"acs.filter" = "f"
"requests.copy_curl" = "ctrl+y"

[profiles.devnet]
url = "https://participant.devnet.example.com"
token_file = "~/.canton/devnet.jwt"
readonly = true

[profiles.staging]
url = "https://staging.example.com"
token_command = "vault read -field=token secret/canton"

[profiles.local]
url = "http://localhost:7575"
token_env = "LEDGER_TOKEN"

[profiles.open]
url = "http://localhost:7576"

[profiles.prod]
url = "https://prod.example.com"

[profiles.prod.oauth]
token_url = "https://auth.example.com/realms/canton/protocol/openid-connect/token"
client_id = "ledger-tui"
client_secret_env = "LEDGER_TUI_CLIENT_SECRET"
audience = "https://daml.com/jwt/aud/participant/participant1::1220"
scope = "daml_ledger_api"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str) -> Config:
    return Config.load(write(tmp_path, text))


def test_a_missing_file_means_defaults(tmp_path):
    config = Config.load(tmp_path / "absent.toml")
    assert config == Config() and config.theme == "textual-dark" and config.profiles == {}


def test_profiles_keys_and_theme(tmp_path, monkeypatch):
    config = load(tmp_path, GOOD)
    assert config.theme == "textual-light"
    assert config.keys == {"acs.filter": "f", "requests.copy_curl": "ctrl+y"}
    devnet = config.profile("devnet", tmp_path / "config.toml")
    assert devnet.url == "https://participant.devnet.example.com" and devnet.readonly
    assert isinstance(token_source(devnet), FileToken)
    assert isinstance(token_source(config.profiles["staging"]), CommandToken)
    assert isinstance(token_source(config.profiles["local"]), EnvToken)
    assert token_source(config.profiles["open"]) is None  # a participant without auth

    monkeypatch.setenv("LEDGER_TUI_CLIENT_SECRET", "s3cret")
    oauth = token_source(config.profiles["prod"])
    assert isinstance(oauth, ClientCredentials)
    assert (
        oauth.client_id == "ledger-tui"
        and oauth.scope == "daml_ledger_api"
        and oauth.audience is not None
        and oauth.audience.endswith("::1220")
    )


def test_an_oauth_secret_that_is_not_there(tmp_path, monkeypatch):
    config = load(tmp_path, GOOD)
    monkeypatch.delenv("LEDGER_TUI_CLIENT_SECRET", raising=False)
    with pytest.raises(ConfigError, match="LEDGER_TUI_CLIENT_SECRET"):
        token_source(config.profiles["prod"])
    config = load(
        tmp_path,
        'profiles.p.url = "u"\n[profiles.p.oauth]\ntoken_url = "t"\nclient_id = "c"\n'
        f'client_secret_file = "{tmp_path / "absent"}"\n',
    )
    with pytest.raises(ConfigError, match="client secret file"):
        token_source(config.profiles["p"])


def test_bad_toml_names_the_file(tmp_path):
    path = write(tmp_path, "[profiles.devnet\nurl = 'x'\n")
    with pytest.raises(ConfigError) as caught:
        Config.load(path)
    assert str(path) in str(caught.value) and "not valid TOML" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('colour = "red"\n', "colour"),
        ('[profiles.devnet]\nurl = "u"\ntoken = "eyJ..."\n', "profiles.devnet.token"),
        ('[profiles.devnet]\ntoken_file = "t"\n', "profiles.devnet.url"),
        ('keys = "none"\n', "keys"),
    ],
)
def test_unknown_or_missing_keys_name_the_file_and_the_key(tmp_path, text, where):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        Config.load(path)
    assert str(caught.value).startswith(f"{path}:") and where in str(caught.value)


def test_two_token_sources_are_refused(tmp_path):
    path = write(tmp_path, '[profiles.devnet]\nurl = "u"\ntoken_file = "t"\ntoken_env = "V"\n')
    with pytest.raises(ConfigError) as caught:
        Config.load(path)
    message = str(caught.value)
    assert str(path) in message and "profiles.devnet" in message
    assert "give one token source, not token_file and token_env" in message


def test_an_oauth_profile_needs_exactly_one_secret(tmp_path):
    path = write(tmp_path, '[profiles.p]\nurl = "u"\n[profiles.p.oauth]\ntoken_url = "t"\nclient_id = "c"\n')
    with pytest.raises(ConfigError, match="exactly one of client_secret_file and client_secret_env"):
        Config.load(path)


def test_an_unknown_profile_lists_the_known_ones(tmp_path):
    path = write(tmp_path, GOOD)
    with pytest.raises(ConfigError) as caught:
        Config.load(path).profile("prd", path)
    assert "'prd'" in str(caught.value) and "devnet, local, open, prod, staging" in str(caught.value)
    assert str(path) in str(caught.value)


def test_an_unreadable_file(tmp_path):
    directory = tmp_path / "config.toml"
    directory.mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        Config.load(directory)
