"""The headless commands of party and user management: `parties [list]`, `parties allocate HINT`, `users [list]`,
`users create|grant|revoke|delete ID`.

Listing every party and user needs admin rights, as in Canton; a token without them lists what the parties screen
shows such a user (its own user and rights, the parties they name), and says so on stderr. A party written by its
short name (``alice``) is expanded as the client expands it (`resolve`), or refused with the candidates before
anything is sent."""

from __future__ import annotations

import argparse
import sys

from app.client import LedgerClient
from app.client import admin as api
from app.headless import resolve
from app.headless.connect import identity
from app.headless.output import Column, Output
from app.headless.reading import Usage
from app.ids import PARTY_SEPARATOR
from app.session import Identity

NOT_ADMIN = (
    "ledger-tui: not an administrator of this participant (no ParticipantAdmin right): listed is what the token "
    "may see, its own user and the parties its rights name"
)


def _right_cells(document: dict) -> list[str]:
    from participant.api import Right

    return [api.right_text(Right.read(r)) for r in document.get("rights") or []]


PARTIES_TABLE: list[Column] = [
    ("party", lambda d: d.get("party")),
    (
        "display name",
        lambda d: ((d.get("localMetadata") or {}).get("annotations") or {}).get(api.DISPLAY_NAME),
    ),
    ("local", lambda d: "yes" if d.get("isLocal") else "no"),
]

USERS_TABLE: list[Column] = [
    ("user", lambda d: (d.get("user") or {}).get("id")),
    ("primary party", lambda d: (d.get("user") or {}).get("primaryParty") or None),
    ("rights", _right_cells),
    ("deactivated", lambda d: "yes" if (d.get("user") or {}).get("isDeactivated") else "no"),
]


async def parties(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    if args.action == "allocate":
        if not args.hint:
            raise Usage("parties allocate needs the party's name: parties allocate HINT")
        out.emit((await api.allocate_party(client, args.hint, args.display_name)).model_dump(mode="json"))
        return
    if args.hint or args.display_name:
        raise Usage("parties list takes no name nor --display-name (parties allocate HINT does)")
    who = await identity(client)
    if who.admin:
        listed = await client.parties()
    else:
        print(NOT_ADMIN, file=sys.stderr)
        named = list(dict.fromkeys([*who.act_as, *who.read_as]))
        listed = await api.party_details(client, named) if named else []
    for details in listed:
        out.emit(details.model_dump(mode="json"))


async def users(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    action = args.action
    rights_given = bool(args.act_as or args.read_as or args.admin)
    if action == "list":
        if args.user_id or rights_given or args.primary_party:
            raise Usage("users list takes no user id nor rights")
        await _list_users(client, out)
        return
    if not args.user_id:
        raise Usage(f"users {action} needs the user's id: users {action} ID")
    user_id = args.user_id
    if action == "delete":
        if rights_given or args.primary_party:
            raise Usage("users delete takes no rights nor --primary-party")
        await api.delete_user(client, user_id)
        out.emit({})  # DeleteUserResponse
        return
    if action != "create" and args.primary_party:
        raise Usage(f"--primary-party is for users create, not users {action}")
    if action != "create" and not rights_given:
        raise Usage(f"users {action} needs the rights: --act-as P, --read-as P or --admin")
    names = _PartyNames(client, await identity(client))
    # every party resolved before anything is sent
    rights = api.rights_for(await names.ids(args.act_as), await names.ids(args.read_as), admin=args.admin)
    if action == "create":
        (primary,) = await names.ids([args.primary_party]) if args.primary_party else [""]
        await api.create_user(client, user_id, primary, rights)
        out.emit((await api.user_with_rights(client, user_id)).document())
    elif action == "grant":
        granted = await api.grant_rights(client, user_id, rights)
        out.emit({"newlyGrantedRights": [r.model_dump(mode="json") for r in granted]})
    else:
        revoked = await api.revoke_rights(client, user_id, rights)
        out.emit({"newlyRevokedRights": [r.model_dump(mode="json") for r in revoked]})


async def _list_users(client: LedgerClient, out: Output) -> None:
    who = await identity(client)
    if who.admin:
        listed = await api.users_with_rights(client)
    else:
        print(NOT_ADMIN, file=sys.stderr)
        listed = [await api.own_user(client)]
    for user in listed:
        out.emit(user.document())


class _PartyNames:
    """What the command line names as parties, as party ids: a short name resolved among the parties the token
    knows (read once, and only when a short name needs it)."""

    def __init__(self, client: LedgerClient, who: Identity) -> None:
        self.client, self.who = client, who
        self._known: list[str] | None = None
        # each name resolved once, so that one named twice (--primary-party and --act-as) is said once on stderr
        self._resolved: dict[str, str] = {}

    async def ids(self, typed: list[str]) -> list[str]:
        if all(PARTY_SEPARATOR in p for p in typed):
            return list(typed)
        if self._known is None:
            self._known = await resolve.known_parties(self.client, self.who)
        for name in typed:
            if name not in self._resolved:
                self._resolved[name] = resolve.party(name, self._known)
        return [self._resolved[name] for name in typed]
