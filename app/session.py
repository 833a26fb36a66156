"""A session with one participant: the client, who we are on it (user, rights, parties), and what the participant
is (version, id, synchronizers). No UI here: the workspace opens it, the screens read it, workers refresh it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from app.bundled import BundledParticipant
from app.client import LedgerClient, errors
from app.learned import Learned
from app.shared_packages import SharedCatalog
from app.tokens import MintedToken, TokenSource
from participant.api import ConnectedSynchronizer, Right

T = TypeVar("T")

BUNDLED_ADMIN = "participant_admin"


@dataclass
class Identity:
    """What the token lets us do, from the user's rights. `user_id` None: a participant without auth."""

    user_id: str | None = None
    primary_party: str = ""
    act_as: list[str] = field(default_factory=list)
    read_as: list[str] = field(default_factory=list)
    read_any: bool = False
    admin: bool = False

    @property
    def label(self) -> str:
        if self.user_id:
            return self.user_id
        # without auth a participant lets every request read any party; an identity that reads nothing and has no
        # user is one that was never learned (the connection failed before the participant said who we are)
        return "(no auth)" if self.read_any else "(unknown)"

    def readable(self) -> list[str] | None:
        """The parties whose contracts this user may read; None means every party (CanReadAsAnyParty)."""
        if self.read_any:
            return None
        return list(dict.fromkeys([*self.act_as, *self.read_as]))

    @classmethod
    def of_rights(cls, user_id: str, primary_party: str, rights: list[Right]) -> Identity:
        identity = cls(user_id=user_id, primary_party=primary_party)
        for right in rights:
            kind = right.kind
            if kind is None:
                continue
            if kind.can_act_as is not None:
                identity.act_as.append(kind.can_act_as.value.party)
            elif kind.can_read_as is not None:
                identity.read_as.append(kind.can_read_as.value.party)
            elif kind.can_read_as_any_party is not None:
                identity.read_any = True
            elif kind.participant_admin is not None:
                identity.admin = True
        identity.act_as = list(dict.fromkeys(identity.act_as))
        identity.read_as = [p for p in dict.fromkeys(identity.read_as) if p not in identity.act_as]
        return identity


class Session:
    """The connection the app works with. `bundled` is set when we run (or share) the bundled participant."""

    def __init__(
        self,
        client: LedgerClient,
        *,
        label: str,
        bundled: BundledParticipant | None = None,
        minted: MintedToken | None = None,
        learned: Learned | None = None,
        identity_changed: Callable[[Identity], None] = lambda _: None,
    ) -> None:
        self.client = client
        self.label = label
        self.bundled = bundled
        self.minted = minted
        self.identity = Identity()
        self.version = ""
        self.participant_id = ""
        self.synchronizers: list[ConnectedSynchronizer] = []
        """The synchronizers the participant is connected to: read at connecting, again by `read_synchronizers`."""
        self.packages = SharedCatalog(client)  # the participant's packages, read once for every screen
        self.learned = learned if learned is not None else Learned()
        """What was learned of the user's Daml on this participant (the workspace's, which hands it over)."""
        self._identity_changed = identity_changed

    @property
    def can_switch_user(self) -> bool:
        return self.minted is not None

    async def connect(self) -> None:
        """Learn the participant's version and who the token is for (asked at the same time: a remote
        participant's round trips add up)."""
        version, identity, participant_id, synchronizers = await asyncio.gather(
            self.client.version(),
            self._identity(),
            self._optional(self.client.participant_id(), ""),
            self._optional(self.client.connected_synchronizers(), []),
            return_exceptions=True,
        )
        if isinstance(version, BaseException):
            raise version
        if isinstance(identity, BaseException):
            self.version = version  # reachable, but the token is refused: the caller says so
            raise identity
        self.version, self.identity = version, identity
        self.participant_id, self.synchronizers = _succeeded(participant_id), _succeeded(synchronizers)

    @staticmethod
    async def _optional(call: Awaitable[T], default: T) -> T:
        """What the status line and the composer can do without: a ledger error gives `default`."""
        try:
            return await call
        except errors.LedgerApiError:
            return default

    async def _identity(self) -> Identity:
        try:
            user = await self.client.authenticated_user()
        except errors.StatusError as e:
            if self.client.tokens is None and e.status in (400, 404, 501):
                # Canton without auth services: every request may act and read as any party, no user behind it
                return Identity(read_any=True, admin=True)
            raise
        rights = await self.client.user_rights(user.id)
        return Identity.of_rights(user.id, user.primary_party, rights)

    async def read_synchronizers(self) -> list[ConnectedSynchronizer]:
        """The connected synchronizers, read again for the user's party when connecting found none (a participant
        may list them only for a party: Canton's `party` parameter)."""
        if not self.synchronizers:
            party = self.identity.primary_party or next(iter(self.identity.act_as), None)
            self.synchronizers = await self.client.connected_synchronizers(party)
        return self.synchronizers

    async def reload_identity(self) -> None:
        """Read the user's rights again; a change is told (`identity_changed`), whoever read them."""
        self._change_identity(await self._identity())

    def _change_identity(self, identity: Identity) -> None:
        """The user acting, or its rights, once connected: told when they differ from those before (the first, at
        connecting, is the connection's to tell)."""
        before, self.identity = self.identity, identity
        if identity != before:
            self._identity_changed(identity)

    async def switch_user(self, user_id: str) -> None:
        """Act as another user of the bundled participant (the tokens are minted here)."""
        if self.minted is None:
            raise errors.LedgerApiError(
                "switching users needs the bundled participant, whose tokens are minted "
                "here; on another participant, start ledger-tui with that user's token"
            )
        tokens: TokenSource = self.minted.for_user(user_id)
        previous = self.client.tokens
        self.client.use_tokens(tokens)
        try:
            identity = await self._identity()
        except errors.LedgerApiError:
            self.client.use_tokens(previous)
            raise
        self.minted = self.minted.for_user(user_id)
        self.learned.forget_visible()  # the parties the previous user saw are not this one's to be offered
        self._change_identity(identity)

    async def users(self) -> list[str]:
        """User ids to pick from: every user, read with the admin's token on the bundled participant."""
        if self.minted is None:
            return [self.identity.user_id] if self.identity.user_id else []
        admin = self.client.with_tokens(self.minted.for_user(BUNDLED_ADMIN))
        try:
            return sorted(u.id for u in await admin.users())
        finally:
            await admin.aclose()


def _succeeded(outcome: T | BaseException) -> T:
    """One of `asyncio.gather(..., return_exceptions=True)`'s results, or what it failed with raised."""
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome
