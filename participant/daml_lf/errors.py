"""One exception tree for everything that can be wrong with a DAR or a DALF, each naming the problem."""

from __future__ import annotations


class DamlLfError(Exception):
    """A DAR or DALF that cannot be read."""


class InvalidDar(DamlLfError):
    """The DAR container: not a zip, no or a malformed manifest, a DALF it names is absent."""


class NotAZip(InvalidDar):
    pass


class MissingManifest(InvalidDar):
    pass


class MalformedManifest(InvalidDar):
    pass


class MissingDalf(InvalidDar):
    pass


class ZipBomb(DamlLfError):
    """A DAR whose entries decompress past the reader's cap on bytes, or past its compression ratio."""


class MalformedArchive(DamlLfError):
    """A DALF (or its payload) that does not decode with the Daml-LF schema."""


class HashMismatch(DamlLfError):
    """A DALF whose declared package id is not the SHA-256 of its payload."""


class UnsupportedLfVersion(DamlLfError):
    """A Daml-LF major or minor version this reader does not know."""


class UnresolvedReference(DamlLfError):
    """A reference to a package, module or definition absent from the packages read together."""


class MissingPackage(UnresolvedReference):
    """A reference to a package that is neither among the packages read nor among their known dependencies."""

    def __init__(self, message: str, package_id: str) -> None:
        super().__init__(message)
        self.package_id = package_id
