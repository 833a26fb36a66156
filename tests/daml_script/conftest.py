"""The Canton Coin test DAR (``splice-amulet-test``: 50 scripts), read once, and fresh ledgers to run them on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from participant.daml_script.dars import Dars, read_dars
from participant.server.script_tests import prepare_database
from tests.daml_lf.conftest import DARS_DIR, dars_missing_reason

SPLICE_TEST = "splice/test/splice-amulet-test-0.1.8.dar"


@pytest.fixture(scope="session")
def splice_test_dar() -> Path:
    path = DARS_DIR / SPLICE_TEST
    if not path.is_file():
        pytest.skip(dars_missing_reason())
    return path


@pytest.fixture(scope="session")
def splice_dars(splice_test_dar: Path) -> Dars:
    return read_dars([splice_test_dar])


@pytest.fixture(scope="session")
def splice_db(splice_dars: Dars, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with the DAR loaded: every test's ledger starts from a copy of it."""
    db = tmp_path_factory.mktemp("splice") / "dars.db"
    asyncio.run(prepare_database(splice_dars, db))
    return db
