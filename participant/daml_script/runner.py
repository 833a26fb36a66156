"""The runner's loop: a script's free monad evaluated step by step, each question answered, its ``continue``
applied to the answer, until ``Pure``.

A ``Script a`` is a record whose ``runScript : () -> Free ScriptF (a, ())``; ``Free`` is ``Pure x`` (done) or
``Free (ScriptF question)``. Each machine run (the first ``runScript ()``, every ``continue answer``, a ``Catch``'s
closure) is within the script's `Budget`, so a script that loops ends with the budget's error. The questions are
answered by `questions.Answers` through a `ScriptLedger`.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import Any

from participant.daml_lf import ast
from participant.daml_lf.eval.budget import Budget, BudgetExceeded, limited
from participant.daml_lf.eval.compile import LAST_LOCATION
from participant.daml_lf.eval.errors import EvaluationError
from participant.daml_lf.eval.program import Program
from participant.daml_script.failures import ScriptFailure, ScriptThrow, evaluation_failure
from participant.daml_script.ledger import ScriptLedger
from participant.daml_script.library import Library
from participant.daml_script.questions import answer
from participant.daml_script.run import Run
from participant.engine.lf.definitions import LfPackages

DEFAULT_TIMEOUT_S = 300.0
"""How long one script may run, its ledger's answers included, before the budget ends it."""
DEFAULT_MAX_MEMORY = 1 << 30
"""How much one script's evaluation may grow the process by."""

_libraries: weakref.WeakKeyDictionary[Program, Library] = weakref.WeakKeyDictionary()


def library_of(program: Program) -> Library:
    """The program's library view (and its ``dangerousCast`` replaced), made once per program."""
    found = _libraries.get(program)
    if found is None:
        found = _libraries[program] = Library(program)
    return found


@dataclass
class Outcome:
    """How a script ended: ``result`` (and its Daml type) when it passed, else ``error`` with the Daml
    ``location`` it failed at; ``transactions`` counts the submissions it committed."""

    script: str
    passed: bool
    result: Any = None
    result_type: ast.Type | None = None
    error: str | None = None
    location: str | None = None
    transactions: int = 0
    seconds: float = 0.0


def find_script(code: LfPackages, name: str) -> tuple[ast.ValueRef, ast.ValueDef]:
    """The definition ``Module.Path:name``, in the main packages first."""
    module, sep, value = name.rpartition(":")
    if not sep or not module or not value:
        raise ScriptFailure(f"{name!r} is not a script's name: give it as Module.Path:name")
    packages = code.packages
    ordered = sorted(packages.packages.items(), key=lambda item: item[0] != packages.main_package_id)
    for package_id, package in ordered:
        found = package.modules.get(module)
        if found is not None and value in found.values:
            return ast.ValueRef(package_id, module, value), found.values[value]
    raise ScriptFailure(f"no script {name} in the DAR's packages")


def script_result_type(type_: ast.Type, script_type: ast.TypeConRef) -> ast.Type | None:
    """``a`` when ``type_`` is ``Script a``."""
    if isinstance(type_, ast.TCon) and type_.tycon == script_type and len(type_.args) == 1:
        return type_.args[0]
    return None


async def run_script(
    code: LfPackages,
    name: str,
    ledger: ScriptLedger,
    argument: Any = None,
    *,
    budget: Budget | None = None,
) -> Outcome:
    """Run the script ``Module.Path:name`` of ``code``'s packages against ``ledger``.

    The script is a top-level value of type ``Script a``, or a function of one argument whose value
    ``argument`` gives as JSON (decoded with the parameter's type). Never raises for the script's own failure:
    the outcome says what failed and where."""
    started = time.perf_counter()
    library = library_of(code.program)
    if budget is None:
        budget = Budget(deadline=time.monotonic() + DEFAULT_TIMEOUT_S, max_memory=DEFAULT_MAX_MEMORY)
    main_ids = frozenset({code.packages.main_package_id} - {""})
    run = Run(code, library, ledger, budget, main_ids or frozenset(code.packages.packages), answer)
    outcome = Outcome(name, passed=False)
    try:
        ref, definition = find_script(code, name)
        run.main_package_ids = frozenset({ref.package_id})
        program = code.program
        program.located_packages |= {ref.package_id}  # a failed assertion's place (if not compiled before)
        LAST_LOCATION.set(None)
        type_ = definition.type
        result_type = script_result_type(type_, library.script_type)
        with limited(budget):
            value = code.program.value(ref)
        if result_type is None:
            if (
                isinstance(type_, ast.TBuiltin)
                and type_.builtin == "ARROW"
                and (result_type := script_result_type(type_.args[1], library.script_type)) is not None
            ):
                if argument is None:
                    raise ScriptFailure(f"{name} takes an argument: give it as JSON")
                decoded = code.types.of(type_.args[0]).decode(argument, "argument")
                value = run.call(value, decoded)
            else:
                raise ScriptFailure(f"{name} is not a script (its type is not Script a)")
        elif argument is not None:
            raise ScriptFailure(f"{name} takes no argument")
        outcome.result = await run.run_script_value(value)
        outcome.result_type = result_type
        outcome.passed = True
    except ScriptFailure as failure:
        outcome.error = failure.message
        outcome.location = failure.location or run.location() or LAST_LOCATION.get()
    except ScriptThrow as thrown:
        outcome.error = thrown.describe(library, run.call)
        outcome.location = run.location(thrown.locations) or LAST_LOCATION.get()
    except (EvaluationError, BudgetExceeded) as error:
        outcome.error = evaluation_failure(library, run.call, error)
        outcome.location = LAST_LOCATION.get() or run.location()
    finally:
        outcome.transactions = run.transactions
        outcome.seconds = time.perf_counter() - started
    return outcome
