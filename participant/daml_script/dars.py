"""A run's DARs read once: their packages decoded and compiled (the first DAR's main package the main one, the
scripts' own packages marked so a failure in them says where), their bytes (to upload), their scripts; and one
script's run (`read_script_dars`): its DAR's packages, and those of the other DARs its main package needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from participant.daml_lf import ast
from participant.daml_lf.archive import Dalf, Dar, read_dar, read_payload
from participant.daml_lf.decode import decode_package
from participant.daml_lf.dependencies import reachable, referenced_packages
from participant.daml_lf.errors import DamlLfError
from participant.daml_lf.packages import PackageSet, check_references, decode_dar, packages_of
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
    """The DARs of one script's run: every DAR's bytes and main package id (each is uploaded where missing, in
    this order: the script's own DAR last, after those it may borrow packages from), and the code of the one that
    holds the script: its main package, the dependencies it carries and those it borrows from the others."""

    contents: list[tuple[Path, bytes]]
    main_package_ids: list[str]  # each DAR's, in the order of `contents`
    code: LfPackages


def read_script_dars(paths: list[Path], script_name: str) -> ScriptDars:
    """Read the DARs of `script_name`'s run: each DAR's container, then the code of the first whose main package
    defines the script (the first DAR's when none does: the runner then says there is no such script): that DAR's
    packages, and those its main package needs that it does not carry, from the other DARs (only those: the other
    DARs' other packages are not decoded). Raises `UnreadableDar` naming a package needed that no DAR holds."""
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
        borrowed = _borrowed(path, dar, dars)
        own = decode_dar(dar)
        packages = dict(own.packages)
        for other_path, dalf in borrowed:
            try:
                packages[dalf.package_id] = decode_package(dalf)
            except DamlLfError as e:
                raise UnreadableDar(f"the DAR {other_path} cannot be read: {e}") from None
        package_set = PackageSet(own.main_package_id, MappingProxyType(packages))
        check_references(package_set)
    except DamlLfError as e:
        raise UnreadableDar(f"the DAR {path} cannot be read: {e}") from None
    payloads = {dalf.package_id: dalf.payload for dalf in (*dar.dalfs, *(dalf for _, dalf in borrowed))}
    code = LfPackages(package_set, payloads)
    code.program.located_packages = frozenset(
        {package_set.main_package_id}
    )  # where the script's failures are
    # the DARs it borrows from are uploaded before it: a participant refuses a DAR whose dependencies it lacks
    order = [*(i for i, (_, d) in enumerate(dars) if d is not dar), dars.index((path, dar))]
    return ScriptDars([contents[i] for i in order], [dars[i][1].main.package_id for i in order], code)


def _borrowed(path: Path, dar: Dar, dars: list[tuple[Path, Dar]]) -> list[tuple[Path, Dalf]]:
    """The packages `dar`'s main package needs, directly or not, that `dar` does not carry: each from the first
    other DAR that holds it."""
    own = {dalf.package_id: dalf for dalf in dar.dalfs}
    others: dict[str, tuple[Path, Dalf]] = {}
    for other_path, other in dars:
        if other is not dar:
            for dalf in other.dalfs:
                others.setdefault(dalf.package_id, (other_path, dalf))

    def references(package_id: str) -> frozenset[str] | None:
        dalf = own.get(package_id) or (others[package_id][1] if package_id in others else None)
        return None if dalf is None else referenced_packages(dalf)

    needed = reachable(dar.main.package_id, references)
    missing = [package_id for package_id in needed if package_id not in own and package_id not in others]
    if missing:
        given = ", ".join(str(p) for p, _ in dars)
        raise UnreadableDar(
            f"the DAR {path} needs the package {missing[0]}, which none of the DARs given holds ({given}): "
            "give the DAR that has it with another --dar"
        )
    return [others[package_id] for package_id in needed if package_id not in own]


def _defines(dar: Dar, module: str, value: str) -> bool:
    try:
        found = decode_package(dar.main).modules.get(module)
    except DamlLfError:
        return False  # said when its DAR is the one read whole
    return found is not None and value in found.values


def scripts_of(package: ast.Package) -> list[str]:
    """The package's scripts that take no argument, by module then name."""
    return list(script_names(package))


def archive_references(package_id: str, archive: bytes) -> frozenset[str]:
    """The ids of the packages a package refers to, from its archive as a participant's package service serves it
    (an ``ArchivePayload``), checked against its id. Raises `UnreadableDar` for an archive that does not read."""
    try:
        return referenced_packages(read_payload(package_id, archive, f"package {package_id}"))
    except DamlLfError as e:
        raise UnreadableDar(f"the package {package_id} cannot be read: {e}") from None


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
