"""The list form of /v2/state/active-contracts streams its answer: it must equal the entries built one by one
(`snapshot` below, the reference shaping), decide its 413 before the first byte, and honour a client limit."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from participant.projection import acs
from participant.projection.filters import EventFilter, qualified_name
from participant.projection.shaping import created_event_of_row
from participant.server.app import create_app
from participant.store.rows import CONTRACT_COLUMNS, ContractRow
from participant.store.store import Store
from tests.conftest import LedgerApi, settings_for
from tests.http.helpers import (
    IOU,
    TRANSFER,
    acs_body,
    assert_error,
    cids,
    event_format,
    grant_read_any,
    template,
    wildcard,
)


@pytest.fixture
async def make_ledger(tmp_path):
    """A participant with the given list limit, as (ledger, app)."""
    apps: list[contextlib.AbstractAsyncContextManager] = []

    async def make(max_list_elements: int):
        app = create_app(settings_for(tmp_path / f"acs-{len(apps)}.db", max_list_elements=max_list_elements))
        ctx = app.router.lifespan_context(app)
        await ctx.__aenter__()
        apps.append(ctx)
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")
        apps.append(http)
        return LedgerApi(http), app

    yield make
    for thing in reversed(apps):
        if isinstance(thing, httpx.AsyncClient):
            await thing.aclose()
        else:
            await thing.__aexit__(None, None, None)


async def bulk_ious(ledger_api: LedgerApi, party: str, n: int, *, observers: list[str] | None = None) -> None:
    """`n` Ious issued and owned by `party`, up to 100 per transaction."""
    for start in range(0, n, 100):
        r = await ledger_api.post(
            "/v2/commands/submit-and-wait",
            {
                "commands": [
                    {
                        "CreateCommand": {
                            "templateId": IOU,
                            "createArguments": {
                                "issuer": party,
                                "owner": party,
                                "currency": "USD",
                                "amount": f"{start + i}.5",
                                "observers": observers or [],
                            },
                        }
                    }
                    for i in range(min(100, n - start))
                ],
                "commandId": f"bulk-{os.urandom(4).hex()}",
                "workflowId": "wf/bulk #1",
                "actAs": [party],
            },
            user=party.split("::")[0],
        )
        assert r.status_code == 200, r.text


async def transfer(ledger_api: LedgerApi, cid: str, owner: str, new_owner: str) -> None:
    r = await ledger_api.exercise(
        IOU, cid, "Iou_Transfer", {"newOwner": new_owner}, act_as=[owner], user=owner.split("::")[0]
    )
    assert r.status_code == 200, r.text


async def post(ledger_api: LedgerApi, body: dict, user: str, params: dict | None = None) -> httpx.Response:
    return await ledger_api.call("POST", "/v2/state/active-contracts", json=body, user=user, params=params)


# --- the reference: each entry built field by field, as the spec's schemas read


def acs_entry(row: ContractRow, event_filter: EventFilter, token: str = "") -> dict | None:
    """One element of an ACS snapshot, or None when the filter excludes the contract."""
    qn = qualified_name(row.template_id)
    witnesses = event_filter.witnesses(row.stakeholders, row.package_name, qn)
    if not witnesses:
        return None
    event = created_event_of_row(row, witnesses, event_filter.blob(witnesses, row.package_name, qn))
    return {
        "workflowId": row.workflow_id,
        "contractEntry": {
            "JsActiveContract": {
                "createdEvent": event,
                "synchronizerId": row.synchronizer_id,
                "reassignmentCounter": row.reassignment_counter,
            }
        },
        "streamContinuationToken": token,
    }


async def snapshot(
    store: Store,
    offset: int,
    event_filter: EventFilter,
    *,
    checksum: str,
    after_seq: int = 0,
    page_size: int = acs.STORE_PAGE,
) -> AsyncIterator[tuple[int, dict]]:
    """(activation number, entry) for every contract active at `offset` that the filter lets through."""
    if offset == 0:
        return
    async for page in store.active_contracts(
        offset, event_filter.query_parties(), after_seq=after_seq, page_size=page_size
    ):
        for seq, *_ in page:
            (values,) = await store.read.execute_fetchall(
                f"SELECT {CONTRACT_COLUMNS} FROM contracts WHERE seq = ?", (seq,)
            )
            row = ContractRow(*values)
            token = acs.Position(row.seq, offset, checksum).encode()
            entry = acs_entry(row, event_filter, token)
            if entry is not None:
                yield row.seq, entry


async def reference(app, ledger_api: LedgerApi, body: dict) -> list[dict]:
    """The entries as the per-entry shaping builds them (`acs_entry` through `snapshot`)."""
    ctx = app.state.context
    from participant.api import GetActiveContractsRequest

    req = GetActiveContractsRequest.model_validate_json(orjson.dumps(body))
    event_filter, event_format_ = acs.event_filter_of_request(req, ctx.registry)
    checksum = acs.format_checksum(ctx.identity.participant_id, req.active_at_offset, event_format_)
    return [
        orjson.loads(orjson.dumps(entry))
        async for _, entry in snapshot(ctx.store, req.active_at_offset, event_filter, checksum=checksum)
    ]


@pytest.mark.parametrize(
    "filters, any_party",
    [
        (None, False),
        ([template(IOU, blob=True)], False),
        ([wildcard(blob=True), template(TRANSFER)], False),
        ([template(TRANSFER)], True),
    ],
)
async def test_streamed_list_equals_the_reference(make_ledger, filters, any_party):
    ledger_api, app = await make_ledger(5000)
    alice = await ledger_api.party("Alice")
    bob = await ledger_api.party("Bob")
    await bulk_ious(ledger_api, alice, 250)
    await bulk_ious(ledger_api, alice, 40, observers=[bob])
    user = await grant_read_any(ledger_api) if any_party else "Alice"
    body = acs_body(await ledger_api.ledger_end(), event_format(alice, filters=filters, any_party=any_party))
    listed = (await post(ledger_api, acs_body(body["activeAtOffset"], event_format(alice)), "Alice")).json()
    for cid in cids(listed)[:7]:
        await transfer(ledger_api, cid, alice, bob)
    body = acs_body(await ledger_api.ledger_end(), event_format(alice, filters=filters, any_party=any_party))
    r = await post(ledger_api, body, user)
    assert r.status_code == 200, r.text
    streamed = r.json()
    expected = await reference(app, ledger_api, body)
    assert streamed == expected
    assert len(streamed) >= 7
    # resuming from a token gives the rest
    r = await post(
        ledger_api, {**body, "streamContinuationToken": streamed[2]["streamContinuationToken"]}, user
    )
    assert r.json() == expected[3:]


async def test_413_boundary(make_ledger):
    limit = 5
    ledger_api, _ = await make_ledger(limit)
    alice = await ledger_api.party("Alice")
    bob = await ledger_api.party("Bob")
    await bulk_ious(ledger_api, alice, limit)
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    r = await post(ledger_api, body, "Alice")
    assert r.status_code == 200 and len(r.json()) == limit, r.text
    await bulk_ious(ledger_api, alice, 1)
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    err = assert_error(
        await post(ledger_api, body, "Alice"), 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
    )
    assert (
        err["cause"]
        == f"The number of matching elements ({limit + 1}) is greater than the node limit ({limit})."
    )
    # many more candidates: N is still at most L + 1
    await bulk_ious(ledger_api, alice, 30)
    end = await ledger_api.ledger_end()
    err = assert_error(
        await post(ledger_api, acs_body(end, event_format(alice)), "Alice"),
        413,
        "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    )
    assert f"({limit + 1}) is greater than the node limit ({limit})" in err["cause"]
    # a template filter that excludes most candidates: the answer is decided on the matching entries
    all_cids = cids(
        (await post(ledger_api, acs_body(end, event_format(alice)), "Alice", {"limit": 3})).json()
    )
    for cid in all_cids[:2]:
        await transfer(ledger_api, cid, alice, bob)
    end = await ledger_api.ledger_end()
    transfers = acs_body(end, event_format(alice, filters=[template(TRANSFER)]))
    r = await post(ledger_api, transfers, "Alice")
    assert r.status_code == 200, r.text
    assert len(r.json()) == 2
    assert {
        e["contractEntry"]["JsActiveContract"]["createdEvent"]["templateId"].split(":", 1)[1]
        for e in r.json()
    } == {"Iou:IouTransfer"}
    # ... and exactly L matching among more candidates is still 200
    more = cids(
        (
            await post(
                ledger_api, acs_body(end, event_format(alice, filters=[template(IOU)])), "Alice", {"limit": 3}
            )
        ).json()
    )
    for cid in more:
        await transfer(ledger_api, cid, alice, bob)
    r = await post(
        ledger_api,
        acs_body(await ledger_api.ledger_end(), event_format(alice, filters=[template(TRANSFER)])),
        "Alice",
    )
    assert r.status_code == 200 and len(r.json()) == limit, r.text


async def test_client_limit_truncates(make_ledger):
    ledger_api, app = await make_ledger(50)
    alice = await ledger_api.party("Alice")
    await bulk_ious(ledger_api, alice, 60)
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    expected = await reference(app, ledger_api, body)
    for n in (0, 1, 3, 50):
        r = await post(ledger_api, body, "Alice", {"limit": n})
        assert r.status_code == 200, r.text
        assert r.json() == expected[:n]
    assert_error(
        await post(ledger_api, body, "Alice", {"limit": 51}),
        413,
        "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    )
    # with a token, the limit counts from the resume point; the end of the snapshot ends the list early
    token = expected[54]["streamContinuationToken"]
    r = await post(ledger_api, {**body, "streamContinuationToken": token}, "Alice", {"limit": 10})
    assert r.json() == expected[55:]
    r = await post(ledger_api, {**body, "streamContinuationToken": token}, "Alice")
    assert r.json() == expected[55:]


async def test_tampered_tokens_are_refused(make_ledger):
    ledger_api, _ = await make_ledger(50)
    alice = await ledger_api.party("Alice")
    await bulk_ious(ledger_api, alice, 3)
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    token = (await post(ledger_api, body, "Alice")).json()[0]["streamContinuationToken"]
    flipped = token[:5] + ("0" if token[5] != "0" else "1") + token[6:]  # inside the checksum
    assert_error(
        await post(ledger_api, {**body, "streamContinuationToken": flipped}, "Alice"),
        400,
        "INVALID_CONTINUATION_TOKEN",
    )
    assert_error(
        await post(ledger_api, {**body, "streamContinuationToken": token[:-4] + "zzzz"}, "Alice"),
        400,
        "INVALID_FIELD",
    )
