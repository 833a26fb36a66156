"""User-defined data types: records (and so templates), variants and enums, declared as annotated Python classes.

Field types come from the class annotations and are resolved lazily, on first use, in the defining module's
namespace: models can then refer to classes declared further down, as Daml modules do.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from typing import Any, ClassVar

from participant import errors
from participant.engine.primitives import DamlType, Json, _kind, bad_value
from participant.engine.values import decode_fields, encode_fields, to_type


@dataclass
class DataDef:
    """Where a data type lives: its module and entity name, and the package once one registers it."""

    module: str
    entity: str
    package: Any = None  # participant.engine.templates.Package

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


def freeze(value: Any) -> Any:
    """A hashable stand-in for a value (lists and dicts inside records would otherwise make them unhashable)."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple((freeze(k), freeze(v)) for k, v in value.items())
    return value


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
    def daml_type(cls) -> DamlType:
        return RecordType(cls)

    def field_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in declared_types(type(self))}

    def with_(self, **changes: Any) -> Record:
        """Daml's `this with field = value`."""
        return type(self)(**{**self.field_values(), **changes})

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.field_values() == other.field_values()

    def __hash__(self) -> int:
        return hash((type(self), freeze(list(self.field_values().values()))))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.field_values().items())
        return f"{type(self).__name__}({inner})"


class RecordType(DamlType):
    def __init__(self, cls: type[Record]) -> None:
        self.cls = cls
        self.name = cls.__daml__.qualified_name if "__daml__" in cls.__dict__ else cls.__name__

    def describe(self) -> Json:
        return {"Record": self.name}

    def decode(self, value: Json, path: str = "") -> Record:
        return self.cls(**decode_fields(self.cls.field_types(), value, path))

    def encode(self, value: Any) -> Json:
        if not isinstance(value, self.cls):
            raise ValueError(f"expected a {self.name} record, got {value!r}")
        return encode_fields(self.cls.field_types(), value.field_values())


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
        return VariantType(cls)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and (self.tag, self.value) == (other.tag, other.value)

    def __hash__(self) -> int:
        return hash((type(self), self.tag, freeze(self.value)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tag!r}, {self.value!r})"


class VariantType(DamlType):
    def __init__(self, cls: type[Variant]) -> None:
        self.cls = cls
        self.name = cls.__daml__.qualified_name if "__daml__" in cls.__dict__ else cls.__name__

    def describe(self) -> Json:
        return {"Variant": self.name}

    def decode(self, value: Json, path: str = "") -> Variant:
        constructors = self.cls.constructors()
        # 3.5 maps malformed variants to INVALID_ARGUMENT, unlike other shape errors.
        if not isinstance(value, dict) or "tag" not in value or "value" not in value:
            raise errors.INVALID_ARGUMENT(
                f'Expected a variant {{"tag", "value"}} for {self.name} but got '
                f"{_kind(value)}{f' at {path}' if path else ''}"
            )
        tag = value["tag"]
        if tag not in constructors:
            raise errors.INVALID_ARGUMENT(
                f"Unknown constructor {tag!r} of variant {self.name}{f' at {path}' if path else ''}"
            )
        return self.cls(tag, constructors[tag].decode(value["value"], f"{path}.value" if path else "value"))

    def encode(self, value: Any) -> Json:
        if not isinstance(value, self.cls):
            raise ValueError(f"expected a {self.name} variant, got {value!r}")
        return {"tag": value.tag, "value": self.cls.constructors()[value.tag].encode(value.value)}


class EnumType(DamlType):
    """A Daml enum is a Python `enum.Enum` whose member names are the constructors."""

    def __init__(self, cls: type[enum.Enum]) -> None:
        self.cls = cls
        daml = cls.__dict__.get("__daml__")
        self.name = daml.qualified_name if daml else cls.__name__

    def describe(self) -> Json:
        return {"Enum": self.name, "constructors": list(self.cls.__members__)}

    def decode(self, value: Json, path: str = "") -> enum.Enum:
        if not isinstance(value, str) or value not in self.cls.__members__:
            raise bad_value(path, f"Expected a constructor of enum {self.name} but got {str(value)[:64]!r}")
        return self.cls[value]

    def encode(self, value: Any) -> Json:
        if not isinstance(value, self.cls):
            raise ValueError(f"expected a {self.name} enum value, got {value!r}")
        return value.name


def mark_enum(cls: type[enum.Enum], data: DataDef) -> type[enum.Enum]:
    cls.__daml__ = data  # type: ignore[attr-defined]
    cls.daml_type = classmethod(EnumType)  # type: ignore[attr-defined]
    return cls
