"""The value codec at the engine's edge: a value that does not decode is the request's mistake, answered with
Canton's error for it; a value computed by a template that does not encode is an interpretation error."""

from __future__ import annotations

from typing import Any

from participant.base import errors
from participant.engine.nesting import MAXIMUM_NESTING, nesting_exceeds
from participant.engine.values import DamlType, DecodeError, Json, MalformedVariant


def decode(daml_type: DamlType, value: Json, path: str = "") -> Any:
    try:
        return daml_type.decode(value, path)
    except MalformedVariant as error:  # 3.5 answers these INVALID_ARGUMENT, unlike other shape errors
        raise errors.INVALID_ARGUMENT(error.text) from None
    except DecodeError as error:
        context = {"path": error.path} if error.path else {}
        raise errors.COMMAND_PREPROCESSING_FAILED(error.text, context=context) from None


def decode_command(daml_type: DamlType, value: Json, path: str = "") -> Any:
    """A value a command gives (a create argument, a choice argument, a key): decoded, and refused as Canton's
    preprocessing refuses it when it nests deeper than Daml's limit."""
    decoded = decode(daml_type, value, path)
    if nesting_exceeds(decoded):
        raise errors.COMMAND_PREPROCESSING_FAILED(
            f"Provided value exceeds maximum nesting level of {MAXIMUM_NESTING}", context={"path": path}
        )
    return decoded


def encode(daml_type: DamlType, value: Any, what: str) -> Json:
    """Values computed by a template are encoded without a request to blame: a misfit is an interpretation
    error (`what` names the value in its message). Every value encoded here is stored (a contract's argument and
    key, a choice's argument and result): one nested past Daml's limit is refused first, as Canton's interpreter
    refuses it (and before the encoder, which recurses, meets it)."""
    if nesting_exceeds(value):
        raise errors.VALUE_NESTING(f"Value exceeds maximum nesting value of {MAXIMUM_NESTING}")
    try:
        return daml_type.encode(value)
    except (ValueError, TypeError, AttributeError) as error:
        raise errors.DAML_INTERPRETATION_ERROR(f"{what} is not a valid {daml_type.name}: {error}") from None
