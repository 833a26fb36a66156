"""The participant's packages as every screen shares them: one catalog per connection (`app.packages`), read once
when first asked for (after the contracts screen's first reading), awaited by every screen that needs it meanwhile.

Light to import: the Daml-LF reader behind the catalog is imported when the packages are first read, so that
connecting (which builds the session holding this) does not wait for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.client import LedgerClient
    from app.packages import PackageCatalog, Progress


class SharedCatalog:
    """The catalog of one connection, read once for every screen: the first to ask starts the reading, the others
    wait for the same one, and `current` is what was read (None until then). The reading is not the asking
    screen's: a screen closed meanwhile does not stop it."""

    def __init__(self, client: LedgerClient) -> None:
        self._client = client
        self._task: asyncio.Task[PackageCatalog] | None = None
        self._watchers: list[Callable[[Progress], None]] = []
        self.current: PackageCatalog | None = None

    async def get(
        self, cache_dir: Path, *, progress: Callable[[Progress], None] | None = None, again: bool = False
    ) -> PackageCatalog:
        """The catalog, read when first asked; `again`: read anew once the last reading is over (after a
        problem); `progress` is told how the reading goes while this call waits for it."""
        task = self._task
        if task is None or (task.done() and (again or task.cancelled() or task.exception() is not None)):
            # the Daml-LF reader behind it: imported when the packages are first read, not at connect
            from app.packages import PackageCatalog

            catalog = PackageCatalog(self._client, cache_dir, progress=self._progressed)
            task = self._task = asyncio.ensure_future(self._read(catalog))
        if progress is not None:
            self._watchers.append(progress)
        try:
            return await asyncio.shield(task)
        finally:
            if progress is not None:
                self._watchers.remove(progress)

    def has_read(self, package_id: str) -> bool:
        """Whether the last reading listed `package_id` (decoded, not Daml-LF, or unreadable): a package the
        participant gained since is not, and a new reading finds it."""
        catalog = self.current
        return catalog is not None and (
            package_id in catalog.packages
            or package_id in catalog.not_daml_lf
            or package_id in catalog.unreadable
        )

    async def _read(self, catalog: PackageCatalog) -> PackageCatalog:
        await catalog.load()
        self.current = catalog
        return catalog

    def _progressed(self, progress: Progress) -> None:
        for watcher in list(self._watchers):
            watcher(progress)


__all__ = ["SharedCatalog"]
