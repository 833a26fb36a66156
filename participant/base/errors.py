"""Canton's error ids, their categories and HTTP statuses, and the one exception that carries them.

Every error the participant answers with is a `LedgerError` raised somewhere below the routes and rendered once,
by `participant.server.app`, as a `JsCantonError` body. The category fixes the gRPC code and so the HTTP status, exactly
as Canton's `ErrorCategory` and `GrpcHttpErrorCodes` do; ids whose status Canton forces (the list limit) override it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum
from types import MappingProxyType


class Grpc(IntEnum):
    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


HTTP_STATUS_OF_GRPC: dict[Grpc, int] = {
    Grpc.OK: 200,
    Grpc.INVALID_ARGUMENT: 400,
    Grpc.FAILED_PRECONDITION: 400,
    Grpc.OUT_OF_RANGE: 400,
    Grpc.UNAUTHENTICATED: 401,
    Grpc.PERMISSION_DENIED: 403,
    Grpc.NOT_FOUND: 404,
    Grpc.ABORTED: 409,
    Grpc.ALREADY_EXISTS: 409,
    Grpc.RESOURCE_EXHAUSTED: 429,
    Grpc.CANCELLED: 499,
    Grpc.UNKNOWN: 500,
    Grpc.INTERNAL: 500,
    Grpc.DATA_LOSS: 500,
    Grpc.UNIMPLEMENTED: 501,
    Grpc.UNAVAILABLE: 503,
    Grpc.DEADLINE_EXCEEDED: 504,
}


class Category(IntEnum):
    """Canton's `ErrorCategory`: the number is what `errorCategory` carries."""

    TRANSIENT_SERVER_FAILURE = 1
    CONTENTION_ON_SHARED_RESOURCES = 2
    DEADLINE_EXCEEDED_REQUEST_STATE_UNKNOWN = 3
    SYSTEM_INTERNAL_ASSUMPTION_VIOLATED = 4
    SECURITY_ALERT = 5
    AUTH_INTERCEPTOR_INVALID_AUTHENTICATION_CREDENTIALS = 6
    INSUFFICIENT_PERMISSION = 7
    INVALID_INDEPENDENT_OF_SYSTEM_STATE = 8
    INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER = 9
    INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS = 10
    INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING = 11
    INVALID_GIVEN_CURRENT_SYSTEM_STATE_SEEK_AFTER_END = 12
    INTERNAL_UNSUPPORTED_OPERATION = 14

    @property
    def grpc(self) -> Grpc:
        return _GRPC_OF_CATEGORY[self]

    @property
    def redacted(self) -> bool:
        """Canton never sends the details of these over the API: the body says only that something happened."""
        return self in _REDACTED

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE


_GRPC_OF_CATEGORY = {
    Category.TRANSIENT_SERVER_FAILURE: Grpc.UNAVAILABLE,
    Category.CONTENTION_ON_SHARED_RESOURCES: Grpc.ABORTED,
    Category.DEADLINE_EXCEEDED_REQUEST_STATE_UNKNOWN: Grpc.DEADLINE_EXCEEDED,
    Category.SYSTEM_INTERNAL_ASSUMPTION_VIOLATED: Grpc.INTERNAL,
    Category.SECURITY_ALERT: Grpc.INVALID_ARGUMENT,
    Category.AUTH_INTERCEPTOR_INVALID_AUTHENTICATION_CREDENTIALS: Grpc.UNAUTHENTICATED,
    Category.INSUFFICIENT_PERMISSION: Grpc.PERMISSION_DENIED,
    Category.INVALID_INDEPENDENT_OF_SYSTEM_STATE: Grpc.INVALID_ARGUMENT,
    Category.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER: Grpc.FAILED_PRECONDITION,
    Category.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS: Grpc.ALREADY_EXISTS,
    Category.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING: Grpc.NOT_FOUND,
    Category.INVALID_GIVEN_CURRENT_SYSTEM_STATE_SEEK_AFTER_END: Grpc.OUT_OF_RANGE,
    Category.INTERNAL_UNSUPPORTED_OPERATION: Grpc.UNIMPLEMENTED,
}
_REDACTED = {
    Category.SYSTEM_INTERNAL_ASSUMPTION_VIOLATED,
    Category.AUTH_INTERCEPTOR_INVALID_AUTHENTICATION_CREDENTIALS,
    Category.INSUFFICIENT_PERMISSION,
    Category.INTERNAL_UNSUPPORTED_OPERATION,
}
_RETRYABLE = {
    Category.TRANSIENT_SERVER_FAILURE,
    Category.CONTENTION_ON_SHARED_RESOURCES,
    Category.DEADLINE_EXCEEDED_REQUEST_STATE_UNKNOWN,
    Category.INVALID_GIVEN_CURRENT_SYSTEM_STATE_SEEK_AFTER_END,
}


