"""Event filters: which events a request sees, for which of its parties, and with or without created-event blobs.

Resolved once per request from the wire `EventFormat`, then asked per contract or event: fast enough for the ACS
stream, where it runs for every row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from participant import errors
from participant.api import EventFormat
from participant.engine import ids


@dataclass
class PartyFilter:
    """The union of a party's cumulative filters."""

    wildcard: bool = False
    wildcard_blob: bool = False
    templates: dict[tuple[str, str], bool] = field(default_factory=dict)  # (package name, Module:Entity) -> blob

    def match(self, package_name: str, qualified_name: str) -> bool:
        return self.wildcard or (package_name, qualified_name) in self.templates

    def blob(self, package_name: str, qualified_name: str) -> bool:
        return self.wildcard_blob or self.templates.get((package_name, qualified_name), False)


@dataclass
class EventFilter:
    by_party: dict[str, PartyFilter]
    any_party: PartyFilter | None = None
    verbose: bool = False

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

    def blob(self, witnesses: Iterable[str], package_name: str, qualified_name: str) -> bool:
        if self.any_party is not None and self.any_party.blob(package_name, qualified_name):
            return True
        return any(
            (f := self.by_party.get(p)) is not None and f.blob(package_name, qualified_name) for p in witnesses
        )

    @classmethod
    def wildcard_for(cls, parties: Iterable[str], verbose: bool = True) -> EventFilter:
        return cls({p: PartyFilter(wildcard=True) for p in parties}, None, verbose)


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
    return EventFormat(filters_by_party=legacy_filter.filters_by_party,
                       filters_for_any_party=legacy_filter.filters_for_any_party, verbose=verbose)


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
        if not ids.is_party_id_string(party):
            raise errors.INVALID_ARGUMENT(f"Invalid party: {party!r}")
        by_party[party] = _party_filter(filters, registry)
    any_party = None if any_wire is None else _party_filter(any_wire, registry)
    return EventFilter(by_party, any_party, bool(event_format.verbose))


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
                raise errors.MISSING_FIELD("templateId", context={"field_name": "templateId"})
            registry.resolve_filter(payload.template_id)
            package_ref, module, entity = registry.parse(payload.template_id)
            key = (package_ref[1:], f"{module}:{entity}")
            result.templates[key] = result.templates.get(key, False) or bool(payload.include_created_event_blob)
        elif identifier.tag == "InterfaceFilter":
            if not payload.interface_id:
                raise errors.MISSING_FIELD("interfaceId", context={"field_name": "interfaceId"})
            # No bundled package defines interfaces yet, so every interface name is unknown.
            registry.parse(payload.interface_id)
            raise errors.NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME(
                f"Set({payload.interface_id})", resources=[("INTERFACE_ID", payload.interface_id)])
    if not seen_non_empty:
        result.wildcard = True
    return result
