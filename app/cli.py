"""`ledger-tui`: the terminal client of a Canton participant's JSON Ledger API v2.

Without arguments it starts the bundled participant with demo data and opens it; `--url` (with a token source) or
`--profile` opens a remote participant instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

from app.config import Config, ConfigError, OAuth, Profile
from app.locations import CONFIG_ENV, Locations
from app.private_files import private_dir, private_opener

EPILOG = f"""\
token sources (for --url; a profile names one the same way):
  --token-file F        read the token from a file (read again when it nears expiry)
  --token-env VAR       read it from an environment variable
  --token-command CMD   run a command that prints it (run again when it nears expiry)
  --oauth-token-url U --oauth-client-id ID --oauth-client-secret-file F|--oauth-client-secret-env VAR
                        [--oauth-audience A] [--oauth-scope S]
                        OAuth2 client credentials, as Keycloak or Auth0 deployments of Canton use
  --hs256-secret-file F [--user U]
                        mint tokens with the HS256 secret of a development participant (Canton's
                        unsafe-jwt-hmac-256); ctrl+u then switches between its users
  none                  a participant without auth (Canton's default): commands carry a userId

profiles live in the config file (${CONFIG_ENV} overrides where; `ledger-tui --paths` prints it):
  [profiles.devnet]
  url = "https://participant.example.com"
  token_file = "~/.canton/devnet.jwt"
  readonly = true

examples:
  ledger-tui                                        # the bundled participant with demo data
  ledger-tui --url http://localhost:7575 --token-file alice.jwt
  ledger-tui --profile devnet --readonly
  ledger-tui --paths
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ledger-tui",
        description="A terminal client for a Canton participant's JSON Ledger API v2. Without "
        "--url or --profile it starts the bundled participant, with demo data, and opens it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = p.add_argument_group("participant")
    where.add_argument("--url", metavar="URL", help="the participant's JSON API, e.g. http://localhost:7575")
    where.add_argument("--profile", metavar="NAME", help="a saved profile of the config file")
    where.add_argument("--readonly", action="store_true", help="hide and refuse every action that writes")
    token = p.add_argument_group("token source (with --url)")
    source = token.add_mutually_exclusive_group()
    source.add_argument("--token-file", type=Path, metavar="FILE")
    source.add_argument("--token-env", metavar="VAR")
    source.add_argument("--token-command", metavar="CMD")
    source.add_argument("--oauth-token-url", metavar="URL")
    source.add_argument("--hs256-secret-file", type=Path, metavar="FILE")
    token.add_argument("--oauth-client-id", metavar="ID")
    token.add_argument("--oauth-client-secret-file", type=Path, metavar="FILE")
    token.add_argument("--oauth-client-secret-env", metavar="VAR")
    token.add_argument("--oauth-audience", metavar="AUDIENCE")
    token.add_argument("--oauth-scope", metavar="SCOPE")
    p.add_argument(
        "--user",
        default=None,
        help="the user to act as first with minted tokens (the bundled "
        "participant, --hs256-secret-file): default Alice; ctrl+u switches",
    )
    bundled = p.add_argument_group("bundled participant (without --url)")
    bundled.add_argument("--no-demo", action="store_true", help="start with an empty ledger (no demo data)")
    p.add_argument(
        "--theme", help="a Textual theme, e.g. textual-light (default: the config's, else textual-dark)"
    )
    p.add_argument(
        "--paths", action="store_true", help="print where config, data, cache and logs live, and exit"
    )
    return p


def _token_flags(args: argparse.Namespace) -> list[str]:
    """The token-source options given on the command line, by name."""
    names = [
        "token_file",
        "token_env",
        "token_command",
        "hs256_secret_file",
        "oauth_token_url",
        "oauth_client_id",
        "oauth_client_secret_file",
        "oauth_client_secret_env",
        "oauth_audience",
        "oauth_scope",
    ]
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n) is not None]


def _profile_from_args(args: argparse.Namespace) -> Profile:
    oauth = None
    if args.oauth_token_url:
        if not args.oauth_client_id:
            raise ConfigError("--oauth-token-url needs --oauth-client-id")
        if (args.oauth_client_secret_file is None) == (args.oauth_client_secret_env is None):
            raise ConfigError(
                "--oauth-token-url needs one of --oauth-client-secret-file and --oauth-client-secret-env"
            )
        oauth = OAuth(
            token_url=args.oauth_token_url,
            client_id=args.oauth_client_id,
            client_secret_file=args.oauth_client_secret_file,
            client_secret_env=args.oauth_client_secret_env,
            audience=args.oauth_audience,
            scope=args.oauth_scope,
        )
    elif oauth_only := [f for f in _token_flags(args) if f.startswith("--oauth-")]:
        raise ConfigError(f"{oauth_only[0]} needs --oauth-token-url")
    return Profile(
        url=args.url,
        token_file=args.token_file,
        token_env=args.token_env,
        token_command=args.token_command,
        oauth=oauth,
        hs256_secret_file=args.hs256_secret_file,
        user=args.user,
        readonly=args.readonly,
    )


