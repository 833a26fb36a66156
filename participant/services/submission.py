"""Submission: commands (submit and wait, for the transaction or not, and asynchronously), the completions of a
user's commands, and reassignments (docs/ledger-api.md §4.5). Each request is validated and authorized as Canton does, in
Canton's order, before anything reads the ledger."""

from __future__ import annotations

import re
from datetime import timedelta

from participant.api import (
    JsCommands,
    JsSubmitAndWaitForTransactionRequest,
    ReassignmentCommands,
    SubmitAndWaitForReassignmentRequest,
    SubmitReassignmentRequest,
)
from participant.auth import Claims
from participant.base import errors
from participant.base.timestamps import parse_timestamp
from participant.engine import commands as internal
from participant.engine import ids, reassignment
from participant.ledger.committer import CommandMeta, Deduplication, ReassignmentMeta, ReassignmentOutcome
from participant.ledger.disclosure import disclosed_contracts
from participant.projection import shaping, trees
from participant.projection.filters import (
    ACS_DELTA,
    LEDGER_EFFECTS,
    EventFilter,
    TransactionView,
    authorize,
    authorized_transaction_view,
    resolve_event_format,
)
from participant.projection.views_ahead import shaped
from participant.services.context import Context

# --- commands


def _command(wire) -> internal.Command:
    c = wire.value
    match wire.tag:
        case "CreateCommand":
            return internal.CreateCommand(c.template_id, c.create_arguments)
        case "ExerciseCommand":
            return internal.ExerciseCommand(c.template_id, c.contract_id, c.choice, c.choice_argument)
        case "ExerciseByKeyCommand":
            return internal.ExerciseByKeyCommand(c.template_id, c.contract_key, c.choice, c.choice_argument)
        case "CreateAndExerciseCommand":
            return internal.CreateAndExerciseCommand(
                c.template_id, c.create_arguments, c.choice, c.choice_argument
            )
    raise errors.missing_field("command")


def _ledger_string(value: str, field_name: str, required: bool) -> str:
    if not value:
        if required:
            raise errors.missing_field(field_name)
        return value
    ids.require(ids.is_ledger_string(value), field_name, f"Invalid LedgerString {value!r}")
    return value


def _parties(parties: list[str], field_name: str) -> tuple[str, ...]:
    ids.require_party_ids(parties, field_name)
    return tuple(dict.fromkeys(parties))


