"""Hostile DARs against a real participant on loopback: each refused with Canton's error over HTTP and at
`serve --dar`, nothing stored, and the server's peak memory (VmHWM, or the process's maximum RSS) at most 150 MB
above what it held before."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import ADMIN, SECRET, start_server
from tests.daml_lf import bombs
from tests.daml_lf.conftest import HOLDING, RICHTYPES
from tests.spec import REPO_ROOT

MiB = 1024 * 1024
GROWTH_LIMIT = 150 * MiB
TIMEOUT = 120

BOMBS: dict[str, tuple[Callable[[bytes], bytes], str, str]] = {
    "an ensure 100,000 deep": (
        lambda dar: bombs.deep_ensure(dar, 100_000),
        "DAR_PARSE_ERROR",
        "Protocol message had too many levels of nesting (more than 1000",
    ),
    "a package without metadata": (
        bombs.without_metadata,
        "DAR_PARSE_ERROR",
        "Package.metadata is required in Daml-LF 2.1",
    ),
    "a package of an unknown field": (
        bombs.only_an_unknown_field,
        "DAR_PARSE_ERROR",
        "Message of type daml_lf_2.Package contains unknown field numbered 99",
    ),
    "100 MB named eight times": (
        lambda dar: bombs.inflating(dar, 100 * MiB, 8),
        "INVALID_DAR",
        "names bomb/zeros.dalf more than once",
    ),
    "100 MB named once": (
        lambda dar: bombs.inflating(dar, 100 * MiB, 1),
        "ZIP_BOMB",
        "An entry is too large, rejected as a possible zip bomb: bomb/zeros.dalf declares 104857600 bytes",
    ),
    "8 MB a thousand times denser": (
        lambda dar: bombs.inflating(dar, 8 * MiB, 1),
        "ZIP_BOMB",
        "bomb/zeros.dalf decompresses more than 50 times its compressed size",
    ),
}


def _status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields


def _stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT dar_hash FROM dars").fetchall()
            + conn.execute("SELECT package_id FROM packages").fetchall()
        )


def _upload(url: str, data: bytes) -> httpx.Response:
    return httpx.post(
        f"{url}/v2/dars",
        content=data,
        headers={**ADMIN, "content-type": "application/octet-stream"},
        timeout=TIMEOUT,
    )


def _listed(url: str) -> list[str]:
    r = httpx.get(f"{url}/v2/packages", headers=ADMIN, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    return r.json()["packageIds"]


def test_each_bomb_is_refused_over_http_storing_nothing_in_bounded_memory(tmp_path, dar_bytes) -> None:
    richtypes = dar_bytes(RICHTYPES)
    server = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    try:
        assert _upload(server.url, dar_bytes(HOLDING)).status_code == 200  # the upload path warmed up
        before, rows = _listed(server.url), _stored(server.db)
        pid = server.process.pid
        for name, (build, code, said) in BOMBS.items():
            data = build(richtypes)
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM from now on
            start = _status(pid)["VmRSS"]
            r = _upload(server.url, data)
            growth = _status(pid)["VmHWM"] - start
            assert r.status_code == 400, (name, r.text)
            body = r.json()
            assert body["code"] == code, (name, body)
            assert said in body["cause"], (name, body["cause"])
            assert growth <= GROWTH_LIMIT, (name, growth)
            assert _listed(server.url) == before, name
            assert _stored(server.db) == rows, name
    finally:
        server.stop()


def test_the_cap_is_the_flag(tmp_path, dar_bytes) -> None:
    """richtypes' DALFs decompress to 0.9 MB: refused under a cap of 512 KiB, loaded under the default."""
    server = start_server(
        tmp_path / "ledger.db", "--hs256-secret", SECRET, "--max-dar-bytes", str(512 * 1024)
    )
    try:
        before = _listed(server.url)
        r = _upload(server.url, dar_bytes(RICHTYPES))
        assert r.status_code == 400 and r.json()["code"] == "ZIP_BOMB", r.text
        assert "524288 bytes" in r.json()["cause"], r.text
        assert r.json()["context"]["msg"].startswith("An entry is too large, rejected as a possible zip bomb")
        assert _listed(server.url) == before
    finally:
        server.stop()


def _serve_peak(db: Path, dar: Path) -> tuple[int, str, int]:
    """`serve --dar` to its refusal: exit code, standard error, and the process's maximum RSS."""
    process = subprocess.Popen(
        [sys.executable, "-m", "participant.server.cli", "serve", "--db", str(db), "--no-auth"]
        + ["--port", "0", "--dar", str(dar)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, stderr, usage.ru_maxrss * 1024


@pytest.mark.parametrize("name", BOMBS)
def test_each_bomb_stops_serve_dar_storing_nothing_in_bounded_memory(tmp_path, dar_bytes, name) -> None:
    build, code, said = BOMBS[name]
    not_a_dar = tmp_path / "notes.dar"
    not_a_dar.write_bytes(b"%PDF-1.7 not a dar")
    returncode, stderr, baseline = _serve_peak(tmp_path / "baseline.db", not_a_dar)
    assert returncode == 2 and "INVALID_DAR" in stderr, stderr
    bomb = tmp_path / "bomb.dar"
    bomb.write_bytes(build(dar_bytes(RICHTYPES)))
    db = tmp_path / "ledger.db"
    returncode, stderr, peak = _serve_peak(db, bomb)
    assert returncode == 2, stderr
    assert f"error: --dar {bomb}: {code}: " in stderr and said in stderr, stderr
    assert _stored(db) == []
    assert peak - baseline <= GROWTH_LIMIT, (peak, baseline)


async def _store_unchecked(db: Path, data: bytes) -> set[str]:
    """The DAR's packages written to the store as they are, unchecked, as an earlier, less strict reader did."""
    from participant.daml_lf.archive import read_dar
    from participant.store.packages import NewDar, NewPackage, PackageRow, store_dar
    from participant.store.store import Store

    dar = read_dar(data)
    rows = [
        NewPackage(
            PackageRow(d.package_id, "", "", d.lf_version, (), (), "h" * 64, d is dar.main, "t"),
            d.payload,
            False,
        )
        for d in dar.dalfs
    ]
    async with Store(db) as store:
        await store_dar(store, NewDar("h" * 64, "old", dar.main.package_id, "t", tuple(rows)))
    return {d.package_id for d in dar.dalfs}


def test_a_package_stored_before_the_checks_does_not_stop_the_start(tmp_path, dar_bytes) -> None:
    """A package without metadata, stored when it was not refused yet: listed, not run, and the server starts."""
    db = tmp_path / "ledger.db"
    stored = asyncio.run(_store_unchecked(db, bombs.without_metadata(dar_bytes(RICHTYPES))))
    server = start_server(db, "--hs256-secret", SECRET)
    try:
        assert stored <= set(_listed(server.url))
    finally:
        server.stop()
    assert server.process.stdout is not None
    out = server.process.stdout.read()
    assert "is not run: " in out and "Package.metadata is required in Daml-LF 2.1" in out, out
