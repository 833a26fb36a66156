"""Regenerate the protobuf modules of this package from the Daml-LF schema.

    python -m participant.daml_lf._proto.generate [SCHEMA_DIR]

SCHEMA_DIR holds ``daml_lf.proto`` and ``daml_lf2.proto`` (default ``../shared/reference/daml-lf`` from the
repository root). Needs grpcio-tools (the ``dev`` extra); the runtime needs only ``protobuf``.

Three modules come out, each with its type stub (``.pyi``, protoc's own) so that the code that reads packages is
type-checked against the schema (the ``_pb2.py`` modules build their classes at import time, invisible to mypy):

- ``daml_lf_pb2``: the archive envelope (``Archive``, ``ArchivePayload``), verbatim.
- ``daml_lf2_pb2``: the package schema, verbatim.
- ``daml_lf2_lazy_pb2``: the package schema DERIVED by one text transform: every field whose type is ``Expr``
  becomes ``bytes`` (same number, same name), in package ``daml_lf_2_lazy``. ``bytes`` and an embedded message
  share the wire type, so a package decodes with it unchanged, each expression left as its encoded bytes. Real
  expressions nest deeper than the C decoder's fixed depth limit; with the derived schema no decode ever goes
  deeper than the types (one expression level at a time), and the signatures need no expression at all.

The files are staged under their upstream import path (``com/digitalasset/daml/lf/archive/``) so the descriptors
carry upstream file names; the one generated cross-file import is then made relative to this package.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
DEFAULT_SCHEMA_DIR = REPO_ROOT / ".." / "shared" / "reference" / "daml-lf"
IMPORT_PATH = Path("com/digitalasset/daml/lf/archive")
SOURCES = ("daml_lf.proto", "daml_lf2.proto")
DERIVED = "daml_lf2_lazy.proto"
MODULES = ("daml_lf_pb2", "daml_lf2_pb2", "daml_lf2_lazy_pb2")
OUTPUTS = tuple(f"{module}{suffix}" for module in MODULES for suffix in (".py", ".pyi"))

# A field declaration of type Expr, optionally repeated: `  Expr body = 2;`, `  repeated Expr args = 2;`.
_EXPR_FIELD = re.compile(r"^(\s*(?:repeated\s+)?)Expr(\s+\w+\s*=\s*\d+\s*;)", re.MULTILINE)
_PACKAGE = re.compile(r"^package daml_lf_2;$", re.MULTILINE)


def derive_lazy_schema(schema: str) -> str:
    """``daml_lf2.proto`` with every ``Expr``-typed field turned into ``bytes``, in its own proto package."""
    derived, fields = _EXPR_FIELD.subn(r"\1bytes\2", schema)
    derived, packages = _PACKAGE.subn("package daml_lf_2_lazy;", derived)
    if fields == 0 or packages != 1:
        raise SystemExit("daml_lf2.proto does not have the expected shape (Expr fields, package daml_lf_2)")
    header = (
        "// DERIVED from daml_lf2.proto by participant/daml_lf/_proto/generate.py: Expr fields are bytes.\n"
    )
    return header + derived


def generate(schema_dir: Path, out_dir: Path) -> list[Path]:
    """Write the three ``_pb2.py`` modules and their ``.pyi`` stubs into ``out_dir``; return their paths."""
    from grpc_tools import protoc  # the dev extra: only regeneration needs it

    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "src"
        target = staged / IMPORT_PATH
        target.mkdir(parents=True)
        for name in SOURCES:
            shutil.copyfile(schema_dir / name, target / name)
        (target / DERIVED).write_text(derive_lazy_schema((schema_dir / "daml_lf2.proto").read_text()))
        generated = Path(tmp) / "out"
        generated.mkdir()
        # the schema imports nothing of protobuf's own types: the staged files are the whole include path
        args = ["protoc", f"-I{staged}", f"--python_out={generated}", f"--pyi_out={generated}"]
        args += [str(IMPORT_PATH / name) for name in (*SOURCES, DERIVED)]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        written = []
        for name in OUTPUTS:
            text = (generated / IMPORT_PATH / name).read_text()
            text = text.replace("from com.digitalasset.daml.lf.archive import ", "from . import ")
            path = out_dir / name
            path.write_text(text)
            written.append(path)
        return written


def main(argv: list[str]) -> int:
    schema_dir = Path(argv[0]) if argv else DEFAULT_SCHEMA_DIR
    for path in generate(schema_dir.resolve(), HERE):
        print(path.relative_to(REPO_ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
