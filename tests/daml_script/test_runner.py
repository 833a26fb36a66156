"""The Daml Script runner on the Canton Coin test DAR's own scripts, each on a fresh in-process participant
driven over the JSON Ledger API; and on script steps made by hand, for what no script of the DAR does (an unknown
question, a loop)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.budget import Budget, TimeExceeded
from participant.daml_script import run_script
from participant.daml_script.dars import Dars, read_dars
from participant.daml_script.failures import ScriptFailure
from participant.daml_script.library import LOW_LEVEL, Library
from participant.daml_script.questions import answer
from participant.daml_script.run import Run
from participant.daml_script.runner import library_of
from participant.server.script_tests import fresh_ledger, run_tests_command
from tests.daml_lf.conftest import RICHTYPES
from tests.daml_script.changed_dar import with_literal_changed
from tests.engine.hostile_package import looping_ensure

STEPPED_RATE = "Splice.Scripts.TestSteppedRate"


async def test_a_script_of_pure_assertions_passes(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        outcome = await run_script(splice_dars.code, f"{STEPPED_RATE}:test", ledger)
    assert outcome.passed, outcome.error
    assert outcome.result is rt.UNIT and outcome.transactions == 0


def test_a_changed_literal_fails_exactly_its_script_at_the_assertion(splice_test_dar: Path, tmp_path: Path):
    # `chargeSteppedRate example 1001100.0 === …` (TestSteppedRate.daml, line 28) now compares another number.
    changed = tmp_path / "changed.dar"
    changed.write_bytes(
        with_literal_changed(splice_test_dar.read_bytes(), "1001100.0000000000", "1001101.0000000000")
    )
    out = io.StringIO()
    junit = tmp_path / "results.xml"
    status = run_tests_command(
        [changed], name_filter=STEPPED_RATE, as_json=True, junit=junit, jobs=1, out=out
    )
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    by_script = {line["script"]: line for line in lines if "script" in line}
    assert status == 1
    assert by_script[f"{STEPPED_RATE}:testScaledSteppedRate"]["status"] == "passed"
    failed = by_script[f"{STEPPED_RATE}:test"]
    assert failed["status"] == "failed"
    assert failed["location"] == f"{STEPPED_RATE}:28:3", failed
    assert failed["error"] == (
        "Unhandled Daml exception DA.Exception.AssertionFailed:AssertionFailed: "
        "Failure, expected 101.80201 == 101.802"
    )
    assert lines[-1]["summary"]["passed"] == 1 and lines[-1]["summary"]["failed"] == 1
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    [failure] = [case for case in suite if case.find("failure") is not None]
    assert (failure.get("classname"), failure.get("name")) == (STEPPED_RATE, "test")


def test_a_dar_that_cannot_be_read_exits_2(tmp_path: Path):
    not_a_dar = tmp_path / "app.dar"
    not_a_dar.write_bytes(b"not a zip")
    errors: list[str] = []
    out = io.StringIO()
    assert run_tests_command([not_a_dar, tmp_path / "absent.dar"], out=out, say_error=errors.append) == 2
    assert errors == [
        f"the DAR {not_a_dar} cannot be read: not a DAR: not a zip file (File is not a zip file)"
    ]
    assert out.getvalue() == ""


def _question(library: Library, name: str, version: int, continue_: object) -> rt.Variant:
    """``Free (ScriptF (Question name version () [] continue))``, as the library's ``lift`` makes one."""
    question = library.record(
        library.tycon(LOW_LEVEL, "Question"),
        commandName=name,
        commandVersion=version,
        payload=library.record(library.question_type("Time", "GetTime")),
        locations=rt.NIL,
        **{"continue": continue_},
    )
    step = library.record(library.tycon(LOW_LEVEL, "ScriptF"), unpack=question)
    return library.variant(library.tycon("Daml.Script.Internal.Free", "Free"), "Free", step)


def _run(dars: Dars, ledger, budget: Budget) -> Run:
    library = library_of(dars.code.program)
    return Run(dars.code, library, ledger, budget, frozenset({dars.code.packages.main_package_id}), answer)


async def test_an_unknown_question_ends_the_script_naming_it_and_its_version(
    splice_dars: Dars, splice_db: Path
):
    library = library_of(splice_dars.code.program)
    identity = library.program.value(ast.ValueRef(library.script_package_id, LOW_LEVEL, "dangerousCast"))
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        run = _run(splice_dars, ledger, Budget())
        for name, version, expected in [
            ("FailWithStatus", 1, "unknown script question FailWithStatus version 1"),
            ("Submit", 2, "unknown script question Submit version 2 (this runner knows version 1)"),
        ]:
            with pytest.raises(ScriptFailure) as failure:
                await run.run_free(_question(library, name, version, identity))
            assert failure.value.message == expected


async def test_a_script_that_loops_ends_with_the_budgets_error(
    splice_test_dar: Path, splice_db: Path, dar_bytes, tmp_path: Path
):
    # A step whose continuation never returns: `hostileLoop n = hostileLoop (n + 1)` applied to GetTime's answer.
    hostile = tmp_path / "hostile.dar"
    hostile.write_bytes(looping_ensure(dar_bytes(RICHTYPES), "hostile-loop"))
    dars = read_dars([splice_test_dar, hostile])
    loop_package = next(
        p for p, package in dars.code.packages.packages.items() if package.name == "hostile-loop"
    )
    loop = dars.code.program.value(ast.ValueRef(loop_package, "RichTypes", "hostileLoop"))
    library = library_of(dars.code.program)
    async with fresh_ledger(dars.code, splice_db) as ledger:
        run = _run(dars, ledger, Budget(deadline=time.monotonic() + 0.5))
        with pytest.raises(TimeExceeded):
            await run.run_free(_question(library, "GetTime", 1, loop))


async def test_a_script_of_the_ledger_passes(splice_dars: Dars, splice_db: Path):
    """Canton Coin's setup (parties, users, rounds at a set time) then a transfer whose limit a choice catches in
    a `try`: on a fresh ledger with a static clock, as `ledger-participant test` runs it."""
    script = "Splice.Scripts.TestAmuletRulesTransferLimits:testTransferExceedsMaxOutputs"
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        outcome = await run_script(splice_dars.code, script, ledger)
    assert outcome.passed, (outcome.error, outcome.location)
    assert outcome.transactions == 28
