"""The architecture's boundaries, checked with import-linter contracts from pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    lint_imports = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    result = subprocess.run(
        [lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_only_the_python_dsl_reads_its_classes_insides():
    """Outside the DSL, templates are the engine's definitions: no DSL class attribute, no class-typed template."""
    dsl = ROOT / "participant" / "engine" / "pydsl"
    offenders = [
        f"{path.relative_to(ROOT)}: {needle}"
        for path in sorted((ROOT / "participant").rglob("*.py"))
        if dsl not in path.parents
        for needle in ("__daml__", "type[Template]", "type[Interface]", "daml_type()")
        if needle in path.read_text()
    ]
    assert offenders == []
