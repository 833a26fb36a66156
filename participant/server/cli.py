"""`ledger-participant`: serve the JSON Ledger API v2 over a SQLite file, mint tokens, prune history."""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import logging
import math
import os
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from participant.base.settings import Settings
from participant.base.terminal_text import (
    VisibleArgumentParser,
    VisibleFormatter,
    visible,
    visible_lines,
    visible_traceback,
)
from participant.daml_lf.limits import DEFAULT_MAX_DAR_BYTES, MAX_COMPRESSION_RATIO
from participant.protocols.request_limits import (
    DEFAULT_BODY_TIMEOUT_S,
    DEFAULT_HEADER_TIMEOUT_S,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_HEADERS,
    RequestLimits,
)

DEFAULT_PORT = 7575
GC_YOUNGEST_THRESHOLD = 50_000  # see `started` in _serve
SWITCH_INTERVAL_S = 0.001  # see `started` in _serve
DEFAULT_MAX_CONNECTIONS = 1000
# POSIX only: the participant and its write process have never run on Windows, where WSL is the way to run it.
SERVES_HERE = os.name == "posix"

EPILOG = """\
examples:
  ledger-participant serve --db ledger.db --demo            # auth with a secret kept in ledger.db.secret
  ledger-participant token --db ledger.db --user Alice      # a token for that participant
  ledger-participant serve --db ledger.db --no-auth         # as Canton without auth services
  ledger-participant serve --db ledger.db --hs256-secret-file secret.txt --package my_models
  ledger-participant serve --db ledger.db --port 0 --port-file port.txt --announce json --exit-on-stdin-eof
  ledger-participant prune --db ledger.db --up-to 120
  ledger-participant compact --db ledger.db                 # with the server stopped
  ledger-participant test --dar my-app.dar                  # the DAR's Daml Script tests
"""


