"""Commands as the composer's form holds them (text, as typed) and as the participant receives them (`JsCommands`).

No UI here: the composer's widgets fill a `CommandForm`; `build` turns it into the wire request or lists every
problem with the field it belongs to (JSON errors with their line and column), so the screen can point at them.
"""

from __future__ import annotations

import re
import shlex
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import orjson
import pydantic

from app.client.ledger import LEDGER_EFFECTS, event_format
from app.cut import shorten
from app.daml import party_hint, template_name
from participant.api import (
    Command,
    CreateAndExerciseCommand,
    CreateCommand,
    DeduplicationDuration,
    DeduplicationOffset,
    DeduplicationPeriod,
    DisclosedContract,
    Duration,
    Empty,
    ExerciseByKeyCommand,
    ExerciseCommand,
    JsCommands,
    TransactionFormat,
)

if TYPE_CHECKING:
    from app.session import Identity

KINDS = ("CreateAndExercise", "Create", "Exercise", "ExerciseByKey")
DEDUPLICATION = ("none", "duration", "offset")
SUBMIT_PATH = "/v2/commands/submit-and-wait-for-transaction"
# A participant without auth has no user behind the request: commands must name one (docs/ledger-api.md §7)
NO_AUTH_USER_ID = "ledger-tui"

_NAME = re.compile(r"^[A-Za-z$_][A-Za-z0-9$_]*$")
_LEDGER_STRING = re.compile(r"^[A-Za-z0-9._:\-#/ ]{1,255}$")
_SEPARATORS = re.compile(r"[,\s]+")


def new_command_id() -> str:
    return f"ledger-tui-{uuid.uuid4()}"


