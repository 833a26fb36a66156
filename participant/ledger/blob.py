"""The `createdEventBlob`: a contract as this participant stores it, for explicit disclosure. One format, written
and read here."""

from __future__ import annotations

import base64
import binascii

import orjson

from participant.base.timestamps import format_timestamp, parse_timestamp
from participant.base.transactions import Contract

VERSION = 1


def encode_blob(c: Contract) -> str:
    return base64.b64encode(
        orjson.dumps(
            {
                "v": VERSION,
                "contractId": c.contract_id,
                "templateId": c.template_id,
                "packageName": c.package_name,
                "argument": c.argument,
                "signatories": list(c.signatories),
                "observers": list(c.observers),
                "key": c.key,
                "keyHash": c.key_hash,
                "createdAt": format_timestamp(c.created_at),
                "synchronizerId": c.synchronizer_id,
            }
        )
    ).decode()


def decode_blob(blob: str) -> Contract:
    """The contract of a blob; ValueError when it is not one of ours."""
    try:
        d = orjson.loads(base64.b64decode(blob, validate=True))
        if d["v"] != VERSION:
            raise ValueError("unknown blob version")
        return Contract(
            contract_id=d["contractId"],
            template_id=d["templateId"],
            package_name=d["packageName"],
            argument=d["argument"],
            signatories=tuple(d["signatories"]),
            observers=tuple(d["observers"]),
            key=d["key"],
            key_hash=d["keyHash"],
            created_at=parse_timestamp(d["createdAt"]),
            synchronizer_id=d["synchronizerId"],
        )
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error):
        raise ValueError("not a created event blob of this participant") from None
