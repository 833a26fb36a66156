"""Event filters: which events a request sees, for which of its parties, and with or without created-event blobs.

Resolved once per request from the wire `EventFormat` (or the `TransactionFormat` and `UpdateFormat` around it),
then asked per contract or event: fast enough for the ACS stream, where it runs for every row. What a format needs
of the caller's rights is decided here too, so that every endpoint taking one checks the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Final

import orjson

from participant.api import (
    CumulativeFilter,
    EventFormat,
    Filters,
    IdentifierFilter,
    TransactionFormat,
    UpdateFormat,
)
from participant.base import errors
from participant.engine import ids

ACS_DELTA: Final = "TRANSACTION_SHAPE_ACS_DELTA"
LEDGER_EFFECTS: Final = "TRANSACTION_SHAPE_LEDGER_EFFECTS"


@dataclass
class PartyFilter:
    """The union of a party's cumulative filters."""

    wildcard: bool = False
    wildcard_blob: bool = False
    templates: dict[tuple[str, str], bool] = field(
        default_factory=dict
    )  # (package name, Module:Entity) -> blob
    # (package name, Module:Entity) -> the interfaces (package-id form) whose views an InterfaceFilter asks for
    views: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def match(self, package_name: str, qualified_name: str) -> bool:
        return self.wildcard or (package_name, qualified_name) in self.templates

    def blob(self, package_name: str, qualified_name: str) -> bool:
        return self.wildcard_blob or self.templates.get((package_name, qualified_name), False)


@dataclass
class EventFilter:
    by_party: dict[str, PartyFilter]
    any_party: PartyFilter | None = None
    verbose: bool = False
    # (template id, create argument, interface ids) -> JsInterfaceViews; None when no filter asks for a view
    compute_views: Callable[[str, object, list[str]], list[dict]] | None = None
    # Views computed ahead, off the event loop (`participant.projection.views_ahead`), by `view_key`; while
    # `wanted_views` is a list, the views asked for are noted there (and answered empty) instead of computed.
    views_ahead: dict[tuple, list[dict]] = field(default_factory=dict, repr=False, compare=False)
    wanted_views: list[tuple[tuple, str, Any, list[str]]] | None = field(
        default=None, repr=False, compare=False
    )

    def query_parties(self) -> list[str] | None:
        """The parties whose stakeholder index serves the query; None means every contract is a candidate."""
        return None if self.any_party is not None else sorted(self.by_party)

    def read_parties(self) -> list[str]:
        return sorted(self.by_party)

    def witnesses(self, parties: Iterable[str], package_name: str, qualified_name: str) -> list[str]:
        """The requested parties among `parties` (stakeholders or informees) whose filter matches the template."""
        if self.any_party is not None and self.any_party.match(package_name, qualified_name):
            return sorted(set(parties))
        out = []
        for p in parties:
            f = self.by_party.get(p)
            if f is not None and f.match(package_name, qualified_name):
                out.append(p)
        return sorted(set(out))

    @cached_property
    def _asks_for_blobs(self) -> bool:
        parties = [*self.by_party.values(), *([self.any_party] if self.any_party is not None else [])]
        return any(f.wildcard_blob or any(f.templates.values()) for f in parties)

    def blob(self, witnesses: Iterable[str], package_name: str, qualified_name: str) -> bool:
        if not self._asks_for_blobs:  # the usual case, asked for every event
            return False
        if self.any_party is not None and self.any_party.blob(package_name, qualified_name):
            return True
        return any(
            (f := self.by_party.get(p)) is not None and f.blob(package_name, qualified_name)
            for p in witnesses
        )

    def interfaces(self, witnesses: Iterable[str], package_name: str, qualified_name: str) -> list[str]:
        """The interfaces whose views the witnesses' filters ask for (also an archive's `implementedInterfaces`)."""
        if self.compute_views is None:
            return []
        found: set[str] = set()
        if self.any_party is not None:
            found.update(self.any_party.views.get((package_name, qualified_name), ()))
        for p in witnesses:
            f = self.by_party.get(p)
            if f is not None:
                found.update(f.views.get((package_name, qualified_name), ()))
        return sorted(found)

    def views(self, witnesses: Iterable[str], template_id: str, package_name: str, argument) -> list[dict]:
        """The `interfaceViews` of a created event seen by these witnesses."""
        if self.compute_views is None:
            return []
        wanted = self.interfaces(witnesses, package_name, qualified_name(template_id))
        return self.view_values(template_id, argument, wanted) if wanted else []

    def view_values(self, template_id: str, argument: Any, interface_ids: list[str]) -> list[dict]:
        """The views of these interfaces of a contract: computed ahead if they were, else here."""
        assert self.compute_views is not None
        key = view_key(template_id, argument, interface_ids)
        if self.wanted_views is not None:
            self.wanted_views.append((key, template_id, argument, list(interface_ids)))
            return []
        ahead = self.views_ahead.get(key)
        return ahead if ahead is not None else self.compute_views(template_id, argument, interface_ids)

    @classmethod
    def wildcard_for(cls, parties: Iterable[str], verbose: bool = True) -> EventFilter:
        return cls({p: PartyFilter(wildcard=True) for p in parties}, None, verbose)


