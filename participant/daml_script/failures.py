"""How a script fails, and how the failure is told: a message and the Daml location it failed at.

The location is the script's own: of the question's call stack (``locations``, innermost first), the first frame
in the script's package; failing that, the innermost frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.budget import BudgetExceeded
from participant.daml_lf.eval.errors import (
    DamlArithmeticError,
    DamlThrow,
    EvaluationError,
    FailureStatus,
    UserError,
)
from participant.engine.budget_errors import budget_failure

if TYPE_CHECKING:
    from participant.daml_script.library import Library

Call = Callable[..., Any]
"""Applies a Daml function to its arguments within the script's budget."""


class ScriptFailure(Exception):
    """The script cannot go on: ``message`` says why, ``location`` (when known here) where."""

    def __init__(self, message: str, location: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location


class ScriptThrow(Exception):
    """A Daml exception thrown by the script (the ``Throw`` question, or an evaluation's ``throw``), not caught:
    a ``Catch`` turns it into its ``Left``."""

    def __init__(self, exception: rt.AnyException, locations: Any = ()) -> None:
        super().__init__(exception)
        self.exception = exception
        self.locations = locations

    def describe(self, library: Library, call: Call) -> str:
        message = exception_message(library, call, self.exception)
        return f"Unhandled Daml exception {_type_name(self.exception)}: {message}"


def _type_name(exception: rt.AnyException) -> str:
    type_ = exception.type
    if isinstance(type_, ast.TCon):
        return type_.tycon.qualified_name
    return str(type_)


def exception_message(library: Library, call: Call, exception: rt.AnyException) -> str:
    """The exception's ``message``, as Daml computes it (within the script's budget)."""
    type_ = exception.type
    if not isinstance(type_, ast.TCon):
        return ""
    try:
        message = call(library.program.exception_message(type_), exception.value)
    except (EvaluationError, BudgetExceeded) as error:
        return f"(its message failed: {error})"
    return str(message)


def evaluation_failure(library: Library, call: Call, error: EvaluationError | BudgetExceeded) -> str:
    """The message of an evaluation that failed in the script itself (not in a submission)."""
    if isinstance(error, BudgetExceeded):
        failure = budget_failure(error)
        return f"{failure.code.id}: {failure.cause}"
    if isinstance(error, DamlThrow):
        return ScriptThrow(error.payload).describe(library, call)
    if isinstance(error, UserError):
        return f"Unhandled Daml exception DA.Exception.GeneralError:GeneralError: {error.message}"
    if isinstance(error, DamlArithmeticError):
        return f"Unhandled Daml exception DA.Exception.ArithmeticError:ArithmeticError: {error.message}"
    if isinstance(error, FailureStatus):
        return f"{error.error_id}: {error.message}"
    return f"Interpretation error: {type(error).__name__}: {error}"


def location_of(library: Library, main_package_ids: frozenset[str], locations: Any) -> str | None:
    """``file:line:column`` (and the definition) of the script's frame in a question's call stack."""
    frames = []
    for frame in locations or ():
        if not isinstance(frame, rt.Record) or len(frame.values) != 2:
            continue
        definition, loc = frame.values
        if isinstance(loc, rt.Record):
            frames.append((str(definition), dict(zip(loc.fields, loc.values, strict=True))))
    if not frames:
        return None
    names = {
        library.program.packages.packages[p].name
        for p in main_package_ids
        if p in library.program.packages.packages
    }
    chosen = next(
        (
            f
            for f in frames
            if f[1].get("srcLocPackage") in names or f[1].get("srcLocPackage") in main_package_ids
        ),
        frames[0],
    )
    definition, loc = chosen
    # Daml's SrcLoc counts lines and columns from 0; editors (and dpm test) from 1.
    line, column = int(loc.get("srcLocStartLine", -1)) + 1, int(loc.get("srcLocStartCol", -1)) + 1
    return f"{loc.get('srcLocFile', loc.get('srcLocModule'))}:{line}:{column} (in {definition})"