@dataclass
class CommandForm:
    """Everything the composer shows, as the user typed it (JSON editors as text). Recalled from the history as is."""

    kind: str = "CreateAndExercise"
    template_id: str = ""
    contract_id: str = ""
    choice: str = ""
    create_arguments: str = ""
    choice_argument: str = ""
    contract_key: str = ""
    act_as: str = ""  # parties separated by commas or spaces
    read_as: str = ""
    command_id: str = ""
    user_id: str = ""  # empty: the token's user (or NO_AUTH_USER_ID without auth)
    workflow_id: str = ""
    deduplication: str = "none"  # one of DEDUPLICATION
    deduplication_value: str = ""  # seconds for "duration", an offset for "offset"
    min_ledger_time_abs: str = ""
    min_ledger_time_rel: str = ""  # seconds
    disclosed_contracts: str = ""  # a JSON list
    synchronizer_id: str = ""
    package_preference: str = ""  # package ids separated by commas or spaces
    submission_id: str = ""

    @property
    def uses_create_arguments(self) -> bool:
        return self.kind in ("CreateAndExercise", "Create")

    @property
    def uses_choice(self) -> bool:
        return self.kind != "Create"

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> CommandForm:
        """A form from a history entry; unknown keys and non-text values are dropped (older or newer files)."""
        if not isinstance(data, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        form = cls(**{k: v for k, v in data.items() if k in known and isinstance(v, str)})
        if form.kind not in KINDS:
            form.kind = KINDS[0]
        if form.deduplication not in DEDUPLICATION:
            form.deduplication = "none"
        return form


@dataclass(frozen=True)
class Problem:
    """What is wrong with one field (`field` is the wire name: templateId, createArguments, actAs, ...)."""

    field: str
    message: str
    line: int | None = None  # JSON errors: where, 1-based
    column: int | None = None
    path: str = ""  # a typed form's problems: where in the value, "createArguments.items[2].amount"

    def __str__(self) -> str:
        if self.path:
            return f"{self.path}: {self.message}"
        where = f" (line {self.line}, column {self.column})" if self.line is not None else ""
        return f"{self.field}{where}: {self.message}"


class InvalidForm(Exception):
    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = list(problems)


_MISSING = object()


def parse_json(text: str, field_name: str, *, empty: Any = _MISSING) -> tuple[Any, Problem | None]:
    """The JSON value of an editor, or where it fails to parse. Blank text is `empty` when given, a problem if not."""
    if not text.strip():
        if empty is _MISSING:
            return None, Problem(field_name, "required: write a JSON value")
        return empty, None
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError as e:
        return None, Problem(field_name, e.msg, line=e.lineno, column=e.colno)


def split_list(text: str) -> list[str]:
    """Comma- or space-separated items, in order, without duplicates."""
    return list(dict.fromkeys(t for t in _SEPARATORS.split(text.strip()) if t))


def resolve_parties(names: Iterable[str], known: Iterable[str]) -> list[str]:
    """Parties as typed, a bare hint (``Alice``) replaced by the one known party id with that hint."""
    by_hint: dict[str, list[str]] = {}
    for party in dict.fromkeys(known):
        by_hint.setdefault(party_hint(party), []).append(party)
    out = []
    for name in names:
        matches = by_hint.get(name, []) if "::" not in name else []
        out.append(matches[0] if len(matches) == 1 else name)
    return list(dict.fromkeys(out))


def _seconds(text: str, field_name: str) -> tuple[Duration | None, Problem | None]:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None, Problem(field_name, f"not a number of seconds: {text.strip()!r}")
    if value < 0 or not value.is_finite():
        return None, Problem(field_name, "seconds must be zero or more")
    whole = int(value)
    return Duration(seconds=whole, nanos=int((value - whole) * 1_000_000_000)), None


def _timestamp(text: str) -> tuple[str | None, Problem | None]:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None, Problem("minLedgerTimeAbs", "not an ISO-8601 timestamp, e.g. 2030-01-01T00:00:00Z")
    if moment.tzinfo is None:
        return None, Problem("minLedgerTimeAbs", "add the time zone: Z for UTC, or an offset such as +01:00")
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z"), None


def _template_problem(template_id: str) -> Problem | None:
    if not template_id:
        return Problem("templateId", "required: #package-name:Module:Entity (or <package id>:Module:Entity)")
    parts = template_id.split(":")
    if len(parts) < 3 or not all(parts):
        return Problem(
            "templateId", "a template id is <package>:<Module>:<Entity>, e.g. #model-tests:Iou:Iou"
        )
    return None


def build(
    form: CommandForm,
    *,
    default_user_id: str,
    known_parties: Iterable[str] = (),
    value_problems: Sequence[Problem] = (),
) -> JsCommands:
    """The request for `form`, or `InvalidForm` listing every problem in the order the form shows the fields.
    `value_problems` are those of the typed forms the arguments come from (none is submitted while one remains)."""
    problems: list[Problem] = []

    def note(problem: Problem | None) -> None:
        if problem is not None:
            problems.append(problem)

    template_id = form.template_id.strip()
    note(_template_problem(template_id))
    create_arguments = choice_argument = contract_key = None
    if form.kind == "Exercise" and not form.contract_id.strip():
        note(Problem("contractId", "required: the id of the contract to exercise the choice on"))
    if form.kind == "ExerciseByKey":
        contract_key, problem = parse_json(form.contract_key, "contractKey")
        note(problem)
    if form.uses_create_arguments:
        create_arguments, problem = parse_json(form.create_arguments, "createArguments")
        note(problem)
        problems.extend(p for p in value_problems if p.field == "createArguments")
    choice = form.choice.strip()
    if form.uses_choice:
        if not choice:
            note(Problem("choice", "required: the name of a choice, e.g. Archive"))
        elif not _NAME.match(choice):
            note(Problem("choice", f"not a choice name: {choice!r}"))
        choice_argument, problem = parse_json(form.choice_argument, "choiceArgument", empty={})
        note(problem)
        problems.extend(p for p in value_problems if p.field == "choiceArgument")

    known = list(known_parties)
    act_as = resolve_parties(split_list(form.act_as), known)
    read_as = [p for p in resolve_parties(split_list(form.read_as), known) if p not in act_as]
    if not act_as:
        note(Problem("actAs", "required: at least one party to act as"))
    command_id = form.command_id.strip()
    if not _LEDGER_STRING.match(command_id):
        note(
            Problem("commandId", "required: up to 255 letters, digits and ._:-#/ (ctrl+n makes a fresh one)")
        )

    deduplication = None
    if form.deduplication == "duration":
        duration, problem = _seconds(form.deduplication_value, "deduplicationPeriod")
        note(problem)
        if duration is not None:
            deduplication = DeduplicationPeriod.of(DeduplicationDuration(value=duration))
    elif form.deduplication == "offset":
        text = form.deduplication_value.strip()
        if text.isdigit():
            deduplication = DeduplicationPeriod.of(DeduplicationOffset(value=int(text)))
        else:
            note(Problem("deduplicationPeriod", "an offset is a whole number"))
    min_abs = min_rel = None
    if form.min_ledger_time_abs.strip():
        min_abs, problem = _timestamp(form.min_ledger_time_abs)
        note(problem)
    if form.min_ledger_time_rel.strip():
        min_rel, problem = _seconds(form.min_ledger_time_rel, "minLedgerTimeRel")
        note(problem)
    if min_abs is not None and min_rel is not None:
        note(Problem("minLedgerTimeRel", "give minLedgerTimeAbs or minLedgerTimeRel, not both"))
    disclosed = _disclosed(form.disclosed_contracts, note)

    if problems:
        raise InvalidForm(problems)
    if form.kind == "CreateAndExercise":
        command = Command.of(
            CreateAndExerciseCommand(
                template_id=template_id,
                create_arguments=create_arguments,
                choice=choice,
                choice_argument=choice_argument,
            )
        )
    elif form.kind == "Create":
        command = Command.of(CreateCommand(template_id=template_id, create_arguments=create_arguments))
    elif form.kind == "Exercise":
        command = Command.of(
            ExerciseCommand(
                template_id=template_id,
                contract_id=form.contract_id.strip(),
                choice=choice,
                choice_argument=choice_argument,
            )
        )
    else:
        command = Command.of(
            ExerciseByKeyCommand(
                template_id=template_id,
                contract_key=contract_key,
                choice=choice,
                choice_argument=choice_argument,
            )
        )
    return JsCommands(
        commands=[command],
        command_id=command_id,
        act_as=act_as,
        read_as=read_as,
        user_id=form.user_id.strip() or default_user_id,
        workflow_id=form.workflow_id.strip(),
        deduplication_period=deduplication or DeduplicationPeriod(empty=Empty()),
        min_ledger_time_abs=min_abs,
        min_ledger_time_rel=min_rel,
        submission_id=form.submission_id.strip(),
        disclosed_contracts=disclosed,
        synchronizer_id=form.synchronizer_id.strip(),
        package_id_selection_preference=split_list(form.package_preference),
    )


def _disclosed(text: str, note) -> list[DisclosedContract]:
    items, problem = parse_json(text, "disclosedContracts", empty=[])
    if problem is not None:
        note(problem)
        return []
    if not isinstance(items, list):
        note(
            Problem(
                "disclosedContracts",
                "a JSON list of {templateId, contractId, createdEventBlob, synchronizerId} objects",
            )
        )
        return []
    out = []
    for i, item in enumerate(items):
        try:
            out.append(DisclosedContract.model_validate(item))
        except pydantic.ValidationError as e:
            first = e.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "the entry"
            note(Problem("disclosedContracts", f"entry {i + 1}: {first['msg']} at {where}"))
    return out


def transaction_format(commands: JsCommands) -> TransactionFormat:
    """Every event the acting and reading parties witness (ledger effects: exercises with their results too)."""
    parties = list(dict.fromkeys([*commands.act_as, *commands.read_as]))
    return TransactionFormat(event_format=event_format(parties), transaction_shape=LEDGER_EFFECTS)


def default_user_id(identity: Identity) -> str:
    return identity.user_id or NO_AUTH_USER_ID


def parties_without_rights(commands: JsCommands, identity: Identity) -> list[str]:
    """The parties the user's rights do not cover (the participant will likely refuse them: 403)."""
    if identity.user_id is None:
        return []  # no auth: every request may act as any party
    outside = [p for p in commands.act_as if p not in identity.act_as]
    if not identity.read_any:
        readable = set(identity.act_as) | set(identity.read_as)
        outside += [p for p in commands.read_as if p not in readable]
    return outside


def as_curl(base_url: str, body: bytes, *, authorized: bool) -> str:
    """The submission as a curl command line, in the request log's style: the token is `$LEDGER_TOKEN`."""
    parts = [
        "curl",
        "-sS",
        "-X",
        "POST",
        shlex.quote(base_url.rstrip("/") + SUBMIT_PATH),
        "-H",
        shlex.quote("Content-Type: application/json"),
    ]
    if authorized:
        parts += ["-H", '"Authorization: Bearer $LEDGER_TOKEN"']
    parts += ["--data-binary", shlex.quote(body.decode("utf-8", "replace"))]
    return " ".join(parts)


def pretty_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def summary(form: CommandForm) -> str:
    """One line for the history: what the command does."""
    what = template_name(form.template_id.strip()) or "?"
    if form.kind == "Create":
        return f"Create {what}"
    target = (
        f" on {shorten(form.contract_id.strip(), 12)}" if form.kind == "Exercise" and form.contract_id else ""
    )
    return f"{form.kind} {what} {form.choice.strip() or '?'}{target}"


def as_actor(payload: Any, signatories: Sequence[str], act_as: Sequence[str]) -> Any:
    """A contract's payload made creatable by `act_as`: every signatory the acting parties cannot speak for is
    replaced by the first of them (an Iou of Bob's becomes one that Alice issues to herself)."""
    if not act_as:
        return payload
    foreign = set(signatories) - set(act_as)
    actor = act_as[0]

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return actor if value in foreign else value
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return walk(payload) if foreign else payload
