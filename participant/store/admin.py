"""Writes of users, rights and parties: each one job of the single writer, checked against committed state.

What is refused raises one of the exceptions below, never an API error: the routes translate them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import orjson

from participant.store import sql
from participant.store.batch import Batch
from participant.store.fetch import fetch_all
from participant.store.rows import IdpRow, PartyRow, Right, UpdateRow, UserRow
from participant.store.store import Store

ADMIN_USER = "participant_admin"


async def _exists(batch: Batch, statement: str, key: str) -> bool:
    return bool(await fetch_all(batch.conn, statement, (key,)))


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


class PartyNotFound(LookupError):
    def __init__(self, party: str) -> None:
        super().__init__(f"no party {party!r}")
        self.party = party


class WrongIdentityProvider(Exception):
    """The resource belongs to another identity provider than the request names (Canton: permission denied)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key!r} belongs to another identity provider")
        self.key = key


class ConcurrentChange(Exception):
    """The request's resource version is not the stored one: someone else updated the resource since it was read."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key!r} was changed concurrently")
        self.key = key


class AnnotationsTooLarge(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(f"the annotations of {key!r} would exceed the size limit")
        self.key = key


class IdpNotFound(LookupError):
    def __init__(self, identity_provider_id: str) -> None:
        super().__init__(f"no identity provider {identity_provider_id!r}")
        self.identity_provider_id = identity_provider_id


class IdpExists(Exception):
    def __init__(self, identity_provider_id: str) -> None:
        super().__init__(f"identity provider {identity_provider_id!r} exists already")
        self.identity_provider_id = identity_provider_id


class IssuerExists(Exception):
    def __init__(self, issuer: str) -> None:
        super().__init__(f"an identity provider with issuer {issuer!r} exists already")
        self.issuer = issuer


class TooManyIdps(Exception):
    pass


class IdpInUse(Exception):
    """Users or parties still belong to the provider (Canton's tables refer to it with foreign keys)."""

    def __init__(self, identity_provider_id: str) -> None:
        super().__init__(f"identity provider {identity_provider_id!r} still has users or parties")
        self.identity_provider_id = identity_provider_id


class PartyExists(Exception):
    def __init__(self, party: str) -> None:
        super().__init__(f"party {party!r} is allocated already")
        self.party = party


async def create_user(store: Store, user: UserRow, rights: list[Right]) -> UserRow:
    async def job(batch: Batch) -> UserRow:
        if await _exists(batch, sql.USER, user.id):
            raise UserExists(user.id)
        batch.write(
            sql.INSERT_USER,
            (
                user.id,
                user.primary_party,
                int(user.is_deactivated),
                orjson.dumps(user.annotations).decode(),
                user.identity_provider_id,
                int(user.primary_party_authentication),
            ),
        )
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
        batch.admin[("user", user_id)] = None

    await _write_users(store, job)


async def grant_rights(store: Store, user_id: str, rights: list[Right]) -> list[Right]:
    """Grant rights; returns those the user did not have already."""

    async def job(batch: Batch) -> list[Right]:
        if not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        held = {(k, p or None) for k, p in await fetch_all(batch.conn, sql.RIGHTS_OF_USER, (user_id,))}
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
        held = {(k, p or None) for k, p in await fetch_all(batch.conn, sql.RIGHTS_OF_USER, (user_id,))}
        gone = [r for r in dict.fromkeys(rights) if r in held]
        for kind, party in gone:
            batch.write(sql.DELETE_RIGHT, (user_id, kind, party or ""))
        return gone

    return await _write_users(store, job)


async def allocate_party(
    store: Store,
    party: str,
    annotations: dict[str, str],
    identity_provider_id: str = "",
    user_id: str = "",
    topology: Callable[[int], UpdateRow] | None = None,
) -> str:
    """Allocate a party; with `user_id`, that user also gets CanActAs for it (Canton's self-allocation). The
    `topology` transaction that hosts it, if given (made for an offset), takes the next offset with it."""

    async def job(batch: Batch) -> str:
        if await _exists(batch, sql.PARTY, party):
            raise PartyExists(party)
        if user_id and not await _exists(batch, sql.USER, user_id):
            raise UserNotFound(user_id)
        batch.write(sql.INSERT_PARTY, (party, orjson.dumps(annotations).decode(), identity_provider_id))
        batch.admin[("party", party)] = PartyRow(party, annotations, 0, identity_provider_id)
        if user_id:
            batch.write(sql.INSERT_RIGHT, (user_id, "CanActAs", party))
        if topology is not None:
            batch.stage_topology(topology(batch.ledger_end + 1))
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


# --- updates: read (staged state first), check, stage, remember what the batch now holds

MAX_ANNOTATIONS_BYTES = 256 * 1024  # Canton's limit on the keys and values of one resource, in UTF-8


def merge_annotations(existing: dict[str, str], change: dict[str, str]) -> dict[str, str]:
    """Canton's update of annotations: the change's keys overwrite, an empty value removes the key."""
    return {k: v for k, v in {**existing, **change}.items() if v != ""}


def annotations_size(annotations: dict[str, str]) -> int:
    return sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())


