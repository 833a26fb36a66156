"""One line of the transactions screen per update: what an update is (transaction, reassignment, topology event),
reduced to the few columns the screen shows and the filters match. The update itself is not kept: a window of a
thousand rows stays a few hundred kilobytes, and `enter` reads the update again in full."""

from __future__ import annotations

from dataclasses import dataclass

from app.daml import template_name
from participant.api import JsReassignment, JsTopologyTransaction, JsTransaction, Update

TRANSACTION, ASSIGN, UNASSIGN, REASSIGN, TOPOLOGY = (
    "transaction",
    "assign",
    "unassign",
    "reassign",
    "topology",
)


@dataclass(frozen=True, slots=True)
class UpdateRow:
    offset: int
    update_id: str
    record_time: str
    kind: str  # one of TRANSACTION, ASSIGN, UNASSIGN, REASSIGN (both in one update), TOPOLOGY
    command_id: str  # "" when not shown: the participant tells it only to the submitting parties
    workflow_id: str
    templates: tuple[str, ...]  # full template ids, in the order first met
    choices: tuple[str, ...]  # the choices exercised, root exercises first
    created: int
    archived: int  # consuming exercises (LEDGER_EFFECTS) or archived events (ACS_DELTA)
    acting: tuple[
        str, ...
    ]  # the acting parties of the root exercises (a transaction's submitters among them)
    submitter: str  # a reassignment's submitter; "" for a transaction, whose actAs the API does not give
    parties: frozenset[str]  # every party named in it: witnesses, signatories, observers, actors
    contracts: tuple[str, ...]  # the contracts it touched

    @property
    def who(self) -> tuple[str, ...]:
        """Who did it, as far as the update says: the submitter of a reassignment, else the root actors."""
        return (self.submitter,) if self.submitter else self.acting

    def searchable(self) -> str:
        """The text that `/`'s free text is looked for in (lower case)."""
        return " ".join(
            (
                str(self.offset),
                self.update_id,
                self.kind,
                self.command_id,
                self.workflow_id,
                *self.templates,
                *self.choices,
                *self.parties,
                *self.contracts,
            )
        ).lower()


def row_of(update: Update) -> UpdateRow | None:
    """The row of an update; None for an offset checkpoint, which is progress rather than an update."""
    if update.transaction is not None:
        return _transaction(update.transaction.value)
    if update.reassignment is not None:
        return _reassignment(update.reassignment.value)
    if update.topology_transaction is not None:
        return _topology(update.topology_transaction.value)
    return None


def _transaction(tx: JsTransaction) -> UpdateRow:
    templates: dict[str, None] = {}
    choices: dict[str, None] = {}
    contracts: dict[str, None] = {}
    parties: set[str] = set()
    acting: dict[str, None] = {}
    created = archived = 0
    covered = -1  # the last node id under a root exercise seen so far: nodes up to it are not roots
    for event in sorted(tx.events, key=_node_id):
        if (c := event.created_event) is not None:
            created += 1
            templates.setdefault(c.template_id)
            contracts.setdefault(c.contract_id)
            parties.update(c.signatories, c.observers, c.witness_parties)
        elif (e := event.exercised_event) is not None:
            templates.setdefault(e.interface_id or e.template_id)
            choices.setdefault(e.choice)
            contracts.setdefault(e.contract_id)
            parties.update(e.acting_parties, e.witness_parties)
            archived += e.consuming
            if e.node_id > covered:
                acting.update(dict.fromkeys(e.acting_parties))
                covered = max(covered, e.last_descendant_node_id)
        elif (a := event.archived_event) is not None:
            archived += 1
            templates.setdefault(a.template_id)
            contracts.setdefault(a.contract_id)
            parties.update(a.witness_parties)
    return UpdateRow(
        offset=tx.offset,
        update_id=tx.update_id,
        record_time=tx.record_time,
        kind=TRANSACTION,
        command_id=tx.command_id or "",
        workflow_id=tx.workflow_id or "",
        templates=tuple(templates),
        choices=tuple(choices),
        created=created,
        archived=archived,
        acting=tuple(acting),
        submitter="",
        parties=frozenset(parties),
        contracts=tuple(contracts),
    )


def _node_id(event) -> int:
    inner = event.created_event or event.exercised_event or event.archived_event
    return inner.node_id if inner is not None else 0


def _reassignment(r: JsReassignment) -> UpdateRow:
    templates: dict[str, None] = {}
    contracts: dict[str, None] = {}
    parties: set[str] = set()
    submitters: dict[str, None] = {}
    kinds: set[str] = set()
    for event in r.events:
        if (a := event.js_assignment_event) is not None:
            kinds.add(ASSIGN)
            c = a.created_event
            templates.setdefault(c.template_id)
            contracts.setdefault(c.contract_id)
            parties.update(c.signatories, c.observers, c.witness_parties)
            if a.submitter:
                submitters.setdefault(a.submitter)
        elif (u := event.js_unassigned_event) is not None:
            kinds.add(UNASSIGN)
            v = u.value
            templates.setdefault(v.template_id)
            contracts.setdefault(v.contract_id)
            parties.update(v.witness_parties)
            if v.submitter:
                submitters.setdefault(v.submitter)
    return UpdateRow(
        offset=r.offset,
        update_id=r.update_id,
        record_time=r.record_time,
        kind=kinds.pop() if len(kinds) == 1 else REASSIGN,
        command_id=r.command_id or "",
        workflow_id=r.workflow_id or "",
        templates=tuple(templates),
        choices=(),
        created=0,
        archived=0,
        acting=(),
        submitter=", ".join(submitters),
        parties=frozenset(parties | set(submitters)),
        contracts=tuple(contracts),
    )


def _topology(t: JsTopologyTransaction) -> UpdateRow:
    parties: set[str] = set()
    for event in t.events:
        inner = event.event
        if inner is None:
            continue
        for alternative in (
            inner.participant_authorization_added,
            inner.participant_authorization_changed,
            inner.participant_authorization_onboarding,
            inner.participant_authorization_revoked,
        ):
            if alternative is not None:
                parties.add(alternative.value.party_id)
    return UpdateRow(
        offset=t.offset,
        update_id=t.update_id,
        record_time=t.record_time,
        kind=TOPOLOGY,
        command_id="",
        workflow_id="",
        templates=(),
        choices=(),
        created=0,
        archived=0,
        acting=(),
        submitter="",
        parties=frozenset(parties),
        contracts=(),
    )


def template_names(row: UpdateRow) -> str:
    return ", ".join(template_name(t) for t in row.templates)


__all__ = ["UpdateRow", "row_of", "template_names"]
