"""Foundations shared by every wire model of the JSON Ledger API v2.

Canton decodes request bodies with circe, which never coerces types ("5" is not
an int64, 5 is not a string), so every model validates in pydantic strict mode.
Models work both ways: the client parses responses, the server validates
request bodies, and both dump with camelCase keys (``serialize_by_alias``).
"""

from __future__ import annotations

import base64
import binascii
import typing
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

__all__ = ["LENIENT", "AnyValue", "Base64", "Int32", "Int64", "Timestamp", "Variant", "WireModel", "alt"]

Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]

# RFC 3339 / Java Instant.toString text; the wire models keep it verbatim so the
# server controls the exact rendering (fraction digits, trailing Z).
Timestamp = str

# A Daml-LF value in the transcoder's JSON form: shape depends on the package.
AnyValue = Any


def _check_base64(text: str) -> str:
    # protobuf ``bytes`` travel as standard Base64; circe rejects anything else
    # with this message (400 text/plain), so we mirror it.
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"The string is not a valid Base64: {text[:64]}") from exc
    return text


Base64 = Annotated[str, AfterValidator(_check_base64)]

# Validation context of a client reading an answer (see `WireModel.read`).
LENIENT: dict[str, bool] = {"lenient": True}


class WireModel(BaseModel):
    """Base for every JSON Ledger API message.

    Python attributes are snake_case; the wire uses the spec's lowerCamelCase.
    Unknown keys are ignored (Canton ignores them too, and newer participants
    add keys). Set ``SPEC_SCHEMA`` only when the class name differs from the
    OpenAPI schema name.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
        strict=True,
    )

    SPEC_SCHEMA: ClassVar[str | None] = None
    # wire keys (and python names) of the fields that have a default; filled per subclass
    _optional_keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        keys: set[str] = set()
        for name, info in cls.model_fields.items():
            if not info.is_required():
                keys.update((name, info.alias or name))
        cls._optional_keys = frozenset(keys)

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent_when_reading(cls, data: Any, info: ValidationInfo) -> Any:
        # A client reads answers leniently: Canton prints unset optionals as null and newer (or older)
        # participants print null where this model has a default. Requests stay strict (no context).
        if info.context is None or not isinstance(data, dict):
            return data
        optional = cls._optional_keys
        if not any(v is None and k in optional for k, v in data.items()):
            return data
        return {k: v for k, v in data.items() if v is not None or k not in optional}

    @classmethod
    def read(cls, data: str | bytes | Any) -> Self:
        """Parse an answer as a Canton client must: unknown keys ignored, null as absent, types coerced
        where JSON allows no doubt. Raises `pydantic.ValidationError` for an answer of another shape."""
        if isinstance(data, str | bytes | bytearray):
            return cls.model_validate_json(data, strict=False, context=LENIENT)
        return cls.model_validate(data, strict=False, context=LENIENT)

    @classmethod
    def spec_schema(cls) -> str:
        """The OpenAPI ``components/schemas`` name this class models."""
        return cls.__dict__.get("SPEC_SCHEMA") or cls.__name__


def alt(key: str) -> Any:
    """Declare one alternative of a :class:`Variant` (wire key ``key``)."""
    return Field(default=None, alias=key)


class Variant(WireModel):
    """An externally tagged union: ``{"<Alternative>": payload}``.

    Subclasses declare each alternative as an optional field with
    ``alt("WireKey")``. Exactly one alternative is kept: Canton does not reject
    objects carrying several keys, it takes the first in alphabetical order, so
    we do the same instead of failing. Only the chosen key is serialized.
    """

    _tag_cache: str | None = PrivateAttr(default=None)
    # wire key or python name -> python field name; filled per subclass
    _keys: ClassVar[dict[str, str]] = {}
    _by_type: ClassVar[dict[type, str]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        keys: dict[str, str] = {}
        by_type: dict[type, str] = {}
        for name, info in cls.model_fields.items():
            keys[name] = name
            keys[info.alias or name] = name
            for arg in typing.get_args(info.annotation):
                if isinstance(arg, type) and arg is not type(None):
                    by_type[arg] = name
        cls._keys = keys
        cls._by_type = by_type

    @model_validator(mode="before")
    @classmethod
    def _pick_one(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if len(data) == 1:  # the usual case, one alternative and nothing else: nothing to pick
            for key, value in data.items():
                if value is not None and key in cls._keys:
                    return data
        present = {k: cls._keys[k] for k, v in data.items() if k in cls._keys and v is not None}
        if not present:
            wanted = ", ".join(sorted(cls.alternatives()))
            raise ValueError(f"expected exactly one of the keys {wanted}")
        first = min(present, key=lambda k: cls._wire_key(present[k]))
        rest = {k: v for k, v in data.items() if k not in cls._keys}
        return {**rest, first: data[first]}

    @model_validator(mode="after")
    def _note_the_tag(self) -> Self:
        # Servers ask for the tag of every command and filter; equal variants carry equal private state.
        # Straight into pydantic's private dict: its __setattr__/__getattr__ for private attributes are slow.
        private = self.__pydantic_private__
        assert private is not None  # the model declares private attributes, so pydantic made the dict
        private["_tag_cache"] = self._find_tag()
        return self

    @model_serializer(mode="wrap")
    def _emit_only_the_set_alternative(self, handler: Any) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        return {k: v for k, v in data.items() if v is not None}

    @classmethod
    def _wire_key(cls, name: str) -> str:
        return cls.model_fields[name].alias or name

    @classmethod
    def alternatives(cls) -> list[str]:
        """Wire keys of all alternatives, in declaration order."""
        return [cls._wire_key(name) for name in cls.model_fields]

    @classmethod
    def of(cls, payload: WireModel, tag: str | None = None) -> Self:
        """Wrap ``payload`` in the alternative whose type it is (or ``tag``)."""
        if tag is None:
            name = cls._by_type.get(type(payload))
            if name is None:
                raise TypeError(f"{type(payload).__name__} is not an alternative of {cls.__name__}")
        elif tag in cls._keys:
            name = cls._keys[tag]
        else:
            raise ValueError(f"{tag!r} is not an alternative of {cls.__name__}")
        return cls.model_validate({name: payload})

    @property
    def tag(self) -> str:
        """The wire key of the alternative that is set, e.g. ``"CreateCommand"``."""
        private = self.__pydantic_private__
        tag = private.get("_tag_cache") if private is not None else None
        if tag is None:
            tag = self._find_tag()
            if private is not None:
                private["_tag_cache"] = tag
        return tag

    def _find_tag(self) -> str:
        for name in type(self).model_fields:
            if getattr(self, name) is not None:
                return self._wire_key(name)
        raise AssertionError("a Variant always has one alternative set")

    @property
    def value(self) -> Any:
        """The payload of the alternative that is set."""
        return getattr(self, type(self)._keys[self.tag])