def check_profile(profile: Profile, name: str | None = None) -> None:
    """Refuse at once what cannot work: a URL that is not http(s), a token or secret file that cannot be read.
    `name` is the profile's, None for the command line's options (which the messages then name)."""

    def option(flag: str, key: str) -> str:
        return flag if name is None else f"{key} of profile {name!r}"

    scheme, _, rest = profile.url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        raise ConfigError(
            f"{option('--url', 'url')} must start with http:// or https:// and name a host (got {profile.url!r})"
        )
    files = [
        (profile.token_file, option("--token-file", "token_file"), "token"),
        (profile.hs256_secret_file, option("--hs256-secret-file", "hs256_secret_file"), "HS256 secret"),
        (
            profile.oauth.client_secret_file if profile.oauth else None,
            option("--oauth-client-secret-file", "oauth.client_secret_file"),
            "client secret",
        ),
    ]
    for path, where, what in files:
        if path is not None:
            _check_readable(path.expanduser(), where, what)


def _check_readable(path: Path, where: str, what: str) -> None:
    if not path.exists():
        raise ConfigError(f"{where}: the {what} file {path} does not exist")
    if path.is_dir():
        raise ConfigError(f"{where}: {path} is a directory, not a {what} file")
    try:
        with path.open("rb"):
            pass
    except OSError as e:
        raise ConfigError(f"{where}: cannot read the {what} file {path}: {e.strerror or e}") from None


def token_source(profile: Profile, user: str | None = None):
    """The token source a profile names (None: a participant without auth)."""
    from app.tokens import ClientCredentials, CommandToken, EnvToken, FileToken, MintedToken

    if profile.hs256_secret_file is not None:
        try:
            secret = profile.hs256_secret_file.expanduser().read_text(encoding="utf-8").strip()
        except OSError as e:
            raise ConfigError(
                f"cannot read the HS256 secret file {profile.hs256_secret_file}: {e.strerror}"
            ) from None
        if not secret:
            raise ConfigError(f"the HS256 secret file {profile.hs256_secret_file} is empty")
        return MintedToken(secret, user or profile.user or "participant_admin")
    if profile.token_file is not None:
        return FileToken(profile.token_file)
    if profile.token_env is not None:
        return EnvToken(profile.token_env)
    if profile.token_command is not None:
        return CommandToken(profile.token_command)
    if profile.oauth is not None:
        o = profile.oauth
        if o.client_secret_file is not None:
            try:
                secret = o.client_secret_file.expanduser().read_text(encoding="utf-8").strip()
            except OSError as e:
                raise ConfigError(
                    f"cannot read the client secret file {o.client_secret_file}: {e.strerror}"
                ) from None
        else:
            secret = os.environ.get(o.client_secret_env or "", "")
            if not secret:
                raise ConfigError(
                    f"the environment variable {o.client_secret_env} (client secret) is not set"
                )
        return ClientCredentials(o.token_url, o.client_id, secret, audience=o.audience, scope=o.scope)
    return None


class PrivateRotatingFileHandler(RotatingFileHandler):
    """Each log file, the first and those made at each rotation, readable by its owner only."""

    def _open(self):
        return open(
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=private_opener
        )


def _setup_logging(locations: Locations) -> None:
    try:
        private_dir(locations.log_dir)
        handler: logging.Handler = PrivateRotatingFileHandler(
            locations.log_dir / "ledger-tui.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("ledger_tui")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    from app.trace import milestone

    milestone("main")
    args = parser().parse_args(argv)
    locations = Locations.default()
    if args.paths:
        print(locations.describe())
        return 0
    try:
        config = Config.load(locations.config_file)
        if args.profile and args.url:
            raise ConfigError("give --profile or --url, not both")
        if args.profile and _token_flags(args):
            raise ConfigError(
                f"a profile names its own token source: {_token_flags(args)[0]} goes with --url"
            )
        profile = None
        label = ""
        if args.profile:
            profile = config.profile(args.profile, locations.config_file)
            if args.readonly:
                profile = dataclasses.replace(profile, readonly=True)
            label = f"{args.profile} ({profile.url})"
            check_profile(profile, args.profile)
        elif args.url:
            profile = _profile_from_args(args)
            check_profile(profile)
        elif _token_flags(args):
            raise ConfigError(f"{_token_flags(args)[0]} needs --url (or use a --profile)")
        tokens = token_source(profile, args.user) if profile is not None else None
    except ConfigError as e:
        print(f"ledger-tui: error: {e}", file=sys.stderr)  # as argparse says what it refuses
        return 2
    if args.theme:
        config = config.replace(theme=args.theme)

    bundled = None
    if profile is None:
        from app.bundled import BundledParticipant

        bundled = BundledParticipant(locations.bundled_dir, locations.log_dir, demo=not args.no_demo)
        bundled.start()  # before the UI loads: the participant starts while the terminal sets up

    _setup_logging(locations)
    from app.app import LedgerApp, settle_the_collector

    app = LedgerApp(
        config=config,
        locations=locations,
        url=profile.url if profile else None,
        tokens=tokens,
        bundled=bundled,
        readonly=bool(profile and profile.readonly) or args.readonly,
        label=label or (profile.url if profile else "bundled"),
        first_user=args.user or "Alice",
    )
    settle_the_collector()
    try:
        app.run()
    finally:
        if bundled is not None:
            bundled.stop()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
