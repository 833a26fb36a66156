"""``POST /v2/contracts/contract-by-id`` (3.5 only, docs/ledger-api.md §4.2)."""

from __future__ import annotations

from pydantic import Field

from .base import WireModel
from .events import CreatedEvent

__all__ = ["GetContractRequest", "GetContractResponse"]


class GetContractRequest(WireModel):
    # relaxed: a missing id becomes "" and then MISSING_FIELD contract_id
    contract_id: str = ""
    querying_parties: list[str] = Field(default_factory=list)


class GetContractResponse(WireModel):
    created_event: CreatedEvent