def _parser() -> argparse.ArgumentParser:
    parser = VisibleArgumentParser(
        prog="ledger-participant",
        description="A Canton participant in miniature: the JSON Ledger API v2 (release line 3.5) over SQLite.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve",
        help="serve the Ledger API over HTTP",
        description="Serve the JSON Ledger API v2 on HTTP (and websockets).",
    )
    serve.add_argument("--db", type=Path, required=True, help="SQLite database file (created if missing)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to bind (default: %(default)s)")
    auth = serve.add_mutually_exclusive_group()
    auth.add_argument(
        "--hs256-secret",
        metavar="SECRET",
        help="verify HS256 tokens with this shared secret (for local use); without any auth option "
        "a random secret is generated once and kept in DB.secret, readable by you only",
    )
    auth.add_argument(
        "--hs256-secret-file",
        type=Path,
        metavar="FILE",
        help="the same, with the secret read from FILE (surrounding whitespace stripped)",
    )
    auth.add_argument(
        "--public-key",
        type=Path,
        metavar="PEM",
        help="verify RS256/ES256 tokens with this public key or X.509 certificate",
    )
    auth.add_argument(
        "--jwks", type=Path, metavar="FILE", help="verify tokens with the keys of a JWKS file, by kid"
    )
    auth.add_argument(
        "--no-auth",
        action="store_true",
        help="accept every request, as Canton does without auth services (commands need userId)",
    )
    serve.add_argument(
        "--demo",
        action="store_true",
        help="seed, once, parties and users Alice, Bob and Charlie and a few hundred Ious",
    )
    serve.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="MODULE",
        help="load the template packages a Python module defines (repeatable)",
    )
    serve.add_argument(
        "--dar",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="load the Daml-LF packages of a DAR, checked as an upload is, before serving (repeatable; kept in "
        "the database: a DAR loaded before is not read again)",
    )
    serve.add_argument(
        "--init-script",
        metavar="MODULE:NAME",
        help="run this Daml Script of the loaded DARs once the ledger is new, before serving (a restart does not run "
        "it again); if it fails, say why and stop (exit 1), nothing served",
    )
    serve.add_argument(
        "--init-script-user",
        metavar="USER",
        help=(
            "after the init script, this user (created if missing) may act and read as every party it allocated, "
            "and administers the participant"
        ),
    )
    serve.add_argument(
        "--max-list-elements",
        type=int,
        default=200,
        metavar="N",
        help="most elements a list endpoint answers before 413 (default: %(default)s)",
    )
    serve.add_argument(
        "--offset-checkpoint-interval",
        type=_seconds,
        default=15.0,
        metavar="SECONDS",
        help="least time between two offset checkpoints in a stream that follows the ledger "
        "(default: %(default)s, as Canton's)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=int,
        default=4 * 1024 * 1024,
        metavar="N",
        help="largest request body, and websocket message, accepted (default: %(default)s)",
    )
    serve.add_argument(
        "--max-dar-bytes",
        type=_positive,
        default=DEFAULT_MAX_DAR_BYTES,
        metavar="N",
        help="most bytes a DAR's entries (its manifest and DALFs) may decompress to, at upload and --dar; more, "
        f"or an entry over {MAX_COMPRESSION_RATIO} times its compressed size, is refused as ZIP_BOMB "
        "(default: %(default)s)",
    )
    serve.add_argument(
        "--max-header-bytes",
        type=_positive,
        default=DEFAULT_MAX_HEADER_BYTES,
        metavar="N",
        help="largest request head (request line and header fields) accepted; a larger one is answered 431 "
        "(default: %(default)s)",
    )
    serve.add_argument(
        "--max-headers",
        type=_positive,
        default=DEFAULT_MAX_HEADERS,
        metavar="N",
        help="most header fields a request may have; more are answered 431 (default: %(default)s)",
    )
    serve.add_argument(
        "--header-timeout",
        type=_timeout,
        default=DEFAULT_HEADER_TIMEOUT_S,
        metavar="SECONDS",
        help="time a request head has to arrive, from the connection's start (or the request's first byte on a "
        "kept-alive connection); later it is answered 408 and the connection closed (default: %(default)s)",
    )
    serve.add_argument(
        "--body-timeout",
        type=_timeout,
        default=DEFAULT_BODY_TIMEOUT_S,
        metavar="SECONDS",
        help="longest a request body may go without a byte arriving; then it is answered 408 and the "
        "connection closed (default: %(default)s)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="open connections (websockets included) beyond which requests are answered 503 (default: %(default)s)",
    )
    serve.add_argument(
        "--ledger-time-tolerance",
        type=_timeout,
        default=Settings.ledger_time_tolerance_s,
        metavar="SECONDS",
        help="Canton's ledger-time-record-time tolerance: a command still interpreting this long after its ledger "
        "time is aborted with INTERPRETATION_TIME_EXCEEDED, nothing written (default: %(default)s, as Canton's)",
    )
    serve.add_argument(
        "--max-interpretation-memory",
        type=_positive,
        default=Settings.max_interpretation_memory,
        metavar="BYTES",
        help="most memory one evaluation of Daml (a command, an interface view) may grow the server by; past it "
        "the command fails, nothing written (default: %(default)s)",
    )
    serve.add_argument(
        "--static-time",
        action="store_true",
        help="static time, as Canton's: the ledger's clock starts at 1970-01-01T00:00:00Z and moves only when "
        "set (POST /x-ledger-tui/v1/time, an extension of ours); it is the ledger time and record time of every "
        "transaction. Restarted, the clock goes on from where it was set",
    )
    serve.add_argument(
        "--synchronizers",
        type=_aliases,
        default=("global", "private"),
        metavar="ALIAS,ALIAS,...",
        help="the synchronizers connected to, by alias; contracts are created on the first unless a "
        "command says otherwise (default: global,private)",
    )
    serve.add_argument("--quiet", action="store_true", help="do not log one line per request")
    serve.add_argument(
        "--port-file",
        type=Path,
        metavar="PATH",
        help="once ready, write the bound port to PATH (useful with --port 0); removed at stop",
    )
    serve.add_argument(
        "--announce",
        choices=("text", "json"),
        default="text",
        help="on standard output: a banner for people (text, the default), or one JSON object a "
        "line for a parent process: seeding progress, then ready with the URL",
    )
    serve.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="stop gracefully when standard input reaches end of file (a parent holding a pipe to "
        "it takes the server down with it)",
    )

    token = commands.add_parser(
        "token",
        help="print a signed token (HS256) for a user",
        description="Print an HS256 JWT for a user of a participant.",
    )
    source = token.add_mutually_exclusive_group(required=True)
    source.add_argument("--hs256-secret", metavar="SECRET", help="the secret the participant verifies with")
    source.add_argument("--hs256-secret-file", type=Path, metavar="FILE", help="the same, read from FILE")
    source.add_argument("--db", type=Path, help="read the secret a participant generated for its database")
    token.add_argument("--user", required=True, help="the user id (the token's sub)")
    token.add_argument(
        "--ttl",
        type=int,
        default=24 * 3600,
        metavar="SECONDS",
        help="lifetime of the token (default: %(default)s; 0 for no expiry)",
    )
    token.add_argument(
        "--audience",
        metavar="PARTICIPANT_ID",
        help="make an audience token for this participant id instead of a scope token",
    )

    prune = commands.add_parser(
        "prune",
        help="remove history up to an offset (safe while the server runs)",
        description="Prune updates, completions and archived contracts up to an offset.",
    )
    prune.add_argument("--db", type=Path, required=True, help="SQLite database file")
    prune.add_argument("--up-to", type=int, required=True, metavar="OFFSET", help="prune up to this offset")

    compact = commands.add_parser(
        "compact",
        help="give the disk back the free pages of the database file (with the server stopped)",
        description="Rewrite the database file without its free pages (SQLite's VACUUM), which pruning and schema "
        "upgrades leave behind: the file does not shrink by itself. The server must be stopped, and the "
        "disk needs free space for a copy of the data, which VACUUM writes. Interrupted, it leaves the "
        "database as it was.",
    )
    compact.add_argument("--db", type=Path, required=True, help="SQLite database file")

    test = commands.add_parser(
        "test",
        help="run the Daml Script tests of DARs, each on a fresh ledger",
        description="Run every script of the DARs' main packages that takes no argument (as dpm test), each on "
        "a fresh ledger of its own with static time, in a temporary directory. Exit 0 when all passed, 1 when "
        "any failed, 2 when a DAR cannot be read.",
    )
    test.add_argument(
        "--dar", type=Path, action="append", required=True, metavar="FILE", help="a DAR (repeatable)"
    )
    test.add_argument("--filter", metavar="TEXT", help="only the scripts whose Module:name contains TEXT")
    test.add_argument(
        "--json", action="store_true", help="one JSON object per script per line, then a summary"
    )
    test.add_argument(
        "--junit", type=Path, metavar="FILE", help="also write the results as JUnit XML to FILE"
    )
    test.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="scripts run at once, in processes (default: one per core)",
    )
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"a number of seconds, 0 or more: {text!r}")
    return value


