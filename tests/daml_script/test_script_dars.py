"""The DARs of one script's run (`ledger-tui script --dar A --dar B --script-name …`): every DAR kept to upload,
and the code built from the one that holds the script, its main package and the dependencies it carries, with those
it does not carry taken from the other DARs (a real DAR's packages split in two here), and only those."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from participant.daml_lf.archive import MANIFEST, Dar, read_dar
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


def split_dar(source: Path, directory: Path) -> tuple[Path, Path, set[str]]:
    """`source`'s packages in two DARs built from its entries: its main package with the standard library's and
    prim's (`daml-*`), and the others (its project's dependencies) in a DAR of their own, which carries the library
    too (a participant takes only a DAR that holds every package its packages need); and those others' ids."""
    dar = read_dar(source.read_bytes())
    library = [d for d in dar.dalfs if Path(d.path).name.startswith("daml-")]
    project = [d for d in dar.dalfs[1:] if d not in library]
    assert project, "the DAR has dependencies of its own to split off"
    script_dar = write_dar(source, directory / "script-only.dar", [dar.main, *library])
    dependencies = write_dar(source, directory / "dependencies.dar", [*project, *library])
    return script_dar, dependencies, {d.package_id for d in project}


def write_dar(source: Path, target: Path, dalfs: list) -> Path:
    """A DAR of `dalfs` (the first its main), their entries copied from `source`'s zip."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        paths = [d.path for d in dalfs]
        zout.writestr(
            MANIFEST,
            "Manifest-Version: 1.0\nFormat: daml-lf\nName: split\n"
            f"Main-Dalf: {paths[0]}\nDalfs: {', '.join(paths)}\n",
        )
        for path in paths:
            zout.writestr(path, zin.read(path))
    return target


def ids_of(dar: Dar) -> set[str]:
    return {d.package_id for d in dar.dalfs}


def test_a_dependency_the_script_s_dar_lacks_is_taken_from_another_dar(tmp_path, splice_test_dar) -> None:
    script_dar, dependencies, borrowed = split_dar(splice_test_dar, tmp_path)
    richtypes = DARS_DIR / RICHTYPES
    dars = read_script_dars([script_dar, richtypes, dependencies], TEST_TAP)
    splice_main, splice_packages = main_and_packages(splice_test_dar)
    decoded = set(dars.code.packages.packages)
    assert dars.code.packages.main_package_id == splice_main
    assert borrowed <= decoded  # the script runs on the packages it borrows
    assert decoded <= splice_packages  # and only on what it needs: richtypes' packages are not decoded
    assert read_dar(richtypes.read_bytes()).main.package_id not in decoded
    # the DARs it borrows from are uploaded first, the script's own last
    assert [path for path, _ in dars.contents] == [richtypes, dependencies, script_dar]


def test_a_dependency_no_dar_holds_is_named(tmp_path, splice_test_dar) -> None:
    script_dar, _, borrowed = split_dar(splice_test_dar, tmp_path)
    with pytest.raises(UnreadableDar, match="needs the package ([0-9a-f]{64})") as refused:
        read_script_dars([script_dar, DARS_DIR / RICHTYPES], TEST_TAP)
    assert str(refused.value).split("needs the package ")[1][:64] in borrowed
