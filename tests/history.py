"""A ledger with a long history, made quickly: many one-Iou transactions submitted side by side over plain HTTP
(without the per-answer spec check of `LedgerApi`), each with a command id that says its place."""

from __future__ import annotations

import asyncio

import httpx
import orjson

from tests.conftest import LedgerApi, bearer

SUBMIT = "/v2/commands/submit-and-wait-for-transaction"


async def allocate(url: str, user: str) -> str:
    """A party and a user of that name acting as it; returns the party."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        return await LedgerApi(http, check_spec=False).party(user)


def iou_submission(party: str, command_id: str) -> bytes:
    create = {
        "CreateCommand": {
            "templateId": "#model-tests:Iou:Iou",
            "createArguments": {
                "issuer": party,
                "owner": party,
                "currency": "USD",
                "amount": "1.0",
                "observers": [],
            },
        }
    }
    return orjson.dumps({"commands": {"commands": [create], "commandId": command_id, "actAs": [party]}})


async def submit_ious(
    url: str, user: str, party: str, count: int, *, prefix: str = "tx", concurrency: int = 16
) -> list[str]:
    """`count` transactions of one Iou each, `concurrency` in flight; returns their command ids
    (`<prefix>-<n>`) in the order they were numbered (not necessarily the order they committed)."""
    ids = [f"{prefix}-{n}" for n in range(count)]
    queue = iter(ids)
    headers = {**bearer(user), "Content-Type": "application/json"}

    async def worker(http: httpx.AsyncClient) -> None:
        for command_id in queue:
            r = await http.post(SUBMIT, content=iou_submission(party, command_id), headers=headers)
            assert r.status_code == 200, r.text

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return ids
