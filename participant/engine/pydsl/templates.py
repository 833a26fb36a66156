"""The template DSL: packages, templates, choices and contract keys, written so that a model reads like its Daml.

```python
package = Package("model-tests", "1.0.0")

@package.template("Iou:Iou")
class Iou(Template):
    issuer: Party
    owner: Party
    amount: Decimal

    def signatory(self): return [self.issuer, self.owner]
    def ensure(self): return self.amount > 0

    @choice(controller=lambda self: [self.owner])
    async def Iou_Transfer(self, tx: Update, newOwner: Party) -> ContractId[IouTransfer]:
        return await tx.create(IouTransfer(iou=self, newOwner=newOwner))
```

Daml's `signatory`, `observer`, `ensure`, `key`/`maintainer` keep their Daml names (a template can have a field called
`observers`, as Iou does). Every template gets the consuming `Archive` choice.

Interfaces read like theirs too: `interface IShape where viewtype ShapeView; getOwner : Party; choice ...` is

```python
@package.interface("Shapes:IShape")
class IShape(Interface):
    viewtype = ShapeView

    def getOwner(self) -> Party: ...

    @choice(controller=lambda self: [self.getOwner()], consuming=False)
    async def Shape_Describe(self, tx: Update, prefix: Text) -> Text:
        return prefix + self.view().name
```

and `interface instance IShape for Square where view = ...; getOwner = owner` is a class inside the template:

```python
    @interface_instance(IShape)
    class IShapeForSquare:
        def view(self) -> ShapeView: return ShapeView(name=self.name, sides=4)
        def getOwner(self) -> str: return self.owner
```

where `self` is the contract. A type checker takes `self` for the holder class: a model that is type-checked
writes each as a static method of the contract, `@staticmethod def view(square: Square) -> ShapeView`. Interface
choices see the contract only through its methods and `view`, and every
interface gets the consuming `Archive` choice too (`tests/engine/shapes_package.py` is this example in full).
"""

from __future__ import annotations

import enum
import hashlib
import inspect
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from participant.engine import ids
from participant.engine.definitions import InterfaceDef, interface_key
from participant.engine.pydsl.interfaces import (
    Interface,
    PyInstance,
    PyInterface,
    checked_instance,
    method_of,
)
from participant.engine.pydsl.records import (
    DataDef,
    Record,
    Variant,
    declared_types,
    mark_enum,
    split_qualified_name,
)
from participant.engine.pydsl.types import to_type
from participant.engine.pydsl.update import Update
from participant.engine.values import DamlType, Json, RecordType

if TYPE_CHECKING:
    from participant.engine.definitions import ChoiceDef, InterfaceInstanceDef, PackageDef, TemplateDef
    from participant.engine.update import Update as EngineUpdate


@dataclass(frozen=True)
class ContractKey:
    """`key (owner, label) : (Party, Text)` + `maintainer key._1`, as `ContractKey("Tuple2[Party, Text]",
    of=lambda self: (self.owner, self.label), maintainer=lambda key: [key[0]])`."""

    type: (
        Any  # a Daml type, or its annotation's text (resolved as a field's is: a type checker reads it whole)
    )
    of: Callable[[Any], Any]
    maintainer: Callable[[Any], list[str]]


