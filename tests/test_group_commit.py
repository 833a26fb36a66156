"""Submissions that commit together in one group commit behave as if they had run one after another."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx
import pytest

from participant.server.app import create_app
from participant.store import writer
from participant.store.store import Store
from tests.conftest import LedgerApi, settings_for

IOU = "#model-tests:Iou:Iou"
BANK = "#keyed-example:Accounts:Bank"
CONCURRENT = 12


@pytest.fixture
async def keyed_ledger(tmp_path):
    app = create_app(settings_for(tmp_path / "ledger.db", packages=("participant.models.keyed",)))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield LedgerApi(http)


def codes(responses: Sequence[httpx.Response]) -> list[str]:
    return sorted("ok" if r.status_code == 200 else r.json()["code"] for r in responses)


async def test_only_one_of_many_concurrent_consumers_wins(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = (await ledger_api.create_iou(alice, alice, user="Alice"))["events"][0]["CreatedEvent"]["contractId"]
    end = await ledger_api.ledger_end()
    responses = await asyncio.gather(
        *(
            ledger_api.exercise(IOU, cid, "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice")
            for _ in range(CONCURRENT)
        )
    )
    assert codes(responses) == ["CONTRACT_NOT_FOUND"] * (CONCURRENT - 1) + ["ok"]
    assert await ledger_api.ledger_end() == end + 1


async def test_concurrent_duplicate_command_ids_commit_once(ledger_api, alice_bob):
    alice, _ = alice_bob
    body = {
        "commands": [
            {
                "CreateCommand": {
                    "templateId": IOU,
                    "createArguments": {
                        "issuer": alice,
                        "owner": alice,
                        "currency": "USD",
                        "amount": "1",
                        "observers": [],
                    },
                }
            }
        ],
        "commandId": "same-command",
        "actAs": [alice],
    }
    end = await ledger_api.ledger_end()
    responses = await asyncio.gather(
        *(ledger_api.post("/v2/commands/submit-and-wait", body, user="Alice") for _ in range(CONCURRENT))
    )
    assert codes(responses) == ["DUPLICATE_COMMAND"] * (CONCURRENT - 1) + ["ok"]
    assert {r.status_code for r in responses if r.status_code != 200} == {409}
    assert await ledger_api.ledger_end() == end + 1


async def test_a_contract_key_is_taken_once_among_concurrent_creates(keyed_ledger):
    ledger_api = keyed_ledger
    bank, customer = await ledger_api.party("Bank"), await ledger_api.party("Customer")
    r = await ledger_api.post(
        "/v2/users/Customer/rights",
        {"userId": "Customer", "rights": [{"kind": {"CanActAs": {"value": {"party": bank}}}}]},
    )
    assert r.status_code == 200, r.text
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-transaction",
        {
            "commands": {
                "commands": [
                    {
                        "CreateCommand": {
                            "templateId": BANK,
                            "createArguments": {"bank": bank, "customer": customer},
                        }
                    }
                ],
                "commandId": "open-bank",
                "actAs": [bank, customer],
            }
        },
        user="Customer",
    )
    assert r.status_code == 200, r.text
    bank_cid = r.json()["transaction"]["events"][0]["CreatedEvent"]["contractId"]

    def open_account(label: str):
        return ledger_api.exercise(
            BANK, bank_cid, "Open", {"label": label}, act_as=[customer], user="Customer"
        )

    responses = await asyncio.gather(*(open_account("savings") for _ in range(CONCURRENT)))
    assert codes(responses) == ["DUPLICATE_CONTRACT_KEY"] * (CONCURRENT - 1) + ["ok"]
    # A key freed and taken again inside one transaction, beside others that commit in the same group.
    reopened = await asyncio.gather(
        ledger_api.exercise(
            BANK, bank_cid, "OpenCloseReopen", {"label": "checking"}, act_as=[customer], user="Customer"
        ),
        open_account("travel"),
        open_account("travel"),
    )
    assert codes(reopened) == ["DUPLICATE_CONTRACT_KEY", "ok", "ok"]
    acs = await ledger_api.post(
        "/v2/state/active-contracts",
        {
            "activeAtOffset": await ledger_api.ledger_end(),
            "eventFormat": {
                "filtersByParty": {
                    customer: {
                        "cumulative": [
                            {
                                "identifierFilter": {
                                    "TemplateFilter": {
                                        "value": {"templateId": "#keyed-example:Accounts:Account"}
                                    }
                                }
                            }
                        ]
                    }
                }
            },
        },
        user="Customer",
    )
    labels = sorted(
        e["contractEntry"]["JsActiveContract"]["createdEvent"]["createArgument"]["label"] for e in acs.json()
    )
    assert labels == ["checking", "savings", "travel"]


async def test_a_batch_lets_other_requests_in_between_its_jobs(tmp_path, monkeypatch):
    """The jobs of a batch never suspend by themselves (their reads are on the loop's thread): the writer yields
    between them, so that a long batch of interpretations does not hold other requests up."""
    monkeypatch.setattr(writer, "YIELD_AFTER_S", 0.0)
    ran: list[str] = []

    def job(name: str):
        async def run(batch):
            ran.append(name)
            return name

        return run

    async with Store(tmp_path / "ledger.db") as store:
        await store.write(job("first"))  # the writer is idle, so the next three queue up into one batch
        jobs = [asyncio.create_task(store.write(job(f"job{n}"))) for n in range(3)]
        await asyncio.sleep(0)  # they are queued

        async def other() -> None:
            while sum(name.startswith("job") for name in ran) < 3:
                ran.append("other")
                await asyncio.sleep(0)

        await asyncio.gather(other(), *jobs)
    jobs_at = [i for i, name in enumerate(ran) if name.startswith("job")]
    assert len(jobs_at) == 3
    assert all("other" in ran[a:b] for a, b in zip(jobs_at, jobs_at[1:], strict=False))
