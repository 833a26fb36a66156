"""The local copy of the ACS that every screen consults: its snapshot file, the timeline that fills it and moves it
through offsets, and the offset the contracts screen shows. The contracts screen drives it; the others read it (the
inspector: where a contract is now; the reassign screen: what is in flight at the offset viewed)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.workspace.subscribers import Subscribers

if TYPE_CHECKING:
    from app.client.ledger import LedgerClient
    from app.snapshot import Snapshot
    from app.timeline import AcsTimeline
    from app.workspace.kept import Kept, Whose


class AcsCache:
    def __init__(self, path_of: Callable[[], Path]) -> None:
        self._path_of = path_of
        self.snapshot: Snapshot | None = None
        self.timeline: AcsTimeline | None = None
        self._viewing: int | None = None
        self._viewing_subscribers: Subscribers[int | None] = Subscribers()
        self.kept: Kept | None = None
        """What the cache holds is the last session's (`open_kept`), until the participant's answers replace it or
        bring it up to date (`kept_current`)."""

    async def open_kept(self, kept: Kept) -> bool:
        """Hold the file the last session kept (taken from where it was kept: another session of the same user
        started meanwhile finds none, and starts afresh); False when it is gone or unreadable."""
        import sqlite3

        from app.snapshot import Interval, Snapshot

        path = self._path_of()
        try:
            kept.path.replace(path)
            self.snapshot = await Snapshot.reopen(path, Interval(kept.lo, kept.hi))
        except (OSError, sqlite3.Error):
            path.unlink(missing_ok=True)
            return False
        self.kept = kept
        return True

    def kept_current(self) -> None:
        """The rows are the participant's now (brought up to date, read again, or about to be): the offset viewed
        is told again, no longer the last session's."""
        if self.kept is not None:
            self.kept = None
            self._viewing_subscribers.tell(self._viewing)

    async def open(self, client: LedgerClient, parties: list[str] | None) -> AcsTimeline:
        """A timeline for `parties` over the cache file (made on first use): what reads a snapshot into it."""
        if self.snapshot is None:
            from app.snapshot import Snapshot  # loaded with the contracts screen, not before the first frame

            self.snapshot = await Snapshot.open(self._path_of())  # which makes its directory
        from app.timeline import AcsTimeline  # the client's modules: loaded after the first frame

        self.timeline = AcsTimeline(client, self.snapshot.store, parties)
        return self.timeline

    async def close(self, keep_as: Whose | None = None) -> None:
        """Delete the cache file, or keep it for the next session of the same user (`app.workspace.kept`); no
        offset is viewed from then on (told to the subscribers)."""
        snapshot, self.snapshot, self.timeline = self.snapshot, None, None
        kept, self.kept = self.kept, None
        self.view(None)
        if snapshot is None:
            return
        interval = snapshot.store.interval
        if (
            keep_as is None
            or interval.lo is None
            or interval.hi is None
            or not interval.covers(keep_as.viewed)
        ):
            await snapshot.close()
            return
        from app.workspace.kept import KEPT_FIRST_ROWS, describe, forget_the_oldest, kept_whole

        path = keep_as.key.path(snapshot.path.parent)
        if kept_whole(snapshot.path):
            write = describe(keep_as, interval.lo, interval.hi)
            first_of = kept.first_of if kept is not None else None  # kept again as it was
            await snapshot.store.keep(path, lambda db: write(db, first_of))
        else:
            viewed = keep_as.viewed
            await snapshot.store.keep_first(path, viewed, KEPT_FIRST_ROWS, describe(keep_as, viewed, viewed))
        path.touch()  # the most recently kept, whatever the file's last write
        forget_the_oldest(path.parent)

    @property
    def viewing(self) -> int | None:
        """The offset the contracts screen shows; None before it has read one."""
        return self._viewing

    def view(self, offset: int | None) -> None:
        if offset != self._viewing:
            self._viewing = offset
            self._viewing_subscribers.tell(offset)

    def subscribe(self, callback: Callable[[int | None], None]) -> Callable[[], None]:
        """Hear of each new offset viewed."""
        return self._viewing_subscribers.subscribe(callback)


def clean_stale_snapshots(directory: Path) -> None:
    """Snapshot files of ledger-tui processes that no longer run (killed before they could delete them)."""
    if not directory.is_dir():
        return
    for path in directory.glob("*.db"):
        pid = path.name.split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            for suffix in ("", "-journal"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
