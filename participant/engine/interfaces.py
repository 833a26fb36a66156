"""Daml interfaces in the DSL: the interface (its view type, methods and choices), an interface value
(`toInterface contract`), and the `interface instance I for T` of a template. `Package.interface` registers an
interface, `Package.template` the instances a template declares (see `participant.engine.templates`)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from participant.engine.records import DataDef
from participant.engine.values import DamlType, to_type

if TYPE_CHECKING:
    from participant.engine.templates import ChoiceDef, Template


@dataclass
class InterfaceDef(DataDef):
    choices: dict[str, ChoiceDef] = field(default_factory=dict)
    methods: tuple[str, ...] = ()


class Interface:
    """A Daml interface: a `viewtype`, methods (declared with a `...` body) and choices. An instance of the class
    is an interface value, Daml's `toInterface contract`: its methods and `view` run the contract's template's
    interface instance."""

    __daml__: ClassVar[InterfaceDef]
    viewtype: ClassVar[Any] = None
    _daml_view_type: ClassVar[DamlType]  # resolved from `viewtype` on first use, per interface class

    def __init__(self, contract: Template) -> None:
        instance = type(contract).instance_of(type(self))
        if instance is None:
            raise TypeError(f"{type(contract).__name__} does not implement {type(self).__name__}")
        self._contract, self._instance = contract, instance

    def view(self) -> Any:
        return self._instance.functions["view"](self._contract)

    def signatory(self) -> list[str]:
        return self._contract.signatory()

    def observer(self) -> list[str]:
        return self._contract.observer()

    @classmethod
    def choices(cls) -> dict[str, ChoiceDef]:
        return cls.__daml__.choices

    @classmethod
    def interface_id(cls) -> str:
        return f"{cls.__daml__.package.package_id}:{cls.__daml__.qualified_name}"

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
        return self._instance.functions[name](self._contract, *args)

    method.__name__ = name
    return method


@dataclass
class InterfaceInstance:
    """`interface instance I for T`: the functions (`view` and the interface's methods) of one template."""

    interface: type[Interface]
    functions: dict[str, Callable[..., Any]]


def interface_instance(interface: type[Interface]) -> Callable[[type], InterfaceInstance]:
    """Declare, inside a template's class body, how the template implements `interface`."""

    def wrap(body: type) -> InterfaceInstance:
        functions: dict[str, Callable[..., Any]] = {
            name: f for name, f in vars(body).items() if inspect.isfunction(f)
        }
        return InterfaceInstance(interface, functions)

    return wrap


def interface_key(interface: type[Interface]) -> tuple[str, str]:
    """Interfaces are matched by package name and qualified name, so every version of a package's interface is
    the same interface (as upgrading treats them)."""
    return interface.__daml__.package.name, interface.__daml__.qualified_name


def checked_instance(instance: InterfaceInstance, template: type) -> InterfaceInstance:
    """An interface instance defines `view` and every method of its interface, and nothing else."""
    expected = {"view", *instance.interface.__daml__.methods}
    missing, extra = expected - set(instance.functions), set(instance.functions) - expected
    if missing or extra:
        raise TypeError(
            f"interface instance {instance.interface.__name__} for {template.__name__}: "
            f"missing {sorted(missing)}, unknown {sorted(extra)}"
        )
    return instance
