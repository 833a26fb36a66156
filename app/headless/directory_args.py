"""The command lines of `parties` and `users` (`directory` runs them): parsed before anything is imported for the
client, so that `--help` and a usage error stay quick."""

from __future__ import annotations

import argparse

PARTIES_ACTIONS = ("list", "allocate")
USERS_ACTIONS = ("list", "create", "grant", "revoke", "delete")
WRITES = frozenset(
    {("parties", "allocate"), *(("users", a) for a in ("create", "grant", "revoke", "delete"))}
)


def add_arguments(parties: argparse.ArgumentParser, users: argparse.ArgumentParser) -> None:
    parties.add_argument("action", nargs="?", default="list", choices=PARTIES_ACTIONS, help="(default: list)")
    parties.add_argument(
        "hint", nargs="?", metavar="HINT", help="allocate: the new party's name (hint for its id)"
    )
    parties.add_argument(
        "--display-name", default="", metavar="N", help="allocate: kept in the party's local metadata"
    )
    users.add_argument("action", nargs="?", default="list", choices=USERS_ACTIONS, help="(default: list)")
    users.add_argument("user_id", nargs="?", metavar="ID", help="the user to create, grant, revoke or delete")
    users.add_argument("--primary-party", default="", metavar="P", help="create: the user's primary party")
    users.add_argument(
        "--act-as",
        action="append",
        default=[],
        metavar="P",
        help="create, grant, revoke: CanActAs P (repeatable)",
    )
    users.add_argument(
        "--read-as",
        action="append",
        default=[],
        metavar="P",
        help="create, grant, revoke: CanReadAs P (repeatable)",
    )
    users.add_argument("--admin", action="store_true", help="create, grant, revoke: ParticipantAdmin")


def writes(args: argparse.Namespace) -> bool:
    return (args.command, getattr(args, "action", None)) in WRITES