@dataclass
class PyChoice:
    """One choice of a template or an interface, created by `@choice` around the body; as the engine sees it, a
    `participant.engine.definitions.ChoiceDef`."""

    body: Callable[..., Any]
    controller: Callable[..., list[str]]
    consuming: bool = True
    observer: Callable[..., list[str]] | None = None
    name: str = ""
    owner: Any = None  # the Template or Interface class, set when the class body is done
    _argument: type[Record] | None = field(default=None, repr=False)
    _argument_type: RecordType | None = field(default=None, repr=False)
    _returns: DamlType | None = field(default=None, repr=False)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.owner = name, owner

    @property
    def template(self) -> PyTemplate | None:
        return self.owner.__daml__ if issubclass(self.owner, Template) else None

    @property
    def interface(self) -> PyInterface | None:
        return self.owner.__daml__ if issubclass(self.owner, Interface) else None

    @property
    def argument(self) -> type[Record]:
        """The choice's argument record, named after the choice as in Daml, built from the body's parameters."""
        if self._argument is None:
            parameters = list(inspect.signature(self.body).parameters.values())[2:]  # after self and tx
            self._argument = type(
                self.name,
                (Record,),
                {
                    "__annotations__": {p.name: p.annotation for p in parameters},
                    "__module__": self.owner.__module__,
                    "__daml__": DataDef(self.owner.__daml__.module, self.name),
                },
            )
        return self._argument

    @property
    def argument_type(self) -> RecordType:
        if self._argument_type is None:
            self._argument_type = self.argument.daml_type()
        return self._argument_type

    @property
    def result_type(self) -> DamlType:
        if self._returns is None:
            annotation = inspect.signature(self.body).return_annotation
            empty = annotation in (inspect.Signature.empty, "None")
            self._returns = to_type(None if empty else annotation, vars(sys.modules[self.owner.__module__]))
        return self._returns

    def controllers(self, target: Template | Interface, argument: Record) -> list[str]:
        return list(_call_with_optional_arg(self.controller, target, argument))

    def observers(self, target: Template | Interface, argument: Record) -> list[str]:
        return [] if self.observer is None else list(_call_with_optional_arg(self.observer, target, argument))

    def authorizers(self, target: Template | Interface, argument: Record) -> None:
        return None  # the DSL has no `authority` clause: controllers and signatories authorize the body

    async def run(self, target: Template | Interface, update: EngineUpdate, argument: Record) -> Any:
        return await self.body(target, Update(update), **argument.field_values())

    def signature(self) -> Json:
        return {
            "name": self.name,
            "consuming": self.consuming,
            "argument": {name: t.describe() for name, t in self.argument.field_types().items()},
            "returnType": self.result_type.describe(),
        }


def _call_with_optional_arg(function: Callable[..., Any], contract: Any, argument: Any) -> Any:
    """Controllers read either the contract alone (`lambda self: ...`) or also the argument (`lambda self, arg:`)."""
    takes_argument = len(inspect.signature(function).parameters) >= 2
    return function(contract, argument) if takes_argument else function(contract)


def choice(
    controller: Callable[..., list[str]],
    *,
    consuming: bool = True,
    observers: Callable[..., list[str]] | None = None,
) -> Callable[[Callable[..., Any]], PyChoice]:
    """Declare a choice; the body is `async def Name(self, tx, arg1: Type, ...) -> ReturnType`."""

    def wrap(body: Callable[..., Any]) -> PyChoice:
        if not inspect.iscoroutinefunction(body):
            raise TypeError(f"choice {body.__name__} must be an async def (it awaits ledger actions)")
        return PyChoice(body=body, controller=controller, consuming=consuming, observer=observers)

    return wrap


async def _archive_body(self: Any, tx: Any) -> None:
    return None


class Template(Record):
    """A Daml template: its fields are the annotations; override `signatory`, and optionally `observer`, `ensure`,
    `key` (a `ContractKey`). Choices are methods decorated with `@choice`."""

    __daml__: ClassVar[PyTemplate]
    key: ClassVar[ContractKey | None] = None

    def signatory(self) -> list[str]:
        raise NotImplementedError(f"{type(self).__name__} declares no signatory")

    def observer(self) -> list[str]:
        return []

    def ensure(self) -> bool:
        return True

    @classmethod
    def definition(cls) -> PyTemplate:
        """The template as the engine sees it."""
        return cls.__daml__

    @classmethod
    def choices(cls) -> dict[str, PyChoice]:
        return cls.__daml__.choices

    @classmethod
    def template_id(cls) -> str:
        return cls.__daml__.template_id

    @classmethod
    def instance_of(cls, interface: type[Interface]) -> PyInstance | None:
        """How this template implements `interface` (any version of it), or None when it does not."""
        return cls.__daml__.instance_of(interface.__daml__)

    @classmethod
    def key_type(cls) -> DamlType | None:
        return cls.__daml__.key_type

    @classmethod
    def signature(cls) -> Json:
        """A JSON-able description of the template: fields, key and choices with their types."""
        key_type = cls.key_type()
        return {
            "templateId": cls.template_id(),
            "packageName": cls.__daml__.package.name,
            "fields": {name: t.describe() for name, t in cls.field_types().items()},
            "key": None if key_type is None else key_type.describe(),
            "choices": [c.signature() for c in cls.choices().values()],
        }


_UNRESOLVED: Any = object()