def _deduplication(cmds: JsCommands) -> Deduplication:
    period = cmds.deduplication_period
    if period.tag == "DeduplicationDuration":
        d = period.value.value
        seconds, nanos = d.seconds or 0, d.nanos or 0
        if seconds < 0 or nanos < 0:
            raise errors.INVALID_FIELD(
                "Invalid field deduplication_period: Duration must be positive",
                context={"field_name": "deduplication_period"},
            )
        return Deduplication(duration=timedelta(seconds=seconds, microseconds=nanos // 1000))
    if period.tag == "DeduplicationOffset":
        return Deduplication(after_offset=period.value.value)
    return Deduplication()


async def prepare(
    ctx: Context, cmds: JsCommands, c: Claims, trace_context: dict | None
) -> tuple[internal.Submission, CommandMeta]:
    """Validate and authorize a JsCommands as Canton does, in Canton's order, and turn it into a submission."""
    if not cmds.commands:
        raise errors.missing_field("commands")
    command_id = _ledger_string(cmds.command_id, "command_id", required=True)
    if not cmds.act_as:
        raise errors.missing_field("party or act_as")
    act_as = _parties(cmds.act_as, "act_as")
    read_as = _parties(cmds.read_as, "read_as")
    user_id = c.resolve_user_id(cmds.user_id)
    c.require_act(act_as)
    c.require_read(read_as)
    workflow_id = _ledger_string(cmds.workflow_id, "workflow_id", required=False)
    submission_id = _ledger_string(cmds.submission_id, "submission_id", required=False)
    if cmds.min_ledger_time_abs is not None and cmds.min_ledger_time_rel is not None:
        raise errors.INVALID_ARGUMENT(
            "min_ledger_time_abs and min_ledger_time_rel cannot be set at the same time"
        )
    min_abs = None
    if cmds.min_ledger_time_abs is not None:
        try:
            min_abs = parse_timestamp(cmds.min_ledger_time_abs)
        except ValueError:
            raise errors.INVALID_FIELD(
                f"Invalid field min_ledger_time_abs: {cmds.min_ledger_time_abs!r}",
                context={"field_name": "min_ledger_time_abs"},
            ) from None
    min_rel = None
    if cmds.min_ledger_time_rel is not None:
        r = cmds.min_ledger_time_rel
        min_rel = timedelta(seconds=r.seconds or 0, microseconds=(r.nanos or 0) // 1000)
    unknown = [p for p in act_as if not await ctx.committer.is_known_party(p)]
    if unknown:
        raise errors.SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER(
            f"{unknown} are not known on the ledger", resources=[("PARTY", p) for p in unknown]
        )
    commands = tuple(_command(w) for w in cmds.commands)
    submission = internal.Submission(
        commands=commands,
        act_as=act_as,
        read_as=read_as,
        disclosed=await disclosed_contracts(ctx.store, cmds.disclosed_contracts),
    )
    meta = CommandMeta(
        user_id=user_id,
        command_id=command_id,
        workflow_id=workflow_id,
        submission_id=submission_id,
        deduplication=_deduplication(cmds),
        min_ledger_time_abs=min_abs,
        min_ledger_time_rel=min_rel,
        synchronizer_id=cmds.synchronizer_id,
        trace_context=trace_context,
    )
    return submission, meta


async def _submit(ctx: Context, cmds: JsCommands, c: Claims, trace_context: dict | None):
    submission, meta = await prepare(ctx, cmds, c, trace_context)
    return await ctx.committer.submit(submission, meta)


def transaction_view(ctx: Context, req: JsSubmitAndWaitForTransactionRequest, c: Claims) -> TransactionView:
    if req.transaction_format is None:  # the default of the service description
        parties = [*req.commands.act_as, *req.commands.read_as]
        return TransactionView(ACS_DELTA, EventFilter.wildcard_for(parties, verbose=True))
    return authorized_transaction_view(req.transaction_format, ctx.filter_packages, c)


async def submit_and_wait_for_transaction(
    ctx: Context, req: JsSubmitAndWaitForTransactionRequest, c: Claims, trace_context: dict | None
) -> dict:
    view = transaction_view(ctx, req, c)
    update = await _submit(ctx, req.commands, c, trace_context)
    tx = await shaped(
        [view.filter],
        lambda: shaping.transaction(update, view.shape, view.filter, show_command_id=True),
        ctx.committer.evaluate,
    )
    return {"transaction": tx}


async def submit_and_wait_for_transaction_tree(
    ctx: Context, cmds: JsCommands, c: Claims, trace_context: dict | None
) -> dict:
    """The deprecated tree form: the transaction as its acting and reading parties witness it, ledger effects."""
    event_filter = EventFilter.wildcard_for([*cmds.act_as, *cmds.read_as], verbose=True)
    update = await _submit(ctx, cmds, c, trace_context)
    tx = shaping.transaction(update, LEDGER_EFFECTS, event_filter, show_command_id=True)
    return {"transactionTree": trees.transaction_tree(tx)}


async def submit_and_wait(ctx: Context, cmds: JsCommands, c: Claims, trace_context: dict | None) -> dict:
    update = await _submit(ctx, cmds, c, trace_context)
    return {"updateId": update.update_id, "completionOffset": update.offset}


async def submit_async(ctx: Context, cmds: JsCommands, c: Claims, trace_context: dict | None) -> dict:
    await _submit(ctx, cmds, c, trace_context)
    return {}


# --- reassignments

_SYNCHRONIZER_ID = re.compile(r"[A-Za-z0-9_\-]+::" + ids.HASH_PREFIX + r"[0-9a-f]{64}")


def _synchronizer(value: str, field_name: str) -> str:
    if not value:
        raise errors.missing_field(field_name)
    ids.require(
        _SYNCHRONIZER_ID.fullmatch(value) is not None, field_name, f"Invalid synchronizer id {value!r}"
    )
    return value


def _reassignment_command(wire) -> reassignment.ReassignmentCommand:
    command = wire.command
    if command is None or command.tag == "Empty":
        raise errors.missing_field("command")
    c = command.value.value
    if command.tag == "UnassignCommand":
        if not c.contract_id:
            raise errors.missing_field("contract_id")
        ids.require_contract_id(c.contract_id)
        return reassignment.Unassign(
            c.contract_id, _synchronizer(c.source, "source"), _synchronizer(c.target, "target")
        )
    if not c.reassignment_id:
        raise errors.missing_field("reassignment_id")
    ids.require(
        reassignment.is_reassignment_id(c.reassignment_id), "reassignment_id", "Invalid reassignment ID"
    )
    return reassignment.Assign(
        c.reassignment_id, _synchronizer(c.source, "source"), _synchronizer(c.target, "target")
    )


def _prepare_reassignment(
    cmds: ReassignmentCommands | None, c: Claims, trace_context: dict | None
) -> tuple[list[reassignment.ReassignmentCommand], ReassignmentMeta]:
    """Validate and authorize ReassignmentCommands as Canton does, before anything reads the ledger."""
    if cmds is None:
        raise errors.missing_field("reassignment_commands")
    ids.require(
        ids.is_ledger_string(cmds.command_id),
        "command_id",
        f"Expected a valid LedgerString, got {cmds.command_id!r}",
    )
    ids.require(
        ids.is_party_id_string(cmds.submitter),
        "submitter",
        f"Expected a valid party id, got {cmds.submitter!r}",
    )
    user_id = c.resolve_user_id(cmds.user_id)
    c.require_act([cmds.submitter])
    for value, name in ((cmds.workflow_id, "workflow_id"), (cmds.submission_id, "submission_id")):
        if value:
            ids.require(ids.is_ledger_string(value), name, f"Invalid LedgerString {value!r}")
    commands = [_reassignment_command(w) for w in cmds.commands]
    reassignment.check_batch(commands)
    meta = ReassignmentMeta(
        user_id=user_id,
        command_id=cmds.command_id,
        submitter=cmds.submitter,
        workflow_id=cmds.workflow_id,
        submission_id=cmds.submission_id,
        trace_context=trace_context,
    )
    return commands, meta


async def _reassign(
    ctx: Context, cmds: ReassignmentCommands | None, c: Claims, trace_context: dict | None
) -> ReassignmentOutcome:
    commands, meta = _prepare_reassignment(cmds, c, trace_context)
    return await ctx.committer.reassign(commands, meta)


async def submit_reassignment(
    ctx: Context, req: SubmitReassignmentRequest, c: Claims, trace_context: dict | None
) -> dict:
    """`{}` once the reassignment is accepted; its outcome, success or failure, is in the completions."""
    await _reassign(ctx, req.reassignment_commands, c, trace_context)
    return {}


async def submit_and_wait_for_reassignment(
    ctx: Context, req: SubmitAndWaitForReassignmentRequest, c: Claims, trace_context: dict | None
) -> dict:
    event_filter = None
    if req.event_format is not None:
        event_filter = resolve_event_format(req.event_format, ctx.filter_packages)
        authorize(c, event_filter)
    outcome = await _reassign(ctx, req.reassignment_commands, c, trace_context)
    if outcome.error is not None:
        raise outcome.error
    assert outcome.update is not None  # an outcome holds its error or its update
    return {"reassignment": shaping.reassignment(outcome.update, event_filter, show_command_id=True)}
