"""The ways a Daml-LF evaluation fails: one tree, each class naming the failure as Daml's interpreter does.

``DamlThrow`` and ``DamlArithmeticError`` are Daml exceptions (``try … catch`` may handle them); every other class
is an interpretation error that ends the command.
"""

from __future__ import annotations

from typing import Any


class EvaluationError(Exception):
    """A Daml-LF evaluation that cannot go on."""


class DamlThrow(EvaluationError):
    """A Daml exception in flight (``throw``): its payload is the ``AnyException`` value."""

    def __init__(self, payload: Any) -> None:
        super().__init__(payload)
        self.payload = payload


class DamlArithmeticError(EvaluationError):
    """A builtin's arithmetic failed: the evaluator raises it as the standard library's ``ArithmeticError``
    exception (a record ``{ message : Text }``), which Daml code may catch.

    The message names the builtin and its value arguments as Daml prints them. The spec writes type arguments
    into it too (``F @n₁ … v₁ …``); in LF 2 the scales travel as witness values, which are printed, and Daml's
    interpreter prints no type argument: neither does this.
    """

    def __init__(self, builtin: str, args: tuple[str, ...]) -> None:
        self.builtin = builtin
        self.args_text = args
        self.message = f"ArithmeticError while evaluating ({' '.join((builtin, *args))})."
        super().__init__(self.message)


class UserError(EvaluationError):
    """``ERROR``: a fatal error with the program's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FailureStatus(EvaluationError):
    """``FAIL_WITH_STATUS``: a fatal error carrying an error id, a failure category, a message and metadata."""

    def __init__(self, error_id: str, category: int, message: str, metadata: dict[str, str]) -> None:
        super().__init__(f"{error_id}: {message}")
        self.error_id = error_id
        self.category = category
        self.message = message
        self.metadata = metadata


class CryptoError(EvaluationError):
    """A cryptographic builtin given malformed input: ``kind`` is Daml's name for it (``MalformedByteEncoding``,
    ``MalformedKey``, ``MalformedSignature``, ``MalformedContractId``)."""

    def __init__(self, kind: str, value: str, cause: str) -> None:
        super().__init__(f"{kind}: {cause} ({value!r})")
        self.kind = kind
        self.value = value
        self.cause = cause


class NotComparable(EvaluationError):
    """Generic equality or ordering met a value it cannot compare (a function, or an invalid map key)."""


class ContractIdComparability(EvaluationError):
    """Two V1 contract ids whose order depends on a suffix not yet given (the spec's ``ContractIdComparability``)."""

    def __init__(self, coid: str) -> None:
        super().__init__(f"contract id {coid} is not comparable: its suffix is not yet known")
        self.coid = coid


class Crash(EvaluationError):
    """An argument no well-typed program passes (an invalid code point, a malformed value): a bug or a bad package."""
