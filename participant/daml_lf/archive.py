"""DARs (a zip with a JAR-style manifest) and DALFs (the ``Archive`` envelope: payload, hash = package id).

Only the container is read here: the package payload is returned as bytes, checked against its hash, with its
Daml-LF version and how deep its messages nest; ``decode`` turns it into the AST.

A DAR's entries are decompressed as a stream, counted as they come: the manifest and each DALF it names (once: a
manifest naming one twice is refused), all together at most ``max_bytes`` (a declared size over what is left is
refused before reading), and none past ``MAX_COMPRESSION_RATIO`` times its compressed size.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from dataclasses import dataclass

from google.protobuf import unknown_fields
from google.protobuf.message import DecodeError, Message

from ._proto import daml_lf_pb2
from .errors import (
    HashMismatch,
    MalformedArchive,
    MalformedManifest,
    MissingDalf,
    MissingManifest,
    NotAZip,
    UnsupportedLfVersion,
    ZipBomb,
)
from .limits import DEFAULT_MAX_DAR_BYTES, MAX_COMPRESSION_RATIO, RATIO_FREE_BYTES
from .nesting import check_nesting

MANIFEST = "META-INF/MANIFEST.MF"
SUPPORTED_LF_MINORS = ("1",)
"""The Daml-LF 2 minor versions whose schema this reader decodes with (LF 2.1, Daml SDK 3.3/3.4)."""
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Dalf:
    """One package's archive: its id (the SHA-256 of the payload, checked), LF version and encoded package."""

    package_id: str
    lf_version: str  # "2.1"
    package: bytes  # the encoded daml_lf_2.Package
    path: str = ""  # where it was found in its DAR, for messages
    payload: bytes = b""  # the encoded ArchivePayload, exactly as in the DALF: its SHA-256 is the package id


@dataclass(frozen=True, slots=True)
class Dar:
    """A DAR's manifest fields and its DALFs, main package first."""

    name: str
    sdk_version: str
    main: Dalf
    dalfs: tuple[Dalf, ...]  # every package of the DAR, main first, in the manifest's order


def read_dalf(data: bytes, path: str = "<dalf>") -> Dalf:
    """Decode an ``Archive``, check its hash function, its hash against its payload, and its LF version."""
    try:
        archive = daml_lf_pb2.Archive.FromString(data)
    except DecodeError as exc:
        raise MalformedArchive(f"{path}: not a Daml-LF archive ({exc})") from None
    check_no_unknown_fields(archive, path)
    if archive.hash_function != daml_lf_pb2.SHA256:
        raise MalformedArchive(f"{path}: unknown hash function {archive.hash_function}")
    return read_payload(archive.hash, archive.payload, path)


