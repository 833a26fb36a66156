"""The DARs of one script's run (`ledger-tui script --dar A --dar B --script-name …`): every DAR kept to upload,
and the code built from the one that holds the script alone, its main package and the dependencies it carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from participant.daml_lf.archive import read_dar
from participant.daml_script.dars import UnreadableDar, read_script_dars
from tests.daml_lf.conftest import DARS_DIR, RICHTYPES

TEST_TAP = "Splice.Scripts.TestTap:testTap"


def main_and_packages(path: Path) -> tuple[str, set[str]]:
    dar = read_dar(path.read_bytes())
    return dar.main.package_id, {dalf.package_id for dalf in dar.dalfs}


def test_the_code_is_the_script_s_dar_s_whatever_its_place(splice_test_dar) -> None:
    richtypes = DARS_DIR / RICHTYPES
    splice_main, splice_packages = main_and_packages(splice_test_dar)
    rich_main, _ = main_and_packages(richtypes)
    dars = read_script_dars([richtypes, splice_test_dar], TEST_TAP)
    assert [path for path, _ in dars.contents] == [richtypes, splice_test_dar]  # both uploaded where missing
    assert dars.main_package_ids == [rich_main, splice_main]
    assert dars.code.packages.main_package_id == splice_main
    assert set(dars.code.packages.packages) == splice_packages  # richtypes' own package not among them
    assert rich_main not in dars.code.packages.packages
    assert dars.code.program.located_packages == frozenset({splice_main})


def test_a_script_no_dar_defines_leaves_the_first_dar_s_code(splice_test_dar) -> None:
    splice_main, _ = main_and_packages(splice_test_dar)
    dars = read_script_dars([splice_test_dar, DARS_DIR / RICHTYPES], "No.Such:script")
    assert dars.code.packages.main_package_id == splice_main  # the runner says there is no such script


def test_an_unreadable_dar_is_named(tmp_path, splice_test_dar) -> None:
    broken = tmp_path / "broken.dar"
    broken.write_bytes(b"not a zip")
    with pytest.raises(UnreadableDar, match="broken.dar"):
        read_script_dars([splice_test_dar, broken], TEST_TAP)