@dataclass(frozen=True)
class UserChange:
    """The fields an update sets (None: left as they are), and the resource version it expects (None: any)."""

    user_id: str
    identity_provider_id: str
    resource_version: int | None = None
    primary_party: str | None = None
    is_deactivated: bool | None = None
    primary_party_authentication: bool | None = None
    annotations: dict[str, str] | None = None  # merged into the stored ones


@dataclass(frozen=True)
class PartyChange:
    party: str
    identity_provider_id: str
    resource_version: int | None = None
    annotations: dict[str, str] | None = None


async def _user_in(batch: Batch, user_id: str) -> UserRow | None:
    if ("user", user_id) in batch.admin:
        return batch.admin[("user", user_id)]
    rows = await fetch_all(batch.conn, sql.USER, (user_id,))
    if not rows:
        return None
    r = rows[0]
    rights = await fetch_all(batch.conn, sql.RIGHTS_OF_USER, (user_id,))
    return UserRow(
        r[0],
        r[1],
        bool(r[2]),
        orjson.loads(r[3]),
        r[4],
        r[5],
        bool(r[6]),
        tuple((kind, party or None) for kind, party in rights),
    )


async def _party_in(batch: Batch, party: str) -> PartyRow | None:
    if ("party", party) in batch.admin:
        return batch.admin[("party", party)]
    rows = await fetch_all(batch.conn, sql.PARTY, (party,))
    return None if not rows else PartyRow(rows[0][0], orjson.loads(rows[0][1]), rows[0][2], rows[0][3])


def _next_version(key: str, stored: int, expected: int | None) -> int:
    if expected is not None and expected != stored:
        raise ConcurrentChange(key)
    return stored + 1


async def update_user(store: Store, change: UserChange) -> UserRow:
    """Apply an update; every update, even one that changes nothing, gives the user a new resource version."""

    async def job(batch: Batch) -> UserRow:
        user = await _user_in(batch, change.user_id)
        if user is None:
            raise UserNotFound(change.user_id)
        if user.identity_provider_id != change.identity_provider_id:
            raise WrongIdentityProvider(change.user_id)
        version = _next_version(change.user_id, user.resource_version, change.resource_version)
        annotations = user.annotations
        if change.annotations is not None:
            annotations = merge_annotations(annotations, change.annotations)
            if annotations_size(annotations) > MAX_ANNOTATIONS_BYTES:
                raise AnnotationsTooLarge(change.user_id)
        new = replace(
            user,
            resource_version=version,
            annotations=annotations,
            primary_party=user.primary_party if change.primary_party is None else change.primary_party,
            is_deactivated=user.is_deactivated if change.is_deactivated is None else change.is_deactivated,
            primary_party_authentication=(
                user.primary_party_authentication
                if change.primary_party_authentication is None
                else change.primary_party_authentication
            ),
        )
        batch.write(
            sql.UPDATE_USER,
            (
                new.primary_party,
                int(new.is_deactivated),
                orjson.dumps(annotations).decode(),
                version,
                int(new.primary_party_authentication),
                new.id,
            ),
        )
        batch.admin[("user", new.id)] = new
        return new

    return await _write_users(store, job)


async def update_user_idp(store: Store, user_id: str, source: str, target: str) -> UserRow:
    """Move a user from one identity provider to another."""

    async def job(batch: Batch) -> UserRow:
        user = await _user_in(batch, user_id)
        if user is None:
            raise UserNotFound(user_id)
        if user.identity_provider_id != source:
            raise WrongIdentityProvider(user_id)
        for idp in (source, target):
            if idp and await _idp_in(batch, idp) is None:
                raise IdpNotFound(idp)
        new = replace(user, identity_provider_id=target, resource_version=user.resource_version + 1)
        batch.write(sql.UPDATE_USER_IDP, (target, new.resource_version, user_id))
        batch.admin[("user", user_id)] = new
        return new

    return await _write_users(store, job)


