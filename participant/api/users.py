"""User management and rights (docs/ledger-api.md §5, §7). Proto-shaped: relaxed defaults."""

from __future__ import annotations

from pydantic import Field

from .base import Variant, WireModel, alt
from .common import Empty, FieldMask
from .parties import ObjectMeta

__all__ = [
    "CanActAs",
    "CanActAs1",
    "CanExecuteAs",
    "CanExecuteAs1",
    "CanExecuteAsAnyParty",
    "CanExecuteAsAnyParty1",
    "CanReadAs",
    "CanReadAs1",
    "CanReadAsAnyParty",
    "CanReadAsAnyParty1",
    "CreateUserRequest",
    "CreateUserResponse",
    "DeleteUserResponse",
    "GetUserResponse",
    "GrantUserRightsRequest",
    "GrantUserRightsResponse",
    "IdentityProviderAdmin",
    "IdentityProviderAdmin1",
    "Kind",
    "ListUserRightsResponse",
    "ListUsersResponse",
    "ParticipantAdmin",
    "ParticipantAdmin1",
    "RevokeUserRightsRequest",
    "RevokeUserRightsResponse",
    "Right",
    "UpdateUserIdentityProviderIdRequest",
    "UpdateUserIdentityProviderIdResponse",
    "UpdateUserRequest",
    "UpdateUserResponse",
    "User",
]


class User(WireModel):
    id: str = ""
    primary_party: str = ""
    is_deactivated: bool = False
    metadata: ObjectMeta | None = None
    identity_provider_id: str = ""
    primary_party_authentication: bool = False  # 3.5 only


# --- rights: proto oneof flavour, every payload under "value" ----------------


class CanActAs1(WireModel):
    party: str = ""


class CanReadAs1(WireModel):
    party: str = ""


class CanExecuteAs1(WireModel):
    party: str = ""


class CanReadAsAnyParty1(WireModel):
    pass


class CanExecuteAsAnyParty1(WireModel):
    pass


class ParticipantAdmin1(WireModel):
    pass


class IdentityProviderAdmin1(WireModel):
    pass


class CanActAs(WireModel):
    value: CanActAs1


class CanReadAs(WireModel):
    value: CanReadAs1


class CanExecuteAs(WireModel):
    value: CanExecuteAs1


class CanReadAsAnyParty(WireModel):
    value: CanReadAsAnyParty1


class CanExecuteAsAnyParty(WireModel):
    value: CanExecuteAsAnyParty1


class ParticipantAdmin(WireModel):
    value: ParticipantAdmin1


class IdentityProviderAdmin(WireModel):
    value: IdentityProviderAdmin1


class Kind(Variant):
    can_act_as: CanActAs | None = alt("CanActAs")
    can_execute_as: CanExecuteAs | None = alt("CanExecuteAs")
    can_execute_as_any_party: CanExecuteAsAnyParty | None = alt("CanExecuteAsAnyParty")
    can_read_as: CanReadAs | None = alt("CanReadAs")
    can_read_as_any_party: CanReadAsAnyParty | None = alt("CanReadAsAnyParty")
    empty: Empty | None = alt("Empty")
    identity_provider_admin: IdentityProviderAdmin | None = alt("IdentityProviderAdmin")
    participant_admin: ParticipantAdmin | None = alt("ParticipantAdmin")


def _empty_kind() -> Kind:
    return Kind(empty=Empty())


class Right(WireModel):
    """``{"kind": {"CanActAs": {"value": {"party": "p"}}}}``."""

    kind: Kind = Field(default_factory=_empty_kind)

    @property
    def party(self) -> str | None:
        """The party of a party-scoped right, else None."""
        payload = self.kind.value
        inner = getattr(payload, "value", None)
        return getattr(inner, "party", None)

    @classmethod
    def act_as(cls, party: str) -> Right:
        return cls(kind=Kind(can_act_as=CanActAs(value=CanActAs1(party=party))))

    @classmethod
    def read_as(cls, party: str) -> Right:
        return cls(kind=Kind(can_read_as=CanReadAs(value=CanReadAs1(party=party))))

    @classmethod
    def execute_as(cls, party: str) -> Right:
        return cls(kind=Kind(can_execute_as=CanExecuteAs(value=CanExecuteAs1(party=party))))

    @classmethod
    def read_as_any_party(cls) -> Right:
        return cls(kind=Kind(can_read_as_any_party=CanReadAsAnyParty(value=CanReadAsAnyParty1())))

    @classmethod
    def execute_as_any_party(cls) -> Right:
        return cls(kind=Kind(can_execute_as_any_party=CanExecuteAsAnyParty(value=CanExecuteAsAnyParty1())))

    @classmethod
    def participant_admin(cls) -> Right:
        return cls(kind=Kind(participant_admin=ParticipantAdmin(value=ParticipantAdmin1())))

    @classmethod
    def identity_provider_admin(cls) -> Right:
        return cls(kind=Kind(identity_provider_admin=IdentityProviderAdmin(value=IdentityProviderAdmin1())))


class CreateUserRequest(WireModel):
    user: User | None = None
    rights: list[Right] = Field(default_factory=list)


class CreateUserResponse(WireModel):
    user: User


class GetUserResponse(WireModel):
    """Also the response of ``GET /v2/authenticated-user``."""

    user: User


class ListUsersResponse(WireModel):
    users: list[User] = Field(default_factory=list)
    next_page_token: str | None = None


class DeleteUserResponse(WireModel):
    """``{}``; the spec types this response as a bare object, not a schema."""


class UpdateUserRequest(WireModel):
    user: User | None = None
    update_mask: FieldMask | None = None


class UpdateUserResponse(WireModel):
    user: User


class ListUserRightsResponse(WireModel):
    rights: list[Right] = Field(default_factory=list)


class GrantUserRightsRequest(WireModel):
    user_id: str = ""  # must equal the path's user id
    rights: list[Right] = Field(default_factory=list)
    identity_provider_id: str = ""


class GrantUserRightsResponse(WireModel):
    newly_granted_rights: list[Right] = Field(default_factory=list)


class RevokeUserRightsRequest(WireModel):
    user_id: str = ""
    rights: list[Right] = Field(default_factory=list)
    identity_provider_id: str = ""


class RevokeUserRightsResponse(WireModel):
    newly_revoked_rights: list[Right] = Field(default_factory=list)


class UpdateUserIdentityProviderIdRequest(WireModel):
    user_id: str = ""  # must equal the path's user id
    source_identity_provider_id: str = ""
    target_identity_provider_id: str = ""


class UpdateUserIdentityProviderIdResponse(WireModel):
    """``{}``."""
