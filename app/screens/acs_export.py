"""`w` on the contracts screen: where to write the contracts in view (JSON lines, or CSV of the columns shown),
asked again rather than replacing a file unless the user says so, then written from the cache by a worker of the
screen. The struck-out comparison rows are no contracts of the offset: they are left out, and the user is told."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.screen import Screen

from app.counting import count as counted
from app.screens.dialogs import ChoiceDialog, PromptDialog
from app.snapshot import Snapshot
from app.widgets.acs_columns import row_export_columns
from app.widgets.contract_table import Column


@dataclass(frozen=True)
class InView:
    """What the screen shows: the cache's view at `offset`, its columns, and what its struck-out rows are."""

    snapshot: Snapshot
    offset: int | None
    columns: list[Column]
    struck_out: str


def ask_export(
    screen: Screen, view: InView, progress: Callable[[str], None], value: str | None = None
) -> None:
    """Ask where to export, starting from `value` (by default a file named for the offset, in the working
    directory); a file that exists is replaced only once the user says so, and saying no asks again from the path
    typed."""
    contracts, gone = view.snapshot.views.view_contracts, view.snapshot.views.view_removed

    def check(text: str) -> str | None:
        if not text.endswith((".jsonl", ".csv")):
            return "the file name must end with .jsonl (JSON lines) or .csv"
        path = Path(text).expanduser()
        if path.is_dir():
            return f"{path} is a directory"
        return None if path.parent.is_dir() else f"no such directory: {path.parent}"

    def chosen(typed: str | None) -> None:
        if not typed:
            return
        path = Path(typed).expanduser()
        if not path.exists():
            _write(screen, view, progress, path, overwrite=False)
            return

        def answered(overwrite: bool | None) -> None:
            if overwrite:
                _write(screen, view, progress, path, overwrite=True)
            else:
                ask_export(screen, view, progress, typed)

        screen.app.push_screen(
            ChoiceDialog(
                f"{path} exists.",  # the dialog shows its title as plain text
                [("Overwrite it", True), ("Cancel: choose another file", False)],
            ),
            answered,
        )

    left_out = f"; the {counted(gone, 'struck-out row')} ({view.struck_out}) are left out" if gone else ""
    screen.app.push_screen(
        PromptDialog(
            f"Export the {counted(contracts, 'contract')} at offset {view.offset} to",
            value=value if value is not None else str(Path.cwd() / f"contracts-at-{view.offset}.jsonl"),
            validate=check,
            hint=".jsonl writes each contract's create event fields as JSON; .csv the columns in view, with full ids"
            + left_out,
        ),
        chosen,
    )


def _write(
    screen: Screen, view: InView, progress: Callable[[str], None], path: Path, *, overwrite: bool
) -> None:
    screen.run_worker(
        _export(screen, view, progress, path, overwrite=overwrite),
        group="acs-export",
        exclusive=True,
        exit_on_error=False,
    )


async def _export(
    screen: Screen, view: InView, progress: Callable[[str], None], path: Path, *, overwrite: bool
) -> None:
    fmt = "csv" if path.suffix == ".csv" else "jsonl"
    progress(f"exporting to {path.name}…")
    try:
        written = await view.snapshot.export.write(
            path, fmt, row_export_columns(view.columns), overwrite=overwrite
        )
    except OSError as e:
        progress("")
        screen.notify(f"Cannot write {path}: {e.strerror or e}", severity="error", title="Export failed")
        return
    progress("")
    gone = view.snapshot.views.view_removed
    left_out = f"; not in it: {counted(gone, 'struck-out row')} ({view.struck_out})" if gone else ""
    screen.notify(
        f"Wrote the {counted(written, 'contract')} at offset {view.offset} to {path}{left_out}",
        title="Exported",
        timeout=6,
    )
