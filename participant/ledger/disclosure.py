"""Explicitly disclosed contracts: a command may use a contract its submitters cannot see, if it carries the
contract's `createdEventBlob`. The blob must decode, match the ids given beside it, and be the contract as this
participant stored it (a forged or altered blob is refused)."""

from __future__ import annotations

from participant.base import errors
from participant.base.transactions import Contract
from participant.ledger.blob import decode_blob, encode_blob
from participant.store.store import Store


def _invalid(reason: str) -> errors.LedgerError:
    return errors.INVALID_FIELD(
        f"Invalid field disclosed_contracts: {reason}", context={"field_name": "disclosed_contracts"}
    )


async def disclosed_contracts(store: Store, wire: list) -> tuple[Contract, ...]:
    contracts = []
    for d in wire:
        if not d.created_event_blob:
            raise errors.missing_field("created_event_blob")
        try:
            contract = decode_blob(d.created_event_blob)
        except ValueError:
            raise _invalid("the created event blob cannot be decoded") from None
        if d.contract_id and d.contract_id != contract.contract_id:
            raise _invalid(f"contract id {d.contract_id} does not match the blob's {contract.contract_id}")
        if d.template_id and d.template_id.split(":", 1)[1] != contract.template_id.split(":", 1)[1]:
            raise _invalid(f"template id {d.template_id} does not match the blob's {contract.template_id}")
        if d.synchronizer_id and d.synchronizer_id != contract.synchronizer_id:
            raise _invalid(f"synchronizer id {d.synchronizer_id} does not match the blob's")
        stored = await store.contract(contract.contract_id)
        if stored is None or encode_blob(stored.contract()) != encode_blob(contract):
            raise _invalid(f"the blob of {contract.contract_id} is not a contract of this ledger")
        contracts.append(contract)
    return tuple(contracts)
