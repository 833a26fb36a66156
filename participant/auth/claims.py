"""What a request may do, as Canton's `ClaimSet.Claims`: derived from a user's rights, checked by the routes.

Every check raises a `LedgerError` whose detail is meant for the log; the wire body is redacted by `errors.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from participant.base import errors

# A user's right as the user management API names it: (kind, party), the party None for the kinds that carry none.
# The store keeps rights in this shape; authorization is handed them in a `UserRecord`, and knows nothing of the store.
Right = tuple[str, str | None]

# The right kinds as the user management API names them, split by whether they carry a party.
PARTY_RIGHTS = frozenset({"CanActAs", "CanReadAs", "CanExecuteAs"})
GLOBAL_RIGHTS = frozenset(
    {"ParticipantAdmin", "IdentityProviderAdmin", "CanReadAsAnyParty", "CanExecuteAsAnyParty"}
)


@dataclass(frozen=True)
class UserRecord:
    """The part of a stored user that authorization needs."""

    id: str
    is_deactivated: bool
    rights: tuple[Right, ...] = ()


@dataclass(frozen=True)
class Claims:
    user_id: str | None
    admin: bool = False
    idp_admin: bool = False
    act_as: frozenset[str] = frozenset()
    read_as: frozenset[str] = frozenset()
    execute_as: frozenset[str] = frozenset()
    read_as_any_party: bool = False
    act_as_any_party: bool = False
    execute_as_any_party: bool = False

    @classmethod
    def wildcard(cls) -> Claims:
        """What Canton grants when no auth service is configured: everything, but no user id to default to."""
        return cls(
            user_id=None, admin=True, read_as_any_party=True, act_as_any_party=True, execute_as_any_party=True
        )

    @classmethod
    def from_rights(cls, user_id: str, rights: Iterable[Right]) -> Claims:
        """Canton's `UserBasedClaimResolver`. Unknown kinds are a store bug, so they fail loudly, not silently."""
        act: set[str] = set()
        read: set[str] = set()
        execute: set[str] = set()
        kinds: set[str] = set()
        for kind, party in rights:
            if kind in PARTY_RIGHTS:
                if not party:
                    raise ValueError(f"right {kind} of user {user_id!r} has no party")
                {"CanActAs": act, "CanReadAs": read, "CanExecuteAs": execute}[kind].add(party)
            elif kind in GLOBAL_RIGHTS:
                kinds.add(kind)
            else:
                raise ValueError(f"unknown right kind {kind!r} of user {user_id!r}")
        return cls(
            user_id=user_id,
            admin="ParticipantAdmin" in kinds,
            idp_admin="IdentityProviderAdmin" in kinds,
            act_as=frozenset(act),
            read_as=frozenset(read | act),  # CanActAs implies CanReadAs
            execute_as=frozenset(execute),
            read_as_any_party="CanReadAsAnyParty" in kinds,
            execute_as_any_party="CanExecuteAsAnyParty" in kinds,
        )

    # -- predicates ------------------------------------------------------------------------------------------

    def can_read(self, party: str) -> bool:
        # act_as is checked too so that hand-built Claims keep the act-implies-read rule.
        return self._reads_any() or party in self.read_as or party in self.act_as

    def can_act(self, party: str) -> bool:
        return self.act_as_any_party or party in self.act_as

    def can_execute(self, party: str) -> bool:
        """Executing a prepared transaction: CanExecuteAs, or anything that may act for the party."""
        return self.execute_as_any_party or party in self.execute_as or self.can_act(party)

    def _reads_any(self) -> bool:
        return self.read_as_any_party or self.act_as_any_party

    # -- checks ----------------------------------------------------------------------------------------------

    def require_admin(self) -> None:
        if not self.admin:
            raise errors.PERMISSION_DENIED(f"{self._who()} is not a participant admin")

    def require_idp_admin(self) -> None:
        """User management: participant admins and identity provider admins (we only have the default IDP)."""
        if not (self.admin or self.idp_admin):
            raise errors.PERMISSION_DENIED(
                f"{self._who()} is neither a participant nor an identity provider admin"
            )

    def require_read(self, parties: Iterable[str]) -> None:
        missing = sorted(p for p in set(parties) if not self.can_read(p))
        if missing:
            raise errors.PERMISSION_DENIED(f"{self._who()} may not read as {', '.join(missing)}")

    def require_act(self, parties: Iterable[str]) -> None:
        missing = sorted(p for p in set(parties) if not self.can_act(p))
        if missing:
            raise errors.PERMISSION_DENIED(f"{self._who()} may not act as {', '.join(missing)}")

    def require_execute(self, parties: Iterable[str]) -> None:
        missing = sorted(p for p in set(parties) if not self.can_execute(p))
        if missing:
            raise errors.PERMISSION_DENIED(f"{self._who()} may not execute as {', '.join(missing)}")

    def require_read_any_party(self) -> None:
        if not self._reads_any():
            raise errors.PERMISSION_DENIED(f"{self._who()} may not read as any party")

    def require_read_of(self, parties: Iterable[str], any_party: bool = False) -> None:
        """Reading the data of `parties`, and of every party with `any_party`: the read claims of a filter
        (Canton's `readAs` per party, `readAsAnyParty` for a filter of all parties)."""
        self.require_read(parties)
        if any_party:
            self.require_read_any_party()

    def require_read_unless_admin(self, parties: Iterable[str]) -> None:
        """Reading about parties (their details, their synchronizers): admins may, others need read rights."""
        if not (self.admin or self.idp_admin):
            self.require_read(parties)

    def require_self_or_admin(self, user_id: str) -> None:
        """Reading one's own user and rights is always allowed; anyone else's needs an admin right."""
        if self.admin or self.idp_admin or (self.user_id is not None and user_id == self.user_id):
            return
        raise errors.PERMISSION_DENIED(f"{self._who()} may not access user {user_id!r}")

    def resolve_user_id(self, request_user_id: str) -> str:
        """Canton's `MatchUserId`: the request's userId, defaulted from and checked against the token's user."""
        if self.user_id is None:
            # Wildcard (no auth): there is nothing to default from, but any explicit user id is accepted.
            if not request_user_id:
                raise errors.INVALID_TOKEN(
                    "Cannot default user_id field because claims do not specify an user-id."
                )
            return request_user_id
        if not request_user_id:
            return self.user_id
        if request_user_id != self.user_id:
            raise errors.PERMISSION_DENIED(
                f"request userId {request_user_id!r} does not match the token's user {self.user_id!r}"
            )
        return request_user_id

    def _who(self) -> str:
        return f"user {self.user_id!r}" if self.user_id is not None else "the request"
