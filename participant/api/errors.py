"""The JSON error body of every failing v2 endpoint (docs/ledger-api.md §6.1)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from .base import Int32, WireModel

__all__ = ["JsCantonError", "Resource"]

# ``Tuple2_String_String``: a [type, value] pair such as ["CONTRACT_ID", "00ab.."].
# A list, not a tuple, because strict mode would demand a Python tuple.
Resource = Annotated[list[str], Field(min_length=2, max_length=2)]


class JsCantonError(WireModel):
    code: str
    cause: str
    correlation_id: str | None = None
    trace_id: str | None = None
    context: dict[str, str]
    resources: list[Resource] = Field(default_factory=list)
    error_category: Int32
    grpc_code_value: Int32 | None = None
    retry_info: str | None = None
    definite_answer: bool | None = None
