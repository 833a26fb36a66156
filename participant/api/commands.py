"""Command submission and completion messages (docs/ledger-api.md §4.3, §4.5, §5).

``JsCommands``, the ``Command`` alternatives and ``PrefetchContractKey`` are
JSON-API mirror classes decoded with plain circe rules: keys without a Scala
default are required. The proto-shaped messages use the 3.5 relaxed defaults.
"""

from __future__ import annotations

from pydantic import Field

from .base import AnyValue, Base64, Int32, Int64, Timestamp, Variant, WireModel, alt
from .common import Duration, Empty
from .events import Event, JsStatus, OffsetCheckpoint, SynchronizerTime, TraceContext
from .filters import TransactionFormat

__all__ = [
    "Command",
    "Completion",
    "Completion1",
    "CompletionResponse",
    "CompletionStreamRequest",
    "CompletionStreamResponse",
    "CreateAndExerciseCommand",
    "CreateCommand",
    "DeduplicationDuration",
    "DeduplicationOffset",
    "DeduplicationPeriod",
    "DisclosedContract",
    "ExerciseByKeyCommand",
    "ExerciseCommand",
    "JsCommands",
    "JsSubmitAndWaitForTransactionRequest",
    "JsSubmitAndWaitForTransactionResponse",
    "JsTransaction",
    "PrefetchContractKey",
    "SubmitAndWaitResponse",
    "SubmitResponse",
]


# --- commands (JSON-API flavour: fields directly under the tag) -------------
# choiceArgument: the key is required, but null is allowed (Canton reads it as {}).


class CreateCommand(WireModel):
    template_id: str
    create_arguments: AnyValue


class ExerciseCommand(WireModel):
    template_id: str  # may be an interface id to exercise an interface choice
    contract_id: str
    choice: str
    choice_argument: AnyValue


class ExerciseByKeyCommand(WireModel):
    template_id: str
    contract_key: AnyValue
    choice: str
    choice_argument: AnyValue


class CreateAndExerciseCommand(WireModel):
    template_id: str
    create_arguments: AnyValue
    choice: str
    choice_argument: AnyValue


class Command(Variant):
    create_and_exercise_command: CreateAndExerciseCommand | None = alt("CreateAndExerciseCommand")
    create_command: CreateCommand | None = alt("CreateCommand")
    exercise_by_key_command: ExerciseByKeyCommand | None = alt("ExerciseByKeyCommand")
    exercise_command: ExerciseCommand | None = alt("ExerciseCommand")


# --- deduplication (proto oneof flavour: payload under "value") ---------------


class DeduplicationDuration(WireModel):
    value: Duration


class DeduplicationOffset(WireModel):
    value: Int64


class DeduplicationPeriod(Variant):
    """Also models the spec's identical DeduplicationPeriod1 (completions)."""

    deduplication_duration: DeduplicationDuration | None = alt("DeduplicationDuration")
    deduplication_offset: DeduplicationOffset | None = alt("DeduplicationOffset")
    empty: Empty | None = alt("Empty")


def _no_deduplication_period() -> DeduplicationPeriod:
    # One shared instance: building and validating a variant for every request that leaves the period out cost
    # ~5% of a submission's CPU. Wire models are only read after validation, so sharing it is safe.
    return _NO_DEDUPLICATION_PERIOD


_NO_DEDUPLICATION_PERIOD = DeduplicationPeriod(empty=Empty())


class DisclosedContract(WireModel):
    # proto message: 3.5 defaults contractId/synchronizerId to "" (cross-checks only)
    template_id: str = ""
    contract_id: str = ""
    created_event_blob: Base64 = ""  # must be non-empty (validated by Canton)
    synchronizer_id: str = ""


class PrefetchContractKey(WireModel):
    template_id: str
    contract_key: AnyValue
    limit: Int32 | None = None  # 3.5: absent -> 1


class JsCommands(WireModel):
    commands: list[Command]
    command_id: str
    act_as: list[str]
    user_id: str = ""
    read_as: list[str] = Field(default_factory=list)
    workflow_id: str = ""
    deduplication_period: DeduplicationPeriod = Field(default_factory=_no_deduplication_period)
    min_ledger_time_abs: Timestamp | None = None
    min_ledger_time_rel: Duration | None = None
    submission_id: str = ""
    disclosed_contracts: list[DisclosedContract] = Field(default_factory=list)
    synchronizer_id: str = ""
    package_id_selection_preference: list[str] = Field(default_factory=list)
    prefetch_contract_keys: list[PrefetchContractKey] = Field(default_factory=list)
    taps_max_passes: Int32 | None = None  # 3.5 only


class JsSubmitAndWaitForTransactionRequest(WireModel):
    commands: JsCommands
    transaction_format: TransactionFormat | None = None  # absent: ACS_DELTA wildcard


# --- responses ---------------------------------------------------------------


class JsTransaction(WireModel):
    update_id: str
    command_id: str | None = None  # "" unless seen by the submitter on its participant
    workflow_id: str | None = None
    effective_at: Timestamp
    events: list[Event]
    offset: Int64
    synchronizer_id: str
    trace_context: TraceContext | None = None
    record_time: Timestamp
    external_transaction_hash: str | None = None
    paid_traffic_cost: Int64 | None = None  # 3.5 only


class JsSubmitAndWaitForTransactionResponse(WireModel):
    transaction: JsTransaction


class SubmitAndWaitResponse(WireModel):
    update_id: str
    completion_offset: Int64


class SubmitResponse(WireModel):
    """``{}``: accepted for processing, nothing more."""


# --- completions -------------------------------------------------------------


class CompletionStreamRequest(WireModel):
    user_id: str = ""
    parties: list[str] = Field(default_factory=list)
    begin_exclusive: Int64 = 0


class Completion1(WireModel):
    command_id: str
    status: JsStatus | None = None  # null or code 0 = success
    update_id: str | None = None
    user_id: str
    act_as: list[str]
    submission_id: str | None = None
    deduplication_period: DeduplicationPeriod | None = None
    trace_context: TraceContext | None = None
    offset: Int64
    synchronizer_time: SynchronizerTime
    paid_traffic_cost: Int64 | None = None  # 3.5 only


class Completion(WireModel):
    value: Completion1


class CompletionResponse(Variant):
    completion: Completion | None = alt("Completion")
    empty: Empty | None = alt("Empty")
    offset_checkpoint: OffsetCheckpoint | None = alt("OffsetCheckpoint")


class CompletionStreamResponse(WireModel):
    completion_response: CompletionResponse | None = None
