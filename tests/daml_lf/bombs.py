"""Hostile DARs, built from a real one: entries that decompress far past their size, a manifest naming one entry
again and again, protobuf nested past Canton's recursion limit, a package without metadata.

Deep expressions are encoded from the inside out as a list of prefixes joined once, so that building one 100,000
levels deep costs its size, not its size times its depth.
"""

from __future__ import annotations

import hashlib
import io
import zipfile

from participant.daml_lf._proto import daml_lf2_lazy_pb2 as lf
from participant.daml_lf._proto import daml_lf_pb2
from participant.daml_lf.archive import MANIFEST, parse_manifest, read_dar
from tests.daml_lf.conftest import rezip

_LENGTH_DELIMITED = 2
_OPTIONAL_SOME = lf.Expr.DESCRIPTOR.fields_by_name["optional_some"].number
_SOME_TYPE = lf.Expr.OptionalSome.DESCRIPTOR.fields_by_name["type"].number
_SOME_VALUE = lf.Expr.OptionalSome.DESCRIPTOR.fields_by_name["value"].number


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, content: bytes) -> bytes:
    return varint(number << 3 | _LENGTH_DELIMITED) + varint(len(content)) + content


def nested_some(depth: int) -> bytes:
    """``Some (Some (… (Some x)))``, ``depth`` times: an encoded ``Expr`` two protobuf levels deeper per level."""
    leaf = lf.Expr(var_interned_str=0).SerializeToString()
    some_type = _field(_SOME_TYPE, lf.Type(builtin=lf.Type.Builtin(builtin=lf.TEXT)).SerializeToString())
    chunks, size = [leaf], len(leaf)
    for _ in range(depth):
        value_head = some_type + varint(_SOME_VALUE << 3 | _LENGTH_DELIMITED) + varint(size)
        some_size = len(value_head) + size
        expr_head = varint(_OPTIONAL_SOME << 3 | _LENGTH_DELIMITED) + varint(some_size)
        chunks += (value_head, expr_head)  # reversed below: outermost first
        size = len(expr_head) + some_size
    return b"".join(reversed(chunks))


def main_package(dar: bytes) -> tuple[str, lf.Package]:
    path = read_dar(dar).main.path
    with zipfile.ZipFile(io.BytesIO(dar)) as zf:
        archive = daml_lf_pb2.Archive.FromString(zf.read(path))
    payload = daml_lf_pb2.ArchivePayload.FromString(archive.payload)
    return path, lf.Package.FromString(payload.daml_lf_2)


def dalf_of(package: bytes) -> bytes:
    """A well-formed DALF (hash = SHA-256 of its payload) of an encoded package, Daml-LF 2.1."""
    payload = daml_lf_pb2.ArchivePayload(minor="1", daml_lf_2=package).SerializeToString()
    return daml_lf_pb2.Archive(payload=payload, hash=hashlib.sha256(payload).hexdigest()).SerializeToString()


def with_main_package(dar: bytes, package: bytes, stored: bool = False) -> bytes:
    """The DAR with its main DALF holding ``package`` (``stored``: not compressed, so that a very regular
    package is not refused for its compression ratio first)."""
    path = read_dar(dar).main.path
    replaced = rezip(dar, {path: None})
    out = io.BytesIO(replaced)
    with zipfile.ZipFile(out, "a") as zf:
        zf.writestr(path, dalf_of(package), zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED)
    return out.getvalue()


def deep_ensure(dar: bytes, depth: int) -> bytes:
    """The DAR with the precondition (``ensure``) of its main package's first template ``depth`` levels deep."""
    _, package = main_package(dar)
    template = next(t for m in package.modules for t in m.templates)
    template.precond = nested_some(depth)
    return with_main_package(dar, package.SerializeToString(), stored=True)


def without_metadata(dar: bytes) -> bytes:
    _, package = main_package(dar)
    package.ClearField("metadata")
    return with_main_package(dar, package.SerializeToString())


def only_an_unknown_field(dar: bytes) -> bytes:
    """The main package replaced by a package holding nothing but a field the schema does not know."""
    return with_main_package(dar, varint(99 << 3) + varint(1))


def inflating(dar: bytes, size: int, times: int) -> bytes:
    """The DAR with one more entry, ``size`` zero bytes (a thousandth of that compressed), named ``times`` in its
    manifest's Dalfs."""
    fields = parse_manifest(_member(dar, MANIFEST).decode())
    bomb = "bomb/zeros.dalf"
    dalfs = ", ".join([fields["Dalfs"], *[bomb] * times])
    manifest = "".join(f"{key}: {value}\r\n" for key, value in {**fields, "Dalfs": dalfs}.items())
    out = io.BytesIO(rezip(dar, {MANIFEST: manifest.encode()}))
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as zf, zf.open(bomb, "w", force_zip64=True) as entry:
        zeros = bytes(1024 * 1024)
        for _ in range(size // len(zeros)):
            entry.write(zeros)
    return out.getvalue()


def named_twice(dar: bytes) -> bytes:
    """The DAR's manifest naming its second DALF twice in Dalfs."""
    fields = parse_manifest(_member(dar, MANIFEST).decode())
    second = read_dar(dar).dalfs[1].path
    manifest = "".join(
        f"{key}: {value}\r\n" for key, value in {**fields, "Dalfs": f"{fields['Dalfs']}, {second}"}.items()
    )
    return rezip(dar, {MANIFEST: manifest.encode()})


def _member(data: bytes, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read(name)
