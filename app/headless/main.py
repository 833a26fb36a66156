"""`ledger-tui <command>`: parse, connect, run one headless command, and turn its outcome into an exit code."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from app.config import Config, ConfigError
from app.locations import Locations
from app.options import HEADLESS_USER_HELP, add_participant_options, choose
from app.untrusted import VisibleArgumentParser, json_safe, visible, visible_traceback

OK, REFUSED, USAGE = 0, 1, 2

# httpx's package imports its own command-line tool whenever click, rich and pygments are installed (as they are
# with Textual): a fifth of a second of imports, and Rich, which nothing here uses. Without the module, httpx
# defines a stand-in for that tool instead.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: the import system's "absent"

EPILOG = """\
output: one JSON document per line (the API's own shapes), or with --table a plain table.
exit codes: 0 done; 1 the participant refused (its error as JSON on stderr) or could not be reached; 2 usage.
participant: --url with a token source, or --profile, as for the TUI; without them the bundled participant (the one
a running ledger-tui serves, else one started for this command).
"""


def parser() -> argparse.ArgumentParser:
    p = VisibleArgumentParser(
        prog="ledger-tui",
        description="Headless commands of ledger-tui, for scripts.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, epilog=EPILOG)
        sub.formatter_class = argparse.RawDescriptionHelpFormatter
        add_participant_options(sub, user_help=HEADLESS_USER_HELP)
        sub.add_argument("--table", action="store_true", help="a plain table instead of JSON lines")
        return sub

    def parties(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--party",
            action="append",
            default=[],
            metavar="PARTY",
            help="read as this party (repeatable; default: every party the user may read as)",
        )

    acs = command("acs", "the active contracts at an offset")
    acs.add_argument("--offset", type=int, metavar="N", help="the offset (default: the ledger end)")
    parties(acs)
    acs.add_argument(
        "--template", action="append", default=[], metavar="ID", help="only this template (repeatable)"
    )

    contract = command("contract", "a contract's create and archive events")
    contract.add_argument("contract_id", metavar="ID")
    parties(contract)

    updates = command("updates", "the updates of a range of offsets, or those committing now (--follow)")
    updates.add_argument(
        "--from",
        dest="from_",
        type=int,
        metavar="N",
        help="after this offset (default: 0, or with --follow the end)",
    )
    updates.add_argument(
        "--to", type=int, metavar="N", help="up to this offset, inclusive (default: the ledger end)"
    )
    updates.add_argument(
        "--follow", action="store_true", help="print updates as they commit, until interrupted"
    )
    parties(updates)
    updates.add_argument("--template", action="append", default=[], metavar="ID", help="only this template")
    updates.add_argument("--interface", action="append", default=[], metavar="ID", help="only this interface")
    updates.add_argument("--shape", choices=["ledger-effects", "acs-delta"], default="ledger-effects")

    submit = command("submit", "submit commands (a JsCommands JSON document) and print the transaction")
    submit.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="the document (default: stdin, -)"
    )
    submit.add_argument("--shape", choices=["acs-delta", "ledger-effects"], default="acs-delta")

    reassign = command("reassign", "move a contract to another synchronizer (unassign, then assign)")
    reassign.add_argument("contract_id", metavar="ID")
    reassign.add_argument("--to", dest="target", required=True, metavar="SYNCHRONIZER")
    reassign.add_argument(
        "--from", dest="source", metavar="SYNCHRONIZER", help="where it is (default: found in the ACS)"
    )
    reassign.add_argument(
        "--submitter", metavar="PARTY", help="a stakeholder (default: the user's primary party)"
    )

    command("packages", "the participant's packages: ids, names, versions")

    from app.headless import directory_args

    directory_args.add_arguments(
        command("parties", "the participant's parties (list), or allocate one (allocate HINT)"),
        command("users", "the participant's users and their rights (list); create, grant, revoke, delete ID"),
    )
    script = command(
        "script",
        "run a Daml Script of a DAR against the participant over the JSON Ledger API (the interpreter runs here; "
        "a DAR whose package the participant lacks is uploaded first; the token's user is granted each party the "
        "script allocates; time is settable on a participant of ours started with --static-time)",
    )
    script.add_argument(
        "--script-name", required=True, metavar="MODULE:NAME", help="the script, Module.Path:name"
    )
    script.add_argument("--input-file", metavar="FILE", help="the JSON argument of a script that takes one")
    script.add_argument("--output-file", metavar="FILE", help="write the script's result, as JSON, to FILE")
    script.add_argument(
        "--json", action="store_true", help="one JSON object: script, status, result, transactions, seconds"
    )
    return p


def run(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # argparse's own refusal (2), or --help (0)
        return int(e.code or 0)
    locations = Locations.default()
    if args.command == "script":
        # --dar names the script's DARs, whichever participant runs it: the bundled one is not started with them
        args.script_dar, args.dar = args.dar, []
        if not args.script_dar:
            return _usage("script needs the DAR of the script: --dar FILE")
        # on the bundled participant a script allocates parties and users: its administrator runs it
        args.user = args.user or "participant_admin"
    try:
        choice = choose(args, Config.load(locations.config_file), locations.config_file)
    except ConfigError as e:
        return _usage(str(e))
    from app.headless.directory_args import writes

    if (args.command in ("submit", "reassign", "script") or writes(args)) and (
        args.readonly or (choice.profile and choice.profile.readonly)
    ):
        what = args.command if not writes(args) else f"{args.command} {args.action}"
        return _usage(f"{what} writes to the participant, and the profile is read-only")
    try:
        return asyncio.run(_interruptible(_run(args, choice, locations)))
    except BrokenPipeError:
        # The reader went away (`| head`): what it wanted was printed, the client is closed and a bundled
        # participant let go. Nothing is left to tidy, so the process ends here, without the interpreter's
        # finalization (its collections took 0.2 to 0.7 s on a busy machine, most of the second within which a
        # follower whose reader left should be gone) and without a last flush of stdout, which would fail again.
        sys.stderr.flush()
        os._exit(OK)
    except (KeyboardInterrupt, asyncio.CancelledError):  # ctrl+c: the work cancelled, and it ended
        return INTERRUPTED
    except Exception as e:  # a fault of this program: its message may quote what the participant sent
        sys.stderr.write(visible_traceback(e))
        return 1  # as for any uncaught exception


INTERRUPTED = 130  # as a shell reports a command ended by SIGINT
INTERRUPT_GRACE_S = 2.0


async def _interruptible(work: Awaitable[int]) -> int:
    """`work`, which ctrl+c always ends: the first SIGINT cancels it (as `asyncio.run` does) and, should it still run
    `INTERRUPT_GRACE_S` later, ends the process with 130 all the same. A cancellation can be lost inside a library
    (Python 3.11's `asyncio.wait_for` drops one that arrives as its awaitable completes): `updates --follow` then
    read on, SIGINT ignored."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def interrupted() -> None:
        if task is not None:
            task.cancel()
        loop.call_later(INTERRUPT_GRACE_S, _end_interrupted)

    try:
        loop.add_signal_handler(signal.SIGINT, interrupted)
    except (
        NotImplementedError,
        RuntimeError,
        ValueError,
    ):  # Windows, or not the main thread: asyncio.run's own
        pass
    return await work


def _end_interrupted() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(INTERRUPTED)


async def _run(args: argparse.Namespace, choice: Any, locations: Locations) -> int:
    from app.client import errors
    from app.headless import reading, resolve, writing
    from app.headless.connect import connected
    from app.headless.output import Output
    from app.headless.reader_gone import while_read

    usages: tuple[type[Exception], ...] = (reading.Usage,)
    failures: tuple[type[Exception], ...] = (writing.StepFailed,)
    if args.command == "script":  # the interpreter's imports: for this command only
        from app.headless import script

        usages, failures = (reading.Usage, script.Usage), (writing.StepFailed, script.Failed)
    table, job = _job(args, locations)
    out = Output(
        sys.stdout.buffer, table=table if args.table else None, live=args.command == "updates" and args.follow
    )
    try:
        async with connected(args, choice, locations) as client:
            if out.live:  # it writes only when something commits: watch for its reader going away meanwhile
                await while_read(job(client, args, out), sys.stdout.fileno())
            else:
                await job(client, args, out)
        out.close()
    except usages as e:
        out.close()
        return _usage(str(e))
    except resolve.Unresolved as e:  # nothing was sent
        out.close()
        _error(e.document)
        return REFUSED
    except failures as e:
        out.close()
        _error(e.document)  # type: ignore[attr-defined]  # each failure class carries its document
        return REFUSED
    except errors.LedgerApiError as e:
        out.close()
        _error(_document(e))
        return REFUSED
    return OK


def _job(
    args: argparse.Namespace, locations: Locations
) -> tuple[list, Callable[[Any, argparse.Namespace, Any], Awaitable[None]]]:
    from app.headless import directory, reading, writing

    if args.command == "parties":
        return directory.PARTIES_TABLE, directory.parties
    if args.command == "users":
        return directory.USERS_TABLE, directory.users
    if args.command == "packages":

        async def packages(client, a, out) -> None:
            await reading.packages(client, a, out, locations)

        return reading.PACKAGES_TABLE, packages
    if args.command == "script":
        from app.headless.script import script

        async def run_script(client, a, out) -> None:
            await script(client, a)

        return [], run_script
    if args.command == "submit":

        async def submit(client, a, out) -> None:
            await writing.submit(client, a, out, locations.cache_dir)

        return writing.TRANSACTION_TABLE, submit
    return {
        "acs": (reading.ACS_TABLE, reading.acs),
        "contract": (reading.CONTRACT_TABLE, reading.contract),
        "updates": (reading.UPDATES_TABLE, reading.updates),
        "reassign": (writing.STEP_TABLE, writing.reassign),
    }[args.command]


def _document(e: Any) -> dict:
    """Canton's error as it sent it, or what this client knows of the failure."""
    canton = getattr(e, "canton", None)
    if canton is not None:
        return canton.model_dump(mode="json")
    document: dict[str, Any] = {"error": e.message}
    status = getattr(e, "status", None)
    if status is not None:
        document["status"] = status
    if e.hint:
        document["hint"] = e.hint
    return document


def _error(document: dict) -> None:
    # orjson escapes the C0 controls; json_safe the rest that acts on a terminal (DEL, C1, bidi): the same JSON value
    sys.stderr.buffer.write(json_safe(orjson.dumps(document).decode()).encode() + b"\n")
    sys.stderr.flush()


def _usage(message: str) -> int:
    print(f"ledger-tui: error: {visible(message)}", file=sys.stderr)
    return USAGE
