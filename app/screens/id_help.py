"""Ids typed short, outside the composer: a contract id's beginning expanded against the contracts the contracts
screen holds, an interface id's package against the packages read (`app.ids` decides; this reads the sets), and
the open-a-contract prompt that takes either."""

from __future__ import annotations

from typing import cast

from textual.app import App

from app.daml import looks_like_contract_id
from app.ids import SHORTEST, Expansion, could_begin_contract_id, expand_prefix, expand_template_id
from app.messages import OpenContract
from app.screens.dialogs import PromptDialog
from app.screens.host import LedgerHost

MATCHES_READ = (
    1000  # contract ids read for one prefix: enough to count an ambiguity, bounded on a large cache
)


async def expand_contract_id(host: LedgerHost, typed: str) -> Expansion:
    """A whole contract id as it is; a beginning of one, expanded among the contracts the contracts screen holds."""
    typed = typed.strip()
    if looks_like_contract_id(typed) or not typed:
        return expand_prefix(typed, [typed])
    snapshot = host.workspace.acs.snapshot
    held = await snapshot.views.ids_with_prefix(typed, MATCHES_READ) if snapshot is not None else []
    return expand_prefix(typed, held, "contract: the contracts screen holds none that begins so")


def expand_interface_id(host: LedgerHost, typed: str) -> Expansion:
    """``packageId:Module:Interface`` whose package id is a beginning of one read, expanded; and in the
    ``#package-name`` form when that package's name is known (what filters take)."""
    catalog = host.workspace.packages
    if catalog is None:
        return Expansion(typed, typed)
    found = expand_template_id(typed, catalog.packages)
    if found.problem or found.value.startswith("#"):
        return found
    package_id, _, rest = found.value.partition(":")
    package = catalog.packages.get(package_id)
    value = f"#{package.name}:{rest}" if package is not None else found.value
    return Expansion(found.typed, value, matches=(value,))


def ask_contract_to_open(app: App, typed: str = "") -> None:
    """The open-a-contract prompt: a contract id, or the beginning of one the contracts screen holds."""
    host = cast(LedgerHost, app)

    def check(text: str) -> str | None:
        text = text.strip()
        if looks_like_contract_id(text) or could_begin_contract_id(text):
            return None
        return f"a contract id is a long hex string (00…), or its first {SHORTEST} digits or more"

    async def open_expanded(text: str) -> None:
        found = await expand_contract_id(host, text)
        if found.problem:
            app.notify(found.note(), title="Not opened", severity="warning", timeout=8)
            ask_contract_to_open(app, text)  # keep what was typed, to be typed on
            return
        if found.expanded:
            app.notify(found.note(), title="Expanded", timeout=5)
        app.post_message(OpenContract(found.value))

    def chosen(value: str | None) -> None:
        if value:
            app.run_worker(open_expanded(value), group="open-contract", exclusive=True, exit_on_error=False)

    app.push_screen(
        PromptDialog(
            "Open a contract by id",
            value=typed,
            placeholder="00…",
            validate=check,
            hint="paste a contract id, or type its beginning (one the contracts screen holds); it opens in the "
            "inspector",
            select_on_focus=not typed,
        ),
        chosen,
    )


__all__ = ["ask_contract_to_open", "could_begin_contract_id", "expand_contract_id", "expand_interface_id"]
