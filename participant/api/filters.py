"""Request building blocks that select events (docs/ledger-api.md §2).

All of these mirror proto messages, so in 3.5 absent keys take proto defaults
(relaxed codec). Canton validates semantics later (e.g. a missing
``templateId`` becomes ``""`` and then MISSING_FIELD templateId).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Variant, WireModel, alt
from .common import Empty

__all__ = [
    "CumulativeFilter",
    "EventFormat",
    "Filters",
    "IdentifierFilter",
    "InterfaceFilter",
    "InterfaceFilter1",
    "ParticipantAuthorizationTopologyFormat",
    "TemplateFilter",
    "TemplateFilter1",
    "TopologyFormat",
    "TransactionFilter",
    "TransactionFormat",
    "TransactionShape",
    "UpdateFormat",
    "WildcardFilter",
    "WildcardFilter1",
]


class WildcardFilter1(WireModel):
    include_created_event_blob: bool = False


class WildcardFilter(WireModel):
    value: WildcardFilter1


class TemplateFilter1(WireModel):
    template_id: str = ""
    include_created_event_blob: bool = False


class TemplateFilter(WireModel):
    value: TemplateFilter1


class InterfaceFilter1(WireModel):
    interface_id: str = ""
    include_interface_view: bool = False
    include_created_event_blob: bool = False


class InterfaceFilter(WireModel):
    value: InterfaceFilter1


class IdentifierFilter(Variant):
    empty: Empty | None = alt("Empty")
    interface_filter: InterfaceFilter | None = alt("InterfaceFilter")
    template_filter: TemplateFilter | None = alt("TemplateFilter")
    wildcard_filter: WildcardFilter | None = alt("WildcardFilter")

    @classmethod
    def wildcard(cls, include_created_event_blob: bool = False) -> IdentifierFilter:
        return cls(
            wildcard_filter=WildcardFilter(
                value=WildcardFilter1(include_created_event_blob=include_created_event_blob)
            )
        )

    @classmethod
    def template(cls, template_id: str, include_created_event_blob: bool = False) -> IdentifierFilter:
        return cls(
            template_filter=TemplateFilter(
                value=TemplateFilter1(
                    template_id=template_id, include_created_event_blob=include_created_event_blob
                )
            )
        )

    @classmethod
    def interface(
        cls, interface_id: str, include_interface_view: bool = True, include_created_event_blob: bool = False
    ) -> IdentifierFilter:
        return cls(
            interface_filter=InterfaceFilter(
                value=InterfaceFilter1(
                    interface_id=interface_id,
                    include_interface_view=include_interface_view,
                    include_created_event_blob=include_created_event_blob,
                )
            )
        )


def _empty_identifier_filter() -> IdentifierFilter:
    return IdentifierFilter(empty=Empty())


class CumulativeFilter(WireModel):
    # 3.5: a missing identifierFilter decodes as {"Empty":{}} (= wildcard)
    identifier_filter: IdentifierFilter = Field(default_factory=_empty_identifier_filter)


class Filters(WireModel):
    """Union of its entries; empty (or only Empty entries) = template wildcard."""

    cumulative: list[CumulativeFilter] = Field(default_factory=list)


class EventFormat(WireModel):
    filters_by_party: dict[str, Filters] = Field(default_factory=dict)
    filters_for_any_party: Filters | None = None
    verbose: bool = False


class TransactionFilter(WireModel):
    """Legacy (deprecated) filter, still accepted next to ``verbose`` in 3.5."""

    filters_by_party: dict[str, Filters] = Field(default_factory=dict)
    filters_for_any_party: Filters | None = None


TransactionShape = Literal[
    "TRANSACTION_SHAPE_UNSPECIFIED",
    "TRANSACTION_SHAPE_ACS_DELTA",
    "TRANSACTION_SHAPE_LEDGER_EFFECTS",
]


class TransactionFormat(WireModel):
    # Canton validates eventFormat as required (MISSING_FIELD event_format),
    # but decoding fills it with null, so None must be accepted here.
    event_format: EventFormat | None = None
    # Enums get no relaxed default: an omitted shape is a decode failure.
    transaction_shape: TransactionShape


class ParticipantAuthorizationTopologyFormat(WireModel):
    parties: list[str] = Field(default_factory=list)


class TopologyFormat(WireModel):
    include_participant_authorization_events: ParticipantAuthorizationTopologyFormat | None = None


class UpdateFormat(WireModel):
    """An absent member means that kind of update is not emitted."""

    include_transactions: TransactionFormat | None = None
    include_reassignments: EventFormat | None = None
    include_topology_events: TopologyFormat | None = None
