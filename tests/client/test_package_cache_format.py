"""The package cache's format follows the shapes it stores: a digest of the field layout of every class a cached
signature is made of, so that a change to any of them makes older entries unread (never unpickled into classes of
another shape) without anyone remembering to bump a number."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import pytest

from app import packages
from app.packages import CACHE_FORMAT, PackageCache, read_entry, shapes_version
from participant.daml_lf.archive import read_dar
from tests.daml_lf.conftest import RICHTYPES, dar_bytes, dars_dir  # noqa: F401  (pytest fixtures, used by name)


def test_the_format_is_the_digest_of_the_pickled_classes_shapes() -> None:
    assert CACHE_FORMAT == shapes_version(
        {"participant.daml_lf.ast", "participant.daml_lf.signatures", "app.packages"}
    )


@pytest.fixture
def shapes_module():
    module = types.ModuleType("cache_shapes_example")
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def _define(module: types.ModuleType, annotations: dict[str, str]) -> None:
    cls = type("Signature", (), {"__annotations__": annotations, "__module__": module.__name__})
    vars(module)["Signature"] = dataclass(frozen=True)(cls)


def test_a_field_added_renamed_or_retyped_changes_the_format(shapes_module) -> None:
    _define(shapes_module, {"name": "str", "fields": "tuple[str, ...]"})
    before = shapes_version([shapes_module.__name__])
    assert shapes_version([shapes_module.__name__]) == before  # the same shapes, the same format
    for changed in (
        {"name": "str", "fields": "tuple[str, ...]", "synonyms": "dict"},
        {"name": "str", "field_list": "tuple[str, ...]"},
        {"name": "str", "fields": "list[str]"},
    ):
        _define(shapes_module, changed)
        assert shapes_version([shapes_module.__name__]) != before, changed
    shapes_module.helper = lambda: None  # what is not a dataclass is not stored: no change
    _define(shapes_module, {"name": "str", "fields": "tuple[str, ...]"})
    assert shapes_version([shapes_module.__name__]) == before


def test_entries_of_another_format_are_not_read(tmp_path, dar_bytes, monkeypatch) -> None:  # noqa: F811  (the fixture imported above)
    dalf = read_dar(dar_bytes(RICHTYPES)).main
    entry = read_entry(dalf.package_id, dalf.payload)
    PackageCache(tmp_path).write(entry, dalf.payload)
    assert PackageCache(tmp_path).read(dalf.package_id) == entry
    monkeypatch.setattr(packages, "CACHE_FORMAT", "0" * 16)  # the classes changed shape since
    assert PackageCache(tmp_path).read(dalf.package_id) is None
