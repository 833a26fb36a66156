"""User management: users and their rights, the user behind the token, and updates of users; with what party
management shares (the store's refusals as Canton's answers, identity provider checks). Parties: `parties.py`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from participant.api import (
    CreateUserRequest,
    CreateUserResponse,
    DeleteUserResponse,
    GetUserResponse,
    GrantUserRightsRequest,
    GrantUserRightsResponse,
    ListUserRightsResponse,
    ListUsersResponse,
    ObjectMeta,
    RevokeUserRightsRequest,
    RevokeUserRightsResponse,
    Right,
    UpdateUserIdentityProviderIdRequest,
    UpdateUserIdentityProviderIdResponse,
    UpdateUserRequest,
    UpdateUserResponse,
    User,
)
from participant.auth import Claims
from participant.base import errors
from participant.base.errors import LedgerError
from participant.engine import ids
from participant.services.common import PageQuery, next_page_token
from participant.services.context import Context
from participant.services.metadata import check_annotations, resource_version
from participant.services.update_mask import UpdateMask, UpdateMaskError
from participant.store import admin
from participant.store.rows import UserRow

MAX_USERS_PAGE_SIZE = 1000
_PARTY_KINDS = {"CanActAs", "CanReadAs", "CanExecuteAs"}


def user_not_found(user_id: str, operation: str = "getting user") -> LedgerError:
    return errors.USER_NOT_FOUND(
        f'{operation} failed for unknown user "{user_id}"', resources=[("USER", user_id)]
    )


def idp_not_found(identity_provider_id: str) -> LedgerError:
    return errors.INVALID_ARGUMENT(
        f"Provided identity_provider_id {identity_provider_id} has not been found."
    )


@contextlib.contextmanager
def admin_errors(operation: str = "getting user") -> Iterator[None]:
    """Canton's answers to the user and party writes the store refuses."""
    try:
        yield
    except admin.UserNotFound as e:
        raise user_not_found(e.user_id, operation) from None
    except admin.WrongIdentityProvider as e:
        raise errors.PERMISSION_DENIED(f"{e.key} belongs to another identity provider") from None
    except admin.IdpNotFound as e:
        raise idp_not_found(e.identity_provider_id) from None
    except admin.UserExists as e:
        raise errors.USER_ALREADY_EXISTS(
            f'creating user failed for existing user "{e.user_id}"', resources=[("USER", e.user_id)]
        ) from None
    except admin.PartyExists as e:
        raise errors.INVALID_ARGUMENT(
            f"Party already exists: party {e.party} is already allocated on this node",
            resources=[("PARTY", e.party)],
        ) from None


# --- users


def user_model(u: UserRow) -> User:
    return User(
        id=u.id,
        primary_party=u.primary_party,
        is_deactivated=u.is_deactivated,
        metadata=ObjectMeta(resource_version=str(u.resource_version), annotations=u.annotations),
        identity_provider_id=u.identity_provider_id,
        primary_party_authentication=u.primary_party_authentication,
    )


_RIGHT_OF = {
    "CanActAs": Right.act_as,
    "CanReadAs": Right.read_as,
    "CanExecuteAs": Right.execute_as,
    "CanReadAsAnyParty": lambda _: Right.read_as_any_party(),
    "CanExecuteAsAnyParty": lambda _: Right.execute_as_any_party(),
    "ParticipantAdmin": lambda _: Right.participant_admin(),
    "IdentityProviderAdmin": lambda _: Right.identity_provider_admin(),
}


def right_model(kind: str, party: str | None) -> Right:
    return _RIGHT_OF[kind](party)


async def require_idp_admin_of(ctx: Context, c: Claims, identity_provider_id: str) -> None:
    """Canton's `idpAdminClaimsAndMatchingRequestIdpId`: a participant admin, or an identity provider admin of the
    provider the request names (the provider of the admin's own user)."""
    if c.admin:
        return
    c.require_idp_admin()
    caller = await ctx.store.user(c.user_id) if c.user_id else None
    if caller is None or caller.identity_provider_id != identity_provider_id:
        raise errors.PERMISSION_DENIED(f"{c.user_id} administers another identity provider")


