"""Everything the participant says about one contract, from both of its contract lookups.

contract-by-id (3.5) returns the payload, even of an archived contract while it is stored, but placeholders for
the offset and node id and nothing about activeness; events-by-contract-id returns the real create event and the
archive event, but only while they are not pruned (docs/ledger-api.md §4.2, §4.4). The inspector shows what both say.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from app.client import errors
from app.client.ledger import LedgerClient, event_format
from participant.api import ArchivedEvent, CreatedEvent, JsGetEventsByContractIdResponse, JsInterfaceView


@dataclass
class ContractLookup:
    contract_id: str
    created: CreatedEvent | None = None
    """From events-by-contract-id: the create event as the ledger recorded it."""
    synchronizer_id: str | None = None
    archived: ArchivedEvent | None = None
    archive_synchronizer_id: str | None = None
    by_id: CreatedEvent | None = None
    """From contract-by-id: the payload; its offset and node id are placeholders."""
    events_error: errors.LedgerApiError | None = None
    by_id_error: errors.LedgerApiError | None = None
    by_id_served: bool = True
    """False on a participant without contract-by-id (3.4)."""
    pruned_offset: int | None = None
    """Where the participant is pruned up to, read when the events were not found."""

    @property
    def event(self) -> CreatedEvent | None:
        """The create event to show: the events' (with real offsets), else contract-by-id's."""
        return self.created or self.by_id

    @property
    def found(self) -> bool:
        return self.event is not None

    @property
    def events_known(self) -> bool:
        """Whether activeness is known (the events were read)."""
        return self.created is not None

    @property
    def active(self) -> bool | None:
        return None if not self.events_known else self.archived is None

    @property
    def blob(self) -> str:
        for event in (self.created, self.by_id):
            if event is not None and event.created_event_blob:
                return event.created_event_blob
        return ""

    @property
    def failures(self) -> list[errors.LedgerApiError]:
        return [e for e in (self.by_id_error, self.events_error) if e is not None]

    def add_views(self, views: Sequence[JsInterfaceView]) -> None:
        """Show `views` with the create event, in place of earlier views of the same interfaces."""
        fresh = {v.interface_id for v in views}
        for event in (self.created, self.by_id):
            if event is not None:
                event.interface_views = [
                    v for v in event.interface_views if v.interface_id not in fresh
                ] + list(views)


async def look_up_contract(
    client: LedgerClient, contract_id: str, parties: Sequence[str] | None
) -> ContractLookup:
    """Ask both lookups at once, for `parties` (None: any party). Failures of either are kept in the result, not
    raised: one answering is enough to show the contract, and a failure of both is the message to show."""
    result = ContractLookup(contract_id)
    fmt = event_format(None if parties is None else list(parties), blob=True)

    async def by_id() -> None:
        if client.capabilities.contract_by_id is False:
            result.by_id_served = False
            return
        try:
            result.by_id = await client.contract_by_id(contract_id, list(parties or ()))
        except errors.EndpointMissing:
            result.by_id_served = False
        except errors.LedgerApiError as e:
            result.by_id_error = e

    async def events() -> None:
        try:
            answer = await client.events_by_contract_id(contract_id, fmt)
        except errors.LedgerApiError as e:
            result.events_error = e
            return
        _take_events(result, answer)

    await asyncio.gather(by_id(), events())
    if result.created is None and isinstance(result.events_error, errors.NotFound):
        try:
            result.pruned_offset = await client.pruned_offset()
        except errors.LedgerApiError:
            result.pruned_offset = None
    return result


async def interface_views(
    client: LedgerClient, contract_id: str, parties: Sequence[str] | None, interfaces: Sequence[str]
) -> list[JsInterfaceView]:
    """The views of one contract through `interfaces` (``#package-name:Module:Interface``): one for each interface
    its template implements, none for the others. events-by-contract-id with an interface filter for each, as 3.4
    and 3.5 both serve it (contract-by-id computes no views). Raises the client's errors: an interface the
    participant does not know is NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME."""
    fmt = event_format(None if parties is None else list(parties), views=interfaces)
    answer = await client.events_by_contract_id(contract_id, fmt)
    return [] if answer.created is None else list(answer.created.created_event.interface_views)


def _take_events(result: ContractLookup, answer: JsGetEventsByContractIdResponse) -> None:
    if answer.created is not None:
        result.created = answer.created.created_event
        result.synchronizer_id = answer.created.synchronizer_id
    if answer.archived is not None:
        result.archived = answer.archived.archived_event
        result.archive_synchronizer_id = answer.archived.synchronizer_id
