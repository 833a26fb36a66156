"""What an interpretation read of the ledger, so that its result can be reused where the ledger may have moved on.

A submission is interpreted outside the writer, against the committed ledger; its group commit then only checks that
every read still gets the same answer from the batch (committed state plus what was staged since). If so, the
interpretation would run exactly the same inside the batch: the engine reads the ledger only through its
`ContractSource`, and everything else it uses (the submission, ledger time, the packages) is the same.
"""

from __future__ import annotations

from participant.base.transactions import Contract, ContractSource

# What of a contract a read depends on: whether it is active, and where it lives. A contract's content never changes.
_State = tuple[str, int, str] | None


def _state(contract: Contract | None) -> _State:
    if contract is None:
        return None
    return contract.synchronizer_id, contract.reassignment_counter, contract.in_flight


class RecordingSource:
    """A `ContractSource` that remembers each answer it gave. An answer that differs from an earlier one for the same
    read (the ledger changed between the two) makes the record inconsistent: it can never hold."""

    def __init__(self, source: ContractSource) -> None:
        self._source = source
        self.contracts: dict[str, _State] = {}
        self.keys: dict[tuple[str, str], str | None] = {}
        self.consistent = True

    async def active_contract(self, contract_id: str) -> Contract | None:
        contract = await self._source.active_contract(contract_id)
        if contract is None:
            if self.contracts.setdefault(contract_id, None) is not None:
                self.consistent = False
        else:
            self._note(contract)
        return contract

    async def active_contract_by_key(self, template_id: str, key_hash: str) -> Contract | None:
        contract = await self._source.active_contract_by_key(template_id, key_hash)
        holder = None if contract is None else contract.contract_id
        if self.keys.setdefault((template_id, key_hash), holder) != holder:
            self.consistent = False
        if contract is not None:  # the contract's state is read with it
            self._note(contract)
        return contract

    def _note(self, contract: Contract) -> None:
        state = _state(contract)
        if self.contracts.setdefault(contract.contract_id, state) != state:
            self.consistent = False

    async def still_hold(self, source: ContractSource) -> bool:
        """Whether `source` answers every read as it was answered here."""
        if not self.consistent:
            return False
        for contract_id, state in self.contracts.items():
            if _state(await source.active_contract(contract_id)) != state:
                return False
        for (template_id, key_hash), holder in self.keys.items():
            contract = await source.active_contract_by_key(template_id, key_hash)
            if (None if contract is None else contract.contract_id) != holder:
                return False
        return True