async def require_idp_exists(ctx: Context, identity_provider_id: str, field_name: str) -> str:
    if identity_provider_id and not ids.is_ledger_string(identity_provider_id):
        raise errors.INVALID_FIELD(
            f"Invalid field {field_name}: {identity_provider_id!r} is not a valid LedgerString",
            context={"field_name": field_name},
        )
    if identity_provider_id and await ctx.store.idp(identity_provider_id) is None:
        raise idp_not_found(identity_provider_id)
    return identity_provider_id


def rights_of(wire_rights) -> list[tuple[str, str | None]]:
    out = []
    for r in wire_rights:
        kind = r.kind.tag
        if kind == "Empty":
            raise errors.missing_field("kind")
        party = r.kind.value.value.party if kind in _PARTY_KINDS else None
        if kind in _PARTY_KINDS:
            ids.require_party_ids([party], f"right {kind}")
        out.append((kind, party))
    return out


def require_user_id(user_id: str) -> str:
    """The user id of a path, checked before the caller's claims are read."""
    ids.require_user_id(user_id, "user_id")
    return user_id


async def _existing_user(ctx: Context, user_id: str, operation: str = "getting user") -> UserRow:
    user = await ctx.store.user(user_id)
    if user is None:
        raise user_not_found(user_id, operation)
    return user


async def create_user(ctx: Context, req: CreateUserRequest, c: Claims) -> CreateUserResponse:
    c.require_admin()
    if req.user is None:
        raise errors.missing_field("user")
    u = req.user
    ids.require_user_id(u.id, "user.id")
    if u.primary_party and not ids.is_party_id_string(u.primary_party):
        raise errors.INVALID_FIELD(
            f"Invalid field user.primary_party: {u.primary_party!r}",
            context={"field_name": "user.primary_party"},
        )
    meta = u.metadata
    if meta is not None:
        check_annotations(meta.annotations, "user.metadata.annotations", allow_empty_values=False)
    rights = rights_of(req.rights)
    await require_idp_exists(ctx, u.identity_provider_id, "identity_provider_id")
    row = UserRow(
        u.id,
        u.primary_party,
        u.is_deactivated,
        dict(meta.annotations) if meta else {},
        0,
        u.identity_provider_id,
        u.primary_party_authentication,
        (),
    )
    with admin_errors():
        created = await admin.create_user(ctx.store, row, rights)
    return CreateUserResponse(user=user_model(created))


async def list_users(ctx: Context, query: PageQuery, c: Claims) -> ListUsersResponse:
    c.require_admin()
    size, after = query.page(MAX_USERS_PAGE_SIZE)
    users = await ctx.store.users(after, size + 1)
    last = users[size - 1].id if len(users) > size else None
    return ListUsersResponse(
        users=[user_model(u) for u in users[:size]], next_page_token=next_page_token(last)
    )


async def get_user(ctx: Context, user_id: str, c: Claims) -> GetUserResponse:
    c.require_self_or_admin(user_id)
    return GetUserResponse(user=user_model(await _existing_user(ctx, user_id)))


async def delete_user(ctx: Context, user_id: str, c: Claims) -> DeleteUserResponse:
    c.require_admin()
    with admin_errors("deleting user"):
        await admin.delete_user(ctx.store, user_id)
    return DeleteUserResponse()


async def list_rights(ctx: Context, user_id: str, c: Claims) -> ListUserRightsResponse:
    c.require_self_or_admin(user_id)
    user = await _existing_user(ctx, user_id, "list user rights")
    return ListUserRightsResponse(rights=[right_model(k, p) for k, p in user.rights])


async def _change_rights(
    ctx: Context, user_id: str, req, c: Claims, change: Callable, operation: str
) -> list[Right]:
    """Grant or revoke: the body's rights, for the user of the path (the body may repeat its id). `operation`
    names it in Canton's words when the user is unknown."""
    c.require_admin()
    if req.user_id and req.user_id != user_id:
        raise errors.INVALID_ARGUMENT(
            f"The user id in the body ({req.user_id}) differs from the path ({user_id})"
        )
    with admin_errors(operation):
        changed = await change(ctx.store, user_id, rights_of(req.rights))
    return [right_model(k, p) for k, p in changed]


async def grant_rights(
    ctx: Context, user_id: str, req: GrantUserRightsRequest, c: Claims
) -> GrantUserRightsResponse:
    return GrantUserRightsResponse(
        newly_granted_rights=await _change_rights(
            ctx, user_id, req, c, admin.grant_rights, "grant user rights"
        )
    )


