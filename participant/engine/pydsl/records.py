"""User-defined data types: records (and so templates), variants and enums, declared as annotated Python classes.

Field types come from the class annotations and are resolved lazily, on first use, in the defining module's
namespace: models can then refer to classes declared further down, as Daml modules do.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from participant.engine.pydsl.types import to_type
from participant.engine.values import DamlType, EnumType, RecordType, VariantType, freeze


@dataclass
class DataDef:
    """Where a data type lives: its module and entity name, and the package once one registers it."""

    module: str
    entity: str
    package: Any = None  # participant.engine.pydsl.templates.Package

    @property
    def qualified_name(self) -> str:
        return f"{self.module}:{self.entity}"


def split_qualified_name(name: str, entity: str | None, default_entity: str) -> tuple[str, str]:
    """Accept "Module:Entity", ("Module", "Entity") or just "Module" (then the entity is the class name)."""
    if entity is not None:
        return name, entity
    module, sep, rest = name.partition(":")
    return (module, rest) if sep else (module, default_entity)


def declared_types(cls: type) -> dict[str, DamlType]:
    """The annotated fields of `cls` and its bases, resolved to DamlTypes once and cached on the class."""
    cached = cls.__dict__.get("_daml_field_types")
    if cached is not None:
        return cached
    namespace = {**vars(sys.modules[cls.__module__]), cls.__name__: cls}
    annotations: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        annotations.update(klass.__dict__.get("__annotations__", {}))
    resolved = {}
    for name, annotation in annotations.items():
        if name.startswith("_") or "ClassVar" in str(annotation):
            continue
        try:
            resolved[name] = to_type(annotation, namespace)
        except TypeError as error:
            raise TypeError(f"{cls.__qualname__}.{name}: {error}") from None
    setattr(cls, "_daml_field_types", resolved)  # noqa: B010  # on any class, not a declared attribute
    return resolved


class Record:
    """A Daml record: keyword construction, equality by value, declaration-ordered fields."""

    __daml__: ClassVar[DataDef]

    def __init__(self, **values: Any) -> None:
        fields = declared_types(type(self))
        unknown = [name for name in values if name not in fields]
        missing = [name for name, t in fields.items() if name not in values and not t.is_optional]
        if unknown or missing:
            raise TypeError(f"{type(self).__name__}: unknown fields {unknown}, missing fields {missing}")
        for name in fields:
            setattr(self, name, values.get(name))

    @classmethod
    def field_types(cls) -> dict[str, DamlType]:
        return declared_types(cls)

    @classmethod
    def daml_type(cls) -> RecordType:
        return RecordType(
            _type_name(cls),
            lambda: declared_types(cls),
            build=lambda fields: cls(**fields),
            fields_of=lambda value: value.field_values() if isinstance(value, cls) else None,
        )

    def field_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in declared_types(type(self))}

    def with_(self, **changes: Any) -> Self:
        """Daml's `this with field = value`."""
        return type(self)(**{**self.field_values(), **changes})

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.field_values() == other.field_values()

    def __hash__(self) -> int:
        return hash((type(self), freeze(list(self.field_values().values()))))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.field_values().items())
        return f"{type(self).__name__}({inner})"


class Variant:
    """A Daml variant value: one constructor `tag` with its payload. Constructors are the class annotations."""

    __daml__: ClassVar[DataDef]
    __slots__ = ("tag", "value")

    def __init__(self, tag: str, value: Any = ()) -> None:
        if tag not in declared_types(type(self)):
            raise TypeError(f"{type(self).__name__} has no constructor {tag!r}")
        self.tag, self.value = tag, value

    @classmethod
    def constructors(cls) -> dict[str, DamlType]:
        return declared_types(cls)

    @classmethod
    def daml_type(cls) -> DamlType:
        return VariantType(
            _type_name(cls),
            lambda: declared_types(cls),
            build=cls,
            parts_of=lambda value: (value.tag, value.value) if isinstance(value, cls) else None,
        )

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and (self.tag, self.value) == (other.tag, other.value)

    def __hash__(self) -> int:
        return hash((type(self), self.tag, freeze(self.value)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tag!r}, {self.value!r})"


def _type_name(cls: type) -> str:
    daml = cls.__dict__.get("__daml__")
    return daml.qualified_name if daml else cls.__name__


def enum_type(cls: type[enum.Enum]) -> DamlType:
    """A Daml enum is a Python `enum.Enum` whose member names are the constructors."""
    members = cls.__members__
    return EnumType(
        _type_name(cls),
        list(members),
        build=lambda constructor: members[constructor],
        constructor_of=lambda value: value.name if isinstance(value, cls) else None,
    )


def mark_enum(cls: type[enum.Enum], data: DataDef) -> type[enum.Enum]:
    cls.__daml__ = data  # type: ignore[attr-defined]  # the Daml definition, added to the Python enum
    cls.daml_type = classmethod(enum_type)  # type: ignore[attr-defined]  # as a record class has it
    return cls
