"""DARs (a zip with a JAR-style manifest) and DALFs (the ``Archive`` envelope: payload, hash = package id).

Only the container is read here: the package payload is returned as bytes, checked against its hash, with its
Daml-LF version; ``decode`` turns it into the AST.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from ._proto import daml_lf_pb2
from .errors import (
    HashMismatch,
    MalformedArchive,
    MalformedManifest,
    MissingDalf,
    MissingManifest,
    NotAZip,
    UnsupportedLfVersion,
)

MANIFEST = "META-INF/MANIFEST.MF"
SUPPORTED_LF_MINORS = ("1",)
"""The Daml-LF 2 minor versions whose schema this reader decodes with (LF 2.1, Daml SDK 3.3/3.4)."""


@dataclass(frozen=True, slots=True)
class Dalf:
    """One package's archive: its id (the SHA-256 of the payload, checked), LF version and encoded package."""

    package_id: str
    lf_version: str  # "2.1"
    package: bytes  # the encoded daml_lf_2.Package
    path: str = ""  # where it was found in its DAR, for messages


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
    if archive.hash_function != daml_lf_pb2.SHA256:
        raise MalformedArchive(f"{path}: unknown hash function {archive.hash_function}")
    digest = hashlib.sha256(archive.payload).hexdigest()
    if digest != archive.hash:
        raise HashMismatch(
            f"{path}: package id {archive.hash!r} is not the SHA-256 of its payload ({digest})"
        )
    try:
        payload = daml_lf_pb2.ArchivePayload.FromString(archive.payload)
    except DecodeError as exc:
        raise MalformedArchive(f"{path}: payload of package {digest} does not decode ({exc})") from None
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
    return Dalf(package_id=digest, lf_version=f"2.{payload.minor}", package=payload.daml_lf_2, path=path)


def read_dar(data: bytes) -> Dar:
    """Open a DAR from its bytes: its manifest, then every DALF the manifest names, each checked by ``read_dalf``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise NotAZip(f"not a DAR: not a zip file ({exc})") from None
    with archive:
        try:
            manifest = parse_manifest(_read_member(archive, MANIFEST).decode("utf-8"))
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
        if main_path in paths:
            paths.remove(main_path)
        dalfs = []
        for path in (main_path, *paths):
            try:
                member = _read_member(archive, path)
            except KeyError:
                raise MissingDalf(f"{MANIFEST} names {path}, which the DAR does not contain") from None
            dalfs.append(read_dalf(member, path))
    return Dar(
        name=manifest.get("Name", ""),
        sdk_version=manifest.get("Sdk-Version", ""),
        main=dalfs[0],
        dalfs=tuple(dalfs),
    )


def _read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:  # a truncated or corrupt member
        raise NotAZip(f"not a DAR: {name} cannot be read ({exc})") from None


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
