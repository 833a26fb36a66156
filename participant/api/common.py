"""Small protobuf well-known types, and the one enumeration, that several API areas share."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Int32, Int64, WireModel

__all__ = ["Duration", "Empty", "FieldMask", "ParticipantPermission", "ProtoField", "UnknownFieldSet"]


class Empty(WireModel):
    """The unit alternative of a proto oneof: ``{"Empty":{}}``.

    The spec numbers its copies ``Empty`` .. ``Empty10``; they are all the same
    empty object, so one class serves every variant.
    """


class ProtoField(WireModel):
    """An unknown protobuf field as scalapb renders it."""

    SPEC_SCHEMA = "Field"  # renamed: ``Field`` would shadow pydantic.Field

    varint: list[Int64] = Field(default_factory=list)
    fixed64: list[Int64] = Field(default_factory=list)
    fixed32: list[Int32] = Field(default_factory=list)
    length_delimited: list[str] = Field(default_factory=list)


class UnknownFieldSet(WireModel):
    # keys are field numbers, which JSON can only carry as strings
    fields: dict[str, ProtoField] = Field(default_factory=dict)


class Duration(WireModel):
    """``google.protobuf.Duration`` as ``{"seconds":n,"nanos":n}``.

    Both parts may be omitted on input (well-known type keeps its defaults);
    Canton's output may add ``unknownFields``, which we accept and ignore.
    """

    seconds: Int64 = 0
    nanos: Int32 = 0
    unknown_fields: UnknownFieldSet | None = None


class FieldMask(WireModel):
    """``google.protobuf.FieldMask`` used by the PATCH (update) requests."""

    paths: list[str] = Field(default_factory=list)
    unknown_fields: UnknownFieldSet = Field(default_factory=UnknownFieldSet)


# A party's permission on a participant: in the topology events of the update streams and the connected
# synchronizers of the state service.
ParticipantPermission = Literal[
    "PARTICIPANT_PERMISSION_UNSPECIFIED",
    "PARTICIPANT_PERMISSION_SUBMISSION",
    "PARTICIPANT_PERMISSION_CONFIRMATION",
    "PARTICIPANT_PERMISSION_OBSERVATION",
]
