"""The engine's reassignment rules on an in-memory ledger: batches, counters, in-flight contracts, routing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from participant.base import errors
from participant.base.transactions import Contract, Reassignment, ReassignmentData, UnassignedContract
from participant.engine import ids, reassignment
from participant.engine.commands import CreateCommand, ExerciseCommand
from participant.engine.reassignment import Assign, Unassign
from tests.engine.conftest import ALICE, BOB, IOU, NAMESPACE, SYNCHRONIZER, Harness

PRIVATE = ids.synchronizer_id("private", NAMESPACE)
CONNECTED = frozenset({SYNCHRONIZER, PRIVATE})


class Source:
    """The harness's contracts, with in-flight state and reassignments, as the store answers them."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.data: dict[str, ReassignmentData] = {}

    async def active_contract(self, contract_id: str) -> Contract | None:
        return self.harness.ledger.contracts.get(contract_id)

    contract_state = active_contract

    async def active_contract_by_key(self, template_id, key_hash):
        return None

    async def reassignment(self, reassignment_id: str) -> ReassignmentData | None:
        return self.data.get(reassignment_id)

    def apply(self, r: Reassignment) -> None:
        for c in r.contracts_after():
            self.harness.ledger.contracts[c.contract_id] = c
        self.data[r.reassignment_id] = ReassignmentData(
            r.reassignment_id,
            r.source,
            r.target,
            r.submitter,
            tuple(UnassignedContract(n.contract.contract_id, n.counter) for n in r.nodes),
            r.kind == "assign",
        )


async def iou(h: Harness, owner: str = ALICE, observers: tuple[str, ...] = ()) -> str:
    tx = await h.submit(
        CreateCommand(
            IOU,
            {
                "issuer": owner,
                "owner": owner,
                "currency": "USD",
                "amount": "1.0",
                "observers": list(observers),
            },
        ),
        act_as=(owner,),
    )
    return tx.created[0].contract_id


async def test_unassign_then_assign():
    h = Harness()
    source = Source(h)
    cid = await iou(h)
    out = await reassignment.interpret(
        [Unassign(cid, SYNCHRONIZER, PRIVATE)], ALICE, source, CONNECTED, h.engine.ids
    )
    assert out.kind == "unassign" and out.synchronizer_id == SYNCHRONIZER
    assert reassignment.is_reassignment_id(out.reassignment_id)
    assert [n.counter for n in out.nodes] == [1]
    source.apply(out)
    assert h.ledger.contracts[cid].in_flight == out.reassignment_id
    with pytest.raises(errors.LedgerError) as e:  # in flight: on no synchronizer
        await h.submit(ExerciseCommand(IOU, cid, "Iou_Split", {"splitAmount": "0.5"}))
    assert e.value.code is errors.UNKNOWN_CONTRACT_SYNCHRONIZERS
    into = await reassignment.interpret(
        [Assign(out.reassignment_id, SYNCHRONIZER, PRIVATE)], ALICE, source, CONNECTED, h.engine.ids
    )
    assert into.synchronizer_id == PRIVATE and into.nodes[0].counter == 1
    source.apply(into)
    tx = await h.submit(ExerciseCommand(IOU, cid, "Iou_Split", {"splitAmount": "0.5"}))
    assert tx.synchronizer_id == PRIVATE and {c.synchronizer_id for c in tx.created} == {PRIVATE}
    with pytest.raises(errors.LedgerError, match="reassignment already completed"):
        await reassignment.interpret(
            [Assign(out.reassignment_id, SYNCHRONIZER, PRIVATE)], ALICE, source, CONNECTED, h.engine.ids
        )


@pytest.mark.parametrize(
    ("commands", "says"),
    [
        ([], "no commands"),
        ([Assign("00ab", "s", "t"), Assign("00cd", "s", "t")], "mixed assign with other commands"),
        ([Unassign("c", "s", "t"), Unassign("d", "t", "s")], "differing synchronizers"),
    ],
)
def test_batch_rules(commands, says):
    with pytest.raises(errors.LedgerError, match=says):
        reassignment.check_batch(commands)


async def test_only_stakeholders_move_contracts_and_inputs_decide_where_a_transaction_runs():
    h = Harness()
    source = Source(h)
    cid, other = await iou(h, observers=(BOB,)), await iou(h)
    with pytest.raises(errors.LedgerError, match="is not a stakeholder"):
        await reassignment.interpret(
            [Unassign(other, SYNCHRONIZER, PRIVATE)], BOB, source, CONNECTED, h.engine.ids
        )
    h.ledger.contracts[other] = replace(h.ledger.contracts[other], synchronizer_id=PRIVATE)
    with pytest.raises(errors.LedgerError) as e:
        await h.submit(ExerciseCommand(IOU, cid, "Iou_Merge", {"otherCid": other}))
    assert e.value.code is errors.MULTI_SYNCHRONIZER_SUPPORT_NOT_ENABLED
    assert reassignment.is_reassignment_id("00" + "ab" * 32) and not reassignment.is_reassignment_id("01ab")
