"""`ledger-tui`'s command line, run as a person runs it (`python -m app`, a fresh HOME): the help, `--paths`, and the
combinations it refuses with exit code 2 and one line saying why. None of these starts the UI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCATION_VARS = ("LEDGER_TUI_CONFIG", "LEDGER_TUI_DATA_DIR", "LEDGER_TUI_CACHE_DIR", "LEDGER_TUI_LOG_DIR")


def run(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("XDG_") and k not in LOCATION_VARS and k != "LEDGER_TUI_CLIENT_SECRET"
    }
    base.update(HOME=str(home), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_help_documents_the_token_sources_and_profiles(home):
    r = run(home, "--help")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    for option in (
        "--url",
        "--profile",
        "--readonly",
        "--paths",
        "--token-file",
        "--token-env",
        "--token-command",
        "--oauth-token-url",
        "--oauth-client-id",
        "--oauth-client-secret-file",
        "--oauth-client-secret-env",
        "--oauth-audience",
        "--oauth-scope",
    ):
        assert option in text, option
    assert "token source" in text and "[profiles.devnet]" in text and "LEDGER_TUI_CONFIG" in text
    assert "bundled participant" in text
    assert_each_option_described_once(text)


def assert_each_option_described_once(help_text: str) -> None:
    """Past the usage line, each option begins one line of the help, and has words saying what it does."""
    body = help_text.split("\n\n", 1)[1]
    described = [line.split()[0] for line in body.splitlines() if line.startswith("  --")]
    assert described and len(described) == len(set(described)), sorted(described)
    for line in body.splitlines():
        if line.startswith("  --"):
            words = line.split()
            assert len(words) > 2 or body.split(line, 1)[1].startswith("\n        "), line


def test_paths_in_a_fresh_home(home):
    r = run(home, "--paths")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["config file", "data", "cache", "logs"]
    for line in lines:
        assert str(home) in line
    assert "config.toml" in lines[0]
    assert not any(home.iterdir())  # printing the paths creates nothing


def test_paths_honour_the_environment(home, tmp_path):
    env = {
        "LEDGER_TUI_CONFIG": str(tmp_path / "c" / "my.toml"),
        "LEDGER_TUI_DATA_DIR": str(tmp_path / "d"),
        "LEDGER_TUI_CACHE_DIR": str(tmp_path / "k"),
        "LEDGER_TUI_LOG_DIR": str(tmp_path / "l"),
    }
    r = run(home, "--paths", env=env)
    assert r.returncode == 0, r.stderr
    config, data, cache, logs = r.stdout.splitlines()
    assert f"{tmp_path / 'c' / 'my.toml'}   ($LEDGER_TUI_CONFIG)" in config
    assert str(tmp_path / "d") in data and str(tmp_path / "k") in cache and str(tmp_path / "l") in logs


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--profile", "devnet", "--url", "http://localhost:7575"], "--profile or --url, not both"),
        (["--token-file", "alice.jwt"], "--token-file needs --url"),
        (["--token-env", "LEDGER_TOKEN"], "--token-env needs --url"),
        (["--profile", "devnet"], "no profile 'devnet'"),
        (["--profile", "devnet", "--token-file", "a.jwt"], "a profile names its own token source"),
        (
            ["--url", "http://localhost:7575", "--oauth-token-url", "https://auth/token"],
            "needs --oauth-client-id",
        ),
        (
            [
                "--url",
                "http://localhost:7575",
                "--oauth-token-url",
                "https://auth/token",
                "--oauth-client-id",
                "c",
            ],
            "needs one of --oauth-client-secret-file and --oauth-client-secret-env",
        ),
        (
            ["--url", "http://localhost:7575", "--oauth-client-id", "c"],
            "--oauth-client-id needs --oauth-token-url",
        ),
        (
            [
                "--url",
                "http://localhost:7575",
                "--oauth-token-url",
                "https://auth/token",
                "--oauth-client-id",
                "c",
                "--oauth-client-secret-env",
                "LEDGER_TUI_CLIENT_SECRET",
            ],
            "LEDGER_TUI_CLIENT_SECRET (client secret) is not set",
        ),
        (
            ["--url", "http://localhost:7575", "--token-file", "a.jwt", "--token-env", "T"],
            "not allowed with argument",
        ),
        (["--frobnicate"], "unrecognized arguments"),
    ],
)
def test_bad_combinations_exit_2_with_a_message(home, args, says):
    r = run(home, *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ledger-tui: ") and says in last  # one line says why (after argparse's usage)
    assert "Traceback" not in r.stderr


def test_a_broken_config_file_exits_2_naming_it(home, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[profiles.devnet]\nurl = "u"\ntoken_file = "t"\ntoken_command = "c"\n')
    r = run(home, "--profile", "devnet", env={"LEDGER_TUI_CONFIG": str(config)})
    assert r.returncode == 2
    assert str(config) in r.stderr and "give one token source" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("localhost:7575", "--url must start with http:// or https://"),
        ("ftp://localhost:7575", "--url must start with http:// or https://"),
        ("http://", "--url must start with http:// or https:// and name a host"),
        ("http://local\x1b]0;title\x07host:7575", "--url has a space or control character ('\\x1b')"),
        ("http://localhost:75750", "--url has a port that is not a number from 0 to 65535"),
        ("http://localhost:port", "--url has a port that is not a number"),
        ("http://[::1:7575", "--url cannot be read: Invalid IPv6 URL"),
        ("http://:7575", "--url names no host"),
    ],
)
def test_a_url_that_is_not_http_is_refused_at_once(home, tmp_path, url, says):
    token = tmp_path / "alice.jwt"
    token.write_text("x.y.z")
    r = run(home, "--url", url, "--token-file", str(token))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]  # one line
    assert r.stderr.startswith("ledger-tui: error: ") and says in r.stderr and repr(url) in r.stderr


def _unreadable(tmp_path: Path) -> Path:
    path = tmp_path / "secret.jwt"
    path.write_text("x.y.z")
    path.chmod(0)
    return path


@pytest.mark.parametrize(
    ("option", "make", "says"),
    [
        ("--token-file", lambda tmp: tmp / "missing.jwt", "--token-file: the token file {} does not exist"),
        pytest.param(
            "--token-file",
            _unreadable,
            "--token-file: cannot read the token file {}: Permission denied",
            marks=pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file"),
        ),
        ("--token-file", lambda tmp: tmp, "--token-file: {} is a directory, not a token file"),
        (
            "--hs256-secret-file",
            lambda tmp: tmp / "missing.key",
            "--hs256-secret-file: the HS256 secret file {} does not exist",
        ),
    ],
)
def test_a_token_file_that_cannot_be_read_is_refused_at_once(home, tmp_path, option, make, says):
    path = make(tmp_path)
    r = run(home, "--url", "http://localhost:7575", option, str(path))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.strip() == "ledger-tui: error: " + says.format(path)


def test_a_profiles_missing_token_file_is_refused_naming_the_profile(home, tmp_path):
    config = tmp_path / "config.toml"
    missing = tmp_path / "gone.jwt"
    config.write_text(f'[profiles.devnet]\nurl = "http://localhost:7575"\ntoken_file = "{missing}"\n')
    r = run(home, "--profile", "devnet", env={"LEDGER_TUI_CONFIG": str(config)})
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == f"ledger-tui: error: token_file of profile 'devnet': the token file {missing} does not exist"
    )


def test_an_oauth_client_secret_file_that_does_not_exist_is_refused(home, tmp_path):
    missing = tmp_path / "client.secret"
    r = run(
        home,
        "--url",
        "https://participant.example.com",
        "--oauth-token-url",
        "https://auth/token",
        "--oauth-client-id",
        "c",
        "--oauth-client-secret-file",
        str(missing),
    )
    assert r.returncode == 2
    assert r.stderr.strip() == (
        f"ledger-tui: error: --oauth-client-secret-file: the client secret file {missing} does not exist"
    )