def _timeout(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"a number of seconds, more than 0: {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number, 1 or more: {text!r}")
    return value


def _aliases(text: str) -> tuple[str, ...]:
    aliases = tuple(a.strip() for a in text.split(","))
    if not all(a and all(ch.isalnum() or ch in "-_" for ch in a) for a in aliases):
        raise argparse.ArgumentTypeError(
            f"synchronizer aliases are letters, digits, - and _, separated by commas: {text!r}"
        )
    if len(set(aliases)) != len(aliases):
        raise argparse.ArgumentTypeError(f"a synchronizer alias is given twice: {text!r}")
    return aliases


class Refused(Exception):
    """What the user asked for cannot be done as given: a message, and exit code 2."""


def main(argv: list[str] | None = None) -> int:
    from participant.store.schema import NewerSchemaError, NotADatabase
    from participant.store.secret import SecretConflict

    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "token":
            return _token(args)
        if args.command == "compact":
            return _compact(args)
        if args.command == "test":
            from participant.server.script_tests import run_tests_command

            return run_tests_command(
                args.dar, args.filter, args.json, args.junit, args.jobs, say_error=_error
            )
        return _prune(args)
    except (NotADatabase, NewerSchemaError, SecretConflict, Refused) as e:
        _error(str(e))
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a fault of this program: its message may quote a file's or a request's text
        sys.stderr.write(visible_traceback(e))
        return 1  # as for any uncaught exception


