"""Moving contracts between synchronizers: submit unassign and assign commands and follow each one through the
completions until it succeeded or failed. No UI here: the reassignment screen shows the `Step`s it reports.

Submitting a reassignment is asynchronous (`/v2/commands/async/submit-reassignment` answers `{}` once the command is
accepted); what became of it is a completion for the submitting user and party, found by its commandId, and on
success a Reassignment update whose events carry the reassignment id an assign needs.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.client import LedgerClient, errors
from app.client.ledger import event_format
from participant.api import (
    AssignCommand,
    AssignCommand1,
    Command1,
    JsReassignment,
    ReassignmentCommand,
    ReassignmentCommands,
    UnassignCommand,
    UnassignCommand1,
    UpdateFormat,
)

FOLLOW_TIMEOUT_S = 60.0  # how long a submission is followed before its outcome is called unknown
POLL_FIRST_S, POLL_MAX_S = 0.1, 1.0

SUBMITTING, SUBMITTED, SUCCEEDED, FAILED, UNKNOWN = (
    "submitting",
    "submitted",
    "succeeded",
    "failed",
    "unknown",
)


@dataclass
class Step:
    """One submission (an unassign of some contracts, or an assign) and what became of it."""

    kind: str  # "unassign" | "assign"
    source: str
    target: str
    submitter: str
    contract_ids: list[str] = field(default_factory=list)
    reassignment_id: str = ""  # given for an assign; learnt from the outcome of an unassign
    command_id: str = field(default_factory=lambda: f"ledger-tui-{uuid.uuid4().hex[:20]}")
    state: str = SUBMITTING
    offset: int | None = None
    update_id: str = ""
    error_id: str = ""
    cause: str = ""
    error: errors.LedgerApiError | None = None  # a synchronous rejection, or a failure to follow

    @property
    def done(self) -> bool:
        return self.state in (SUCCEEDED, FAILED, UNKNOWN)


class Reassigner:
    """Submits reassignments as `user_id` and follows them. `on_change` hears of every change of a step."""

    def __init__(
        self,
        client: LedgerClient,
        user_id: str,
        on_change: Callable[[Step], None] | None = None,
        *,
        follow_timeout_s: float = FOLLOW_TIMEOUT_S,
    ) -> None:
        self.client = client
        self.user_id = user_id
        self.on_change = on_change or (lambda step: None)
        self.follow_timeout_s = follow_timeout_s

    async def unassign(self, contract_ids: Sequence[str], source: str, target: str, submitter: str) -> Step:
        step = Step("unassign", source, target, submitter, contract_ids=list(contract_ids))
        commands = [
            ReassignmentCommand(
                command=Command1(
                    unassign_command=UnassignCommand(
                        value=UnassignCommand1(contract_id=cid, source=source, target=target)
                    )
                )
            )
            for cid in contract_ids
        ]
        return await self._run(step, commands)

    async def assign(
        self, reassignment_id: str, source: str, target: str, submitter: str, contract_ids: Sequence[str] = ()
    ) -> Step:
        step = Step(
            "assign",
            source,
            target,
            submitter,
            contract_ids=list(contract_ids),
            reassignment_id=reassignment_id,
        )
        commands = [
            ReassignmentCommand(
                command=Command1(
                    assign_command=AssignCommand(
                        value=AssignCommand1(reassignment_id=reassignment_id, source=source, target=target)
                    )
                )
            )
        ]
        return await self._run(step, commands)

    async def move(
        self,
        contract_ids: Sequence[str],
        source: str,
        target: str,
        submitter: str,
        on_step: Callable[[Step], None] | None = None,
    ) -> list[Step]:
        """Unassign, then assign with the reassignment id the unassign's outcome names: both steps, followed."""
        unassigned = await self.unassign(contract_ids, source, target, submitter)
        if on_step is not None:
            on_step(unassigned)
        if unassigned.state != SUCCEEDED or not unassigned.reassignment_id:
            return [unassigned]
        assigned = await self.assign(unassigned.reassignment_id, source, target, submitter, contract_ids)
        if on_step is not None:
            on_step(assigned)
        return [unassigned, assigned]

    # --- submitting and following -------------------------------------------------------------------------------

    async def _run(self, step: Step, commands: list[ReassignmentCommand]) -> Step:
        self.on_change(step)
        try:
            begin = await self.client.ledger_end()
            await self.client.submit_reassignment(
                ReassignmentCommands(
                    user_id=self.user_id,
                    command_id=step.command_id,
                    submitter=step.submitter,
                    commands=commands,
                )
            )
        except errors.LedgerApiError as e:
            step.error, step.error_id, step.cause = e, getattr(e, "code", None) or "", e.message
            step.state = FAILED
            self.on_change(step)
            return step
        step.state = SUBMITTED
        self.on_change(step)
        try:
            await self._follow(step, begin)
        except errors.LedgerApiError as e:
            step.error, step.cause = e, f"could not follow the submission: {e.message}"
            step.state = UNKNOWN
        self.on_change(step)
        return step

    async def _follow(self, step: Step, begin: int) -> None:
        """Poll the completions after `begin` for the step's commandId, then read the update it made."""
        deadline = time.monotonic() + self.follow_timeout_s
        delay = POLL_FIRST_S
        while True:
            for element in await self.client.completions(self.user_id, [step.submitter], begin):
                response = element.completion_response
                completion = response.completion.value if response and response.completion else None
                if response and response.offset_checkpoint is not None:
                    begin = max(begin, response.offset_checkpoint.value.offset or begin)
                if completion is None:
                    continue
                begin = max(begin, completion.offset)
                if completion.command_id != step.command_id:
                    continue
                step.offset = completion.offset
                status = completion.status
                if status is not None and status.code != 0:
                    step.error_id, step.cause = split_status(status.message or "")
                    step.state = FAILED
                    return
                step.update_id = completion.update_id or ""
                await self._read_update(step)
                step.state = SUCCEEDED
                return
            if time.monotonic() >= deadline:
                step.cause = (
                    f"no completion for commandId {step.command_id} within {self.follow_timeout_s:.0f} s; "
                    "it may still complete: the contracts screen shows the outcome"
                )
                step.state = UNKNOWN
                return
            await asyncio.sleep(delay)
            delay = min(POLL_MAX_S, delay * 2)

    async def _read_update(self, step: Step) -> None:
        """The reassignment's events: the reassignment id of an unassign, the contracts of an assign."""
        if not step.update_id:
            return
        fmt = UpdateFormat(include_reassignments=event_format([step.submitter]))
        try:
            update = (await self.client.update_by_id(step.update_id, fmt)).update
        except errors.LedgerApiError:
            return  # the outcome stands; only the details are missing
        reassignment = update.reassignment.value if update is not None and update.reassignment else None
        if reassignment is not None:
            learn_from(step, reassignment)


def learn_from(step: Step, reassignment: JsReassignment) -> None:
    """Fill a step's reassignment id and contracts from its reassignment's events."""
    ids: list[str] = []
    for event in reassignment.events:
        if event.js_unassigned_event is not None:
            unassigned = event.js_unassigned_event.value
            step.reassignment_id = step.reassignment_id or unassigned.reassignment_id
            ids.append(unassigned.contract_id)
        elif event.js_assignment_event is not None:
            assigned = event.js_assignment_event
            step.reassignment_id = step.reassignment_id or assigned.reassignment_id
            ids.append(assigned.created_event.contract_id)
    if ids:
        step.contract_ids = ids


_STATUS = re.compile(r"^([A-Z][A-Z0-9_]+)\([^)]*\):\s*(.*)$", re.S)


def split_status(message: str) -> tuple[str, str]:
    """A failed completion's status message ("ERROR_ID(category,correlation): cause") as (error id, cause)."""
    m = _STATUS.match(message.strip())
    return (m.group(1), m.group(2)) if m else ("", message)


__all__ = [
    "FAILED",
    "SUBMITTED",
    "SUBMITTING",
    "SUCCEEDED",
    "UNKNOWN",
    "Reassigner",
    "Step",
    "learn_from",
    "split_status",
]
