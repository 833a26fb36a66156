"""What the composer offers to complete, learned from what the app reads: templates, the choices exercised on them
and the parties that appear (into the session's `Learned`, under its one rule), the arguments choices were exercised
with, and the newest contract of each template (a payload to start a create from).

Any participant has the sources: a small ACS read and the transactions of the last offsets in the ledger-effects
shape (which carries exercised events). Completion is a help, never a condition: reads here are bounded
(list limits of 200 never meet a participant's 413) and their failures only leave the lists shorter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.client.ledger import LEDGER_EFFECTS, event_format, update_format
from participant.api import ArchivedEvent, CreatedEvent, Event, ExercisedEvent

if TYPE_CHECKING:
    from app.session import Session

RECENT_UPDATES = 200
ACS_LIMIT = 200
ARCHIVE = "Archive"  # every template has it


@dataclass
class Examples:
    """Keyed by the `#package-name:Module:Entity` form, which is what the composer offers."""

    newest: dict[str, CreatedEvent] = field(default_factory=dict)  # the newest contract seen still active
    choice_arguments: dict[tuple[str, str], Any] = field(
        default_factory=dict
    )  # (template, choice) -> argument
    surveyed_to: int | None = None  # the ledger end of the last survey


class Catalog:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.learned = session.learned
        self.examples = Examples()

    def forget_examples(self) -> None:
        """Another user sees other contracts: keep the templates and choices, drop what was visible (the parties
        seen are the session's to forget, when it switches users)."""
        self.examples = Examples()

    # --- learning -----------------------------------------------------------------------------------------------

    def learn(self, events: Iterable[Event]) -> None:
        """Events of one transaction, in node order (a consuming exercise comes before what it creates)."""
        for event in events:
            value = event.value
            if isinstance(value, CreatedEvent):
                self.learn_created(value)
            elif isinstance(value, ExercisedEvent):
                self._learn_exercised(value)
            elif isinstance(value, ArchivedEvent):
                self._consumed(
                    self.learned.note_template(value.template_id, value.package_name), value.contract_id
                )

    def learn_created(self, created: CreatedEvent) -> None:
        ref = self.learned.note_template(created.template_id, created.package_name)
        self.learned.note_parties(created.signatories)
        self.learned.note_parties(created.observers)
        current = self.examples.newest.get(ref)
        if current is None or created.offset >= current.offset:
            self.examples.newest[ref] = created

    def _learn_exercised(self, exercised: ExercisedEvent) -> None:
        self.learned.note_exercised(exercised)
        if exercised.interface_id:
            return  # an interface's choice is exercised through the interface id, not the template's
        ref = self.ref(exercised.template_id)
        self.examples.choice_arguments[(ref, exercised.choice)] = exercised.choice_argument
        if exercised.consuming:
            self._consumed(ref, exercised.contract_id)

    def _consumed(self, ref: str, contract_id: str) -> None:
        newest = self.examples.newest.get(ref)
        if newest is not None and newest.contract_id == contract_id:
            del self.examples.newest[ref]

    # --- reading ------------------------------------------------------------------------------------------------

    async def survey(self) -> None:
        """Learn from the ledger: a first ACS sample, then the transactions since the last survey (at most the last
        RECENT_UPDATES offsets). Raises the client's errors."""
        parties = self.session.identity.readable()
        if parties is not None and not parties:
            return
        client = self.session.client
        fmt = event_format(parties)
        end = await client.ledger_end()
        if self.examples.surveyed_to is None and end > 0:
            for entry in await client.active_contracts(end, fmt, limit=ACS_LIMIT):
                active = entry.contract_entry.js_active_contract if entry.contract_entry else None
                if active is not None:
                    self.learn_created(active.created_event)
        begin = max(self.examples.surveyed_to or 0, end - RECENT_UPDATES)
        if end > begin:
            for item in await client.updates(
                begin, end, update_format(fmt, LEDGER_EFFECTS), limit=RECENT_UPDATES
            ):
                update = item.update
                if update is not None and update.transaction is not None:
                    self.learn(update.transaction.value.events)
        self.examples.surveyed_to = end

    async def newest_contract(self, template: str) -> CreatedEvent | None:
        """The newest active contract of `template` the user can see: the newest of an ACS read for that template
        (its first ACS_LIMIT contracts) and of the recent transactions surveyed."""
        parties = self.session.identity.readable()
        if parties is not None and not parties:
            return None
        ref = self.ref(template)
        client = self.session.client
        end = await client.ledger_end()
        best = self.examples.newest.get(ref)
        if end > 0:
            for entry in await client.active_contracts(
                end, event_format(parties, templates=[ref]), limit=ACS_LIMIT
            ):
                active = entry.contract_entry.js_active_contract if entry.contract_entry else None
                if active is not None and (best is None or active.created_event.offset > best.offset):
                    best = active.created_event
        if best is not None:
            self.learn_created(best)
        return best

    async def active_contracts(self, template: str) -> list[CreatedEvent]:
        """The active contracts of `template` the user can see (the first ACS_LIMIT), newest first; they are
        learned too. Raises the client's errors."""
        parties = self.session.identity.readable()
        if parties is not None and not parties:
            return []
        client = self.session.client
        end = await client.ledger_end()
        if end == 0:
            return []
        found = []
        for entry in await client.active_contracts(
            end, event_format(parties, templates=[self.ref(template)]), limit=ACS_LIMIT
        ):
            active = entry.contract_entry.js_active_contract if entry.contract_entry else None
            if active is not None:
                found.append(active.created_event)
                self.learn_created(active.created_event)
        return sorted(found, key=lambda created: created.offset, reverse=True)

    # --- offering -----------------------------------------------------------------------------------------------

    def ref(self, template: str) -> str:
        """`template` in the `#package-name:Module:Entity` form when its package name is known."""
        return self.learned.ref(template)

    def template_refs(self) -> list[str]:
        return self.learned.template_refs()

    def choices_for(self, template: str) -> list[str]:
        """Choices seen exercised on `template` (any of its package versions), and Archive."""
        seen = self.learned.choices_for(template) - {ARCHIVE}
        return [*sorted(seen), ARCHIVE]

    def choice_argument(self, template: str, choice: str) -> Any:
        """The argument `choice` was last seen exercised with; {} for Archive; None when never seen."""
        if choice == ARCHIVE:
            return {}
        return self.examples.choice_arguments.get((self.ref(template), choice))

    def parties(self) -> list[str]:
        """Parties to offer: the user's own (rights) first, then the others seen."""
        identity = self.session.identity
        own = list(dict.fromkeys([*identity.act_as, *identity.read_as]))
        return own + sorted(self.learned.parties - set(own))
