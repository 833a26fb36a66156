"""Fixtures of the HTTP tests: a read-any-party user, and a participant with a small list limit."""

from __future__ import annotations

import httpx
import pytest

from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for
from tests.http.helpers import IOU, TRANSFER, created_cid, grant_read_any


@pytest.fixture
async def reader(ledger_api) -> str:
    return await grant_read_any(ledger_api)


async def _ledger_with(tmp_path, **settings):
    app = create_app(settings_for(tmp_path / "other.db", **settings))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield LedgerApi(http)


@pytest.fixture
async def small_ledger(tmp_path):
    """A participant whose list limit (`http-list-max-elements-limit`) is 3."""
    async for ledger_api in _ledger_with(tmp_path, max_list_elements=3):
        yield ledger_api


@pytest.fixture
async def open_ledger(tmp_path):
    """A participant started with `--no-auth`."""
    async for ledger_api in _ledger_with(tmp_path, hs256_secret=None, no_auth=True):
        yield ledger_api


@pytest.fixture
async def duo(ledger_api, alice_bob) -> str:
    """A user acting as both Alice and Bob (an Iou with two signatories needs both)."""
    rights = [{"kind": {"CanActAs": {"value": {"party": p}}}} for p in alice_bob]
    r = await ledger_api.post("/v2/users", {"user": {"id": "duo"}, "rights": rights})
    assert r.status_code == 200, r.text
    return "duo"


@pytest.fixture
async def history(ledger_api, alice_bob) -> dict:
    """Alice creates an Iou and transfers it to Bob, who accepts; Bob creates one of his own."""
    alice, bob = alice_bob
    created = await ledger_api.create_iou(alice, alice, user="Alice")
    r = await ledger_api.exercise(
        IOU, created_cid(created), "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice"
    )
    transfer = r.json()["transaction"]
    r = await ledger_api.exercise(
        TRANSFER, created_cid(transfer), "IouTransfer_Accept", {}, act_as=[bob], user="Bob"
    )
    accept = r.json()["transaction"]
    own = await ledger_api.create_iou(bob, bob, user="Bob")
    return {"created": created, "transfer": transfer, "accept": accept, "own": own}
