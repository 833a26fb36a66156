"""Reassignment: moving contracts between the synchronizers the participant is connected to (docs/ledger-api.md §4.5, §10).

An unassignment takes contracts off their source synchronizer (they are in flight, usable nowhere) under a new
reassignment id and bumps their reassignment counters; the assignment of that id puts them on the target with the
same counters. Validation follows Canton's submission-side checks, in Canton's words; it reads the ledger through a
`ReassignmentSource` and never writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from participant.base import errors
from participant.base.transactions import AssignNode, Reassignment, ReassignmentSource, UnassignNode
from participant.engine import ids

REASSIGNMENT_ID = re.compile(r"00(?:[0-9a-fA-F]{2})+")


@dataclass(frozen=True)
class Unassign:
    contract_id: str
    source: str
    target: str


@dataclass(frozen=True)
class Assign:
    reassignment_id: str
    source: str
    target: str


ReassignmentCommand = Unassign | Assign


def is_reassignment_id(text: str) -> bool:
    return REASSIGNMENT_ID.fullmatch(text) is not None


def check_batch(commands: list[ReassignmentCommand]) -> None:
    """Canton's batch rules: exactly one assignment, or unassignments that share their source and target."""

    def invalid(reason: str) -> errors.LedgerError:
        return errors.INVALID_ARGUMENT(f"The batch of reassignment commands was invalid: {reason}")

    if not commands:
        raise invalid("no commands")
    if any(isinstance(c, Assign) for c in commands):
        if len(commands) > 1:
            raise invalid("mixed assign with other commands")
        return
    if len({(c.source, c.target) for c in commands}) > 1:
        raise invalid("differing synchronizers")


def new_reassignment_id(generator: ids.IdGenerator) -> str:
    """Hex with the leading version byte 00, as Canton's reassignment ids."""
    return "00" + generator.update_id()[4:]


def _unresolved(synchronizer_id: str) -> errors.LedgerError:
    return errors.INVALID_ARGUMENT(
        f"Unable to resolve {synchronizer_id} to a connected physical synchronizer id"
    )


def _not_stakeholder(reference: str, submitter: str) -> errors.LedgerError:
    return errors.INVALID_ARGUMENT(
        f"Submission failed because: For {reference}: submitter `{submitter}` is not a stakeholder. "
    )


async def interpret(
    commands: list[ReassignmentCommand],
    submitter: str,
    source: ReassignmentSource,
    connected: frozenset[str],
    generator: ids.IdGenerator,
) -> Reassignment:
    """Validate a batch against the ledger as it stands and build its reassignment, or raise Canton's error."""
    check_batch(commands)
    first = commands[0]
    for synchronizer in (first.source, first.target):
        if synchronizer not in connected:
            raise _unresolved(synchronizer)
    if isinstance(first, Assign):
        return await _assign(first, submitter, source)
    return await _unassign(commands, submitter, source, generator)  # type: ignore[arg-type]  # check_batch: no Assign


async def _unassign(
    commands: list[Unassign], submitter: str, source: ReassignmentSource, generator: ids.IdGenerator
) -> Reassignment:
    first = commands[0]
    contract_ids = list(dict.fromkeys(c.contract_id for c in commands))
    if first.source == first.target:
        raise errors.INVALID_ARGUMENT(
            f"Cannot unassign contracts `{', '.join(contract_ids)}`: source and target synchronizers are the same"
        )
    reassignment_id = new_reassignment_id(generator)
    nodes = []
    for node_id, contract_id in enumerate(contract_ids):
        contract = await source.contract_state(contract_id)
        if contract is None or (contract.synchronizer_id != first.source and not contract.in_flight):
            raise errors.INVALID_ARGUMENT(f"Cannot unassign contract `{contract_id}`: unknown contract")
        if contract.in_flight:
            raise errors.INVALID_ARGUMENT(
                f"Cannot unassign contract `{contract_id}` because it's not active. Current status "
                f"ReassignedAway(reassignmentCounter={contract.reassignment_counter})"
            )
        if submitter not in contract.stakeholders:
            raise _not_stakeholder(f"ContractIdRef({contract_id})", submitter)
        nodes.append(
            UnassignNode(
                node_id,
                reassignment_id,
                contract,
                first.source,
                first.target,
                contract.reassignment_counter + 1,
            )
        )
    return Reassignment("unassign", reassignment_id, first.source, first.target, submitter, nodes)


async def _assign(command: Assign, submitter: str, source: ReassignmentSource) -> Reassignment:
    rid = command.reassignment_id
    if command.source == command.target:
        raise errors.INVALID_ARGUMENT(f"Cannot assign `{rid}`: source and target synchronizers are the same")
    data = await source.reassignment(rid)
    if data is None or data.source != command.source or data.target != command.target:
        raise errors.INVALID_ARGUMENT(
            f"Cannot find reassignment data for reassignment `{rid}`: unknown reassignment id"
        )
    if data.completed:
        raise errors.INVALID_ARGUMENT(
            f"Cannot find reassignment data for reassignment `{rid}`: reassignment already completed"
        )
    nodes = []
    for node_id, unassigned in enumerate(data.contracts):
        contract = await source.contract_state(unassigned.contract_id)
        if contract is None or contract.in_flight != rid:  # cannot happen: in-flight contracts stay put
            raise errors.INVALID_ARGUMENT(
                f"Cannot find reassignment data for reassignment `{rid}`: unknown reassignment id"
            )
        if submitter not in contract.stakeholders:
            raise _not_stakeholder(f"ReassignmentIdRef({rid})", submitter)
        arrived = replace(
            contract, synchronizer_id=command.target, reassignment_counter=unassigned.counter, in_flight=""
        )
        nodes.append(AssignNode(node_id, rid, arrived, command.source, command.target, unassigned.counter))
    return Reassignment("assign", rid, command.source, command.target, submitter, nodes)
