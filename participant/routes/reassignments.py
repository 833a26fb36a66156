"""Reassignment submission: the asynchronous submit and submit-and-wait-for-reassignment (notes §4.5)."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.routing import Route

from participant import errors, shaping
from participant.api import (
    ReassignmentCommands,
    SubmitAndWaitForReassignmentRequest,
    SubmitReassignmentRequest,
)
from participant.auth import Claims
from participant.engine import ids, reassignment
from participant.filters import authorize, resolve_event_format
from participant.ledger import ReassignmentMeta, ReassignmentOutcome
from participant.routes.commands import trace_context_of
from participant.routes.common import claims, context, decode, json

_SYNCHRONIZER_ID = re.compile(r"[A-Za-z0-9_\-]+::" + ids.HASH_PREFIX + r"[0-9a-f]{64}")


def _synchronizer(value: str, field_name: str) -> str:
    if not value:
        raise errors.missing_field(field_name)
    ids.require(_SYNCHRONIZER_ID.fullmatch(value) is not None, field_name, f"Invalid synchronizer id {value!r}")
    return value


def _command(wire) -> reassignment.ReassignmentCommand:
    command = wire.command
    if command is None or command.tag == "Empty":
        raise errors.missing_field("command")
    c = command.value.value
    if command.tag == "UnassignCommand":
        if not c.contract_id:
            raise errors.missing_field("contract_id")
        ids.require_contract_id(c.contract_id)
        return reassignment.Unassign(c.contract_id, _synchronizer(c.source, "source"),
                                     _synchronizer(c.target, "target"))
    if not c.reassignment_id:
        raise errors.missing_field("reassignment_id")
    ids.require(reassignment.is_reassignment_id(c.reassignment_id), "reassignment_id", "Invalid reassignment ID")
    return reassignment.Assign(c.reassignment_id, _synchronizer(c.source, "source"), _synchronizer(c.target, "target"))


def _prepare(cmds: ReassignmentCommands | None, c: Claims,
             trace_context: dict | None) -> tuple[list[reassignment.ReassignmentCommand], ReassignmentMeta]:
    """Validate and authorize ReassignmentCommands as Canton does, before anything reads the ledger."""
    if cmds is None:
        raise errors.missing_field("reassignment_commands")
    ids.require(ids.is_ledger_string(cmds.command_id), "command_id",
                f"Expected a valid LedgerString, got {cmds.command_id!r}")
    ids.require(ids.is_party_id_string(cmds.submitter), "submitter",
                f"Expected a valid party id, got {cmds.submitter!r}")
    user_id = c.resolve_user_id(cmds.user_id)
    c.require_act([cmds.submitter])
    for value, name in ((cmds.workflow_id, "workflow_id"), (cmds.submission_id, "submission_id")):
        if value:
            ids.require(ids.is_ledger_string(value), name, f"Invalid LedgerString {value!r}")
    commands = [_command(w) for w in cmds.commands]
    reassignment.check_batch(commands)
    meta = ReassignmentMeta(user_id=user_id, command_id=cmds.command_id, submitter=cmds.submitter,
                            workflow_id=cmds.workflow_id, submission_id=cmds.submission_id,
                            trace_context=trace_context)
    return commands, meta


async def _reassign(request: Request, cmds: ReassignmentCommands | None, c: Claims) -> ReassignmentOutcome:
    commands, meta = _prepare(cmds, c, trace_context_of(request))
    return await context(request).ledger.reassign(commands, meta)


async def submit_reassignment(request: Request):
    """`{}` once the reassignment is accepted; its outcome, success or failure, is in the completions."""
    req = await decode(request, SubmitReassignmentRequest)
    await _reassign(request, req.reassignment_commands, await claims(request))
    return json({})


async def submit_and_wait_for_reassignment(request: Request):
    ctx = context(request)
    req = await decode(request, SubmitAndWaitForReassignmentRequest)
    c = await claims(request)
    event_filter = None
    if req.event_format is not None:
        event_filter = resolve_event_format(req.event_format, ctx.registry)
        authorize(c, event_filter)
    outcome = await _reassign(request, req.reassignment_commands, c)
    if outcome.error is not None:
        raise outcome.error
    return json({"reassignment": shaping.reassignment(outcome.update, event_filter, show_command_id=True)})


routes = [
    Route("/v2/commands/async/submit-reassignment", submit_reassignment, methods=["POST"]),
    Route("/v2/commands/submit-and-wait-for-reassignment", submit_and_wait_for_reassignment, methods=["POST"]),
]
