"""The bounds Canton puts on the offsets a request names, with its error texts (its `ParticipantOffsetValidator`).

Offsets are the positive integers of committed updates; 0 is the ledger begin. Which bound applies depends on the
field: a start point may be 0, a point to look at or to end at may not."""

from __future__ import annotations

from participant.base import errors

POSITIVE = "the offset has to be a positive integer (>0)"
POSITIVE_OR_ABSENT = "the offset has to be either a positive integer (>0) or not defined at all"


def require_non_negative(offset: int, field_name: str) -> int:
    if offset < 0:
        raise errors.NEGATIVE_OFFSET(
            f"{offset} in {field_name} is a negative integer: "
            f"the offset in {field_name} field has to be a non-negative integer (>=0)"
        )
    return offset


def require_positive(offset: int, field_name: str, message: str = POSITIVE) -> int:
    if offset <= 0:
        raise errors.NON_POSITIVE_OFFSET(f"{offset} in {field_name} is not a positive integer: {message}")
    return offset


def require_not_after_end(kind: str, offset: int, ledger_end: int) -> int:
    """`kind` names the offset in the cause as Canton does: "Begin", "End", "active_at_offset"."""
    if offset > ledger_end:
        raise errors.OFFSET_AFTER_LEDGER_END(f"{kind} offset ({offset}) is after ledger end ({ledger_end})")
    return offset


def require_start(offset: int, field_name: str, kind: str, ledger_end: int) -> int:
    """A point to read from or at (a begin, a snapshot offset): not negative, not after the ledger end."""
    require_non_negative(offset, field_name)
    return require_not_after_end(kind, offset, ledger_end)


def require_not_pruned(offset: int, pruned: int, request: str) -> int:
    """History before the pruned offset is gone. `request` opens the cause as Canton words it for the service,
    e.g. "Command completions request from 3"."""
    if offset < pruned:
        raise errors.PARTICIPANT_PRUNED_DATA_ACCESSED(
            f"{request} precedes pruned offset {pruned}", context={"earliest_offset": str(pruned)}
        )
    return offset
