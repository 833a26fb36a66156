"""`ledger-participant test --dar FILE...`: every script of the DARs' main packages, each on a fresh ledger.

As ``dpm test``: a script is a top-level value of type ``Script a`` (one taking no argument) of a DAR's main
package. Each runs on a participant of its own, with static time, in a temporary directory that is removed after
it, served in-process (`httpx.ASGITransport` on the app) and driven by the runner over the JSON Ledger API, exactly
as it would drive any participant. The DARs are read, decoded and compiled once per process: each fresh ledger
starts from a copy of one database the DARs were loaded into, and shares the process's decoded packages.

Scripts run in worker processes, one per core, when there are several cores and several scripts.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

import httpx

from participant.base.settings import Settings
from participant.base.terminal_text import visible
from participant.daml_script import run_script
from participant.daml_script.dars import Dars, UnreadableDar, read_dars
from participant.daml_script.json_ledger import JsonLedger
from participant.engine.lf.definitions import LfPackages

log = logging.getLogger(__name__)

GC_YOUNGEST_THRESHOLD = 50_000  # as `serve`'s (participant.server.cli)


@dataclass
class ScriptResult:
    script: str
    status: str  # passed | failed
    error: str | None
    location: str | None
    seconds: float
    transactions: int


# --- One script, one ledger


def _settings(db: Path, static_time: bool) -> Settings:
    return Settings(db=db, no_auth=True, log_requests=False, static_time=static_time)


async def prepare_database(dars: Dars, db: Path) -> None:
    """A database with the DARs loaded, copied for every script's ledger."""
    from participant.server.app import build_registry
    from participant.services.dars import load_dar
    from participant.store.store import Store

    registry = build_registry(Settings(db=db))
    async with Store(db) as store:
        for _, data in dars.contents:
            await load_dar(store, registry, data)


@asynccontextmanager
async def fresh_ledger(
    code: LfPackages, template_db: Path, static_time: bool = True
) -> AsyncIterator[JsonLedger]:
    """A participant of its own, started from a copy of ``template_db`` in a temporary directory (removed after),
    served in-process, as the runner's `JsonLedger`; its clock static (set only by the script), or the wall
    clock."""
    from participant.server.app import create_app

    with tempfile.TemporaryDirectory(prefix="ledger-test-") as directory:
        db = Path(directory) / "ledger.db"
        shutil.copyfile(template_db, db)
        app = create_app(_settings(db, static_time), code=code)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://participant") as http:
                yield JsonLedger(http, code)


async def run_on_fresh_ledger(dars: Dars, template_db: Path, script: str) -> ScriptResult:
    """Run ``script`` on a fresh ledger of its own."""
    async with fresh_ledger(dars.code, template_db) as ledger:
        try:
            outcome = await run_script(dars.code, script, ledger)
        except Exception as error:  # a fault of this program: the script's failure, the run goes on
            log.exception("the runner failed on %s", script)
            return ScriptResult(script, "failed", f"the runner failed: {error!r}", None, 0.0, 0)
    return ScriptResult(
        script,
        "passed" if outcome.passed else "failed",
        outcome.error,
        outcome.location,
        round(outcome.seconds, 3),
        outcome.transactions,
    )


# --- Workers: each process reads the DARs once

_worker: tuple[Dars, Path] | None = None


def _start_worker(paths: list[Path], template_db: Path) -> None:
    """A worker's start: a forked one has the parent's DARs already (`_worker`), a spawned one reads them."""
    global _worker
    logging.disable(logging.WARNING)
    if _worker is None:
        _worker = (read_dars(paths), template_db)
    _settle_memory()


def _settle_memory() -> None:
    """The decoded packages (millions of objects, kept to the end) out of the collector's way, and its youngest
    generation larger, as `serve` does: collections no longer walk them again and again while scripts run."""
    gc.freeze()
    gc.set_threshold(GC_YOUNGEST_THRESHOLD)


