"""Writes of users, rights and parties: each one job of the single writer, checked against committed state.

What is refused raises one of the exceptions below, never an API error: the routes translate them."""

from __future__ import annotations

import orjson

from participant.store import sql
from participant.store.batch import Batch
from participant.store.rows import Right, UserRow
from participant.store.store import Store

ADMIN_USER = "participant_admin"


async def _exists(batch: Batch, statement: str, key: str) -> bool:
    return bool(await batch.conn.execute_fetchall(statement, (key,)))


async def _write_users(store: Store, job):
    """Run a job that changes users or rights, and let caches of claims know."""
    try:
        return await store.write(job)
    finally:
        store.users_version += 1


class UserNotFound(LookupError):
    def __init__(self, user_id: str) -> None:
        super().__init__(f"no user {user_id!r}")
        self.user_id = user_id


class UserExists(Exception):
    def __init__(self, user_id: str) -> None:
        super().__init__(f"user {user_id!r} exists already")
        self.user_id = user_id


class PartyExists(Exception):
    def __init__(self, party: str) -> None:
        super().__init__(f"party {party!r} is allocated already")
        self.party = party


async def create_user(store: Store, user: UserRow, rights: list[Right]) -> UserRow:
    async def job(batch: Batch) -> UserRow:
        if await _exists(batch, sql.USER, user.id):
            raise UserExists(user.id)
        batch.write(sql.INSERT_USER, (user.id, user.primary_party, int(user.is_deactivated),
                                      orjson.dumps(user.annotations).decode(), user.identity_provider_id,
                                      int(user.primary_party_authentication)))
        for kind, party in dict.fromkeys(rights):
            batch.write(sql.INSERT_RIGHT, (user.id, kind, party or ""))
        return user

    return await _write_users(store, job)


async def delete_user(store: Store, user_id: str) -> None:
    async def job(batch: Batch) -> None:
        if not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        batch.write(sql.DELETE_RIGHTS_OF_USER, (user_id,))
        batch.write(sql.DELETE_USER, (user_id,))

    await _write_users(store, job)


async def grant_rights(store: Store, user_id: str, rights: list[Right]) -> list[Right]:
    """Grant rights; returns those the user did not have already."""
    async def job(batch: Batch) -> list[Right]:
        if not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        held = {(k, p or None) for k, p in await batch.conn.execute_fetchall(sql.RIGHTS_OF_USER, (user_id,))}
        new = [r for r in dict.fromkeys(rights) if r not in held]
        for kind, party in new:
            batch.write(sql.INSERT_RIGHT, (user_id, kind, party or ""))
        return new

    return await _write_users(store, job)


async def revoke_rights(store: Store, user_id: str, rights: list[Right]) -> list[Right]:
    """Revoke rights; returns those the user actually had."""
    async def job(batch: Batch) -> list[Right]:
        if not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        held = {(k, p or None) for k, p in await batch.conn.execute_fetchall(sql.RIGHTS_OF_USER, (user_id,))}
        gone = [r for r in dict.fromkeys(rights) if r in held]
        for kind, party in gone:
            batch.write(sql.DELETE_RIGHT, (user_id, kind, party or ""))
        return gone

    return await _write_users(store, job)


async def allocate_party(store: Store, party: str, annotations: dict[str, str], identity_provider_id: str = "",
                         user_id: str = "") -> str:
    """Allocate a party; with `user_id`, that user also gets CanActAs for it (Canton's self-allocation)."""
    async def job(batch: Batch) -> str:
        if await _exists(batch, sql.PARTY, party):
            raise PartyExists(party)
        if user_id and not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        batch.write(sql.INSERT_PARTY, (party, orjson.dumps(annotations).decode(), identity_provider_id))
        if user_id:
            batch.write(sql.INSERT_RIGHT, (user_id, "CanActAs", party))
        return party

    return await _write_users(store, job)


async def ensure_admin_user(store: Store) -> None:
    """The participant_admin user, with ParticipantAdmin, exists from the first start on (as on Canton)."""
    if await store.user(ADMIN_USER) is not None:
        return
    admin = UserRow(ADMIN_USER, "", False, {}, 0, "", False, (("ParticipantAdmin", None),))
    try:
        await create_user(store, admin, list(admin.rights))
    except UserExists:  # another process made it first
        pass
