"""The participant's answer when an evaluation outgrows its budget (`participant.daml_lf.eval.budget`), as Canton
answers: nothing of the command is written, and the error says which limit it met.

- past its deadline: INTERPRETATION_TIME_EXCEEDED, worded as Canton's `RejectionGenerators` words it ("Time exceeds
  limit of Ledger Effective Time (<ledger time>) + tolerance (<tolerance>). Interpretation aborted."), the ledger
  time printed as Java prints an `Instant` and the tolerance as Canton pretty-prints a duration;
- past its memory (values, or the stack): HEAP_MEMORY_OVER_LIMIT (see `participant.base.errors` for the choice);
- stopped because the participant is shutting down: ABORTED_DUE_TO_SHUTDOWN.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from participant.base import errors
from participant.daml_lf.eval.budget import BudgetExceeded, Interrupted, MemoryExceeded, TimeExceeded


def budget_failure(error: BudgetExceeded) -> errors.LedgerError:
    if isinstance(error, TimeExceeded):
        budget = error.budget
        if budget.ledger_time is not None and budget.tolerance is not None:
            return errors.INTERPRETATION_TIME_EXCEEDED(
                f"Time exceeds limit of Ledger Effective Time ({java_instant(budget.ledger_time)}) + tolerance "
                f"({canton_duration(budget.tolerance)}). Interpretation aborted."
            )
        return errors.INTERPRETATION_TIME_EXCEEDED(
            "Time exceeds the interpretation's limit. Interpretation aborted."
        )
    if isinstance(error, MemoryExceeded):
        limit = "" if error.limit is None else str(error.limit)
        unit = "bytes" if error.pool == "memory" else "frames"
        maximum = f"{limit} {unit}" if limit else "the process's own"
        return errors.HEAP_MEMORY_OVER_LIMIT(
            f"The Daml interpretation {error.pool} usage threshold has exceeded the maximum ({maximum}): "
            f"{error}. Interpretation aborted.",
            context={"memoryPool": f"Daml interpretation {error.pool}", "limit": limit},
        )
    if isinstance(error, Interrupted):
        return errors.ABORTED_DUE_TO_SHUTDOWN()
    raise TypeError(f"not a budget's failure: {error!r}")


def java_instant(moment: datetime) -> str:
    """`moment` as `java.time.Instant.toString` prints it (Daml's `Time.Timestamp` too): UTC, the fraction of a
    second in groups of three digits, none when it is whole."""
    utc = moment.astimezone(UTC)
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    micros = utc.microsecond
    if micros:
        text += f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    return text + "Z"


def canton_duration(duration: timedelta) -> str:
    """`duration` as Canton pretty-prints one (`PrettyInstances.prettyJDuration`): `java.time.Duration`'s ISO text
    without `PT`, a space between units, lower case: `60s` is `1m`, `90s` is `1m 30s`, `0s`, `2.5s`."""
    total = duration // timedelta(microseconds=1)
    hours, rest = divmod(total, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, micros = divmod(rest, 1_000_000)
    iso = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or micros or not iso:
        fraction = f".{micros:06d}".rstrip("0") if micros else ""
        iso += f"{seconds}{fraction}S"
    return re.sub(r"(\d[HMS])(?!$)", r"\1 ", iso).lower()
