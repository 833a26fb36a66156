"""A Daml-LF package's templates and interfaces as the engine's definitions (`participant.engine.definitions`).

Values crossing the seam are the evaluator's runtime values (`participant.daml_lf.eval.values`), which the types'
nodes (`participant.engine.lf.types`) decode from JSON and encode back. A template's parts (signatories, observers,
precondition, key and maintainers, a choice's controllers, observers and authority, an instance's view and methods)
are its package's expressions, run by the evaluator on those values; party lists come back as party ids.

A choice body is an update: `run` evaluates it to an update value and performs that with the engine's `Update`
(`participant.engine.lf.actions`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from participant.base import errors
from participant.daml_lf import ast
from participant.daml_lf.archive import read_dar
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.errors import (
    DamlArithmeticError,
    DamlThrow,
    EvaluationError,
    FailureStatus,
    UserError,
)
from participant.daml_lf.eval.program import Program
from participant.daml_lf.packages import PackageSet, packages_of
from participant.engine.definitions import (
    ChoiceDef,
    InterfaceDef,
    InterfaceInstanceDef,
    PackageDef,
    TemplateDef,
    interface_key,
)
from participant.engine.lf.actions import EngineActions
from participant.engine.lf.types import LfTypes
from participant.engine.update import unhandled_exception
from participant.engine.values import DamlType, RecordType

if TYPE_CHECKING:
    from participant.engine.update import Update


_ARITHMETIC_ERROR = "DA.Exception.ArithmeticError:ArithmeticError"
_GENERAL_ERROR = "DA.Exception.GeneralError:GeneralError"


class LfPackages:
    """The packages of a package set, sharing one evaluator and one set of type nodes. `payloads` are the encoded
    archives by package id, as the package service serves them."""

    def __init__(self, packages: PackageSet, payloads: Mapping[str, bytes]) -> None:
        self.packages = packages
        self.payloads = payloads
        self.program = Program(packages)
        self.types = LfTypes(packages)
        self._packages: dict[str, LfPackage] = {}

    @classmethod
    def from_dar(cls, data: bytes) -> LfPackages:
        dar = read_dar(data)
        return cls(packages_of(dar), {dalf.package_id: dalf.payload for dalf in dar.dalfs})

    def package(self, package_id: str) -> LfPackage:
        found = self._packages.get(package_id)
        if found is None:
            found = self._packages[package_id] = LfPackage(self, self.packages.packages[package_id])
        return found

    def template(self, ref: ast.TypeConRef) -> LfTemplate:
        return self.package(ref.package_id).templates[ref.qualified_name]

    def interface(self, ref: ast.TypeConRef) -> LfInterface:
        return self.package(ref.package_id).interfaces[ref.qualified_name]

    @property
    def main(self) -> LfPackage:
        return self.package(self.packages.main_package_id)

    def package_name(self, package_id: str) -> str:
        package = self.packages.packages.get(package_id) or self.packages.dependencies.get(package_id)
        if package is None:
            raise KeyError(f"package {package_id} is not among the packages read")
        return package.name

    @contextmanager
    def evaluating(self) -> Iterator[None]:
        """A failed evaluation inside is the command's error (`failure`)."""
        try:
            yield
        except EvaluationError as error:
            raise self.failure(error) from None

    def failure(self, error: EvaluationError) -> errors.LedgerError:
        """The command's error for a failed evaluation: a Daml exception no handler took (an arithmetic error is
        the standard library's `ArithmeticError`, Daml's `error` its `GeneralError`) as UNHANDLED_EXCEPTION with its
        type and message (`unhandled_exception`); `failWithStatus` as DAML_FAILURE in the category it chose; any
        other failure as an interpretation error with its message."""
        if isinstance(error, DamlThrow):
            failure = self._unhandled(error)
            failure.daml_exception = error
            return failure
        if isinstance(error, DamlArithmeticError):
            return unhandled_exception(_ARITHMETIC_ERROR, error.message)
        if isinstance(error, UserError):  # `ERROR`: Daml's `error` raises the standard library's GeneralError
            return unhandled_exception(_GENERAL_ERROR, error.message)
        if isinstance(error, FailureStatus):
            return errors.daml_failure(error.error_id, error.category, error.message, error.metadata)
        return errors.DAML_INTERPRETATION_ERROR(f"{type(error).__name__}: {error}")

    def _unhandled(self, thrown: DamlThrow) -> errors.LedgerError:
        exception = thrown.payload
        type_ = exception.type
        if not isinstance(type_, ast.TCon):
            return unhandled_exception(str(type_), "")
        try:
            message = str(self.program.call(self.program.exception_message(type_), exception.value))
        except DamlThrow as during:  # Daml's engine reports the exception with a message saying so
            inner = during.payload.type
            name = inner.tycon.qualified_name if isinstance(inner, ast.TCon) else str(inner)
            message = f"<Failed to calculate message as {name} was thrown during conversion>"
        return unhandled_exception(type_.tycon.qualified_name, message)

    def parties(self, value: Any) -> list[str]:
        """A Daml `[Party]` as party ids."""
        return [str(party) for party in value]