async def revoke_rights(
    ctx: Context, user_id: str, req: RevokeUserRightsRequest, c: Claims
) -> RevokeUserRightsResponse:
    return RevokeUserRightsResponse(
        newly_revoked_rights=await _change_rights(
            ctx, user_id, req, c, admin.revoke_rights, "revoke user rights"
        )
    )


async def authenticated_user(ctx: Context, c: Claims) -> GetUserResponse:
    if c.user_id is None:
        raise errors.INVALID_TOKEN("the request carries no user: the participant runs without authentication")
    return GetUserResponse(user=user_model(await _existing_user(ctx, c.user_id)))


def require_user_in_body(path_user_id: str, body_user_id: str | None) -> None:
    """The JSON layer's check, before any other: the body names the user of the path."""
    if body_user_id != path_user_id:
        shown = "None" if body_user_id is None else f"Some({body_user_id})"
        raise errors.INVALID_ARGUMENT(f"{path_user_id} does not match user in body: {shown} ")


async def update_user(ctx: Context, req: UpdateUserRequest, c: Claims) -> UpdateUserResponse:
    """PATCH a user: the fields the mask names, optionally only if nobody changed the user since it was read."""
    assert req.user is not None  # the route checked the body's user against the path
    u = req.user
    await require_idp_admin_of(ctx, c, u.identity_provider_id)
    ids.require_user_id(u.id, "user.id")
    if req.update_mask is None:
        raise errors.missing_field("update_mask")
    if u.primary_party:
        ids.require_party(u.primary_party, "user.primary_party")
    meta = u.metadata or ObjectMeta()
    expected = resource_version(meta.resource_version, "user.metadata.resource_version")
    annotations = check_annotations(meta.annotations, "user.metadata.annotations", allow_empty_values=True)
    try:
        mask = UpdateMask(req.update_mask.paths, USER_FIELDS)
    except UpdateMaskError as e:
        raise errors.INVALID_USER_UPDATE_REQUEST(
            f"Update operation for user id '{u.id}' failed due to: {e}", resources=[("USER", u.id)]
        ) from None
    await require_idp_exists(ctx, u.identity_provider_id, "identity_provider_id")
    change = admin.UserChange(
        u.id,
        u.identity_provider_id,
        expected,
        primary_party=mask.value("primary_party", u.primary_party, ""),
        is_deactivated=mask.value("is_deactivated", u.is_deactivated, False),
        primary_party_authentication=mask.value(
            "primary_party_authentication", u.primary_party_authentication, False
        ),
        annotations=mask.value("metadata.annotations", annotations, {}),
    )
    if c.user_id == u.id and change.is_deactivated:
        raise errors.INVALID_ARGUMENT("Requesting user cannot self-deactivate")
    with admin_errors("updating user"):
        try:
            updated = await admin.update_user(ctx.store, change)
        except admin.ConcurrentChange:
            raise errors.CONCURRENT_USER_UPDATE_DETECTED(
                f"Update operation for user '{u.id}' failed due to a concurrent update to the same user",
                resources=[("USER", u.id)],
            ) from None
        except admin.AnnotationsTooLarge:
            raise errors.MAX_USER_ANNOTATIONS_SIZE_EXCEEDED(
                f"Maximum annotations size for user '{u.id}' has been exceeded", resources=[("USER", u.id)]
            ) from None
    return UpdateUserResponse(user=user_model(updated))


# The update paths of a user (Canton's `UserPaths`): id and resource version identify, the others change.
USER_FIELDS = (
    "id",
    "primary_party",
    "is_deactivated",
    "metadata.annotations",
    "metadata.resource_version",
    "identity_provider_id",
    "primary_party_authentication",
)


async def update_user_idp(
    ctx: Context, user_id: str, req: UpdateUserIdentityProviderIdRequest, c: Claims
) -> UpdateUserIdentityProviderIdResponse:
    c.require_admin()
    ids.require_user_id(req.user_id, "user_id")
    source = await require_idp_exists(ctx, req.source_identity_provider_id, "source_identity_provider_id")
    target = await require_idp_exists(ctx, req.target_identity_provider_id, "target_identity_provider_id")
    with admin_errors("update user identity provider"):
        await admin.update_user_idp(ctx.store, user_id, source, target)
    return UpdateUserIdentityProviderIdResponse()
