"""How the participant has been answering, read off the request log: the status line's connected, slow and failing.

Failing: the last request that finished got no answer (refused, broken, timed out) or a 5xx or 429 answer. Slow: a
request (not a stream, which may rightly last) has been in flight longer than `slow_after_s`. Any other answer, a
4xx included, shows the participant works.
"""

from __future__ import annotations

from app.client.requests_log import RequestRecord

SLOW_AFTER_S = 5.0


class Health:
    def __init__(self, slow_after_s: float = SLOW_AFTER_S) -> None:
        self.slow_after_s = slow_after_s
        self.cause = ""
        """The last failure in a few words ("HTTP 500", "timed out"); empty while requests succeed."""
        self._in_flight: dict[int, RequestRecord] = {}

    def seen(self, record: RequestRecord) -> None:
        """A request started or finished (a `RequestLog` listener)."""
        if not record.done:
            if not record.stream:
                self._in_flight[record.id] = record
            return
        self._in_flight.pop(record.id, None)
        if record.error == "cancelled":
            return  # the client stopped waiting: says nothing of the participant
        self.cause = failure_of(record)

    def state(self, now: float) -> str:
        """ "failing", "slow" or "ok" at `now` (`time.time()`)."""
        if self.cause:
            return "failing"
        if any(now - r.started > self.slow_after_s for r in self._in_flight.values()):
            return "slow"
        return "ok"


def failure_of(record: RequestRecord) -> str:
    """What went wrong with a finished request, in a few words; empty when the participant answered normally."""
    if record.error:
        return record.error.split(" (", 1)[0].split(":", 1)[0]
    status = record.status or 0
    if status >= 500 or status == 429:
        return f"HTTP {status}"
    return ""
