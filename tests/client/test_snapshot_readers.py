"""`read_snapshot` against a real participant whose list limit (5) is far below the snapshot (a few hundred
contracts): the page form and the websocket form read all of it, the same contracts."""

from __future__ import annotations

import pytest

from app.client import LedgerClient, event_format
from app.client.acs import FIRST_PAGE, read_snapshot
from app.client.errors import BadRequest
from tests.client.conftest import LIST_LIMIT, entry_contract_id


async def _read(client: LedgerClient, offset: int, parties: list[str] | None) -> tuple[list[str], set[str]]:
    ids: list[str] = []
    forms: set[str] = set()
    async for batch in read_snapshot(client, offset, event_format(parties)):
        forms.add(batch.form)
        ids += [entry_contract_id(e) for e in batch.entries]
    return ids, forms


async def test_page_and_websocket_forms_read_the_same_whole_snapshot(client_for):
    client = client_for("Alice")
    alice = (await client.authenticated_user()).primary_party
    end = await client.ledger_end()

    by_page, forms = await _read(client, end, [alice])
    assert forms == {"page"}
    assert len(by_page) > FIRST_PAGE > LIST_LIMIT  # more than one page, far more than a list answer may hold
    assert len(set(by_page)) == len(by_page)
    pages = [r for r in client.log.entries if r.path == "/v2/state/active-contracts-page"]
    assert len(pages) >= 2 and all(r.status == 200 for r in pages)

    client.capabilities.acs_page = False
    by_websocket, forms = await _read(client, end, [alice])
    assert forms == {"websocket"}
    assert sorted(by_websocket) == sorted(by_page)
    (record,) = [r for r in client.log.entries if r.path.endswith("(websocket)")]
    assert record.status == 101 and record.request_headers == {"Authorization": "Bearer <token>"}
    assert (await client.tokens.token()) not in repr(record)  # the token went in the subprotocol, not the log


async def test_offset_zero_is_the_empty_snapshot(client_for):
    client = client_for("Alice")
    assert await _read(client, 0, ["Alice::1220" + "0" * 64]) == ([], set())
    assert client.log.entries == []  # nothing to ask the participant


@pytest.mark.parametrize("form", ["page", "websocket"])
async def test_an_offset_beyond_the_ledger_end_is_cantons_error(client_for, form):
    client = client_for("Alice")
    alice = (await client.authenticated_user()).primary_party
    client.capabilities.acs_page = form == "page"
    end = await client.ledger_end()
    with pytest.raises(BadRequest) as caught:
        await _read(client, end + 10, [alice])
    assert caught.value.code == "OFFSET_AFTER_LEDGER_END"
    last = client.log.entries[-1]
    assert last.status == 400 and b"OFFSET_AFTER_LEDGER_END" in last.response_body
