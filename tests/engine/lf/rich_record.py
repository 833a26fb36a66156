"""A richtypes RichRecord and its type: every builtin scalar, an Optional, a list, a TextMap, a nested record and
a variant, in one JSON value. The codec's tests read it, and its bench (bench/value_codec.py) measures it."""

from __future__ import annotations

from participant.engine.lf.definitions import LfPackages
from participant.engine.values import RecordType
from tests.engine.lf.conftest import ALICE, CID

RICH = {
    "owner": ALICE,
    "count": "-42",
    "amount": "1234.5000000000",
    "label": "héllo",
    "active": True,
    "asOf": "2024-02-29",
    "observedAt": "2024-01-02T03:04:05.123456Z",
    "note": "a note",
    "tags": ["b", "a"],
    "attributes": {"a": "1", "z": "2"},
    "marker": CID,
    "profile": {"nickname": "al", "level": "3"},
    "outcome": {"tag": "Win", "value": {"prize": "2.50", "tier": "gold"}},
    "fee": "0.10",
}


def rich_type(lf_richtypes: LfPackages) -> RecordType:
    return lf_richtypes.main.templates["RichTypes:RichRecord"].argument_type
