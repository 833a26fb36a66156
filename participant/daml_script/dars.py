"""A run's DARs read once: their packages decoded and compiled (the first DAR's main package the main one, the
scripts' own packages marked so a failure in them says where), their bytes (to upload), their scripts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from participant.daml_lf import ast
from participant.daml_lf.archive import Dar, read_dar, read_payload
from participant.daml_lf.decode import decode_package
from participant.daml_lf.errors import DamlLfError
from participant.daml_lf.packages import PackageSet, packages_of
from participant.daml_lf.signatures import script_names
from participant.engine.lf.definitions import LfPackages


class UnreadableDar(Exception):
    """A DAR that cannot be read: its path and why."""


@dataclass
class Dars:
    """The DARs of a run: their bytes, their packages decoded and compiled, the names of their scripts."""

    contents: list[tuple[Path, bytes]]
    code: LfPackages
    scripts: list[str]
    main_package_ids: list[str]  # each DAR's, in the order of `contents`


def read_dars(paths: list[Path]) -> Dars:
    contents = []
    packages: dict[str, ast.Package] = {}
    payloads: dict[str, bytes] = {}
    mains: list[str] = []
    for path in paths:
        try:
            data = path.read_bytes()
            dar = read_dar(data)
            package_set = packages_of(dar, packages)
        except OSError as e:
            raise UnreadableDar(f"cannot read the DAR {path}: {e.strerror or e}") from None
        except DamlLfError as e:
            raise UnreadableDar(f"the DAR {path} cannot be read: {e}") from None
        contents.append((path, data))
        packages.update(package_set.packages)
        payloads.update({dalf.package_id: dalf.payload for dalf in dar.dalfs})
        mains.append(package_set.main_package_id)
    code = LfPackages(PackageSet(mains[0] if mains else "", packages), payloads)
    code.program.located_packages = frozenset(mains)  # the scripts' own code says where it failed
    return Dars(contents, code, [name for main in mains for name in scripts_of(packages[main])], mains)


@dataclass
class ScriptDars:
    """The DARs of one script's run: every DAR's bytes and main package id (each is uploaded where missing), and
    the code of the one that holds the script: its main package and the dependencies it carries."""

    contents: list[tuple[Path, bytes]]
    main_package_ids: list[str]  # each DAR's, in the order of `contents`
    code: LfPackages


def read_script_dars(paths: list[Path], script_name: str) -> ScriptDars:
    """Read the DARs of `script_name`'s run: each DAR's container, then the code of the first whose main package
    defines the script (the first DAR's when none does: the runner then says there is no such script). The other
    DARs' packages are not decoded: the script cannot refer to them but through its own DAR, which carries every
    package its main package needs."""
    module, _, value = script_name.rpartition(":")
    contents: list[tuple[Path, bytes]] = []
    dars: list[tuple[Path, Dar]] = []
    for path in paths:
        try:
            data = path.read_bytes()
            dar = read_dar(data)
        except OSError as e:
            raise UnreadableDar(f"cannot read the DAR {path}: {e.strerror or e}") from None
        except DamlLfError as e:
            raise UnreadableDar(f"the DAR {path} cannot be read: {e}") from None
        contents.append((path, data))
        dars.append((path, dar))
    path, dar = next(((p, d) for p, d in dars if _defines(d, module, value)), dars[0])
    try:
        package_set = packages_of(dar)
    except DamlLfError as e:
        raise UnreadableDar(f"the DAR {path} cannot be read: {e}") from None
    payloads = {dalf.package_id: dalf.payload for dalf in dar.dalfs}
    code = LfPackages(package_set, payloads)
    code.program.located_packages = frozenset(
        {package_set.main_package_id}
    )  # where the script's failures are
    return ScriptDars(contents, [d.main.package_id for _, d in dars], code)


def _defines(dar: Dar, module: str, value: str) -> bool:
    try:
        found = decode_package(dar.main).modules.get(module)
    except DamlLfError:
        return False  # said when its DAR is the one read whole
    return found is not None and value in found.values


def scripts_of(package: ast.Package) -> list[str]:
    """The package's scripts that take no argument, by module then name."""
    return list(script_names(package))


def code_of(main_package_id: str, archives: Mapping[str, bytes]) -> LfPackages:
    """A script's code from archives as a participant's package service serves them (``ArchivePayload``s by
    package id): `main_package_id`'s package with the others it may refer to, its failures located in it.
    Raises `UnreadableDar` for an archive that does not read."""
    packages: dict[str, ast.Package] = {}
    payloads: dict[str, bytes] = {}
    for package_id, archive in archives.items():
        try:
            dalf = read_payload(package_id, archive, f"package {package_id}")
            packages[package_id] = decode_package(dalf)
        except DamlLfError as e:
            raise UnreadableDar(f"the package {package_id} cannot be read: {e}") from None
        payloads[package_id] = dalf.payload
    code = LfPackages(PackageSet(main_package_id, MappingProxyType(packages)), payloads)
    code.program.located_packages = frozenset({main_package_id})
    return code
