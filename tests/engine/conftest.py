"""An in-memory ledger for the engine: a dict-backed ContractSource that commits what the engine returns."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from participant.base.transactions import Contract, ExerciseNode, Transaction
from participant.engine import ids
from participant.engine.commands import CreateCommand, ExerciseCommand, Submission
from participant.engine.interpreter import Engine
from participant.engine.registry import PackageRegistry
from participant.models import iou, keyed

NAMESPACE = ids.fingerprint("engine-tests")
ALICE = ids.party_id("Alice", NAMESPACE)
BOB = ids.party_id("Bob", NAMESPACE)
CHARLIE = ids.party_id("Charlie", NAMESPACE)
BANK = ids.party_id("Bank", NAMESPACE)
LEDGER_TIME = datetime(2025, 1, 2, 3, 4, 5, 600000, tzinfo=UTC)
SYNCHRONIZER = ids.synchronizer_id("da1", NAMESPACE)
IOU = "#model-tests:Iou:Iou"
IOU_TRANSFER = "#model-tests:Iou:IouTransfer"


class MemoryLedger:
    """Active contracts in a dict; `commit` applies a transaction as the store would."""

    def __init__(self) -> None:
        self.contracts: dict[str, Contract] = {}

    async def active_contract(self, contract_id: str) -> Contract | None:
        return self.contracts.get(contract_id)

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        return next(
            (c for c in self.contracts.values() if c.template_id == template_id and c.key_hash == key_hash),
            None,
        )

    def commit(self, transaction: Transaction) -> None:
        for contract in transaction.created:
            self.contracts[contract.contract_id] = contract
        for contract_id in transaction.archived:
            self.contracts.pop(contract_id, None)


class Harness:
    def __init__(self) -> None:
        self.registry = PackageRegistry([iou.package, keyed.package])
        self.engine = Engine(self.registry, id_generator=ids.IdGenerator("engine-tests"))
        self.ledger = MemoryLedger()

    async def submit(self, *commands, act_as=(ALICE,), read_as=(), disclosed=()) -> Transaction:
        submission = Submission(
            commands=tuple(commands), act_as=tuple(act_as), read_as=tuple(read_as), disclosed=tuple(disclosed)
        )
        transaction = await self.engine.interpret(
            submission, self.ledger, ledger_time=LEDGER_TIME, synchronizer_id=SYNCHRONIZER
        )
        self.ledger.commit(transaction)
        return transaction

    async def create_iou(
        self, issuer=ALICE, owner=ALICE, amount="999.99", currency="USD", observers=(), act_as=None
    ) -> str:
        arguments = {
            "issuer": issuer,
            "owner": owner,
            "currency": currency,
            "amount": amount,
            "observers": list(observers),
        }
        tx = await self.submit(CreateCommand(IOU, arguments), act_as=act_as or sorted({issuer, owner}))
        return tx.created[0].contract_id

    async def exercise(
        self, contract_id, choice, argument=None, *, template=IOU, act_as=(ALICE,), read_as=()
    ):
        tx = await self.submit(
            ExerciseCommand(template, contract_id, choice, argument), act_as=act_as, read_as=read_as
        )
        root = tx.nodes[tx.roots[0]]
        assert isinstance(root, ExerciseNode)
        return tx, root.exercise_result

    def argument(self, contract_id: str) -> dict:
        return self.ledger.contracts[contract_id].argument

    def amount(self, contract_id: str) -> Decimal:
        return Decimal(self.argument(contract_id)["amount"])


@pytest.fixture
def harness() -> Harness:
    return Harness()
