"""A run's DARs read once: their packages decoded and compiled (the first DAR's main package the main one, the
scripts' own packages marked so a failure in them says where), their bytes (to upload), their scripts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from participant.daml_lf import ast
from participant.daml_lf.archive import read_dar
from participant.daml_lf.errors import DamlLfError
from participant.daml_lf.packages import PackageSet, packages_of
from participant.daml_script.library import LOW_LEVEL
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


def scripts_of(package: ast.Package) -> list[str]:
    """The package's scripts that take no argument, by module then name (names the compiler made, ``$...``,
    left out)."""
    found = []
    for module in sorted(package.modules.values(), key=lambda m: m.name):
        for name, value in sorted(module.values.items()):
            type_ = value.type
            if (
                not name.startswith("$")
                and isinstance(type_, ast.TCon)
                and type_.tycon.module == LOW_LEVEL
                and type_.tycon.name == "Script"
            ):
                found.append(f"{module.name}:{name}")
    return found