def view_key(template_id: str, argument: Any, interface_ids: list[str]) -> tuple:
    return template_id, orjson.dumps(argument), tuple(interface_ids)


def authorize(claims, event_filter: EventFilter) -> None:
    """Reading through a filter needs read rights on each of its parties, and on any party for a filter of all."""
    claims.require_read_of(event_filter.read_parties(), any_party=event_filter.any_party is not None)


@dataclass(frozen=True)
class TransactionView:
    """The transactions a request asks for: their shape and what each of its parties sees of them."""

    shape: str
    filter: EventFilter


@dataclass(frozen=True)
class UpdateView:
    """What an `UpdateFormat` asks for. Each member is None when that kind of update is not wanted; empty
    `topology_parties` means the topology events of every party."""

    transactions: TransactionView | None
    reassignments: EventFilter | None
    topology_parties: tuple[str, ...] | None

    def authorize(self, claims) -> None:
        """The read rights of every part of the format, as Canton's `updateFormatClaims`."""
        if self.transactions is not None:
            authorize(claims, self.transactions.filter)
        if self.reassignments is not None:
            authorize(claims, self.reassignments)
        if self.topology_parties is not None:
            claims.require_read_of(self.topology_parties, any_party=not self.topology_parties)


def resolve_transaction_format(transaction_format: TransactionFormat, registry) -> TransactionView:
    if transaction_format.event_format is None:
        raise errors.missing_field("event_format")
    if transaction_format.transaction_shape == "TRANSACTION_SHAPE_UNSPECIFIED":
        raise errors.missing_field("transaction_shape")
    return TransactionView(
        transaction_format.transaction_shape, resolve_event_format(transaction_format.event_format, registry)
    )


def authorized_transaction_view(transaction_format: TransactionFormat, registry, claims) -> TransactionView:
    """The view of a `TransactionFormat`, once the caller's read rights cover it."""
    view = resolve_transaction_format(transaction_format, registry)
    authorize(claims, view.filter)
    return view


def resolve_update_format(update_format: UpdateFormat | None, registry) -> UpdateView:
    if update_format is None:
        raise errors.missing_field("update_format")
    transactions = update_format.include_transactions
    reassignments = update_format.include_reassignments
    topology = update_format.include_topology_events
    authorizations = None if topology is None else topology.include_participant_authorization_events
    topology_parties = None
    if authorizations is not None:
        ids.require_party_ids(authorizations.parties)
        topology_parties = tuple(authorizations.parties)
    return UpdateView(
        None if transactions is None else resolve_transaction_format(transactions, registry),
        None if reassignments is None else resolve_event_format(reassignments, registry),
        topology_parties,
    )


def update_format_or_legacy(given: UpdateFormat | None, legacy_filter, verbose: bool) -> UpdateFormat:
    """The `UpdateFormat` of an update stream request: as given, or the one Canton (3.5) makes of the legacy
    `filter` and `verbose`, ACS-delta transactions and reassignments through the same filter."""
    fmt = format_or_legacy(given, legacy_filter, verbose, "update_format")
    if isinstance(fmt, UpdateFormat):
        return fmt
    return UpdateFormat(
        include_transactions=TransactionFormat(event_format=fmt, transaction_shape=ACS_DELTA),
        include_reassignments=fmt,
    )


def tree_update_format_or_legacy(given: UpdateFormat | None, legacy_filter, verbose: bool) -> UpdateFormat:
    """The `UpdateFormat` of a (deprecated) tree stream request: as given, or the one Canton (3.5) makes of the
    legacy `filter`: ledger-effects transactions and reassignments, each party's filter widened by a template
    wildcard (without blobs) unless it has one, since trees used to show every event of their parties."""
    fmt = format_or_legacy(given, legacy_filter, verbose, "update_format")
    if isinstance(fmt, UpdateFormat):
        return fmt

    def widened(f: Filters | None) -> Filters | None:
        if f is None:
            return None
        if any(c.identifier_filter.tag == "WildcardFilter" for c in f.cumulative):
            return f
        return Filters(
            cumulative=[*f.cumulative, CumulativeFilter(identifier_filter=IdentifierFilter.wildcard())]
        )

    fmt = EventFormat(
        filters_by_party={p: widened(f) or Filters() for p, f in (fmt.filters_by_party or {}).items()},
        filters_for_any_party=widened(fmt.filters_for_any_party),
        verbose=fmt.verbose,
    )
    return UpdateFormat(
        include_transactions=TransactionFormat(event_format=fmt, transaction_shape=LEDGER_EFFECTS),
        include_reassignments=fmt,
    )