@dataclass(frozen=True)
class ErrorCode:
    """One of Canton's error ids. `prefix` is the fixed text Canton puts before the detail of the cause."""

    id: str
    category: Category
    prefix: str = ""
    http_status: int | None = None  # only where Canton forces a status other than the category's
    json_layer: bool = False  # raised by the JSON API itself, not decoded from a gRPC status
    retry: str | None = None  # where Canton's error sets its own retry delay (as Scala prints a duration)

    @property
    def status(self) -> int:
        return self.http_status or HTTP_STATUS_OF_GRPC[self.category.grpc]

    def __call__(self, detail: str = "", **kwargs) -> LedgerError:
        return LedgerError(self, detail, **kwargs)


C = Category
# Request validation
MISSING_FIELD = ErrorCode(
    "MISSING_FIELD",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The submitted command is missing a mandatory field: ",
)
INVALID_FIELD = ErrorCode(
    "INVALID_FIELD",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The submitted command has a field with invalid value: ",
)
INVALID_ARGUMENT = ErrorCode(
    "INVALID_ARGUMENT", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "The submitted request has invalid arguments: "
)
NEGATIVE_OFFSET = ErrorCode("NEGATIVE_OFFSET", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Offset ")
NON_POSITIVE_OFFSET = ErrorCode("NON_POSITIVE_OFFSET", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Offset ")
INVALID_CONTINUATION_TOKEN = ErrorCode(
    "INVALID_CONTINUATION_TOKEN",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The submitted command contains an invalid continuation token. ",
)
INVALID_ACS_PAGE_TOKEN = ErrorCode(
    "INVALID_ACS_PAGE_TOKEN",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The submitted command contains an invalid page token. ",
)
INVALID_DEDUPLICATION_PERIOD = ErrorCode(
    "INVALID_DEDUPLICATION_PERIOD",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER,
    "The submitted command had an invalid deduplication period: ",
)
INVALID_UPDATES_PAGE_TOKEN = ErrorCode(
    "INVALID_UPDATES_PAGE_TOKEN",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The submitted command contains an invalid page token. ",
)
DESCENDING_ORDER_MISSING_END = ErrorCode(
    "DESCENDING_ORDER_MISSING_END", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE
)
INVALID_TOKEN = ErrorCode(
    "INVALID_TOKEN", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "The submitted request is missing a user-id: "
)
# Offsets and pruning
OFFSET_AFTER_LEDGER_END = ErrorCode(
    "OFFSET_AFTER_LEDGER_END", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_SEEK_AFTER_END
)
PARTICIPANT_PRUNED_DATA_ACCESSED = ErrorCode(
    "PARTICIPANT_PRUNED_DATA_ACCESSED", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
# Lookups
CONTRACT_PAYLOAD_NOT_FOUND = ErrorCode(
    "CONTRACT_PAYLOAD_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING
)
CONTRACT_EVENTS_NOT_FOUND = ErrorCode(
    "CONTRACT_EVENTS_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING
)
UPDATE_NOT_FOUND = ErrorCode(
    "UPDATE_NOT_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Update not found, or not visible.",
)
CONTRACT_NOT_FOUND = ErrorCode(
    "CONTRACT_NOT_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Contract could not be found with id ",
)
CONTRACT_NOT_ACTIVE = ErrorCode("CONTRACT_NOT_ACTIVE", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING)
CONTRACT_KEY_NOT_FOUND = ErrorCode(
    "CONTRACT_KEY_NOT_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Couldn't find contract key ",
)
TEMPLATES_OR_INTERFACES_NOT_FOUND = ErrorCode(
    "TEMPLATES_OR_INTERFACES_NOT_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Templates do not exist: ",
)
PACKAGE_NAMES_NOT_FOUND = ErrorCode(
    "PACKAGE_NAMES_NOT_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "The following package names do not match upgradable packages uploaded on this participant: ",
)
NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME = ErrorCode(
    "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: ",
)
NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME = ErrorCode(
    "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant: ",
)
JSON_API_PACKAGE_SELECTION_FAILED = ErrorCode(
    "JSON_API_PACKAGE_SELECTION_FAILED", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER, json_layer=True
)
PACKAGE_NOT_FOUND = ErrorCode("PACKAGE_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING)
PARTY_NOT_KNOWN_ON_LEDGER = ErrorCode(
    "PARTY_NOT_KNOWN_ON_LEDGER",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Party not known on ledger: ",
)
SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER = ErrorCode(
    "SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING,
    "Party not known on ledger: Submitting parties ",
)
# Command execution
DUPLICATE_COMMAND = ErrorCode(
    "DUPLICATE_COMMAND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS,
    "A command with the given command id has already been successfully processed",
)
DAML_AUTHORIZATION_ERROR = ErrorCode(
    "DAML_AUTHORIZATION_ERROR", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Interpretation error: Error: "
)
# A Daml exception no handler took (a failed ensure, assert, error, arithmetic error or a package's own exception):
# the cause is the failure Daml's engine renders for it, `unhandled_exception` in participant.engine.update builds it
UNHANDLED_EXCEPTION = ErrorCode(
    "UNHANDLED_EXCEPTION",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER,
    "Interpretation error: Error: User failure: ",
)
DAML_INTERPRETATION_ERROR = ErrorCode(
    "DAML_INTERPRETATION_ERROR", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER, "Interpretation error: Error: "
)
DUPLICATE_CONTRACT_KEY = ErrorCode(
    "DUPLICATE_CONTRACT_KEY",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS,
    "DuplicateKey: contract key is not unique",
)
COMMAND_PREPROCESSING_FAILED = ErrorCode(
    "COMMAND_PREPROCESSING_FAILED", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE
)
# Users and parties
USER_NOT_FOUND = ErrorCode("USER_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING)
USER_ALREADY_EXISTS = ErrorCode("USER_ALREADY_EXISTS", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS)
INVALID_USER_UPDATE_REQUEST = ErrorCode("INVALID_USER_UPDATE_REQUEST", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE)
MAX_USER_ANNOTATIONS_SIZE_EXCEEDED = ErrorCode(
    "MAX_USER_ANNOTATIONS_SIZE_EXCEEDED", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
CONCURRENT_USER_UPDATE_DETECTED = ErrorCode(
    "CONCURRENT_USER_UPDATE_DETECTED", C.CONTENTION_ON_SHARED_RESOURCES
)
PARTY_NOT_FOUND = ErrorCode("PARTY_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING)
INVALID_PARTY_DETAILS_UPDATE_REQUEST = ErrorCode(
    "INVALID_PARTY_DETAILS_UPDATE_REQUEST", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE
)
MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED = ErrorCode(
    "MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED = ErrorCode(
    "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", C.CONTENTION_ON_SHARED_RESOURCES
)
# Identity provider configs
INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST = ErrorCode(
    "INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE
)
IDP_CONFIG_NOT_FOUND = ErrorCode(
    "IDP_CONFIG_NOT_FOUND", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_MISSING
)
IDP_CONFIG_ALREADY_EXISTS = ErrorCode(
    "IDP_CONFIG_ALREADY_EXISTS", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS
)
IDP_CONFIG_ISSUER_ALREADY_EXISTS = ErrorCode(
    "IDP_CONFIG_ISSUER_ALREADY_EXISTS", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_RESOURCE_EXISTS
)
TOO_MANY_IDENTITY_PROVIDER_CONFIGS = ErrorCode(
    "TOO_MANY_IDENTITY_PROVIDER_CONFIGS", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
# Package preferences
NO_PREFERRED_PACKAGES_FOUND = ErrorCode(
    "NO_PREFERRED_PACKAGES_FOUND",
    C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER,
    "Failed to compute package preferences. Reason: ",
)
# Package uploads (Canton's PackageServiceErrors, docs/ledger-api.md §5.1): the prefix is Canton's cause, the detail
# names the problem
INVALID_DAR = ErrorCode("INVALID_DAR", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Dar file is corrupt: ")
DAR_PARSE_ERROR = ErrorCode(
    "DAR_PARSE_ERROR", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Failed to parse the dar file content: "
)
ZIP_BOMB = ErrorCode(
    "ZIP_BOMB", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Dar zip file seems to be a zip bomb. "
)
DAR_NOT_SELF_CONSISTENT = ErrorCode(
    "DAR_NOT_SELF_CONSISTENT",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "The set of packages in the dar is not self-consistent and is missing dependencies: ",
)
DAR_VALIDATION_ERROR = ErrorCode(
    "DAR_VALIDATION_ERROR", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Package validation failed: "
)
KNOWN_DAR_VERSION = ErrorCode("KNOWN_DAR_VERSION", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE)
# Auth (redacted on the wire)
UNAUTHENTICATED = ErrorCode("UNAUTHENTICATED", C.AUTH_INTERCEPTOR_INVALID_AUTHENTICATION_CREDENTIALS)
PERMISSION_DENIED = ErrorCode("PERMISSION_DENIED", C.INSUFFICIENT_PERMISSION)
# JSON layer
JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED = ErrorCode(
    "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    C.CONTENTION_ON_SHARED_RESOURCES,
    http_status=413,
    json_layer=True,
)
LEDGER_API_INTERNAL_ERROR = ErrorCode(
    "LEDGER_API_INTERNAL_ERROR", C.SYSTEM_INTERNAL_ASSUMPTION_VIOLATED, json_layer=True
)
# Added for the engine (Canton's CommandExecutionErrors.Interpreter)
WRONGLY_TYPED_CONTRACT = ErrorCode(
    "WRONGLY_TYPED_CONTRACT", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER, "Interpretation error: Error: "
)
CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE = ErrorCode(
    "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE",
    C.INVALID_INDEPENDENT_OF_SYSTEM_STATE,
    "Interpretation error: Error: ",
)
# Canton's CommandExecutionErrors.Interpreter.ValueNesting: a value the interpretation made, to be stored, nests
# deeper than Daml's limit of 100 (`participant.engine.nesting`)
VALUE_NESTING = ErrorCode(
    "VALUE_NESTING", C.INVALID_INDEPENDENT_OF_SYSTEM_STATE, "Interpretation error: Error: "
)
# Evaluation budgets (participant.daml_lf.eval.budget, mapped by `budget_failure` in participant.engine.update).
# Canton's CommandExecutionErrors.TimeExceeded: a definite answer; it cannot tell a loop from a slow participant,
# so it lets the application retry, not before 60 s (about the ledger-time tolerance).
INTERPRETATION_TIME_EXCEEDED = ErrorCode(
    "INTERPRETATION_TIME_EXCEEDED", C.CONTENTION_ON_SHARED_RESOURCES, retry="60 seconds"
)
# Canton has no error for an interpretation outgrowing its memory: its engine runs in the JVM's heap, and the
# closest it answers is LedgerApiErrors.HeapMemoryOverLimit (the heap past a configured threshold), in the same
# category (contention on shared resources, 409).
HEAP_MEMORY_OVER_LIMIT = ErrorCode("HEAP_MEMORY_OVER_LIMIT", C.CONTENTION_ON_SHARED_RESOURCES)
# Canton's GrpcErrors.AbortedDueToShutdown: a request the node stopped because it is shutting down.
ABORTED_DUE_TO_SHUTDOWN = ErrorCode(
    "ABORTED_DUE_TO_SHUTDOWN",
    C.TRANSIENT_SERVER_FAILURE,
    "request aborted due to shutdown",
    retry="10 seconds",
)
# `failWithStatus` in Daml (Interpreter.FailureStatus): the Daml code chooses the category; `daml_failure` builds it
DAML_FAILURE = ErrorCode(
    "DAML_FAILURE", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER, "Interpretation error: Error: User failure: "
)


def daml_failure(error_id: str, category: int, message: str, metadata: Mapping[str, str]) -> LedgerError:
    """DAML_FAILURE in the category the Daml code chose (Canton keeps its default for an unknown one), the
    metadata and the error id in the context; the id is added last so that metadata cannot override it."""
    code = DAML_FAILURE
    if category != DAML_FAILURE.category and category in Category._value2member_map_:
        code = replace(DAML_FAILURE, category=Category(category))
    detail = f"{error_id} (error category {int(code.category)}): {message}"
    return code(detail, context={**metadata, "error_id": error_id})


# Transaction routing across synchronizers (Canton's TransactionRoutingError)
UNKNOWN_CONTRACT_SYNCHRONIZERS = ErrorCode(
    "UNKNOWN_CONTRACT_SYNCHRONIZERS", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
MULTI_SYNCHRONIZER_SUPPORT_NOT_ENABLED = ErrorCode(
    "MULTI_SYNCHRONIZER_SUPPORT_NOT_ENABLED", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
INVALID_PRESCRIBED_SYNCHRONIZER_ID = ErrorCode(
    "INVALID_PRESCRIBED_SYNCHRONIZER_ID", C.INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER
)
del C

# Canton's JSON layer marks every failure to resolve a verified token's claims (an unknown or deactivated user,
# say) with this context entry (`Endpoints.validateJwtToken`, `JsCantonError.tokenProblemError`).
TOKEN_PROBLEM: Mapping[str, str] = MappingProxyType({"ledger_api_error": "invalid token"})


@dataclass
class LedgerError(Exception):
    """A Canton error: raised anywhere, rendered once as a `JsCantonError`."""

    code: ErrorCode
    detail: str = ""
    context: dict[str, str] = field(default_factory=dict)
    resources: list[tuple[str, str]] = field(default_factory=list)
    correlation_id: str | None = None
    # What Canton's JSON layer adds to the context of an error it decoded (`TOKEN_PROBLEM`): kept on the wire even
    # when the category redacts everything else, because it is added after the redaction.
    json_context: Mapping[str, str] = field(default_factory=dict)
    # The Daml exception behind an UNHANDLED_EXCEPTION raised by a nested exercise: a `try` further out in the same
    # transaction may still catch it (the engine's Daml-LF actions raise it again there). Never on the wire.
    daml_exception: Exception | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__init__(self.cause)

    @property
    def cause(self) -> str:
        return (self.code.prefix + self.detail)[:512]

    @property
    def status(self) -> int:
        return self.code.status

    def rpc_status(self, correlation: str) -> dict:
        """The failure as a completion's `status` (a google.rpc.Status): the gRPC code and Canton's message."""
        return {
            "code": int(self.code.category.grpc),
            "message": f"{self.code.id}({int(self.code.category)},{correlation[:8]}): {self.cause}",
            "details": [],
        }

    def body(self) -> dict:
        """The `JsCantonError` as Canton prints it: every key present, redacted where Canton redacts.

        Errors decoded from a gRPC status carry the category, the trace id and whether the answer is definite in
        `context` (and `definiteAnswer` null); errors of the JSON layer itself have an empty context."""
        category = self.code.category
        trace_id = secrets.token_hex(16)
        if category.redacted:
            return {
                "code": "NA",
                "cause": "A security-sensitive error has been received",
                "correlationId": self.correlation_id,
                "traceId": trace_id,
                "context": dict(self.json_context),
                "resources": [],
                "errorCategory": -1,
                "grpcCodeValue": int(category.grpc),
                "retryInfo": None,
                "definiteAnswer": None,
            }
        if self.code.json_layer:
            context, definite = dict(self.context), False
        else:
            context = {
                **self.context,
                "category": str(int(category)),
                "definite_answer": "false",
                "tid": trace_id,
            }
            definite = None
        context.update(self.json_context)
        return {
            "code": self.code.id,
            "cause": self.cause,
            "correlationId": self.correlation_id,
            "traceId": trace_id,
            "context": context,
            "resources": [list(r) for r in self.resources],
            "errorCategory": int(category),
            "grpcCodeValue": int(category.grpc),
            "retryInfo": self.code.retry or ("1 second" if category.retryable else None),
            "definiteAnswer": definite,
        }


def missing_field(field_name: str) -> LedgerError:
    """Canton's MISSING_FIELD for a mandatory field left out, with the field named in its context."""
    return MISSING_FIELD(field_name, context={"field_name": field_name})


class BadRequestBody(Exception):
    """A body (or query parameter) that does not decode: Canton answers 400 text/plain `Invalid value for: ...`."""

    def __init__(self, detail: str, where: str = "body") -> None:
        super().__init__(detail)
        self.text = f"Invalid value for: {where} ({detail})"


class Unimplemented(LedgerError):
    """An endpoint of the spec that this participant cannot serve (a DAR upload, say: its packages are Python).

    Canton has no error id for this: its category for unimplemented code paths (InternalUnsupportedOperation,
    UNIMPLEMENTED, 501) is redacted, which would hide the reason. So the answer is what Canton's JSON layer renders
    for a gRPC UNIMPLEMENTED status that carries no Canton error (`Endpoints.scala`): the status description as
    `code`, `errorCategory` -1, `grpcCodeValue` 12, HTTP 501; the cause adds what is not supported and why."""

    def __init__(self, method: str, reason: str) -> None:
        self.description = f"Method not found: {method}"
        super().__init__(_UNIMPLEMENTED, f"UNIMPLEMENTED: {self.description}. {reason}")

    @property
    def cause(self) -> str:
        return self.detail[:512]

    def body(self) -> dict:
        return {
            "code": self.description,
            "cause": self.cause,
            "correlationId": None,
            "traceId": None,
            "context": {},
            "resources": [],
            "errorCategory": -1,
            "grpcCodeValue": int(Grpc.UNIMPLEMENTED),
            "retryInfo": None,
            "definiteAnswer": None,
        }


_UNIMPLEMENTED = ErrorCode("UNIMPLEMENTED", Category.INTERNAL_UNSUPPORTED_OPERATION)
