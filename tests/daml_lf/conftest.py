"""The real DARs of ``../shared/dars`` (relative to the repository root); tests skip, saying so, without them."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from participant.daml_lf.packages import PackageSet, read_packages
from participant.daml_lf.signatures import Signatures, signatures_of
from tests.spec import REPO_ROOT

DARS_DIR = (REPO_ROOT / os.environ.get("LEDGER_DARS", "../shared/dars")).resolve()
AMULET = "splice/splice-amulet-0.1.14.dar"
HOLDING = "splice/splice-api-token-holding-v1-1.0.0.dar"
RICHTYPES = "richtypes/richtypes.dar"


def dars_missing_reason() -> str:
    return f"the reference DARs are absent: {DARS_DIR} (set LEDGER_DARS to their directory)"


@pytest.fixture(scope="session")
def dars_dir() -> Path:
    if not DARS_DIR.is_dir():
        pytest.skip(dars_missing_reason())
    return DARS_DIR


@pytest.fixture(scope="session")
def dar_bytes(dars_dir: Path) -> Callable[[str], bytes]:
    def read(name: str) -> bytes:
        return (dars_dir / name).read_bytes()

    return read


@pytest.fixture(scope="session")
def amulet(dar_bytes: Callable[[str], bytes]) -> PackageSet:
    return read_packages(dar_bytes(AMULET))


@pytest.fixture(scope="session")
def amulet_signatures(amulet: PackageSet) -> Signatures:
    return signatures_of(amulet)


@pytest.fixture(scope="session")
def richtypes(dar_bytes: Callable[[str], bytes]) -> PackageSet:
    return read_packages(dar_bytes(RICHTYPES))


def rezip(dar: bytes, replace: dict[str, bytes | None]) -> bytes:
    """The DAR with members replaced (``None``: removed), every other member copied as it is."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(dar)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            if info.filename in replace:
                content = replace[info.filename]
                if content is not None:
                    target.writestr(info.filename, content)
            else:
                target.writestr(info, source.read(info.filename))
    return out.getvalue()