def _error(message: str) -> None:
    """`message` on standard error, one line: what it quotes (a path, a DAR's entry, a database's text) is shown
    escaped, never acting on the terminal."""
    print(f"error: {visible(message)}", file=sys.stderr)


def _note(text: str) -> None:
    """A line about the start on standard error (standard output is the announcements')."""
    print(visible(text), file=sys.stderr, flush=True)


def _say(text: str) -> None:
    """`text` on standard output, its lines kept and whatever it quotes escaped."""
    print(visible_lines(text))


def _secret_from_file(path: Path) -> str:
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise Refused(f"cannot read the secret file {path}: {reason}") from None
    if not secret:
        raise Refused(f"the secret file {path} is empty")
    return secret


def _version() -> str:
    try:
        return metadata.version("ledger-tui")
    except metadata.PackageNotFoundError:
        return "unknown"


def _serve(args) -> int:
    if not SERVES_HERE:
        _error("ledger-participant serve runs on Linux and macOS; on Windows, run it in WSL")
        return 2
    # The collector walks everything allocated so far each time it runs, and importing the server allocates
    # hundreds of thousands of objects that live as long as it (modules, classes, functions): off while it is
    # imported, the start takes a tenth less CPU. Back on before any data is read (DARs, the database).
    gc.disable()
    import uvicorn

    from participant.protocols.websocket_protocol import protocol_class
    from participant.server.app import create_app
    from participant.server.serving import (
        Server,
        listen,
        stop_at_stdin_eof,
        write_atomically,
    )

    gc.enable()

    log_lines = logging.StreamHandler(sys.stderr)
    log_lines.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[log_lines])
    secret = args.hs256_secret
    if args.hs256_secret_file is not None:
        secret = _secret_from_file(args.hs256_secret_file)
    generated = not (secret or args.public_key or args.jwks or args.no_auth)
    if args.init_script_user is not None and args.init_script is None:
        raise Refused(
            "--init-script-user names who may act as the parties of an init script: give --init-script"
        )

    def held() -> None:
        # a parent then waits for the other server to serve or to go, rather than failing; said before the refusal
        # since, by the time the parent looks, the other may be gone
        if args.announce == "json":
            print(json.dumps({"event": "database-in-use"}), flush=True)

    claim = _claim(args.db, "is in use by another ledger-participant", "stop it or use another --db", held)
    try:
        _writable(args.db)
        if args.dar:
            asyncio.run(_load_dars(args.db, args.dar, tuple(args.package), args.max_dar_bytes))
        if args.init_script is not None:
            from participant.server.init_script import InitScriptFailed, run_init_script

            def note(text: str) -> None:
                if args.announce == "json":  # a parent shows what its child is doing
                    print(json.dumps({"event": "init-script", "message": text}), flush=True)
                _note(text)

            try:
                asyncio.run(
                    run_init_script(
                        _settings(args, args.port, None), args.init_script, args.init_script_user, note
                    )
                )
            except InitScriptFailed as e:
                _error(str(e))
                return 1
        if args.port_file is not None:
            args.port_file.unlink(missing_ok=True)  # a parent waiting for it must see this server's port only
        try:
            sock = listen(args.host, args.port)
        except OSError as e:
            _error(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
            return 1
        port = sock.getsockname()[1]
        url = f"http://[{args.host}]:{port}" if ":" in args.host else f"http://{args.host}:{port}"
        if generated:
            # Also checks, before serving, that the file is ours.
            secret = asyncio.run(_stored_secret(args.db))
        if args.no_auth:
            logging.getLogger("participant").warning(
                "running WITHOUT authentication: every request may act and read as any party"
            )
        settings = _settings(args, port, secret)
        out = _Announcer(args, url, port, generated)
        ready: list = []
        failed: list[str] = []

        def started() -> None:
            # What startup built (modules, models, packages, caches) lives as long as the server: frozen, the
            # collector stops walking it on every full collection, each of which held the event loop for 20 to
            # 35 ms, about once a second under load. The youngest generation is collected every 50,000 allocations
            # instead of every 700: a request's objects are mostly freed by reference counting, and at 32 clients
            # those collections came every 25 transactions, 200 µs each; with fewer, 4-8% more transactions per
            # second at the same peak memory.
            gc.freeze()
            gc.set_threshold(GC_YOUNGEST_THRESHOLD)
            # While a worker thread evaluates Daml, the event loop's thread takes the GIL back after at most the
            # switch interval, each time it wakes (a request read, an answer written): with Python's 5 ms a /livez
            # probe waited 10-15 ms behind a looping command, with 1 ms a few. The worker loses nothing alone.
            sys.setswitchinterval(SWITCH_INTERVAL_S)
            ctx = ready[0]
            claim.announce(
                {
                    "pid": os.getpid(),
                    "url": url,
                    "port": port,
                    "participantId": ctx.identity.participant_id,
                    "version": _version(),
                }
            )
            if args.port_file is not None:
                try:
                    write_atomically(args.port_file, f"{port}\n")
                except OSError as e:
                    failed.append(f"cannot write the port file {args.port_file}: {e.strerror or e}")
                    server.should_exit = True
                    return
            out.ready(ctx)

        def stopping() -> None:
            if args.port_file is not None and not failed:
                args.port_file.unlink(missing_ok=True)
            claim.withdraw()

        app = create_app(settings, on_ready=ready.append, on_seeding=out.seeding)
        limits = RequestLimits(
            max_header_bytes=args.max_header_bytes,
            max_headers=args.max_headers,
            header_timeout_s=args.header_timeout,
            body_timeout_s=args.body_timeout,
        )
        config = uvicorn.Config(
            app,
            host=args.host,
            port=port,
            log_level="warning",
            log_config=None,  # uvicorn's own lines go through the handler above: escaped as every other one
            access_log=False,
            lifespan="on",
            ws=protocol_class(),
            ws_max_size=args.max_body_bytes,
            http=_http_protocol(limits),
            h11_max_incomplete_event_size=args.max_header_bytes,  # where httptools is missing
            limit_concurrency=args.max_connections,
            proxy_headers=False,
            server_header=False,
        )

        def exiting() -> None:
            # Evaluations in flight end now, so that their requests are answered and the server can stop.
            if ready:
                ready[0].committer.stop()

        server = Server(config, on_started=started, on_stopping=stopping, on_exiting=exiting)
        if args.exit_on_stdin_eof:
            stop_at_stdin_eof(server, claim)
        server.run(sockets=[sock])
        for message in failed:
            _error(message)
        return 0 if server.started and not failed else 1
    finally:
        claim.release()


async def _load_dars(db: Path, paths: list[Path], packages: tuple[str, ...], max_dar_bytes: int) -> None:
    """Load each DAR into the database through the checks of an upload, or refuse (naming the file and Canton's
    error) before anything is served. Each DAR is loaded on its own, in order."""
    from participant.store.packages import stored_dar_hashes

    contents = []
    for path in paths:
        try:
            contents.append((path, path.read_bytes()))
        except OSError as e:
            raise Refused(f"cannot read the DAR {path}: {e.strerror or e}") from None
    loaded = await stored_dar_hashes(db)
    contents = [(path, data) for path, data in contents if hashlib.sha256(data).hexdigest() not in loaded]
    if not contents:  # a restart with the same DARs: nothing to read, no store to open
        return
    from participant.base.errors import LedgerError
    from participant.server.app import build_registry
    from participant.services.dars import load_dar
    from participant.store.store import Store

    registry = build_registry(Settings(db=db, packages=packages))
    async with Store(db) as store:
        for path, data in contents:
            try:
                await load_dar(store, registry, data, max_dar_bytes)
            except LedgerError as e:
                cause = " ".join(e.cause.split())
                raise Refused(f"--dar {path}: {e.code.id}: {cause}") from None


def _settings(args, port: int, secret: str | None) -> Settings:
    return Settings(
        db=args.db,
        host=args.host,
        port=port,
        hs256_secret=secret,
        public_key=args.public_key,
        jwks=args.jwks,
        no_auth=args.no_auth,
        demo=args.demo,
        packages=tuple(args.package),
        max_list_elements=args.max_list_elements,
        max_body_bytes=args.max_body_bytes,
        max_dar_bytes=args.max_dar_bytes,
        log_requests=not args.quiet,
        synchronizer_aliases=args.synchronizers,
        offset_checkpoint_interval_s=args.offset_checkpoint_interval,
        ledger_time_tolerance_s=args.ledger_time_tolerance,
        max_interpretation_memory=args.max_interpretation_memory,
        static_time=args.static_time,
    )


def _holder(info: dict) -> str:
    if "pid" not in info:
        return "still starting"
    return f"pid {info['pid']}, {info.get('url', 'URL unknown')}"


class _Announcer:
    """What `serve` tells on standard output: a banner for people, or JSON lines for a parent process."""

    def __init__(self, args, url: str, port: int, generated_secret: bool) -> None:
        self.args = args
        self.url = url
        self.port = port
        self.generated_secret = generated_secret

    @staticmethod
    def _print(text: str) -> None:
        try:
            print(visible_lines(text), flush=True)
        except BrokenPipeError:
            # Nobody reads any more; the server keeps its course (`--exit-on-stdin-eof` is how a parent stops it).
            # The descriptor, not sys.stdout, goes to /dev/null: what is still buffered must flush somewhere at exit.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)

    def _emit(self, event: dict) -> None:
        self._print(json.dumps(event, separators=(",", ":")))

    def seeding(self, done: int, total: int) -> None:
        if self.args.announce == "json":
            self._emit({"event": "seeding", "done": done, "total": total})

    def ready(self, ctx) -> None:
        from participant.base.timestamps import format_timestamp
        from participant.store.secret import secret_path

        args = self.args
        if args.announce == "json":
            self._emit(
                {
                    "event": "ready",
                    "url": self.url,
                    "port": self.port,
                    "participantId": ctx.identity.participant_id,
                    "db": str(Path(args.db).absolute()),
                    "pid": os.getpid(),
                }
            )
            return
        lines = [
            f"ledger-participant serving the JSON Ledger API v2 at {self.url}/v2",
            f"  participant id:  {ctx.identity.participant_id}",
            f"  database:        {args.db}",
        ]
        lines += [f"  synchronizer:    {s.alias} = {s.id}" for s in ctx.identity.synchronizers]
        if args.static_time:
            lines.append(
                f"  static time:     {format_timestamp(ctx.clock.now())} (set it at {self.url}/x-ledger-tui/v1/time)"
            )
        if args.no_auth:
            lines.append("  auth:            none (--no-auth)")
        elif self.generated_secret:
            lines.append(f"  auth:            HS256 with the secret kept in {secret_path(args.db)}")
            lines.append(
                f"  get a token:     ledger-participant token --db {args.db} --user participant_admin"
            )
        elif args.hs256_secret_file is not None:
            lines.append(
                f"  get a token:     ledger-participant token --hs256-secret-file {args.hs256_secret_file} "
                "--user participant_admin"
            )
        elif args.hs256_secret:
            lines.append(
                "  get a token:     ledger-participant token --hs256-secret SECRET --user participant_admin"
            )
        else:
            lines.append("  auth:            tokens signed by your key; sub = user id")
        self._print("\n".join(lines))


def _http_protocol(limits: RequestLimits):
    """Where uvicorn's httptools protocol is there: one write per response (see `participant.protocols.http_protocol`), and
    the request limits (see `participant.protocols.request_limits`)."""
    try:
        from participant.protocols.http_protocol import CoalescingHttpToolsProtocol
        from participant.protocols.request_limits import guarded
    except ImportError:  # no httptools: uvicorn's own choice, h11, whose head size uvicorn bounds
        return "auto"
    return guarded(CoalescingHttpToolsProtocol, limits)


async def _stored_secret(db: Path) -> str:
    from participant.store.secret import generated_secret, secret_path
    from participant.store.store import Store

    # The database is created or upgraded first: the upgrade of one that kept the secret inside it moves it out.
    async with Store(db):
        pass
    try:
        return generated_secret(db)
    except OSError as e:
        raise Refused(f"cannot keep the secret in {secret_path(db)}: {e.strerror or e}") from None


async def _read_secret(db: Path) -> str | None:
    from participant.store.secret import META_KEY, secret_path
    from participant.store.store import read_meta

    if not db.exists():
        return None
    if secret_path(db).exists():
        return _secret_from_file(secret_path(db))
    return await read_meta(db, META_KEY)  # a database not yet upgraded by `serve` still holds its secret


def _token(args) -> int:
    from participant.auth import mint_token

    secret = args.hs256_secret
    if args.hs256_secret_file is not None:
        secret = _secret_from_file(args.hs256_secret_file)
    if secret is None:
        secret = asyncio.run(_read_secret(args.db))
        if secret is None:
            _error(
                f"{args.db} holds no generated secret (was the participant started with another auth "
                "option, or never started?)"
            )
            return 2
    _say(
        mint_token(
            hs256_secret=secret,
            user_id=args.user,
            ttl_seconds=args.ttl or None,
            participant_id=args.audience,
            audience_form=args.audience is not None,
        )
    )
    return 0


def _prune(args) -> int:
    from participant.store.pruning import PruneError, prune

    try:
        offset = asyncio.run(prune(args.db, args.up_to))
    except PruneError as e:
        _error(str(e))
        return 2
    _say(f"pruned up to offset {offset}")
    return 0


def _claim(db: Path, in_use: str, advice: str, on_held: Callable[[], None] | None = None):
    """This process's claim on `db` (a `serving.DatabaseClaim`), or `Refused` naming the server that holds it
    (`on_held` called first)."""
    from participant.server.serving import DatabaseClaim, DatabaseInUse

    claim = DatabaseClaim(db)
    try:
        claim.acquire()
    except DatabaseInUse as e:
        if on_held is not None:
            on_held()
        raise Refused(f"{db} {in_use} ({_holder(e.info)}); {advice}") from None
    except OSError as e:  # the lock file beside it cannot be made: nor can the database (its directory, say)
        raise Refused(f"cannot open {db}: {_os_reason(e)}") from None
    return claim


def _os_reason(e: OSError) -> str:
    return f"{e.strerror or e}" + (f": {e.filename}" if e.filename else "")


def _writable(db: Path) -> None:
    """Refuse, before anything is served, a database this server could not write: the write process starts beside
    the server (which answers reads meanwhile) and would find out only at the first write. A file not there yet is
    made by the store; one that another program is writing now (busy) is left to wait for as every write does."""
    import sqlite3

    from participant.store.schema import NotADatabase
    from participant.store.write_process import prove_writable

    if not db.exists():
        return
    try:
        conn = sqlite3.connect(db, timeout=0, isolation_level=None)
        try:
            prove_writable(conn)
        finally:
            conn.close()
    except sqlite3.Error as e:
        code = getattr(e, "sqlite_errorname", "")
        if code in ("SQLITE_BUSY", "SQLITE_LOCKED"):
            return
        if code == "SQLITE_NOTADB":
            raise NotADatabase(f"{db} is not a participant database ({e})") from None
        raise Refused(f"cannot open {db} for writing: {e}") from None


def _compact(args) -> int:
    from participant.store.compaction import CompactError, compact

    if not args.db.is_file():  # before the claim, which would make the lock file beside it
        raise Refused(f"no database at {args.db}")
    claim = _claim(
        args.db,
        "is in use by a running ledger-participant",
        "stop it first: compacting rewrites the whole file",
    )

    def starting(size: int, free_pages: int) -> None:
        print(
            visible(f"compacting {args.db} ({_size(size)}, {free_pages:,} free pages) …"),
            file=sys.stderr,
            flush=True,
        )

    try:
        done = asyncio.run(compact(args.db, starting))
    except CompactError as e:
        raise Refused(str(e)) from None
    finally:
        claim.release()
    if not done.free_pages:
        _say(f"{args.db} has no free pages: nothing to give back ({_size(done.bytes_after)})")
    else:
        _say(
            f"compacted {args.db}: {_size(done.bytes_before)} → {_size(done.bytes_after)} in {done.seconds:.1f} s "
            f"({done.free_pages:,} free pages given back)"
        )
    return 0


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.1f} MB"


if __name__ == "__main__":
    sys.exit(main())