@dataclass(eq=False)
class LfPackage:
    owner: LfPackages = field(repr=False)
    definition: ast.Package = field(repr=False)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def version(self) -> str:
        return self.definition.version

    @property
    def package_id(self) -> str:
        return self.definition.package_id

    def _refs(self, kind: str) -> list[ast.TypeConRef]:
        return [
            ast.TypeConRef(self.package_id, module.name, name)
            for module in self.definition.modules.values()
            for name in getattr(module, kind)
        ]

    @cached_property
    def templates(self) -> Mapping[str, LfTemplate]:
        return {ref.qualified_name: LfTemplate(self, ref) for ref in self._refs("templates")}

    @cached_property
    def interfaces(self) -> Mapping[str, LfInterface]:
        return {ref.qualified_name: LfInterface(self, ref) for ref in self._refs("interfaces")}

    def archive(self) -> bytes:
        return self.owner.payloads[self.package_id]


def _record_type(types: LfTypes, type_: ast.Type, what: str) -> RecordType:
    node = types.of(type_)
    if not isinstance(node, RecordType):
        raise TypeError(f"{what} is not a record type: {node.describe()}")
    return node


@dataclass(eq=False)
class LfChoice:
    """A choice of a template (`template` set) or of an interface (`interface` set)."""

    owner: LfTemplate | LfInterface = field(repr=False)
    definition: ast.Choice = field(repr=False)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def consuming(self) -> bool:
        return self.definition.consuming

    @property
    def template(self) -> LfTemplate | None:
        return self.owner if isinstance(self.owner, LfTemplate) else None

    @property
    def interface(self) -> LfInterface | None:
        return self.owner if isinstance(self.owner, LfInterface) else None

    @cached_property
    def argument_type(self) -> RecordType:
        return _record_type(
            self.owner.package.owner.types, self.definition.arg_type, f"{self.name}'s argument"
        )

    @cached_property
    def result_type(self) -> DamlType:
        return self.owner.package.owner.types.of(self.definition.return_type)

    def _part(self, part: str, target: Any, argument: Any) -> list[str]:
        packages = self.owner.package.owner
        with packages.evaluating():
            function = packages.program.choice_function(self.owner.ref, part, self.name)
            return packages.parties(packages.program.call(function, target, argument))

    def controllers(self, target: Any, argument: Any) -> list[str]:
        return self._part("controllers", target, argument)

    def observers(self, target: Any, argument: Any) -> list[str]:
        return self._part("choice observers", target, argument)

    def authorizers(self, target: Any, argument: Any) -> list[str] | None:
        if self.definition.authorizers is None:
            return None
        return self._part("authorizers", target, argument)

    async def run(self, target: Any, update: Update, argument: Any) -> Any:
        """Run the choice's body: its update, performed by the engine's `update`. The body's `self` is the
        exercised contract's id, which the engine's `Update` holds for the choice being run."""
        packages = self.owner.package.owner
        program = packages.program
        with packages.evaluating():
            body = program.choice_update(self.owner.ref, self.name)
            action = program.call(body, rt.ContractId(update.exercised_contract_id), target, argument)
        try:
            return await program.run_update(action, EngineActions(packages, update))
        except EvaluationError as error:
            raise packages.failure(error) from None


