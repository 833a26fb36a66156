"""The suite runs without ../shared (the official spec and the reference DARs): nothing fails at collection, and the
checks that need them skip, saying why, while the rest of each test still runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.spec import REPO_ROOT


def pytest_without_references(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """This repository's pytest, in one process, with the spec and the DARs pointed at nothing."""
    nowhere = tmp_path / "no-shared"
    env = {
        **os.environ,
        "LEDGER_API_SPEC": str(nowhere / "openapi.yaml"),
        "LEDGER_DARS": str(nowhere / "dars"),
        "LEDGER_REQUIRE_REFERENCES": "0",
        "PYTHONPATH": str(REPO_ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-rs", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_suite_runs_without_the_spec_and_the_dars(tmp_path):
    """The whole suite collected (a collection error fails the run, whatever is selected), four tests run."""
    selected = [
        "test_error_body_has_every_key",  # an answer's keys: the spec's, else the wire model's
        "test_the_keys_are_the_specs",  # nothing but the spec
        "test_a_dar_uploaded_is_listed_served_and_registered",  # a real DAR
        "(test_screen_at_80x24 and packages)",  # the snapshot of a screen that uploads a real DAR
    ]
    r = pytest_without_references(tmp_path, "tests", "-k", " or ".join(selected))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert "1 passed, 3 skipped" in summary and "error" not in summary, r.stdout[-3000:]
    skipped = [line for line in r.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 3, skipped
    assert any("test_created_event_shape.py" in line and "OpenAPI spec not found" in line for line in skipped)
    assert sum("the reference DARs are absent" in line for line in skipped) == 2, skipped
    # the run says what it went without
    assert "answers not checked against the spec: OpenAPI spec not found at" in r.stdout
    assert "tests of real DARs skipped: the reference DARs are absent:" in r.stdout
