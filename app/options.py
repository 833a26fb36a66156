"""The options that say which participant to open and how to authenticate, shared by the terminal client and its
headless commands: the same flags, profiles and token sources, read the same way."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import Config, ConfigError, OAuth, Profile
from app.locations import Locations

if TYPE_CHECKING:
    from app.bundled import BundledParticipant
    from app.tokens import TokenSource

# The user the bundled participant is opened as after an init script: it acts and reads as every party it allocated.
SCRIPT_USER = "developer"


# --user in the terminal client, and in a headless command (which acts as the user throughout: no key switches it)
USER_HELP = (
    "the user to act as first with minted tokens (the bundled participant, --hs256-secret-file): default Alice; "
    "U switches"
)
HEADLESS_USER_HELP = (
    "the user the command acts as, with tokens minted for it (the bundled participant, --hs256-secret-file): "
    "Alice on the demo ledger, else the participant's administrator"
)


def add_participant_options(p: argparse.ArgumentParser, *, user_help: str = USER_HELP) -> None:
    """--url/--profile, the token sources, --user (said with `user_help`), and the bundled participant's own
    options."""
    where = p.add_argument_group("participant")
    where.add_argument("--url", metavar="URL", help="the participant's JSON API, e.g. http://localhost:7575")
    where.add_argument("--profile", metavar="NAME", help="a saved profile of the config file")
    where.add_argument("--readonly", action="store_true", help="hide and refuse every action that writes")
    token = p.add_argument_group(
        "token source (with --url; a profile names one the same way)",
        "one of the first five; none: a participant without auth (Canton's default), commands carry a userId",
    )
    source = token.add_mutually_exclusive_group()
    source.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="read the token from a file (again when it nears expiry)",
    )
    source.add_argument("--token-env", metavar="VAR", help="read the token from an environment variable")
    source.add_argument(
        "--token-command",
        metavar="CMD",
        help="run a command that prints the token (again when it nears expiry)",
    )
    source.add_argument(
        "--oauth-token-url",
        metavar="URL",
        help="OAuth2 client credentials, as Keycloak or Auth0 deployments of Canton use: the token endpoint "
        "(with --oauth-client-id and a client secret)",
    )
    source.add_argument(
        "--hs256-secret-file",
        type=Path,
        metavar="FILE",
        help="mint tokens with a development participant's HS256 secret (Canton's unsafe-jwt-hmac-256) for --user",
    )
    token.add_argument("--oauth-client-id", metavar="ID", help="the OAuth2 client's id")
    token.add_argument(
        "--oauth-client-secret-file", type=Path, metavar="FILE", help="its secret, from a file"
    )
    token.add_argument(
        "--oauth-client-secret-env", metavar="VAR", help="its secret, from an environment variable"
    )
    token.add_argument("--oauth-audience", metavar="AUDIENCE", help="the audience to ask the token for")
    token.add_argument("--oauth-scope", metavar="SCOPE", help="the scope to ask the token for")
    p.add_argument("--user", default=None, help=user_help)
    bundled = p.add_argument_group("bundled participant (without --url)")
    bundled.add_argument("--no-demo", action="store_true", help="start with an empty ledger (no demo data)")
    bundled.add_argument(
        "--dar",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="load a DAR's Daml-LF packages into the bundled participant as it starts (repeatable; it keeps them)",
    )
    bundled.add_argument(
        "--init-script",
        metavar="MODULE:NAME",
        help="run this Daml Script of the DARs, once, on a ledger of their own (no demo data), and open it as the "
        f"user {SCRIPT_USER}, who acts and reads as every party the script allocated and administers the participant; "
        "the same DARs and script "
        "open the same ledger again",
    )
    bundled.add_argument(
        "--static-time",
        action="store_true",
        help="a ledger whose clock starts at 1970-01-01T00:00:00Z and moves only when set (a script's setTime), "
        "of its own (no demo data), as the DARs' tests expect",
    )


@dataclass(frozen=True)
class Choice:
    """The participant the options name: a profile (None: the bundled participant), how to label it, what the
    bundled participant is started with, and the token source."""

    profile: Profile | None
    label: str
    serve_flags: tuple[str, ...]
    tokens: TokenSource | None
    project: str = ""
    """The bundled participant's ledger of these DARs, init script and clock (a directory's name; "": the demo
    ledger)."""
    first_user: str | None = None
    """Who to open the bundled participant as when --user does not say."""


def choose(args: argparse.Namespace, config: Config, config_file: Path) -> Choice:
    """Read the participant options, refusing (`ConfigError`) what cannot work together or at all."""
    if args.profile and args.url:
        raise ConfigError("give --profile or --url, not both")
    if args.profile and token_flags(args):
        raise ConfigError(f"a profile names its own token source: {token_flags(args)[0]} goes with --url")
    profile = None
    label = ""
    if args.profile:
        profile = config.profile(args.profile, config_file)
        if args.readonly:
            profile = dataclasses.replace(profile, readonly=True)
        label = f"{args.profile} ({profile.url})"
        check_profile(profile, args.profile)
    elif args.url:
        profile = profile_from_args(args)
        check_profile(profile)
    elif token_flags(args):
        raise ConfigError(f"{token_flags(args)[0]} needs --url (or use a --profile)")
    if args.dar and profile is not None:
        raise ConfigError(
            "--dar needs the bundled participant (leave out --url and --profile): a participant elsewhere "
            "loads DARs through its own API"
        )
    for flag, given in (("--init-script", args.init_script), ("--static-time", args.static_time)):
        if given and profile is not None:
            raise ConfigError(f"{flag} is for the bundled participant (leave out --url and --profile)")
    if args.init_script and not args.dar:
        raise ConfigError("--init-script runs a script of the DARs given with --dar: give at least one")
    if args.init_script and args.init_script.count(":") != 1:
        raise ConfigError(f"--init-script: give the script as Module.Path:name, not {args.init_script!r}")
    serve_flags = bundled_flags(args) if profile is None else ()
    tokens = token_source(profile, args.user) if profile is not None else None
    if profile is not None or not (args.init_script or args.static_time):
        return Choice(profile, label, serve_flags, tokens)
    return Choice(
        profile, label, serve_flags, tokens, project_ledger(args), SCRIPT_USER if args.init_script else None
    )


def bundled_participant(choice: Choice, locations: Locations, no_demo: bool) -> BundledParticipant:
    """The bundled participant the options name (not started): the demo ledger, or the project's ledger of its
    own, without demo data."""
    from app.bundled import BundledParticipant

    return BundledParticipant(
        locations.bundled_dir / choice.project if choice.project else locations.bundled_dir,
        locations.log_dir,
        demo=not (no_demo or choice.project),
        extra_args=choice.serve_flags,
    )


def token_flags(args: argparse.Namespace) -> list[str]:
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


def profile_from_args(args: argparse.Namespace) -> Profile:
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
    elif oauth_only := [f for f in token_flags(args) if f.startswith("--oauth-")]:
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


def _url_problem(url: str) -> str | None:
    """What the HTTP client would refuse in a URL, found here with the standard library (the HTTP client is not
    imported before the first frame): otherwise the refusal came from the connection, as an internal error."""
    if bad := next((c for c in url if ord(c) < 0x21 or ord(c) == 0x7F), None):
        return f"has a space or control character ({bad!r})"
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as error:  # an unclosed IPv6 bracket
        return f"cannot be read: {error}"
    try:
        parts.port  # noqa: B018 -- reading it checks it
    except ValueError:
        return "has a port that is not a number from 0 to 65535"
    if not parts.hostname:
        return "names no host"
    return None


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
    if problem := _url_problem(profile.url):
        raise ConfigError(f"{option('--url', 'url')} {problem} (got {profile.url!r})")
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


def bundled_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """What the bundled participant's `serve` is given beyond its own settings: each --dar, its path absolute
    (the child runs in this directory, but says in its log which file it refused)."""
    flags: list[str] = []
    for path in args.dar:
        _check_readable(path, "--dar", "DAR")
        flags += ["--dar", str(path.resolve())]
    if args.init_script:
        flags += ["--init-script", args.init_script, "--init-script-user", SCRIPT_USER]
    if args.static_time:
        flags += ["--static-time"]
    return tuple(flags)


def project_ledger(args: argparse.Namespace) -> str:
    """The name of the bundled ledger for these DARs (their contents), init script and clock: a project opens its
    own ledger again, set up once, and a changed DAR or script gets a new one, never the demo ledger."""
    digest = hashlib.sha256()
    for path in args.dar:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(f"{args.init_script or ''}\0{bool(args.static_time)}".encode())
    return f"project-{digest.hexdigest()[:16]}"


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


def token_source(profile: Profile, user: str | None = None) -> TokenSource | None:
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