def read_payload(package_id: str, data: bytes, path: str = "<dalf>") -> Dalf:
    """An ``ArchivePayload`` (what a package service serves) checked against its package id and LF version."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != package_id:
        raise HashMismatch(f"{path}: package id {package_id!r} is not the SHA-256 of its payload ({digest})")
    try:
        payload = daml_lf_pb2.ArchivePayload.FromString(data)
    except DecodeError as exc:
        raise MalformedArchive(f"{path}: payload of package {digest} does not decode ({exc})") from None
    check_no_unknown_fields(payload, path)
    major = payload.WhichOneof("Sum")
    if major != "daml_lf_2":
        found = "1" if major == "daml_lf_1" else "unknown"
        raise UnsupportedLfVersion(
            f"{path}: package {digest} is Daml-LF {found}, only Daml-LF 2 is supported"
        )
    if payload.minor not in SUPPORTED_LF_MINORS:
        raise UnsupportedLfVersion(
            f"{path}: package {digest} is Daml-LF 2.{payload.minor}, supported: "
            + ", ".join(f"2.{minor}" for minor in SUPPORTED_LF_MINORS)
        )
    check_nesting(payload.daml_lf_2, f"{path}: package {digest}")
    return Dalf(
        package_id=digest,
        lf_version=f"2.{payload.minor}",
        package=payload.daml_lf_2,
        path=path,
        payload=data,
    )


def check_no_unknown_fields(message: Message, path: str) -> None:
    """Canton refuses a field its schema does not know, with these words (only the message's own fields are
    checked here, not those of the messages it holds)."""
    unknown = unknown_fields.UnknownFieldSet(message)
    if len(unknown):
        # A package is decoded with the derived schema: named here as the schema it derives from.
        schema_name = message.DESCRIPTOR.full_name.replace("daml_lf_2_lazy.", "daml_lf_2.")
        raise MalformedArchive(
            f"{path}: Message of type {schema_name} contains unknown field numbered {unknown[0].field_number}"
        )


def read_dar(data: bytes, max_bytes: int = DEFAULT_MAX_DAR_BYTES) -> Dar:
    """Open a DAR from its bytes: its manifest, then every DALF the manifest names, each checked by ``read_dalf``;
    what is decompressed counted against ``max_bytes``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise NotAZip(f"not a DAR: not a zip file ({exc})") from None
    budget = _Budget(max_bytes)
    with archive:
        try:
            manifest = parse_manifest(_read_member(archive, MANIFEST, budget).decode("utf-8"))
        except KeyError:
            raise MissingManifest(f"not a DAR: no {MANIFEST}") from None
        except UnicodeDecodeError:
            raise MalformedManifest(f"{MANIFEST} is not UTF-8") from None
        if manifest.get("Format", "daml-lf") != "daml-lf":
            raise MalformedManifest(f"{MANIFEST}: format {manifest['Format']!r}, expected 'daml-lf'")
        main_path = manifest.get("Main-Dalf")
        if not main_path:
            raise MalformedManifest(f"{MANIFEST} has no Main-Dalf")
        paths = [path.strip() for path in manifest.get("Dalfs", "").split(",") if path.strip()]
        _check_distinct(paths)
        if main_path in paths:
            paths.remove(main_path)
        dalfs = []
        for path in (main_path, *paths):
            try:
                member = _read_member(archive, path, budget)
            except KeyError:
                raise MissingDalf(f"{MANIFEST} names {path}, which the DAR does not contain") from None
            dalfs.append(read_dalf(member, path))
    return Dar(
        name=manifest.get("Name", ""),
        sdk_version=manifest.get("Sdk-Version", ""),
        main=dalfs[0],
        dalfs=tuple(dalfs),
    )


def _check_distinct(paths: list[str]) -> None:
    """Each DALF once: a name repeated would be read, and held, again."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            raise MalformedManifest(f"{MANIFEST} names {path} more than once in Dalfs")
        seen.add(path)


class _Budget:
    """The bytes a DAR's entries may still decompress to."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = self.left = limit

    def refuse(self, name: str, why: str) -> ZipBomb:
        return ZipBomb(f"An entry is too large, rejected as a possible zip bomb: {name} {why}")

    def take(self, size: int, name: str) -> None:
        self.left -= size
        if self.left < 0:
            raise self.refuse(name, f"takes the DAR past {self.limit} bytes decompressed")


def _read_member(archive: zipfile.ZipFile, name: str, budget: _Budget) -> bytes:
    """An entry's bytes, decompressed a chunk at a time and refused as soon as it passes the budget or the ratio
    (KeyError if the DAR has no such entry)."""
    info = archive.getinfo(name)
    if info.file_size > budget.left:  # declared too large: refused before anything is decompressed
        raise budget.refuse(name, f"declares {info.file_size} bytes, past the {budget.limit} bytes of a DAR")
    ratio_limit = max(RATIO_FREE_BYTES, MAX_COMPRESSION_RATIO * info.compress_size)
    too_dense = f"decompresses more than {MAX_COMPRESSION_RATIO} times its compressed size"
    if info.file_size > ratio_limit:
        raise budget.refuse(name, too_dense)
    # Decompressing stops at the declared size; counting the chunks is the guard that does not trust it.
    chunks, size = [], 0
    try:
        with archive.open(info) as member:
            while chunk := member.read(_CHUNK):
                size += len(chunk)
                budget.take(len(chunk), name)
                if size > ratio_limit:
                    raise budget.refuse(name, too_dense)
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        # A truncated or corrupt member, an unknown compression method, an encrypted one.
        raise NotAZip(f"not a DAR: {name} cannot be read ({exc})") from None
    return b"".join(chunks)


def parse_manifest(text: str) -> dict[str, str]:
    """A JAR manifest's main section: ``Key: value`` lines, a line starting with one space continuing the last."""
    fields: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if line.startswith(" "):
            if key is None:
                raise MalformedManifest(f"{MANIFEST}: continuation line before any field")
            fields[key] += line[1:]
        elif line:
            key, sep, value = line.partition(":")
            if not sep:
                raise MalformedManifest(f"{MANIFEST}: line without ':': {line[:80]!r}")
            key = key.strip()
            fields[key] = value.strip()
        else:
            break  # the main section ends at the first blank line
    return fields
