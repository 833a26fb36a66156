"""The packages a package needs, read off its archive without decoding it: the ids it imports, and those its
interned strings hold (a reference to another package's definition is an interned string of its id), so that
only the packages reachable from a main package are decoded, not every package at hand.

A Daml text literal that happens to be 64 hexadecimal digits would read as a reference too: it only makes the
package it names (if any is at hand) decoded needlessly."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from google.protobuf.message import DecodeError

from ._proto import daml_lf2_lazy_pb2 as lf
from .archive import Dalf
from .errors import MalformedArchive

_PACKAGE_ID = re.compile(r"[0-9a-f]{64}\Z")


def referenced_packages(dalf: Dalf) -> frozenset[str]:
    """The ids of the other packages `dalf`'s package refers to."""
    try:
        package = lf.Package.FromString(dalf.package)
    except DecodeError as exc:
        raise MalformedArchive(f"{dalf.path}: package {dalf.package_id} does not decode ({exc})") from None
    named = {s for s in package.interned_strings if _PACKAGE_ID.match(s)}
    named.update(package.package_imports.imported_packages)
    named.discard(dalf.package_id)
    return frozenset(named)


def reachable(main_package_id: str, references: Callable[[str], Iterable[str] | None]) -> list[str]:
    """`main_package_id` and every package it needs, directly or through another, main first, in the order
    reached. `references(id)` is what a package refers to, None for a package not at hand (kept in the answer,
    not followed: the caller says what is missing)."""
    found = [main_package_id]
    seen = {main_package_id}
    for package_id in found:  # grows as it goes: a breadth-first walk
        for referred in sorted(references(package_id) or ()):
            if referred not in seen:
                seen.add(referred)
                found.append(referred)
    return found
