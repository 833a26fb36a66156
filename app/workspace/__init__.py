"""What the screens share, with one owner and no UI code (see `workspace.Workspace`)."""

from app.workspace.acs_cache import AcsCache, clean_stale_snapshots
from app.workspace.acs_loader import AcsLoader
from app.workspace.directory import Directory, DirectoryChange
from app.workspace.ledger_end import LedgerEnd
from app.workspace.workspace import Workspace

__all__ = [
    "AcsCache",
    "AcsLoader",
    "Directory",
    "DirectoryChange",
    "LedgerEnd",
    "Workspace",
    "clean_stale_snapshots",
]