@dataclass(repr=False)
class PyTemplate(DataDef):
    """A template written with the DSL, as the engine sees it (`participant.engine.definitions.TemplateDef`)."""

    cls: type[Template] | None = None
    choices: dict[str, PyChoice] = field(default_factory=dict)
    interfaces: dict[tuple[str, str], PyInstance] = field(default_factory=dict)  # by `interface_key`
    _argument_type: RecordType | None = field(default=None, repr=False)
    _key_type: Any = field(default=_UNRESOLVED, repr=False)

    def __repr__(self) -> str:
        return f"PyTemplate({self.qualified_name!r} of {self.package!r})"

    @property
    def template_class(self) -> type[Template]:
        assert self.cls is not None
        return self.cls

    @property
    def template_id(self) -> str:
        return f"{self.package.package_id}:{self.qualified_name}"

    @property
    def argument_type(self) -> RecordType:
        if self._argument_type is None:
            self._argument_type = self.template_class.daml_type()
        return self._argument_type

    @property
    def key_type(self) -> DamlType | None:
        if self._key_type is _UNRESOLVED:
            cls = self.template_class
            self._key_type = (
                None
                if cls.key is None
                else to_type(cls.key.type, {**vars(sys.modules[cls.__module__]), cls.__name__: cls})
            )
        return self._key_type

    def signatories(self, contract: Template) -> list[str]:
        return contract.signatory()

    def observers(self, contract: Template) -> list[str]:
        return contract.observer()

    def ensure(self, contract: Template) -> bool:
        return contract.ensure()

    def key(self, contract: Template) -> Any:
        key = self.template_class.key
        if key is None:
            raise TypeError(f"{self.qualified_name} has no contract key")
        return key.of(contract)

    def maintainers(self, key: Any) -> list[str]:
        declared = self.template_class.key
        if declared is None:
            raise TypeError(f"{self.qualified_name} has no contract key")
        return declared.maintainer(key)

    def instance_of(self, interface: InterfaceDef) -> PyInstance | None:
        return self.interfaces.get(interface_key(interface))


def _archive_choice(owner: type) -> PyChoice:
    return PyChoice(body=_archive_body, controller=lambda self: self.signatory(), name="Archive", owner=owner)


