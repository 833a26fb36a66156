"""Reassignment submission (docs/ledger-api.md §4.5). All proto-shaped: relaxed defaults."""

from __future__ import annotations

from pydantic import Field

from .base import Variant, WireModel, alt
from .common import Empty
from .filters import EventFormat
from .updates import JsReassignment

__all__ = [
    "AssignCommand",
    "AssignCommand1",
    "Command1",
    "JsSubmitAndWaitForReassignmentResponse",
    "ReassignmentCommand",
    "ReassignmentCommands",
    "SubmitAndWaitForReassignmentRequest",
    "SubmitReassignmentRequest",
    "SubmitReassignmentResponse",
    "UnassignCommand",
    "UnassignCommand1",
]


class UnassignCommand1(WireModel):
    contract_id: str = ""
    source: str = ""
    target: str = ""


class UnassignCommand(WireModel):
    value: UnassignCommand1


class AssignCommand1(WireModel):
    reassignment_id: str = ""  # hex with leading version byte 00
    source: str = ""
    target: str = ""


class AssignCommand(WireModel):
    value: AssignCommand1


class Command1(Variant):
    """The oneof inside ``ReassignmentCommand.command`` (spec name ``Command1``)."""

    assign_command: AssignCommand | None = alt("AssignCommand")
    empty: Empty | None = alt("Empty")
    unassign_command: UnassignCommand | None = alt("UnassignCommand")


def _empty_command() -> Command1:
    return Command1(empty=Empty())


class ReassignmentCommand(WireModel):
    # omitted -> {"Empty":{}} -> Canton answers MISSING_FIELD command
    command: Command1 = Field(default_factory=_empty_command)


class ReassignmentCommands(WireModel):
    workflow_id: str = ""
    user_id: str = ""
    command_id: str = ""
    submitter: str = ""
    submission_id: str = ""
    commands: list[ReassignmentCommand] = Field(default_factory=list)


class SubmitReassignmentRequest(WireModel):
    reassignment_commands: ReassignmentCommands | None = None  # validated as required


class SubmitReassignmentResponse(WireModel):
    """``{}``: accepted for processing."""


class SubmitAndWaitForReassignmentRequest(WireModel):
    reassignment_commands: ReassignmentCommands | None = None
    event_format: EventFormat | None = None  # no events unless given


class JsSubmitAndWaitForReassignmentResponse(WireModel):
    reassignment: JsReassignment
