"""Daml interfaces in the DSL: the interface (its view type, methods and choices), an interface value
(`toInterface contract`), and the `interface instance I for T` of a template. `Package.interface` registers an
interface, `Package.template` the instances a template declares (see `participant.engine.pydsl.templates`)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from participant.engine.pydsl.records import DataDef
from participant.engine.pydsl.types import to_type
from participant.engine.values import DamlType

if TYPE_CHECKING:
    from participant.engine.definitions import TemplateDef
    from participant.engine.pydsl.templates import PyChoice, Template


@dataclass(repr=False)
class PyInterface(DataDef):
    """An interface written with the DSL, as the engine sees it (`participant.engine.definitions.InterfaceDef`)."""

    cls: type[Interface] | None = None
    choices: dict[str, PyChoice] = field(default_factory=dict)
    methods: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"PyInterface({self.qualified_name!r} of {self.package!r})"

    @property
    def interface_id(self) -> str:
        return f"{self.package.package_id}:{self.qualified_name}"

    @property
    def view_type(self) -> DamlType:
        assert self.cls is not None
        return self.cls.view_type()

    def to_interface(self, template: TemplateDef, contract: Any) -> Interface:
        assert self.cls is not None
        return self.cls(contract)


class Interface:
    """A Daml interface: a `viewtype`, methods (declared with a `...` body) and choices. An instance of the class
    is an interface value, Daml's `toInterface contract`: its methods and `view` run the contract's template's
    interface instance."""

    __daml__: ClassVar[PyInterface]
    viewtype: ClassVar[Any] = None
    _daml_view_type: ClassVar[DamlType]  # resolved from `viewtype` on first use, per interface class

    def __init__(self, contract: Template) -> None:
        instance = type(contract).instance_of(type(self))
        if instance is None:
            raise TypeError(f"{type(contract).__name__} does not implement {type(self).__name__}")
        self._contract, self._instance = contract, instance

    def view(self) -> Any:
        return self._instance.view(self._contract)

    def signatory(self) -> list[str]:
        return self._contract.signatory()

    def observer(self) -> list[str]:
        return self._contract.observer()

    @classmethod
    def definition(cls) -> PyInterface:
        return cls.__daml__

    @classmethod
    def choices(cls) -> dict[str, PyChoice]:
        return cls.__daml__.choices

    @classmethod
    def interface_id(cls) -> str:
        return cls.__daml__.interface_id

    @classmethod
    def view_type(cls) -> DamlType:
        cached = cls.__dict__.get(
            "_daml_view_type"
        )  # views are computed per event read: resolve the type once
        if cached is None:
            cached = cls._daml_view_type = to_type(cls.viewtype, vars(sys.modules[cls.__module__]))
        return cached


def method_of(name: str) -> Callable[..., Any]:
    def method(self: Interface, *args: Any) -> Any:
        return self._instance.call(name, self._contract, *args)

    method.__name__ = name
    return method


@dataclass
class PyInstance:
    """`interface instance I for T`: the functions (`view` and the interface's methods) of one template."""

    interface_class: type[Interface]
    functions: dict[str, Callable[..., Any]]

    @property
    def interface(self) -> PyInterface:
        return self.interface_class.__daml__

    def view(self, contract: Any) -> Any:
        return self.functions["view"](contract)

    def call(self, method: str, contract: Any, *arguments: Any) -> Any:
        return self.functions[method](contract, *arguments)


def interface_instance(interface: type[Interface]) -> Callable[[type], PyInstance]:
    """Declare, inside a template's class body, how the template implements `interface`."""

    def wrap(body: type) -> PyInstance:
        functions: dict[str, Callable[..., Any]] = {}
        for name, f in vars(body).items():
            if isinstance(f, staticmethod):  # the contract named and typed: `def view(square: Square)`
                f = f.__func__
            if inspect.isfunction(f):
                functions[name] = f
        return PyInstance(interface, functions)

    return wrap


def checked_instance(instance: PyInstance, template: type) -> PyInstance:
    """An interface instance defines `view` and every method of its interface, and nothing else."""
    expected = {"view", *instance.interface.methods}
    missing, extra = expected - set(instance.functions), set(instance.functions) - expected
    if missing or extra:
        raise TypeError(
            f"interface instance {instance.interface_class.__name__} for {template.__name__}: "
            f"missing {sorted(missing)}, unknown {sorted(extra)}"
        )
    return instance