def _run_in_worker(script: str) -> ScriptResult:
    assert _worker is not None
    dars, template_db = _worker
    return asyncio.run(run_on_fresh_ledger(dars, template_db, script))


def run_scripts(paths: list[Path], name_filter: str | None, jobs: int) -> Iterator[ScriptResult]:
    """Every script of the DARs whose name contains ``name_filter``, each on a fresh ledger: their results, in
    order. Raises `UnreadableDar`."""
    dars = read_dars(paths)
    scripts = [s for s in dars.scripts if name_filter is None or name_filter in s]
    with tempfile.TemporaryDirectory(prefix="ledger-test-") as directory:
        template_db = Path(directory) / "dars.db"
        asyncio.run(prepare_database(dars, template_db))
        jobs = max(1, min(jobs, len(scripts)))
        if jobs == 1:
            _settle_memory()
            for script in scripts:
                yield asyncio.run(run_on_fresh_ledger(dars, template_db, script))
            return
        global _worker
        _worker = (dars, template_db)  # what forked workers start with: the DARs decoded once in all
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        try:
            with ProcessPoolExecutor(
                jobs, mp_context=context, initializer=_start_worker, initargs=(paths, template_db)
            ) as pool:
                yield from pool.map(_run_in_worker, scripts)
        finally:
            _worker = None


# --- Reporting


def _module_and_name(script: str) -> tuple[str, str]:
    module, _, name = script.rpartition(":")
    return module, name


def line_of(result: ScriptResult) -> str:
    module, name = _module_and_name(result.script)
    where = f"{module.replace('.', '/')}.daml:{name}"
    if result.status == "passed":
        text = f"{where}: ok, {result.transactions} transactions, {result.seconds:.2f} s"
    else:
        at = f" at {result.location}" if result.location else ""
        text = f"{where}: FAILED{at}: {result.error} ({result.transactions} transactions, {result.seconds:.2f} s)"
    return visible(text)


def junit_xml(results: list[ScriptResult], seconds: float) -> bytes:
    failed = sum(1 for r in results if r.status != "passed")
    suite = ET.Element(
        "testsuite",
        name="ledger-participant test",
        tests=str(len(results)),
        failures=str(failed),
        errors="0",
        time=f"{seconds:.3f}",
    )
    for result in results:
        module, name = _module_and_name(result.script)
        case = ET.SubElement(suite, "testcase", classname=module, name=name, time=f"{result.seconds:.3f}")
        if result.status != "passed":
            failure = ET.SubElement(case, "failure", message=result.error or "failed")
            failure.text = f"{result.location or ''}\n{result.error or ''}".strip()
    suites = ET.Element("testsuites")
    suites.append(suite)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def _say_on_stderr(message: str) -> None:
    sys.stderr.write(visible(message) + "\n")


def run_tests_command(
    paths: list[Path],
    name_filter: str | None = None,
    as_json: bool = False,
    junit: Path | None = None,
    jobs: int | None = None,
    out: TextIO = sys.stdout,
    say_error: Callable[[str], None] = _say_on_stderr,
) -> int:
    """The ``test`` command: 0 when every script passed, 1 when any failed, 2 when a DAR cannot be read."""
    started = time.perf_counter()
    results: list[ScriptResult] = []
    try:
        for result in run_scripts(paths, name_filter, jobs or os.cpu_count() or 1):
            results.append(result)
            if as_json:
                out.write(json.dumps(asdict(result)) + "\n")
            else:
                out.write(line_of(result) + "\n")
            out.flush()
    except UnreadableDar as e:
        say_error(str(e))
        return 2
    seconds = time.perf_counter() - started
    passed = sum(1 for r in results if r.status == "passed")
    failed = len(results) - passed
    if as_json:
        out.write(
            json.dumps({"summary": {"passed": passed, "failed": failed, "seconds": round(seconds, 3)}}) + "\n"
        )
    else:
        out.write(f"{passed} passed, {failed} failed in {seconds:.1f} s\n")
    if junit is not None:
        junit.write_bytes(junit_xml(results, seconds))
    return 1 if failed else 0
