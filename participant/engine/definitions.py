"""What the engine runs: packages of templates and interfaces, and their choices, as the engine sees them.

The engine (interpreter, ledger view, update context, registry, views) and the participant around it know templates
only through these protocols, whatever wrote them: the Python DSL (`participant.engine.pydsl`) is one
implementation, a Daml-LF package another. Values crossing the seam are the engine's typed values (see
`participant.engine.values`): a contract is the value its template's `argument_type` decodes, a choice argument the
value its `argument_type` decodes, and so on; types are nodes of the same type tree.

An interface's choices see the contract as its interface value (Daml's `toInterface`), which the interface makes
from the contract and its template (`InterfaceDef.to_interface`); a template's choices see the contract itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from participant.engine.values import DamlType, RecordType

if TYPE_CHECKING:
    from participant.engine.update import Update


class ChoiceDef(Protocol):
    """One choice, of a template or of an interface (then `interface` is set and `template` is None)."""

    @property
    def name(self) -> str: ...

    @property
    def consuming(self) -> bool: ...

    @property
    def template(self) -> TemplateDef | None: ...

    @property
    def interface(self) -> InterfaceDef | None: ...

    @property
    def argument_type(self) -> RecordType:
        """The choice argument's type: a record named after the choice, as in Daml."""
        ...

    @property
    def result_type(self) -> DamlType: ...

    def controllers(self, target: Any, argument: Any) -> Iterable[str]:
        """`target` is the contract (a template's choice) or its interface value (an interface's choice)."""
        ...

    def observers(self, target: Any, argument: Any) -> Iterable[str]: ...

    def authorizers(self, target: Any, argument: Any) -> Iterable[str] | None:
        """The choice's explicit `authority`, or None for Daml's default: controllers and the signatories."""
        ...

    async def run(self, target: Any, update: Update, argument: Any) -> Any:
        """The choice body, performing its ledger actions on `update`; returns the result (of `result_type`)."""
        ...


class InterfaceInstanceDef(Protocol):
    """`interface instance I for T`: the view and the methods of I for one template's contracts."""

    @property
    def interface(self) -> InterfaceDef: ...

    def view(self, contract: Any) -> Any:
        """The contract's view, a value of the interface's `view_type`."""
        ...

    def call(self, method: str, contract: Any, *arguments: Any) -> Any: ...


class TemplateDef(Protocol):
    @property
    def package(self) -> PackageDef: ...

    @property
    def qualified_name(self) -> str:
        """`Module:Entity`."""
        ...

    @property
    def template_id(self) -> str:
        """`packageId:Module:Entity`."""
        ...

    @property
    def argument_type(self) -> RecordType:
        """The contract's type: the record its create argument decodes to."""
        ...

    @property
    def key_type(self) -> DamlType | None:
        """The contract key's type, or None when the template has no key."""
        ...

    @property
    def choices(self) -> Mapping[str, ChoiceDef]:
        """By name; every template has the consuming `Archive`."""
        ...

    def signatories(self, contract: Any) -> Iterable[str]: ...

    def observers(self, contract: Any) -> Iterable[str]: ...

    def ensure(self, contract: Any) -> bool:
        """The precondition: a contract that does not hold it cannot be created. A definition whose precondition
        fails with its own error (Daml's `PreconditionFailed` and its message) raises that error instead."""
        ...

    def key(self, contract: Any) -> Any:
        """The contract's key (a value of `key_type`); only for templates with a key."""
        ...

    def maintainers(self, key: Any) -> Iterable[str]: ...

    def instance_of(self, interface: InterfaceDef) -> InterfaceInstanceDef | None:
        """How this template implements `interface` (any version of it: same package name and qualified name), or
        None when it does not."""
        ...


class InterfaceDef(Protocol):
    @property
    def package(self) -> PackageDef: ...

    @property
    def qualified_name(self) -> str: ...

    @property
    def interface_id(self) -> str:
        """`packageId:Module:Entity`."""
        ...

    @property
    def view_type(self) -> DamlType: ...

    @property
    def choices(self) -> Mapping[str, ChoiceDef]:
        """By name; every interface has the consuming `Archive`."""
        ...

    def to_interface(self, template: TemplateDef, contract: Any) -> Any:
        """Daml's `toInterface`: the value this interface's choices see for a contract of `template`, which
        implements it."""
        ...


@runtime_checkable
class PackageDef(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def package_id(self) -> str: ...

    @property
    def templates(self) -> Mapping[str, TemplateDef]:
        """By qualified name (`Module:Entity`)."""
        ...

    @property
    def interfaces(self) -> Mapping[str, InterfaceDef]: ...

    def archive(self) -> bytes:
        """The bytes the package service serves for it; their SHA-256 is the package id."""
        ...


def interface_key(interface: InterfaceDef) -> tuple[str, str]:
    """Interfaces match by package name and qualified name, so every version of a package's interface is the
    same interface (as upgrading treats them)."""
    return interface.package.name, interface.qualified_name