async def update_party(store: Store, change: PartyChange) -> PartyRow:
    async def job(batch: Batch) -> PartyRow:
        party = await _party_in(batch, change.party)
        if party is None:
            raise PartyNotFound(change.party)
        if party.identity_provider_id != change.identity_provider_id:
            raise WrongIdentityProvider(change.party)
        version = _next_version(change.party, party.resource_version, change.resource_version)
        annotations = party.annotations
        if change.annotations is not None:
            annotations = merge_annotations(annotations, change.annotations)
            if annotations_size(annotations) > MAX_ANNOTATIONS_BYTES:
                raise AnnotationsTooLarge(change.party)
        new = replace(party, annotations=annotations, resource_version=version)
        batch.write(sql.UPDATE_PARTY, (orjson.dumps(annotations).decode(), version, change.party))
        batch.admin[("party", change.party)] = new
        return new

    return await store.write(job)


# --- identity provider configs

MAX_IDPS = 10  # Canton's default `max-identity-providers`


def _idp_row(r) -> IdpRow:
    return IdpRow(r[0], bool(r[1]), r[2], r[3], r[4])


async def _idp_in(batch: Batch, identity_provider_id: str) -> IdpRow | None:
    if ("idp", identity_provider_id) in batch.admin:
        return batch.admin[("idp", identity_provider_id)]
    rows = await fetch_all(batch.conn, sql.IDP, (identity_provider_id,))
    return _idp_row(rows[0]) if rows else None


async def _check_issuer_free(batch: Batch, issuer: str, identity_provider_id: str) -> None:
    staged = [v for (kind, _), v in batch.admin.items() if kind == "idp" and v is not None]
    holders = [r for r in staged if r.issuer == issuer]
    if not holders:
        rows = await fetch_all(batch.conn, sql.IDP_BY_ISSUER, (issuer,))
        holders = [r for r in map(_idp_row, rows) if batch.admin.get(("idp", r.identity_provider_id), r) == r]
    if any(r.identity_provider_id != identity_provider_id for r in holders):
        raise IssuerExists(issuer)


async def create_idp(store: Store, idp: IdpRow) -> IdpRow:
    async def job(batch: Batch) -> IdpRow:
        if await _idp_in(batch, idp.identity_provider_id) is not None:
            raise IdpExists(idp.identity_provider_id)
        await _check_issuer_free(batch, idp.issuer, idp.identity_provider_id)
        committed = {r[0] for r in await fetch_all(batch.conn, sql.IDPS)}
        staged = {k for (kind, k), v in batch.admin.items() if kind == "idp"}
        live = {k for k in committed | staged if batch.admin.get(("idp", k), True) is not None}
        if len(live) >= MAX_IDPS:
            raise TooManyIdps()
        batch.write(
            sql.INSERT_IDP,
            (idp.identity_provider_id, int(idp.is_deactivated), idp.jwks_url, idp.issuer, idp.audience),
        )
        batch.admin[("idp", idp.identity_provider_id)] = idp
        return idp

    return await store.write(job)


async def update_idp(store: Store, identity_provider_id: str, changes: dict) -> IdpRow:
    """Set the given fields (`is_deactivated`, `jwks_url`, `issuer`, `audience`) of a config."""

    async def job(batch: Batch) -> IdpRow:
        idp = await _idp_in(batch, identity_provider_id)
        if idp is None:
            raise IdpNotFound(identity_provider_id)
        if "issuer" in changes:
            await _check_issuer_free(batch, changes["issuer"], identity_provider_id)
        new = replace(idp, **changes)
        batch.write(
            sql.UPDATE_IDP,
            (int(new.is_deactivated), new.jwks_url, new.issuer, new.audience, identity_provider_id),
        )
        batch.admin[("idp", identity_provider_id)] = new
        return new

    return await store.write(job)


async def delete_idp(store: Store, identity_provider_id: str) -> None:
    async def job(batch: Batch) -> None:
        if await _idp_in(batch, identity_provider_id) is None:
            raise IdpNotFound(identity_provider_id)
        staged = [v for (kind, _), v in batch.admin.items() if kind in ("user", "party") and v is not None]
        if any(v.identity_provider_id == identity_provider_id for v in staged) or await fetch_all(
            batch.conn, sql.IDP_IN_USE, {"idp": identity_provider_id}
        ):
            raise IdpInUse(identity_provider_id)
        batch.write(sql.DELETE_IDP, (identity_provider_id,))
        batch.admin[("idp", identity_provider_id)] = None

    await store.write(job)