def transaction_format_or_parties(
    given: TransactionFormat | None, requesting_parties: list[str]
) -> TransactionFormat:
    """The format of a (deprecated) transaction lookup: as given, or the one Canton makes of its
    `requestingParties`, every event of theirs in the ACS-delta shape. Exactly one of the two must be used."""
    hint = "Please use either backwards compatible arguments (requesting_parties) or transaction_format"
    if given is not None and requesting_parties:
        raise errors.INVALID_ARGUMENT(
            f"Both transaction_format and requesting_parties are set. {hint} but not both."
        )
    if given is not None:
        return given
    if not requesting_parties:
        raise errors.INVALID_ARGUMENT(f"Either transaction_format or requesting_parties is required. {hint}.")
    wildcard = Filters(cumulative=[CumulativeFilter(identifier_filter=IdentifierFilter.wildcard())])
    return TransactionFormat(
        event_format=EventFormat(filters_by_party=dict.fromkeys(requesting_parties, wildcard), verbose=True),
        transaction_shape=ACS_DELTA,
    )


def format_or_legacy(given, legacy_filter, verbose: bool, name: str):
    """The request's format (`name` is "event_format" or "update_format"), or the EventFormat of its legacy
    `filter` and `verbose` pair: exactly one of the two forms must be used."""
    hint = f"Please use either backwards compatible arguments (filter and verbose) or {name}"
    if given is not None:
        if legacy_filter is not None:
            raise errors.INVALID_ARGUMENT(f"Both {name} and filter are set. {hint}, but not both.")
        if verbose:
            raise errors.INVALID_ARGUMENT(f"Both {name} and verbose are set. {hint}, but not both.")
        return given
    if legacy_filter is None:
        raise errors.INVALID_ARGUMENT(f"Either filter/verbose or {name} is required. {hint}.")
    return EventFormat(
        filters_by_party=legacy_filter.filters_by_party,
        filters_for_any_party=legacy_filter.filters_for_any_party,
        verbose=verbose,
    )


def qualified_name(template_id: str) -> str:
    """`pkg:Module:Entity` -> `Module:Entity`."""
    return template_id.split(":", 1)[1]


def resolve_event_format(event_format, registry) -> EventFilter:
    """Turn a wire `EventFormat` into an `EventFilter`, validating party ids and template names as Canton does."""
    by_party_wire = event_format.filters_by_party or {}
    any_wire = event_format.filters_for_any_party
    if not by_party_wire and any_wire is None:
        raise errors.INVALID_ARGUMENT("filtersByParty and filtersForAnyParty cannot be empty simultaneously")
    by_party = {}
    for party, filters in by_party_wire.items():
        ids.require_party_ids([party])
        by_party[party] = _party_filter(filters, registry)
    any_party = None if any_wire is None else _party_filter(any_wire, registry)
    asks_views = any(f.views for f in [*by_party.values(), *([any_party] if any_party else [])])
    if asks_views:
        # the evaluator behind the views loads with the first filter that asks for one, not at the start
        from participant.engine.views import interface_views
    return EventFilter(
        by_party,
        any_party,
        bool(event_format.verbose),
        partial(interface_views, registry) if asks_views else None,
    )


def _party_filter(filters, registry) -> PartyFilter:
    result = PartyFilter()
    cumulative = (filters.cumulative if filters is not None else None) or []
    seen_non_empty = False
    for entry in cumulative:
        identifier = entry.identifier_filter
        if identifier is None or identifier.tag == "Empty":
            continue
        payload = identifier.value.value
        if identifier.tag == "WildcardFilter":
            seen_non_empty = True
            result.wildcard = True
            result.wildcard_blob |= bool(payload.include_created_event_blob)
        elif identifier.tag == "TemplateFilter":
            seen_non_empty = True
            if not payload.template_id:
                raise errors.missing_field("templateId")
            registry.resolve_filter(payload.template_id)
            package_ref, module, entity = registry.parse(payload.template_id)
            key = (package_ref[1:], f"{module}:{entity}")
            result.templates[key] = result.templates.get(key, False) or bool(
                payload.include_created_event_blob
            )
        elif identifier.tag == "InterfaceFilter":
            seen_non_empty = True
            if not payload.interface_id:
                raise errors.missing_field("interfaceId")
            # It matches the templates that implement the interface, by name as template filters do.
            blob = bool(payload.include_created_event_blob)
            for interface in registry.resolve_interface_filter(payload.interface_id):
                for implementor in registry.implementors(interface):
                    key = (implementor.package.name, implementor.qualified_name)
                    result.templates[key] = result.templates.get(key, False) or blob
                    if payload.include_interface_view:
                        result.views.setdefault(key, set()).add(interface.interface_id)
    if not seen_non_empty:
        result.wildcard = True
    return result
