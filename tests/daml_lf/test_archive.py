"""DARs and DALFs: every real DAR reads with its package ids checked; each kind of corrupt input raises its own
error, built from the real DARs."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable

import pytest

from participant.daml_lf._proto import daml_lf_pb2
from participant.daml_lf.archive import MANIFEST, parse_manifest, read_dalf, read_dar
from participant.daml_lf.errors import (
    HashMismatch,
    MalformedArchive,
    MalformedManifest,
    MissingDalf,
    MissingManifest,
    NotAZip,
    UnsupportedLfVersion,
)

from .conftest import HOLDING, rezip

ALL_DARS = [
    "richtypes/richtypes.dar",
    "splice/splice-amulet-0.1.14.dar",
    "splice/splice-api-featured-app-v1-1.0.0.dar",
    "splice/splice-api-token-allocation-instruction-v1-1.0.0.dar",
    "splice/splice-api-token-allocation-request-v1-1.0.0.dar",
    "splice/splice-api-token-allocation-v1-1.0.0.dar",
    "splice/splice-api-token-burn-mint-v1-1.0.0.dar",
    "splice/splice-api-token-holding-v1-1.0.0.dar",
    "splice/splice-api-token-metadata-v1-1.0.0.dar",
    "splice/splice-api-token-transfer-instruction-v1-1.0.0.dar",
    "splice/splice-util-0.1.4.dar",
    "splice/splice-wallet-0.1.14.dar",
    "splice/splice-wallet-payments-0.1.14.dar",
]


def test_the_list_covers_every_dar(dars_dir) -> None:
    assert sorted(str(p.relative_to(dars_dir)) for p in dars_dir.glob("*/*.dar")) == sorted(ALL_DARS)


@pytest.mark.parametrize("name", ALL_DARS)
def test_every_dalf_reads_and_its_id_is_the_hash_of_its_payload(
    dar_bytes: Callable[[str], bytes], name
) -> None:
    data = dar_bytes(name)
    dar = read_dar(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        dalf_members = sorted(n for n in zf.namelist() if n.endswith(".dalf"))
        assert sorted(dalf.path for dalf in dar.dalfs) == dalf_members
        for dalf in dar.dalfs:
            archive = daml_lf_pb2.Archive.FromString(zf.read(dalf.path))
            assert dalf.package_id == hashlib.sha256(archive.payload).hexdigest() == archive.hash
            assert dalf.path.removesuffix(".dalf").endswith(dalf.package_id)  # damlc names DALFs by their id
            assert dalf.lf_version == "2.1"
    assert dar.main is dar.dalfs[0]
    assert dar.main.path.rsplit("/", 1)[-1].startswith(dar.name)


def test_the_manifest_joins_continuation_lines() -> None:
    text = "Manifest-Version: 1.0\r\nMain-Dalf: a/b-\r\n 123.dalf\r\nDalfs: a/b-123.dalf, a/c\r\n .dalf\r\n\r\nX: y\r\n"
    assert parse_manifest(text) == {
        "Manifest-Version": "1.0",
        "Main-Dalf": "a/b-123.dalf",
        "Dalfs": "a/b-123.dalf, a/c.dalf",
    }


# --- Corrupt inputs, each with its own error


def _main_path(data: bytes) -> str:
    return read_dar(data).main.path


def _reencode(dalf: bytes, change: Callable[[daml_lf_pb2.ArchivePayload], None]) -> bytes:
    """The DALF with its payload changed and its hash recomputed (a well-formed archive of another package)."""
    archive = daml_lf_pb2.Archive.FromString(dalf)
    payload = daml_lf_pb2.ArchivePayload.FromString(archive.payload)
    change(payload)
    encoded = payload.SerializeToString()
    return daml_lf_pb2.Archive(payload=encoded, hash=hashlib.sha256(encoded).hexdigest()).SerializeToString()


def _member(data: bytes, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read(name)


def test_not_a_zip(dar_bytes) -> None:
    with pytest.raises(NotAZip, match="not a zip"):
        read_dar(b"%PDF-1.7 not a dar")


def test_a_truncated_dar(dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    with pytest.raises(NotAZip):
        read_dar(data[: len(data) // 2])


def test_no_manifest(dar_bytes) -> None:
    with pytest.raises(MissingManifest, match="MANIFEST.MF"):
        read_dar(rezip(dar_bytes(HOLDING), {MANIFEST: None}))


def test_a_manifest_without_main_dalf(dar_bytes) -> None:
    with pytest.raises(MalformedManifest, match="Main-Dalf"):
        read_dar(rezip(dar_bytes(HOLDING), {MANIFEST: b"Manifest-Version: 1.0\r\nFormat: daml-lf\r\n"}))


def test_a_manifest_naming_a_missing_dalf(dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    dependency = read_dar(data).dalfs[3].path
    with pytest.raises(MissingDalf, match=dependency):
        read_dar(rezip(data, {dependency: None}))


def test_a_tampered_payload_does_not_match_its_hash(dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    main = _main_path(data)
    archive = daml_lf_pb2.Archive.FromString(_member(data, main))
    archive.payload = archive.payload.replace(b"HoldingView", b"HoldingVieW")
    with pytest.raises(HashMismatch, match=archive.hash):
        read_dar(rezip(data, {main: archive.SerializeToString()}))


def test_a_dalf_that_is_not_an_archive(dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    with pytest.raises(MalformedArchive, match="not a Daml-LF archive"):
        read_dar(rezip(data, {_main_path(data): b"\xff\xff\xff\xff"}))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda payload: setattr(payload, "minor", "99"), "Daml-LF 2.99"),
        (lambda payload: setattr(payload, "minor", "dev"), "Daml-LF 2.dev"),
        (lambda payload: setattr(payload, "daml_lf_1", b""), "Daml-LF 1"),
    ],
)
def test_an_unknown_lf_version(dar_bytes, change, message) -> None:
    data = dar_bytes(HOLDING)
    main = _main_path(data)
    with pytest.raises(UnsupportedLfVersion, match=message):
        read_dar(rezip(data, {main: _reencode(_member(data, main), change)}))


def test_a_dalf_read_alone(dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    dalf = read_dalf(_member(data, _main_path(data)))
    assert dalf.package_id == read_dar(data).main.package_id