@dataclass(eq=False)
class LfInstance:
    """`interface instance I for T`, run by T's code."""

    template: LfTemplate = field(repr=False)
    interface: InterfaceDef
    implemented: ast.TypeConRef

    def view(self, contract: Any) -> Any:
        packages = self.template.package.owner
        with packages.evaluating():
            view = packages.program.template_function(self.template.ref, "view", str(self.implemented))
            return packages.program.call(view, contract)

    def call(self, method: str, contract: Any, *arguments: Any) -> Any:
        packages = self.template.package.owner
        program = packages.program
        with packages.evaluating():
            function = program.template_function(self.template.ref, "method", f"{self.implemented}:{method}")
            result = program.call(function, contract)
            return program.call(result, *arguments) if arguments else result


@dataclass(eq=False)
class LfTemplate:
    package: LfPackage = field(repr=False)
    ref: ast.TypeConRef

    @property
    def definition(self) -> ast.Template:
        return self.package.owner.packages.template(self.ref)

    @property
    def qualified_name(self) -> str:
        return self.ref.qualified_name

    @property
    def template_id(self) -> str:
        return str(self.ref)

    @cached_property
    def argument_type(self) -> RecordType:
        return _record_type(self.package.owner.types, ast.TCon(self.ref), f"template {self.ref}")

    @cached_property
    def key_type(self) -> DamlType | None:
        key = self.definition.key
        return None if key is None else self.package.owner.types.of(key.type)

    @cached_property
    def choices(self) -> Mapping[str, LfChoice]:
        return {choice.name: LfChoice(self, choice) for choice in self.definition.choices}

    def _run(self, part: str, contract: Any) -> Any:
        packages = self.package.owner
        with packages.evaluating():
            return packages.program.call(packages.program.template_function(self.ref, part), contract)

    def signatories(self, contract: Any) -> list[str]:
        return self.package.owner.parties(self._run("signatories", contract))

    def observers(self, contract: Any) -> list[str]:
        return self.package.owner.parties(self._run("observers", contract))

    def ensure(self, contract: Any) -> bool:
        if self.definition.precondition is None:
            return True
        # Daml compiles `ensure p` to throw PreconditionFailed with its own message ("Template precondition
        # violated: " and the contract shown) when p is False: that exception is the command's error, as in Canton.
        return bool(self._run("precondition", contract))

    def key(self, contract: Any) -> Any:
        return self._run("key", contract)

    def maintainers(self, key: Any) -> list[str]:
        packages = self.package.owner
        with packages.evaluating():
            maintainers = packages.program.call(packages.program.maintainers_function(self.ref), key)
        return packages.parties(maintainers)

    def instance_of(self, interface: InterfaceDef) -> LfInstance | None:
        wanted = interface_key(interface)
        for instance in self.definition.implements:
            implemented = instance.interface
            if (
                self.package.owner.package_name(implemented.package_id),
                implemented.qualified_name,
            ) == wanted:
                return LfInstance(self, interface, implemented)
        return None


@dataclass(eq=False)
class LfInterface:
    package: LfPackage = field(repr=False)
    ref: ast.TypeConRef

    @property
    def definition(self) -> ast.Interface:
        return self.package.owner.packages.interface(self.ref)

    @property
    def qualified_name(self) -> str:
        return self.ref.qualified_name

    @property
    def interface_id(self) -> str:
        return str(self.ref)

    @cached_property
    def view_type(self) -> DamlType:
        return self.package.owner.types.of(self.definition.view)

    @cached_property
    def choices(self) -> Mapping[str, LfChoice]:
        return {choice.name: LfChoice(self, choice) for choice in self.definition.choices}

    def to_interface(self, template: TemplateDef, contract: Any) -> rt.Any:
        """As the evaluator packs it: the contract with its template's type."""
        if not isinstance(template, LfTemplate):
            raise TypeError(f"{template.template_id} is not a Daml-LF template")
        return rt.Any(ast.TCon(template.ref), contract)


if TYPE_CHECKING:

    def _implements_the_seam(
        package: LfPackage,
        template: LfTemplate,
        interface: LfInterface,
        choice: LfChoice,
        instance: LfInstance,
    ) -> tuple[PackageDef, TemplateDef, InterfaceDef, ChoiceDef, InterfaceInstanceDef]:
        """For the type checker: these classes are the engine's definitions."""
        return package, template, interface, choice, instance
