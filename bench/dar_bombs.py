"""Hostile DARs against a real participant: what refusing each costs the server, in memory and time.

    python -m bench.dar_bombs [--dars DIR]

Builds each hostile DAR of ``tests/daml_lf/bombs.py`` from richtypes (an ensure 100,000 deep, a package without
metadata, one of an unknown field only, 100 MB of zeros named eight times and once, 8 MB of zeros), then:
- over HTTP: one ``serve`` (HS256, fresh database) takes splice-api-token-holding first, then each bomb through
  ``POST /v2/dars``; per bomb, the server's RSS before and its peak during the upload (VmHWM, reset before each
  through ``/proc/<pid>/clear_refs``), the growth (peak minus before) and the time to the refusal;
- at start: ``serve --dar BOMB`` per bomb, to its refusal, with the process's maximum RSS (``wait4``) minus that of
  the same command given a file that is not a zip (the cost of starting alone), and its wall time.
Checks each refusal's id and that the packages listed did not change. Goal: growth ≤ 150 MB for every bomb.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import Server, bearer, mb
from tests.daml_lf.bombs import deep_ensure, inflating, only_an_unknown_field, without_metadata

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DARS = REPO_ROOT / ".." / "shared" / "dars"
MiB = 1024 * 1024

BOMBS = {
    "ensure 100,000 deep": (lambda dar: deep_ensure(dar, 100_000), "DAR_PARSE_ERROR"),
    "no metadata": (without_metadata, "DAR_PARSE_ERROR"),
    "unknown field only": (only_an_unknown_field, "DAR_PARSE_ERROR"),
    "100 MB named 8 times": (lambda dar: inflating(dar, 100 * MiB, 8), "INVALID_DAR"),
    "100 MB named once": (lambda dar: inflating(dar, 100 * MiB, 1), "ZIP_BOMB"),
    "8 MB of zeros": (lambda dar: inflating(dar, 8 * MiB, 1), "ZIP_BOMB"),
}


def _upload(url: str, data: bytes) -> httpx.Response:
    headers = {**bearer("participant_admin"), "content-type": "application/octet-stream"}
    return httpx.post(f"{url}/v2/dars", content=data, headers=headers, timeout=300)


def _listed(url: str) -> list[str]:
    return httpx.get(f"{url}/v2/packages", headers=bearer("participant_admin"), timeout=60).json()[
        "packageIds"
    ]


def _serve_dar(tmp: Path, dar: Path) -> tuple[int, str, int, float]:
    """``serve --dar`` to its end: exit code, standard error, maximum RSS, wall seconds."""
    db = tmp / f"{dar.stem}-{time.monotonic_ns()}.db"
    command = [sys.executable, "-m", "participant", "serve", "--db", str(db), "--no-auth", "--port", "0"]
    started = time.monotonic()
    process = subprocess.Popen(
        [*command, "--dar", str(dar)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ
    )
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, stderr, usage.ru_maxrss * 1024, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dars", type=Path, default=DEFAULT_DARS)
    args = parser.parse_args()
    richtypes = (args.dars / "richtypes" / "richtypes.dar").read_bytes()
    built = {name: (build(richtypes), code) for name, (build, code) in BOMBS.items()}
    for name, (data, _) in built.items():
        print(f"{name}: {len(data) / 1024:.0f} KB")

    print("\nover HTTP (POST /v2/dars), one server:")
    with Server() as server:
        r = _upload(server.url, (args.dars / "splice" / "splice-api-token-holding-v1-1.0.0.dar").read_bytes())
        assert r.status_code == 200, r.text
        before = _listed(server.url)
        for name, (data, code) in built.items():
            assert server.reset_hwm(), "cannot reset VmHWM"
            rss = server.rss()
            started = time.monotonic()
            r = _upload(server.url, data)
            took = time.monotonic() - started
            growth = server.hwm() - rss
            assert r.status_code == 400 and r.json()["code"] == code, r.text
            assert _listed(server.url) == before
            print(
                f"  {name:22s} {code:16s} RSS {mb(rss):6.1f} MB, peak +{mb(growth):5.1f} MB, refused in {took:.2f} s"
            )

    print("\nat start (serve --dar), a process each:")
    with tempfile.TemporaryDirectory(prefix="dar-bombs-") as tmp_dir:
        tmp = Path(tmp_dir)
        baseline_dar = tmp / "notes.dar"
        baseline_dar.write_bytes(b"%PDF-1.7 not a dar")
        code_, stderr, baseline, took = _serve_dar(tmp, baseline_dar)
        assert code_ == 2 and "INVALID_DAR" in stderr, stderr
        print(
            f"  {'not a zip (baseline)':22s} {'INVALID_DAR':16s} max RSS {mb(baseline):6.1f} MB, {took:.2f} s"
        )
        for name, (data, code) in built.items():
            dar = tmp / "bomb.dar"
            dar.write_bytes(data)
            returncode, stderr, peak, took = _serve_dar(tmp, dar)
            assert returncode == 2 and f": {code}: " in stderr, stderr
            print(
                f"  {name:22s} {code:16s} max RSS {mb(peak):6.1f} MB, +{mb(peak - baseline):5.1f} MB over the "
                f"baseline, {took:.2f} s"
            )


if __name__ == "__main__":
    main()
