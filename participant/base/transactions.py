"""Contracts and the updates that change them: what the engine reads and produces and the store persists.

These are plain dataclasses, not wire models: the engine interprets commands into them (a `Transaction`, a
`Reassignment`), the store persists them and reads them back, and `participant.projection.shaping` turns them into the wire
events of a requested format. Values inside them are already in
the JSON value encoding of the spec (the output form: Int64 and Numeric as strings, Decimal padded to scale 10).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

Json = Any


@dataclass(frozen=True)
class Contract:
    """A contract as stored: everything a `CreatedEvent` needs, whatever the request's format."""

    contract_id: str
    template_id: str  # "<packageId>:<Module>:<Entity>"
    package_name: str
    argument: Json
    signatories: tuple[str, ...]
    observers: tuple[str, ...]  # never includes a signatory
    key: Json | None
    key_hash: str  # "" when the template has no key
    created_at: datetime
    synchronizer_id: str
    reassignment_counter: int = 0
    in_flight: str = ""  # the reassignment it is unassigned in, while it is in flight ("" when assigned)

    @property
    def stakeholders(self) -> frozenset[str]:
        return frozenset(self.signatories) | frozenset(self.observers)


# --- the nodes of an interpreted transaction, in execution (pre-)order; node ids are their positions


@dataclass
class CreateNode:
    node_id: int
    contract: Contract


@dataclass
class ExerciseNode:
    node_id: int
    contract_id: str
    template_id: str
    package_name: str
    choice: str
    choice_argument: Json
    acting_parties: tuple[str, ...]
    consuming: bool
    stakeholders: tuple[str, ...]  # of the exercised contract
    signatories: tuple[str, ...]  # of the exercised contract
    choice_observers: tuple[str, ...] = ()
    children: list[int] = field(default_factory=list)
    last_descendant_node_id: int = 0
    exercise_result: Json = None
    interface_id: str | None = None  # the interface whose choice it is, when exercised through one


@dataclass
class FetchNode:
    """Recorded for witnessing only: fetches never appear as events on the JSON API."""

    node_id: int
    contract_id: str
    template_id: str
    acting_parties: tuple[str, ...]
    stakeholders: tuple[str, ...]


@dataclass
class UnassignNode:
    """One contract leaving `source` for `target` in a reassignment; `contract` as it was on the source."""

    node_id: int
    reassignment_id: str
    contract: Contract
    source: str
    target: str
    counter: int  # the contract's counter on the source plus one


@dataclass
class AssignNode:
    """One contract arriving on `target`; `contract` as it is there (synchronizer and counter updated)."""

    node_id: int
    reassignment_id: str
    contract: Contract
    source: str
    target: str
    counter: int  # the same as the unassignment's


@dataclass
class AuthorizationNode:
    """A party hosted on a participant from now on (Canton's `ParticipantAuthorizationAdded`): the event of the
    topology transaction a party allocation makes."""

    node_id: int
    party: str
    participant_id: str
    permission: str  # PARTICIPANT_PERMISSION_SUBMISSION, _CONFIRMATION or _OBSERVATION


Node = CreateNode | ExerciseNode | FetchNode | UnassignNode | AssignNode | AuthorizationNode


@dataclass
class Transaction:
    """The result of interpreting one submission: nodes plus what it does to the active contract set."""

    nodes: list[Node]
    roots: list[int]
    created: list[Contract]  # every contract the transaction creates, transient ones included
    archived: list[str]  # ids of contracts consumed, transient ones included
    ledger_effective_time: datetime
    synchronizer_id: str = ""  # where it runs: where its inputs live, or the prescribed or default one

    def is_transient(self, contract_id: str) -> bool:
        return contract_id in self.archived and any(c.contract_id == contract_id for c in self.created)


class ContractSource(Protocol):
    """The engine's view of the ledger while it interprets (the store answers, with the batch's own effects
    applied first so that submissions in one group commit behave as if they ran one after another)."""

    async def active_contract(self, contract_id: str) -> Contract | None:
        """The contract if it is active now, else None (unknown and archived look the same)."""

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        """The active contract of that template with that key hash, if any."""


@dataclass(frozen=True)
class UnassignedContract:
    """What the ledger knows of one contract of a reassignment's unassignment."""

    contract_id: str
    counter: int


@dataclass(frozen=True)
class ReassignmentData:
    """A reassignment as its assignment needs it: the unassigned contracts, and whether it was assigned."""

    reassignment_id: str
    source: str
    target: str
    submitter: str
    contracts: tuple[UnassignedContract, ...]
    completed: bool


class ReassignmentSource(ContractSource, Protocol):
    """What reassignments read: contracts (in flight or not), and reassignments by id."""

    async def contract_state(self, contract_id: str) -> Contract | None:
        """The contract if it is not archived, in flight or not (`Contract.in_flight`), else None."""

    async def reassignment(self, reassignment_id: str) -> ReassignmentData | None:
        """The reassignment with that id, if its unassignment is known."""


@dataclass
class Reassignment:
    """An interpreted reassignment: one update, with one node per contract."""

    kind: str  # "unassign" | "assign"
    reassignment_id: str
    source: str
    target: str
    submitter: str
    nodes: list[UnassignNode] | list[AssignNode]

    @property
    def synchronizer_id(self) -> str:
        """Where it is recorded: the source for an unassignment, the target for an assignment."""
        return self.source if self.kind == "unassign" else self.target

    def contracts_after(self) -> list[Contract]:
        """Each contract as the reassignment leaves it."""
        if self.kind == "assign":
            return [n.contract for n in self.nodes]
        return [
            replace(n.contract, in_flight=self.reassignment_id, reassignment_counter=n.counter)
            for n in self.nodes
        ]
