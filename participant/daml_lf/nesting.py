"""How deep a package's protobuf messages nest, measured on its wire bytes before anything decodes it.

Canton parses a Daml-LF 2.1 package with protobuf's recursion limit raised to 1000
(`EXTENDED_PROTOBUF_RECURSION_LIMIT` of its LF archive reader) and refuses a deeper one as it reads the DAR. Here
expression bodies stay encoded until they run, so the depth is checked at upload by this scan instead: iterative (a
stack of the enclosing messages' ends, never Python recursion), guided by the full schema (only fields typed as
messages nest; strings, bytes, packed scalars and unknown fields are opaque, as protobuf reads them), and bounded
by the bytes: every level of nesting costs at least two bytes (a tag and a length), so a field whose length cannot
hold enough levels to pass the limit is skipped whole. A real package is thus scanned in a few of its largest
messages; no byte is read twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ._proto import daml_lf2_pb2
from .errors import MalformedArchive

if TYPE_CHECKING:
    from google._upb._message import Descriptor as UpbDescriptor

MessageDescriptor: TypeAlias = "Descriptor | UpbDescriptor"
"""A message type's descriptor: protobuf's Python one or its C (upb) one, whichever backend runs (the same face)."""

RECURSION_LIMIT = 1000
"""Canton's protobuf recursion limit for Daml-LF 2.1 packages: the deepest a message may sit below the package."""

PACKAGE = daml_lf2_pb2.Package.DESCRIPTOR

_VARINT, _FIXED64, _LENGTH, _START_GROUP, _END_GROUP, _FIXED32 = 0, 1, 2, 3, 4, 5
_MESSAGE_FIELDS: dict[str, dict[int, MessageDescriptor]] = {}


class NestedTooDeep(MalformedArchive):
    """Protobuf messages nested beyond the recursion limit."""


def _message_fields(descriptor: MessageDescriptor) -> dict[int, MessageDescriptor]:
    """The fields of a message type that hold messages, by number, with their types."""
    fields = _MESSAGE_FIELDS.get(descriptor.full_name)
    if fields is None:
        fields = _MESSAGE_FIELDS[descriptor.full_name] = {
            field.number: field.message_type
            for field in descriptor.fields
            if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None
        }
    return fields


def check_nesting(
    data: bytes, where: str, root: MessageDescriptor = PACKAGE, limit: int = RECURSION_LIMIT
) -> None:
    """Raise ``NestedTooDeep`` if a message of ``data`` (encoded ``root``) nests more than ``limit`` deep, and
    ``MalformedArchive`` for wire bytes that protobuf would not read (a truncated field, a group)."""
    try:
        _scan(data, where, root, limit)
    except (IndexError, ValueError):  # a varint running past the end, or longer than ten bytes
        raise MalformedArchive(f"{where}: a protobuf varint is truncated or too long") from None


def _scan(data: bytes, where: str, root: MessageDescriptor, limit: int) -> None:
    enclosing: list[tuple[int, dict[int, MessageDescriptor]]] = []
    fields = _message_fields(root)
    pos, end, depth = 0, len(data), 0
    while True:
        if pos >= end:
            if pos > end:
                raise MalformedArchive(f"{where}: a protobuf field runs past its message")
            if not enclosing:
                return
            end, fields = enclosing.pop()
            depth -= 1
            continue
        tag = data[pos]  # most tags and lengths take one byte: read them here, without a call
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read_varint(data, pos)
        wire_type = tag & 7
        if wire_type == _VARINT:
            last = pos + 9  # ten bytes at most
            while data[pos] & 0x80:
                if pos == last:
                    raise ValueError("a varint longer than ten bytes")
                pos += 1
            pos += 1
        elif wire_type == _LENGTH:
            length = data[pos]
            if length < 0x80:
                pos += 1
            else:
                length, pos = read_varint(data, pos)
            field_end = pos + length
            if field_end > end:
                raise MalformedArchive(f"{where}: a protobuf field runs past its message")
            message = fields.get(tag >> 3)
            if (
                message is not None and depth + 1 + length // 2 > limit
            ):  # may hold too many levels: look inside
                if depth + 1 > limit:
                    raise NestedTooDeep(
                        f"{where}: Protocol message had too many levels of nesting (more than {limit}, Canton's "
                        "recursion limit for Daml-LF 2.1 packages)"
                    )
                enclosing.append((end, fields))
                end, fields, depth = field_end, _message_fields(message), depth + 1
            else:
                pos = field_end
        elif wire_type == _FIXED64:
            pos += 8
        elif wire_type == _FIXED32:
            pos += 4
        else:  # groups (3, 4) are unknown to the Daml-LF schema, which Canton refuses; 6 and 7 do not exist
            raise MalformedArchive(f"{where}: protobuf field {tag >> 3} has wire type {wire_type}")


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The protobuf varint at `pos` and the position after it (the archive reader's one varint decoder)."""
    byte = data[pos]
    if byte < 0x80:
        return byte, pos + 1
    value, shift = byte & 0x7F, 7
    while True:
        pos += 1
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos + 1
        shift += 7
        if shift > 63:
            raise ValueError("a varint longer than ten bytes")
