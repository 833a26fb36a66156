"""The generated protobuf modules are what the script in the repository writes from the given schema."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from participant.daml_lf._proto import daml_lf2_lazy_pb2, daml_lf2_pb2
from participant.daml_lf._proto.generate import (
    DEFAULT_SCHEMA_DIR,
    HERE,
    OUTPUTS,
    derive_lazy_schema,
    generate,
)
from tests.spec import REPO_ROOT

_PIN = re.search(r'"grpcio-tools==([^"]+)"', (REPO_ROOT / "pyproject.toml").read_text())
assert _PIN is not None, "pyproject.toml pins grpcio-tools"
PINNED = _PIN.group(1)


def _schema_dir() -> Path:
    if not (DEFAULT_SCHEMA_DIR / "daml_lf2.proto").is_file():
        pytest.skip(f"the Daml-LF schema is absent: {DEFAULT_SCHEMA_DIR.resolve()}")
    return DEFAULT_SCHEMA_DIR


def test_regenerating_gives_the_committed_modules(tmp_path: Path) -> None:
    schema_dir = _schema_dir()
    try:
        installed = importlib.metadata.version("grpcio-tools")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("grpcio-tools is not installed (pip install -e '.[dev]')")
    if installed != PINNED:
        pytest.skip(f"grpcio-tools {installed} is installed, the committed modules are {PINNED}'s")
    generate(schema_dir, tmp_path)
    for name in OUTPUTS:
        assert (tmp_path / name).read_text() == (HERE / name).read_text(), f"{name} differs: regenerate it"


def test_the_derived_schema_has_no_expression_field_left() -> None:
    derived = derive_lazy_schema((_schema_dir() / "daml_lf2.proto").read_text())
    assert not re.search(r"^\s*(repeated\s+)?Expr\s+\w+\s*=", derived, re.MULTILINE)
    assert "package daml_lf_2_lazy;" in derived


def test_every_expression_field_of_the_schema_is_bytes_in_the_derived_one() -> None:
    full_pool, lazy_pool = daml_lf2_pb2.DESCRIPTOR.pool, daml_lf2_lazy_pb2.DESCRIPTOR.pool
    checked = 0
    for name in daml_lf2_pb2.DESCRIPTOR.message_types_by_name:
        stack = [full_pool.FindMessageTypeByName(f"daml_lf_2.{name}")]
        while stack:
            full = stack.pop()
            stack.extend(full.nested_types)
            lazy = lazy_pool.FindMessageTypeByName(full.full_name.replace("daml_lf_2.", "daml_lf_2_lazy.", 1))
            for field in full.fields:
                twin = lazy.fields_by_name[field.name]
                assert (twin.number, twin.is_repeated) == (field.number, field.is_repeated)
                if field.message_type is not None and field.message_type.full_name == "daml_lf_2.Expr":
                    assert twin.type == twin.TYPE_BYTES, field.full_name
                    checked += 1
                else:
                    assert twin.type == field.type, field.full_name
    assert checked > 50
