"""What a transaction being interpreted sees: the ledger (through a `ContractSource`), the submission's disclosed
contracts, and its own effects so far (contracts created and consumed, keys taken and freed).

Nothing here writes to the source: the caller commits the finished `Transaction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from participant.base import errors
from participant.base.transactions import Contract, ContractSource
from participant.engine.coding import decode
from participant.engine.definitions import TemplateDef
from participant.engine.registry import PackageRegistry


@dataclass(frozen=True)
class ViewMark:
    created: dict[str, Contract]
    consumed: int
    keys: dict[str, str | None]


class LedgerView:
    def __init__(
        self,
        registry: PackageRegistry,
        source: ContractSource,
        readers: frozenset[str],
        disclosed: tuple[Contract, ...] = (),
    ) -> None:
        self.registry = registry
        self.source = source
        self.readers = readers  # actAs ∪ readAs: whose contracts the submission may see
        self.disclosed = {c.contract_id: c for c in disclosed}
        self.created: dict[str, Contract] = {}
        self.consumed: list[str] = []
        self._consumed_set: set[str] = set()
        self._fetched: dict[str, Contract | None] = {}
        self._instances: dict[str, tuple[TemplateDef, Any]] = {}  # contract values, by the template read with
        self._keys: dict[str, str | None] = {}  # key hash -> holder in this transaction (None: freed here)
        self.input_synchronizers: dict[str, str] = {}  # synchronizer of each contract read from the ledger

    # --- contracts

    async def active(self, contract_id: str) -> Contract:
        """The contract if it is active and visible to the submission; otherwise Canton's error for it."""
        if contract_id in self._consumed_set:
            raise errors.CONTRACT_NOT_ACTIVE(
                f"Contract {contract_id} is not active: it was consumed earlier in this transaction",
                resources=[("CONTRACT_ID", contract_id)],
            )
        contract = self.created.get(contract_id) or await self._from_ledger(contract_id)
        if contract is None or not self.visible(contract):
            # Unknown, archived and invisible look the same, so that nothing leaks about others' contracts.
            raise errors.CONTRACT_NOT_FOUND(contract_id, resources=[("CONTRACT_ID", contract_id)])
        if contract.in_flight:  # unassigned, not yet assigned: on no synchronizer
            raise errors.UNKNOWN_CONTRACT_SYNCHRONIZERS(
                f"The synchronizers for the contracts List({contract_id}) are currently unknown due to ongoing "
                "contract reassignments or disconnected synchronizers",
                resources=[("CONTRACT_ID", f"[{contract_id}]")],
            )
        if contract_id not in self.created:
            self.input_synchronizers[contract_id] = contract.synchronizer_id
        return contract

    async def _from_ledger(self, contract_id: str) -> Contract | None:
        if contract_id not in self._fetched:
            self._fetched[contract_id] = await self.source.active_contract(contract_id)
        # A disclosed contract grants visibility, not activeness: the ledger still decides whether it is active.
        return self._fetched[contract_id]

    def visible(self, contract: Contract) -> bool:
        return (
            contract.contract_id in self.created
            or contract.contract_id in self.disclosed
            or not contract.stakeholders.isdisjoint(self.readers)
        )

    def template_of(self, contract: Contract, expected: TemplateDef | None) -> TemplateDef:
        """The template to read the contract with: `expected` if it names the contract's template (in any version
        of its package name, as upgrading allows), else the contract's own if its package is loaded."""
        if expected is not None:
            same = (
                contract.package_name == expected.package.name
                and contract.template_id.partition(":")[2] == expected.qualified_name
            )
            if not same:
                raise errors.WRONGLY_TYPED_CONTRACT(
                    f"Contract {contract.contract_id} is of template {contract.template_id}, "
                    f"but {expected.template_id} was expected",
                    resources=[("CONTRACT_ID", contract.contract_id)],
                )
            return expected
        template = self.registry.template_by_id(contract.template_id)
        if template is None:
            raise errors.PACKAGE_NOT_FOUND(
                f"Package of template {contract.template_id} is not loaded",
                resources=[("TEMPLATE_ID", contract.template_id)],
            )
        return template

    def instance(self, contract: Contract, template: TemplateDef) -> Any:
        """The contract's argument as a value of its template (stored arguments are in output JSON)."""
        cached = self._instances.get(contract.contract_id)
        if cached is None or cached[0] is not template:
            cached = template, decode(template.argument_type, contract.argument, "createArgument")
            self._instances[contract.contract_id] = cached
        return cached[1]

    def record_create(self, contract: Contract, template: TemplateDef, instance: Any) -> None:
        self.created[contract.contract_id] = contract
        self._instances[contract.contract_id] = template, instance
        if contract.key_hash:
            self._keys[contract.key_hash] = contract.contract_id

    def record_consume(self, contract: Contract) -> None:
        self.consumed.append(contract.contract_id)
        self._consumed_set.add(contract.contract_id)
        if contract.key_hash:
            self._keys[contract.key_hash] = None

    # --- rollback

    def mark(self) -> ViewMark:
        """The transaction's effects so far, for `roll_back`."""
        return ViewMark(dict(self.created), len(self.consumed), dict(self._keys))

    def roll_back(self, mark: ViewMark) -> None:
        """Undo the effects recorded since ``mark`` (a caught exception's rolled-back actions): their creates,
        consumptions and key changes. Reads stay cached, and contracts read stay inputs of the transaction."""
        self.created = dict(mark.created)
        for contract_id in self.consumed[mark.consumed :]:
            self._consumed_set.discard(contract_id)
        del self.consumed[mark.consumed :]
        self._keys = dict(mark.keys)

    # --- keys

    async def key_holder(self, template: TemplateDef, key_hash: str) -> Contract | None:
        """The active contract holding the key, whoever can see it (uniqueness is global); the transaction's own
        creates and archives come first."""
        if key_hash in self._keys:
            holder = self._keys[key_hash]
            return None if holder is None else self.created.get(holder) or await self._from_ledger(holder)
        contract = await self.source.active_contract_by_key(template.template_id, key_hash)
        if contract is None or contract.contract_id in self._consumed_set:
            return None
        return contract
