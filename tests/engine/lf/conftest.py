"""The reference DARs as the engine's Daml-LF packages (the fixtures of tests/daml_lf, which skip without them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from participant.engine.lf.definitions import LfPackages
from tests.daml_lf.conftest import AMULET, HOLDING, RICHTYPES, dar_bytes, dars_dir

__all__ = ["dar_bytes", "dars_dir", "lf_amulet", "lf_holding", "lf_richtypes"]

ALICE = "alice::1220aa"
BOB = "bob::1220bb"
DSO = "dso::1220dd"
CID = "00" + "ab" * 32
CID2 = "00" + "cd" * 32


@pytest.fixture(scope="session")
def lf_richtypes(dar_bytes: Callable[[str], bytes]) -> LfPackages:
    return LfPackages.from_dar(dar_bytes(RICHTYPES))


@pytest.fixture(scope="session")
def lf_amulet(dar_bytes: Callable[[str], bytes]) -> LfPackages:
    return LfPackages.from_dar(dar_bytes(AMULET))


@pytest.fixture(scope="session")
def lf_holding(dar_bytes: Callable[[str], bytes]) -> LfPackages:
    return LfPackages.from_dar(dar_bytes(HOLDING))
