"""What a headless command line names short, expanded as the terminal client expands it (`app.ids` decides), against
what the participant says: a contract id's beginning among the active contracts the command may read, a party's
short name (``Alice``) among the parties the user's rights name and, for an administrator, the participant's parties.

What cannot be expanded is refused before anything is sent (`Unresolved`, exit code 1): an ambiguous beginning with
its matches counted, a short name no known party has. A whole contract id, and a party id (``name::fingerprint``),
go as typed: the participant may know what this client cannot list (another participant's party).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from app.client import LedgerClient, errors
from app.client.acs import read_snapshot
from app.client.ledger import event_format
from app.daml import looks_like_contract_id
from app.ids import PARTY_SEPARATOR, Expansion, could_begin_contract_id, expand_party, expand_prefix
from app.session import Identity
from app.untrusted import visible

UNKNOWN_PARTY_HINT = (
    "write the party's id (name::fingerprint): short names stand for the parties of the user's rights and, for an "
    "administrator, the participant's parties"
)
SHOWN_CANDIDATES = 10  # matches an ambiguity names in its JSON document (the count says how many there are)


class Unresolved(Exception):
    """Text the command line gave that stands for no one id, or for several: nothing was sent."""

    def __init__(self, found: Expansion, what: str, hint: str = "") -> None:
        super().__init__(found.note())
        self.document: dict[str, object] = {
            "error": f"{what} {found.typed!r}: {found.problem}",
            "typed": found.typed,
            "candidates": len(found.matches),
            "matches": list(found.matches[:SHOWN_CANDIDATES]),
        }
        if hint:
            self.document["hint"] = hint


def said(found: Expansion) -> None:
    """Tell the user (stderr: stdout is the command's data) what a short text was taken for."""
    if found.expanded:
        print(f"ledger-tui: {visible(found.note())}", file=sys.stderr)


async def known_parties(client: LedgerClient, who: Identity) -> list[str]:
    """The parties a short name may stand for: the user's own (its rights) and, when the token may list them, the
    participant's (listing parties needs admin rights, as in Canton)."""
    known = [*who.act_as, *who.read_as]
    if who.admin or who.read_any:
        try:
            known += [p.party for p in await client.parties()]
        except errors.LedgerApiError:
            pass  # what the rights name is still there
    return list(dict.fromkeys(known))


def party(typed: str, known: Iterable[str]) -> str:
    """The party id `typed` stands for, said on stderr when expanded; `Unresolved` when a short name stands for
    several parties or none."""
    found = expand_party(typed, known)
    if found.problem and PARTY_SEPARATOR in found.typed and not found.ambiguous:
        return found.typed  # a whole party id this participant does not list: the participant decides
    if found.problem:
        raise Unresolved(found, "party", UNKNOWN_PARTY_HINT if not found.ambiguous else "")
    said(found)
    return found.value


def parties(typed: Iterable[str], known: Iterable[str]) -> list[str]:
    known = list(known)
    return list(dict.fromkeys(party(p, known) for p in typed))


async def contract_id(client: LedgerClient, typed: str, readers: list[str] | None) -> str:
    """A whole contract id as typed; a beginning of one (hex digits) expanded among the contracts active at the
    ledger end for `readers` (None: any party), or `Unresolved`."""
    typed = typed.strip()
    if looks_like_contract_id(typed) or not could_begin_contract_id(typed):
        return typed  # whole, or not hex: the participant answers for it
    held: list[str] = []
    async for batch in read_snapshot(client, await client.ledger_end(), event_format(readers, verbose=False)):
        held += [cid for cid in map(_contract_id, batch.entries) if cid.startswith(typed)]
    found = expand_prefix(typed, held, "contract: no active contract the command may read begins so")
    if found.problem:
        raise Unresolved(found, "contract id")
    said(found)
    return found.value


def _contract_id(entry: dict) -> str:
    for kind in (entry.get("contractEntry") or {}).values():
        if isinstance(kind, dict):
            created = kind.get("createdEvent") or (kind.get("assignedEvent") or {}).get("createdEvent") or {}
            cid = created.get("contractId") or (kind.get("unassignedEvent") or {}).get("contractId")
            if isinstance(cid, str):
                return cid
    return ""
