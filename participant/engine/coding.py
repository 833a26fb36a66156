"""The value codec at the engine's edge: a value that does not decode is the request's mistake, answered with
Canton's error for it; a value computed by a template that does not encode is an interpretation error."""

from __future__ import annotations

from typing import Any

from participant.base import errors
from participant.engine.values import DamlType, DecodeError, Json, MalformedVariant


def decode(daml_type: DamlType, value: Json, path: str = "") -> Any:
    try:
        return daml_type.decode(value, path)
    except MalformedVariant as error:  # 3.5 answers these INVALID_ARGUMENT, unlike other shape errors
        raise errors.INVALID_ARGUMENT(error.text) from None
    except DecodeError as error:
        context = {"path": error.path} if error.path else {}
        raise errors.COMMAND_PREPROCESSING_FAILED(error.text, context=context) from None


def encode(daml_type: DamlType, value: Any, what: str) -> Json:
    """Values computed by a template are encoded without a request to blame: a misfit is an interpretation
    error (`what` names the value in its message)."""
    try:
        return daml_type.encode(value)
    except (ValueError, TypeError, AttributeError) as error:
        raise errors.DAML_INTERPRETATION_ERROR(f"{what} is not a valid {daml_type.name}: {error}") from None