class Package:
    """A named, versioned set of templates and data types, with a package id that hashes its definition."""

    def __init__(self, name: str, version: str) -> None:
        if not ids.is_package_name(name):
            raise ValueError(f"invalid package name {name!r}")
        self.name, self.version = name, version
        self.templates: dict[str, PyTemplate] = {}  # by qualified name, as the engine sees them
        self.interfaces: dict[str, PyInterface] = {}
        self.data_types: dict[str, type] = {}
        self._package_id: str | None = None

    def __repr__(self) -> str:
        return f"Package({self.name!r}, {self.version!r})"

    def _check_open(self, qualified_name: str) -> None:
        if self._package_id is not None:
            raise RuntimeError(f"{self!r} is already in use (its id is fixed); cannot add {qualified_name}")
        if (
            qualified_name in self.templates
            or qualified_name in self.interfaces
            or qualified_name in self.data_types
        ):
            raise ValueError(f"{qualified_name} is declared twice in {self!r}")

    def template(self, name: str, entity: str | None = None) -> Callable[[type[Template]], type[Template]]:
        def register(cls: type[Template]) -> type[Template]:
            module, entity_name = split_qualified_name(name, entity, cls.__name__)
            choices = {k: v for k, v in vars(cls).items() if isinstance(v, PyChoice)}
            instances = {
                interface_key(v.interface): checked_instance(v, cls)
                for v in vars(cls).values()
                if isinstance(v, PyInstance)
            }
            definition = PyTemplate(
                module, entity_name, self, cls, {**choices, "Archive": _archive_choice(cls)}, instances
            )
            self._check_open(definition.qualified_name)
            cls.__daml__ = definition
            self.templates[definition.qualified_name] = definition
            return cls

        return register

    def interface(self, name: str, entity: str | None = None) -> Callable[[type[Interface]], type[Interface]]:
        def register(cls: type[Interface]) -> type[Interface]:
            if cls.viewtype is None:
                raise TypeError(f"interface {cls.__name__} declares no viewtype")
            module, entity_name = split_qualified_name(name, entity, cls.__name__)
            choices = {k: v for k, v in vars(cls).items() if isinstance(v, PyChoice)}
            methods = tuple(
                k for k, v in vars(cls).items() if inspect.isfunction(v) and not k.startswith("_")
            )
            for method in methods:
                setattr(cls, method, method_of(method))
            definition = PyInterface(
                module, entity_name, self, cls, {**choices, "Archive": _archive_choice(cls)}, methods
            )
            self._check_open(definition.qualified_name)
            cls.__daml__ = definition
            self.interfaces[definition.qualified_name] = definition
            return cls

        return register

    def _data(self, name: str, entity: str | None, cls: type) -> DataDef:
        module, entity_name = split_qualified_name(name, entity, cls.__name__)
        data = DataDef(module, entity_name, self)
        self._check_open(data.qualified_name)
        self.data_types[data.qualified_name] = cls
        return data

    def record(self, name: str, entity: str | None = None) -> Callable[[type[Record]], type[Record]]:
        def register(cls: type[Record]) -> type[Record]:
            cls.__daml__ = self._data(name, entity, cls)
            return cls

        return register

    def variant(self, name: str, entity: str | None = None) -> Callable[[type[Variant]], type[Variant]]:
        def register(cls: type[Variant]) -> type[Variant]:
            cls.__daml__ = self._data(name, entity, cls)
            return cls

        return register

    def enum(self, name: str, entity: str | None = None) -> Callable[[type[enum.Enum]], type[enum.Enum]]:
        def register(cls: type[enum.Enum]) -> type[enum.Enum]:
            return mark_enum(cls, self._data(name, entity, cls))

        return register

    def _interface_ref(self, interface: PyInterface) -> str:
        """An interface as this package's description names it (its own by qualified name, to hash without its id)."""
        package, qualified_name = interface.package, interface.qualified_name
        return qualified_name if package is self else f"{package.package_id}:{qualified_name}"

    def describe(self) -> Json:
        """The canonical description the package id hashes: names, types, parties' roles, choices' signatures."""

        def data(cls: type) -> Json:
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                return {"enum": list(cls.__members__)}
            kind = "variant" if issubclass(cls, Variant) else "record"
            return {kind: {name: t.describe() for name, t in declared_types(cls).items()}}

        templates = {}
        for qualified_name, template in sorted(self.templates.items()):
            key_type = template.key_type
            templates[qualified_name] = {
                "fields": {name: t.describe() for name, t in template.template_class.field_types().items()},
                "key": None if key_type is None else key_type.describe(),
                "choices": {name: c.signature() for name, c in sorted(template.choices.items())},
            }
            if template.interfaces:
                templates[qualified_name]["implements"] = sorted(
                    self._interface_ref(i.interface) for i in template.interfaces.values()
                )
        described = {
            "name": self.name,
            "version": self.version,
            "templates": templates,
            "dataTypes": {name: data(cls) for name, cls in sorted(self.data_types.items())},
        }
        if self.interfaces:  # absent otherwise, so that packages without interfaces keep their ids
            described["interfaces"] = {
                qualified_name: {
                    "viewtype": interface.view_type.describe(),
                    "methods": list(interface.methods),
                    "choices": {name: c.signature() for name, c in sorted(interface.choices.items())},
                }
                for qualified_name, interface in sorted(self.interfaces.items())
            }
        return described

    @property
    def package_id(self) -> str:
        """64 lowercase hex: SHA-256 of the canonical description. Fixed on first use (the package is then closed)."""
        if self._package_id is None:
            canonical = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"))
            self._package_id = hashlib.sha256(canonical.encode()).hexdigest()
        return self._package_id

    def archive(self) -> bytes:
        """The canonical description as bytes: what the package id is the SHA-256 of, served as the package."""
        return json.dumps(self.describe(), sort_keys=True, separators=(",", ":")).encode()

    def signature(self) -> Json:
        return {
            "packageId": self.package_id,
            "packageName": self.name,
            "packageVersion": self.version,
            "templates": [t.template_class.signature() for t in self.templates.values()],
        }


if TYPE_CHECKING:  # the type checker proves that the DSL implements every protocol of the engine's seam

    def _implements(
        package: Package, template: PyTemplate, interface: PyInterface, choice: PyChoice, instance: PyInstance
    ) -> tuple[PackageDef, TemplateDef, InterfaceDef, ChoiceDef, InterfaceInstanceDef]:
        return package, template, interface, choice, instance
