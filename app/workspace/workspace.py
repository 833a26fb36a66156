"""What the screens share, with one owner and no UI code: the session with the participant, whether writing is
off, the ledger end, the local copy of the ACS with what reads it at an offset and the offset viewed, the
participant's packages, its parties and users, and what was learned of the user's Daml. The app builds it; screens
see it through the `LedgerHost` protocol."""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from app.learned import Learned
from app.locations import Locations
from app.workspace.acs_cache import AcsCache
from app.workspace.acs_loader import AcsLoader
from app.workspace.directory import Directory
from app.workspace.ledger_end import LedgerEnd
from app.workspace.subscribers import Subscribers

if TYPE_CHECKING:  # imported once connected: the client and its models take a while
    from app.bundled import BundledParticipant
    from app.client.ledger import LedgerClient
    from app.packages import PackageCatalog, Progress
    from app.session import Identity, Session
    from app.tokens import MintedToken
    from app.workspace.kept import Kept, Whose


class Workspace:
    def __init__(self, locations: Locations, *, readonly: bool = False) -> None:
        self.locations = locations
        self._readonly = readonly
        self.session: Session | None = None
        """The connection, once the app has opened one (None before)."""
        self.learned = Learned()
        self.ledger_end = LedgerEnd()
        self.acs = AcsCache(self.snapshot_path)
        self.acs_loader = AcsLoader(self.acs, self.ledger_end, self._client)
        """What reads the ACS at an offset into `acs`, and tells the contracts screen how it goes."""
        self.directory = Directory(lambda: self.session)
        """The participant's parties and users, and the changes made to them from here."""
        self._snapshot_ids = count(1)
        self._packages_read: Subscribers[PackageCatalog] = Subscribers()
        self._identity_changed: Subscribers[Identity] = Subscribers()
        self._packages_told: PackageCatalog | None = None
        self._kept_for: tuple[str, str] | None = None
        """The participant, as the contracts kept for the next session name it, and the user a session starts as
        (`keep_rows`; None: none are kept)."""

    @property
    def readonly(self) -> bool:
        """Every action that writes is hidden and refused: decided here, for the whole run."""
        return self._readonly

    def open_session(
        self,
        client: LedgerClient,
        *,
        label: str,
        bundled: BundledParticipant | None = None,
        minted: MintedToken | None = None,
    ) -> Session:
        """The session the app works with from now on (each connection attempt opens one)."""
        from app.session import Session

        self.session = Session(
            client,
            label=label,
            bundled=bundled,
            minted=minted,
            learned=self.learned,
            identity_changed=self._identity_changed.tell,
        )
        return self.session

    def subscribe_identity(self, callback: Callable[[Identity], None]) -> Callable[[], None]:
        """Call `callback` when the session's user, or its rights, change once connected (a switch of user, rights
        read again and found changed, whoever read them); returns what unsubscribes it."""
        return self._identity_changed.subscribe(callback)

    def keep_rows(self, participant: str, first_user: str) -> None:
        """Keep the contracts read for the next session on `participant` (as the kept files name it), which starts
        as `first_user`: a user known before connecting, whose tokens are minted here."""
        self._kept_for = (participant, first_user)

    @property
    def keeps_rows(self) -> bool:
        """The contracts read are kept for the next session (`keep_rows`)."""
        return self._kept_for is not None

    def find_kept(self) -> Kept | None:
        """What the last session on this participant kept of the user it starts as, if it did (`open_kept` opens
        it); None also when no rows are kept here."""
        if self._kept_for is None:
            return None
        from app.workspace.kept import KeptKey, find_kept

        return find_kept(self.locations.snapshots_dir, KeptKey(*self._kept_for))

    async def open_kept(self, kept: Kept) -> bool:
        """Open what the last session kept, for its rows to be shown at once (the app marks them as not current
        until `acs_loader.resume` brings them up to date); False when it is gone meanwhile (another session took
        it) or unreadable."""
        if not await self.acs.open_kept(kept):
            return False
        self.acs_loader.show_kept(kept)
        return True

    def kept_is_ours(self, kept: Kept) -> bool:
        """The participant, connected, names the participant, user and parties the kept rows are of."""
        session = self.session
        if session is None:
            return False
        identity = session.identity
        whose = kept.whose
        return (whose.participant_id, whose.user_id, whose.parties) == (
            session.participant_id,
            identity.user_id,
            identity.readable(),
        )

    def whose_rows(self) -> Whose | None:
        """Whose the cache's rows are, when they may be kept for the next session: those of a user whose tokens are
        minted here (the user is known before connecting), of the parties a start shows (the user's own), at an
        offset viewed. The loader keeps none that it is still filling."""
        loader, kept = self.acs_loader, self.acs.kept
        if self._kept_for is None or loader.offset is None:
            return None
        if kept is not None:
            return kept.whose  # not brought up to date: kept again as it was
        session = self.session
        if session is None or session.minted is None or not session.version:
            return None
        identity = session.identity
        if loader.parties != identity.readable():
            return None
        from app.workspace.kept import KeptKey, Whose

        key = KeptKey(self._kept_for[0], session.minted.user)
        return Whose(key, session.participant_id, identity.user_id, loader.parties, loader.offset)

    def _client(self) -> LedgerClient:
        assert self.session is not None, "the ACS is read once connected"
        return self.session.client

    def snapshot_path(self) -> Path:
        """A new cache file of this process (`acs_cache.clean_stale_snapshots` knows them by the process id)."""
        return self.locations.snapshots_dir / f"{os.getpid()}-{next(self._snapshot_ids)}.db"

    @property
    def packages(self) -> PackageCatalog | None:
        """The participant's packages, once read (None before, and on a new connection until read again)."""
        return self.session.packages.current if self.session is not None else None

    async def read_packages(
        self, progress: Callable[[Progress], None] | None = None, *, again: bool = False
    ) -> PackageCatalog:
        """The participant's packages, read once per connection for every screen (the session's shared catalog):
        again while some could not be read (a package's contents never change, whoever acts), or when asked
        `again` (the list may have grown: a DAR uploaded since; the packages already read come from the cache)."""
        assert self.session is not None, "packages are read once connected"
        current = self.session.packages.current
        again = current is not None and (again or bool(current.problem) or bool(current.unreadable))
        catalog = await self.session.packages.get(self.locations.cache_dir, progress=progress, again=again)
        if catalog is not self._packages_told:  # a new reading: every screen hears of it once, whoever asked
            self._packages_told = catalog
            self._packages_read.tell(catalog)
        return catalog

    async def read_new_packages(self) -> PackageCatalog | None:
        """The packages read again when the participant lists one the last reading did not (a DAR uploaded from
        another client): one listing of their ids, and a reading only then (None without one)."""
        session = self.session
        if session is None or session.packages.current is None:
            return None
        listed = await session.client.packages()
        if all(session.packages.has_read(package_id) for package_id in listed):
            return None
        return await self.read_packages(again=True)

    def subscribe_packages(self, callback: Callable[[PackageCatalog], None]) -> Callable[[], None]:
        """Call `callback` with each new reading of the packages (a DAR uploaded from here or elsewhere shows up
        on the next reading, whichever screen asked for it); returns what unsubscribes it."""
        return self._packages_read.subscribe(callback)
