"""Party and user management over the JSON Ledger API: allocate a party, create and delete a user, grant and revoke
its rights, and read a user with its rights. Reading every party and every user, page by page, is `LedgerClient`'s
(`parties`, `users`): the session reads them too.

A party's display name has no field of its own since Canton 3 ("formerly display_name": the spec's words for the
allocation's `localMetadata`): it is kept as the annotation `DISPLAY_NAME` of the party's participant-local metadata.

The writes are sent once (no retry): a repeated allocation or creation would be refused as a duplicate, hiding
that the first one went through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from app.client.ledger import LedgerClient, read
from participant.api import (
    AllocatePartyRequest,
    AllocatePartyResponse,
    CreateUserRequest,
    CreateUserResponse,
    GetPartiesResponse,
    GetUserResponse,
    GrantUserRightsRequest,
    GrantUserRightsResponse,
    ObjectMeta,
    PartyDetails,
    RevokeUserRightsRequest,
    RevokeUserRightsResponse,
    Right,
    User,
)

DISPLAY_NAME = "displayName"
"""The annotation of a party's local metadata that holds its display name."""
RIGHTS_READ_AT_ONCE = 8  # a user's rights are one request each: a few at a time, not hundreds at once


@dataclass(frozen=True)
class UserWithRights:
    user: User
    rights: tuple[Right, ...]

    def document(self) -> dict:
        """The API's shapes: the user as `GET /v2/users/{id}` answers it, its rights as `.../rights` does."""
        return {
            "user": self.user.model_dump(mode="json"),
            "rights": [r.model_dump(mode="json") for r in self.rights],
        }


def display_name(details: PartyDetails) -> str:
    meta = details.local_metadata
    return meta.annotations.get(DISPLAY_NAME, "") if meta is not None else ""


def rights_for(
    act_as: Iterable[str] = (), read_as: Iterable[str] = (), *, admin: bool = False
) -> list[Right]:
    """The rights a command line or a form names, each once, in that order."""
    rights = [Right.act_as(p) for p in dict.fromkeys(act_as)]
    rights += [Right.read_as(p) for p in dict.fromkeys(read_as)]
    if admin:
        rights.append(Right.participant_admin())
    return rights


def right_text(right: Right) -> str:
    """One right in a few words: "act as Alice::1220…", "participant admin"."""
    tag = right.kind.tag
    words = {
        "CanActAs": "act as",
        "CanReadAs": "read as",
        "CanExecuteAs": "execute as",
        "CanReadAsAnyParty": "read as any party",
        "CanExecuteAsAnyParty": "execute as any party",
        "ParticipantAdmin": "participant admin",
        "IdentityProviderAdmin": "identity provider admin",
    }.get(tag, tag)
    party = right.party
    return f"{words} {party}" if party else words


def _path(user_id: str, tail: str = "") -> str:
    return f"/v2/users/{quote(user_id, safe='')}{tail}"


async def allocate_party(client: LedgerClient, hint: str, display_name: str = "") -> PartyDetails:
    meta = ObjectMeta(annotations={DISPLAY_NAME: display_name}) if display_name else None
    body = AllocatePartyRequest(party_id_hint=hint, local_metadata=meta)
    content = await client.http.request("POST", "/v2/parties", body, retry=False)
    return read(AllocatePartyResponse, content, "POST", "/v2/parties").party_details


async def create_user(
    client: LedgerClient, user_id: str, primary_party: str = "", rights: Sequence[Right] = ()
) -> User:
    body = CreateUserRequest(user=User(id=user_id, primary_party=primary_party), rights=list(rights))
    content = await client.http.request("POST", "/v2/users", body, retry=False)
    return read(CreateUserResponse, content, "POST", "/v2/users").user


async def grant_rights(client: LedgerClient, user_id: str, rights: Sequence[Right]) -> list[Right]:
    """The rights the user did not have before (those it had are not granted again)."""
    path = _path(user_id, "/rights")
    body = GrantUserRightsRequest(user_id=user_id, rights=list(rights))
    content = await client.http.request("POST", path, body, retry=False)
    return read(GrantUserRightsResponse, content, "POST", path).newly_granted_rights


async def revoke_rights(client: LedgerClient, user_id: str, rights: Sequence[Right]) -> list[Right]:
    """The rights the user had and no longer has."""
    path = _path(user_id, "/rights")
    body = RevokeUserRightsRequest(user_id=user_id, rights=list(rights))
    content = await client.http.request("PATCH", path, body, retry=False)
    return read(RevokeUserRightsResponse, content, "PATCH", path).newly_revoked_rights


async def delete_user(client: LedgerClient, user_id: str) -> None:
    await client.http.request("DELETE", _path(user_id), retry=False)


async def users_with_rights(client: LedgerClient) -> list[UserWithRights]:
    """Every user (needs admin rights), each with its rights."""
    users = await client.users()
    gate = asyncio.Semaphore(RIGHTS_READ_AT_ONCE)

    async def with_rights(user: User) -> UserWithRights:
        async with gate:
            return UserWithRights(user, tuple(await client.user_rights(user.id)))

    return list(await asyncio.gather(*(with_rights(u) for u in users)))


async def user_with_rights(client: LedgerClient, user_id: str) -> UserWithRights:
    path = _path(user_id)
    user = read(GetUserResponse, await client.http.request("GET", path), "GET", path).user
    return UserWithRights(user, tuple(await client.user_rights(user_id)))


async def own_user(client: LedgerClient) -> UserWithRights:
    """The token's own user and rights: what a user who is no administrator may read of users."""
    user = await client.authenticated_user()
    return UserWithRights(user, tuple(await client.user_rights(user.id)))


async def party_details(client: LedgerClient, parties: Sequence[str]) -> list[PartyDetails]:
    """The details of these parties (a user may look up the parties it may read as; an administrator, any)."""
    first, *rest = parties
    path = f"/v2/parties/{quote(first, safe='')}"
    content = await client.http.request("GET", path, params={"parties": rest} if rest else None)
    return read(GetPartiesResponse, content, "GET", path).party_details
