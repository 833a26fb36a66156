"""What the app learns of the user's Daml from what it reads, whichever screen read it: the templates seen (with their
package names), the choices exercised on them, the interfaces they are known to implement and the parties that
appear. One rule for every reader: the composer's survey, the inspector's transactions and the views it asks for.

A participant has no endpoint that lists the choices exercised or the interfaces a template implements; the
packages say what may be, this says what was seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from participant.api import ExercisedEvent, JsTransaction


def package_name_ref(template_id: str, package_name: str | None) -> str:
    """`app.daml.package_name_ref`, imported when first called: `Learned` is built before the first frame, which
    needs none of `app.daml`'s patterns."""
    from app.daml import package_name_ref as ref

    return ref(template_id, package_name)


class Learned:
    def __init__(self) -> None:
        self.templates: dict[str, str] = {}
        """Template id (package-id form) -> its package name."""
        self.choices: dict[str, set[str]] = {}
        """Choices seen exercised, by template id (interface id for an interface's choices), under both the
        package-id and the ``#package-name`` form of a template's id: what the composer can offer for it."""
        self.interfaces: dict[str, set[str]] = {}
        """Interfaces known to be implemented, by template, both in the ``#package-name`` form (what filters take):
        from interface choices exercised on the template's contracts and from the views asked for."""
        self.parties: set[str] = set()
        """Parties that appeared: signatories, observers, acting parties."""

    # --- learning -----------------------------------------------------------------------------------------------

    def note_template(self, template_id: str, package_name: str) -> str:
        """Remember `template_id`'s package name; returns the id in the ``#package-name`` form when it is known."""
        if package_name:
            self.templates[template_id] = package_name
        return package_name_ref(template_id, self.templates.get(template_id))

    def note_parties(self, parties: Iterable[str]) -> None:
        self.parties.update(parties)

    def forget_visible(self) -> None:
        """Another user sees other contracts: keep the templates, choices and interfaces, drop the parties seen."""
        self.parties.clear()

    def note_exercised(self, exercised: ExercisedEvent) -> None:
        """An exercise: its template, its choice (under the interface for an interface's choice, under both forms
        of the template's id for the template's own), its acting parties, and the interfaces it shows the
        template implements (that of an interface choice, those a filter matched: `implementedInterfaces`)."""
        self.note_template(exercised.template_id, exercised.package_name)
        self.note_parties(exercised.acting_parties)
        for interface_id in {exercised.interface_id or "", *exercised.implemented_interfaces} - {""}:
            self.note_interface(exercised.template_id, exercised.package_name, interface_id)
        if exercised.interface_id:
            owners = {exercised.interface_id}
        else:
            owners = {exercised.template_id, package_name_ref(exercised.template_id, exercised.package_name)}
        for owner in owners:
            self.choices.setdefault(owner, set()).add(exercised.choice)

    def note_transaction(self, transaction: JsTransaction) -> None:
        """The exercises of a transaction read in LEDGER_EFFECTS shape."""
        for event in transaction.events:
            if event.exercised_event is not None:
                self.note_exercised(event.exercised_event)

    def note_interface(self, template_id: str, package_name: str, interface_id: str) -> None:
        template = package_name_ref(template_id, package_name or self.templates.get(template_id))
        interface = self.interface_ref(interface_id)
        if template.startswith("#") and interface is not None:
            self.interfaces.setdefault(template, set()).add(interface)

    # --- reading ------------------------------------------------------------------------------------------------

    def package_name_of(self, package_id: str) -> str | None:
        for template_id, name in self.templates.items():
            if template_id.partition(":")[0] == package_id:
                return name
        return None

    def ref(self, template: str) -> str:
        """`template` in the ``#package-name:Module:Entity`` form when its package name is known."""
        template = template.strip()
        if template.startswith("#"):
            return template
        return package_name_ref(template, self.templates.get(template))

    def interface_ref(self, interface_id: str) -> str | None:
        """`interface_id` in the ``#package-name`` form, None when its package's name is not known."""
        if interface_id.startswith("#"):
            return interface_id
        ref = package_name_ref(interface_id, self.package_name_of(interface_id.partition(":")[0]))
        return ref if ref.startswith("#") else None

    def interfaces_of(self, template_id: str, package_name: str) -> list[str]:
        return sorted(self.interfaces.get(package_name_ref(template_id, package_name), ()))

    def known_interfaces(self) -> list[str]:
        return sorted({i for interfaces in self.interfaces.values() for i in interfaces})

    def choices_of(self, template_id: str, package_name: str) -> set[str]:
        """Choices seen exercised on a template, under either form of its id."""
        return self.choices.get(template_id, set()) | self.choices.get(
            package_name_ref(template_id, package_name), set()
        )

    def template_refs(self) -> list[str]:
        return sorted({package_name_ref(t, p) for t, p in self.templates.items()})

    def choices_for(self, template: str) -> set[str]:
        """Choices seen exercised on `template` or any other version of it (the same ``#package-name`` form)."""
        ref = self.ref(template)
        seen: set[str] = set()
        for template_id, choices in self.choices.items():
            if template_id == template or self.ref(template_id) == ref:
                seen |= choices
        return seen
