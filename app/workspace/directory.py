"""The participant's parties and users as this client last read them, and the changes made to them from here: one
owner, so that a party allocated or a right granted reaches every screen (the composer offers the new party; the
session's rights, and what each screen may read, follow a change to the user acting: the session tells it).

Listing parties and users needs admin rights; a user without them sees only itself (`admin` False, `users` holding
the token's own user and rights, `parties` those its rights name)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.workspace.subscribers import Subscribers

if TYPE_CHECKING:  # imported once connected: the client and its models take a while
    from app.client.admin import UserWithRights
    from app.session import Identity, Session
    from participant.api import PartyDetails, Right


@dataclass(frozen=True)
class DirectoryChange:
    """The parties or users changed (a change to the user acting, its rights read again, is told by the session)."""


class Directory:
    def __init__(self, session: Callable[[], Session | None]) -> None:
        self._session = session
        self.parties: list[PartyDetails] = []
        self.users: list[UserWithRights] = []
        self.admin: bool | None = None
        """Whether the token may list every party and user; None until read."""
        self._parties_of: tuple[Session, Identity] | None = None
        """The session and the user's rights `parties` were read with (None: not read)."""
        self._subscribers: Subscribers[DirectoryChange] = Subscribers()

    def subscribe(self, callback: Callable[[DirectoryChange], None]) -> Callable[[], None]:
        return self._subscribers.subscribe(callback)

    @property
    def session(self) -> Session:
        session = self._session()
        assert session is not None, "the directory is read once connected"
        return session

    # --- reading ------------------------------------------------------------------------------------------------

    async def party_ids(self) -> list[str]:
        """The ids of the parties known here (what a party's hint, `Alice`, is looked up in): the participant's
        list for an administrator, else those the user's rights name; as last read, with each party allocated from
        here since, and read now when they were not read with the session and rights of now (the parties alone: not
        the users, a request for each)."""
        session = self.session
        identity = session.identity
        if self._parties_of != (session, identity):
            if identity.admin:
                self.parties = await session.client.parties()
                self._parties_of = (session, identity)
                session.learned.note_parties(p.party for p in self.parties)
                self._subscribers.tell(DirectoryChange())
            else:
                await self.read()  # the token's own user, and the parties its rights name
        return [p.party for p in self.parties]

    async def read(self) -> None:
        """Read the parties and users again: all of them for an administrator, else the token's own user."""
        import asyncio

        from app.client import admin as api
        from app.client import errors

        session = self.session
        identity = session.identity
        client = session.client
        if identity.admin:
            try:
                parties, users = await asyncio.gather(client.parties(), api.users_with_rights(client))
            except errors.PermissionDenied:
                pass  # the rights changed since they were read: read as a user who is no admin
            else:
                self.admin, self.parties, self.users = True, parties, users
                self._parties_of = (session, identity)
                session.learned.note_parties(p.party for p in parties)
                self._subscribers.tell(DirectoryChange())
                return
        own = await api.own_user(client)
        named = list(dict.fromkeys(r.party for r in own.rights if r.party))
        self.admin = False
        self.users = [own]
        self.parties = await api.party_details(client, named) if named else []
        self._parties_of = (session, identity)
        self._subscribers.tell(DirectoryChange())

    # --- changing -----------------------------------------------------------------------------------------------

    async def allocate_party(self, hint: str, display_name: str = "") -> PartyDetails:
        from app.client import admin as api

        details = await api.allocate_party(self.session.client, hint, display_name)
        self.session.learned.note_parties([details.party])  # the composer offers it from now on
        self.parties = [*(p for p in self.parties if p.party != details.party), details]
        self._subscribers.tell(DirectoryChange())
        return details

    async def create_user(self, user_id: str, primary_party: str, rights: Sequence[Right]) -> None:
        from app.client import admin as api

        await api.create_user(self.session.client, user_id, primary_party, rights)
        await self._user_changed(user_id)

    async def grant(self, user_id: str, rights: Sequence[Right]) -> list[Right]:
        from app.client import admin as api

        granted = await api.grant_rights(self.session.client, user_id, rights)
        await self._user_changed(user_id)
        return granted

    async def revoke(self, user_id: str, rights: Sequence[Right]) -> list[Right]:
        from app.client import admin as api

        revoked = await api.revoke_rights(self.session.client, user_id, rights)
        await self._user_changed(user_id)
        return revoked

    async def delete_user(self, user_id: str) -> None:
        from app.client import admin as api

        await api.delete_user(self.session.client, user_id)
        await self._user_changed(user_id, deleted=True)

    async def _user_changed(self, user_id: str, *, deleted: bool = False) -> None:
        """Read the changed user again, not every user (a participant may have thousands, each user's rights a
        request of its own). When it is the user acting, its rights too, everything it may see with them, and say
        so."""
        from app.client import admin as api
        from app.client import errors

        session = self.session
        others = [u for u in self.users if u.user.id != user_id]
        try:
            if session.identity.user_id == user_id:
                await session.reload_identity()  # which the session tells every screen of, if they changed
                await self.read()  # an admin no more, or again: what it may list changed
                return
            self.users = others if deleted else [*others, await api.user_with_rights(session.client, user_id)]
        except errors.LedgerApiError:
            self.users = others  # the change went through; the user is read again with the lists (ctrl+r)
        self._subscribers.tell(DirectoryChange())
