"""Timestamps as the Ledger API prints them: UTC, `Z`, fraction in 0, 3, 6 or 9 digits (Java's Instant.toString)."""

from __future__ import annotations

import functools
from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


@functools.lru_cache(maxsize=4096)
def format_timestamp(t: datetime) -> str:
    """Cached: a transaction's few timestamps are formatted for every event and row that carries them."""
    if t.tzinfo is not UTC:
        t = t.astimezone(UTC)
    base = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    micros = t.microsecond
    if micros == 0:
        return base + "Z"
    if micros % 1000 == 0:
        return f"{base}.{micros // 1000:03d}Z"
    return f"{base}.{micros:06d}Z"


def parse_timestamp(text: str) -> datetime:
    """Parse an RFC 3339 timestamp with `Z` or an offset; raises ValueError otherwise."""
    t = datetime.fromisoformat(text.replace("z", "Z"))
    if t.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {text!r}")
    return t.astimezone(UTC)
