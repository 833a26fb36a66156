"""The official 09-json-api example (docs/ledger-api.md §12), against a real server subprocess, with the example's own bodies.

Run twice on the same server to check that re-runs work (users and parties are found in step 1a, command ids are
random, older contracts accumulate), once without auth (as the example's participant) and once with HS256 tokens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx
import pytest

from tests.conftest import SECRET, start_server, token
from tests.spec import validate_response

IOU = "#model-tests:Iou:Iou"
TRANSFER = "#model-tests:Iou:IouTransfer"

ACS_FILTER = {
    "filtersByParty": {},
    "filtersForAnyParty": {
        "cumulative": [{"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": True}}}}]
    },
}


@dataclass
class Client:
    """Plain JSON calls as the example's `curl_check` makes them; with `auth`, a token per acting user."""

    http: httpx.AsyncClient
    auth: bool

    async def call(
        self,
        method: str,
        path: str,
        body=None,
        *,
        user: str = "participant_admin",
        expect: int | tuple[int, ...] = 200,
    ) -> httpx.Response:
        headers = {"Content-Type": "application/json"}
        if self.auth:
            headers["Authorization"] = f"Bearer {token(user)}"
        r = await self.http.request(method, path, json=body, headers=headers)
        allowed = (expect,) if isinstance(expect, int) else expect
        assert r.status_code in allowed, f"{method} {path} -> {r.status_code}: {r.text}"
        assert r.headers["content-type"].startswith("application/json"), r.text
        validate_response(method, path, r.status_code, r.json())
        return r

    def user_id(self, user: str) -> str:
        # Without auth the example sends a user that was never created; with auth it must be the token's user.
        return user if self.auth else "ledger-api-user"


async def party_and_user(c: Client, name: str) -> str:
    """Step 1 of scenario.sh for one name."""
    r = await c.call("GET", f"/v2/users/{name}", expect=(200, 404))  # a 404 is tolerated
    if r.status_code == 200 and r.json()["user"].get("primaryParty"):
        return r.json()["user"]["primaryParty"]
    participant = (await c.call("GET", "/v2/parties/participant-id")).json()["participantId"]
    namespace = participant.removeprefix("participant::")
    r = await c.call("GET", f"/v2/parties/party?parties={name}::{namespace}")
    details = r.json()["partyDetails"]
    if details and details[0].get("party"):
        party = details[0]["party"]
    else:
        assert details == []
        r = await c.call("POST", "/v2/parties", {"partyIdHint": name, "identityProviderId": ""})
        party = r.json()["partyDetails"]["party"]
    r = await c.call(
        "POST",
        "/v2/users",
        {
            "user": {"id": name, "primaryParty": party, "isDeactivated": False, "identityProviderId": ""},
            "rights": [
                {"kind": {"CanActAs": {"value": {"party": party}}, "CanReadAs": {"value": {"party": party}}}}
            ],
        },
    )
    assert r.json()["user"]["primaryParty"] == party
    return party


async def submit(c: Client, user: str, party: str, command: dict, command_id: str) -> int:
    r = await c.call(
        "POST",
        "/v2/commands/submit-and-wait",
        {
            "commands": [command],
            "userId": c.user_id(user),
            "commandId": command_id,
            "actAs": [party],
            "readAs": [party],
        },
        user=user,
    )
    offset = r.json()["completionOffset"]
    assert isinstance(offset, int) and offset > 0
    return offset


async def acs(c: Client, offset: int) -> list[dict]:
    r = await c.call(
        "POST",
        "/v2/state/active-contracts",
        {"filter": ACS_FILTER, "verbose": False, "activeAtOffset": offset, "eventFormat": None},
        user="auditor",
    )
    entries = r.json()
    assert isinstance(entries, list) and entries
    return entries


def newest(entries: list[dict]) -> dict:
    return list(reversed(entries))[0]["contractEntry"]["JsActiveContract"]["createdEvent"]


async def run_example(c: Client) -> None:
    alice = await party_and_user(c, "Alice")
    bob = await party_and_user(c, "Bob")
    assert alice.startswith("Alice::") and bob.startswith("Bob::")

    created_at = await submit(
        c,
        "Alice",
        alice,
        {
            "CreateCommand": {
                "templateId": IOU,
                "createArguments": {
                    "observers": [],
                    "issuer": alice,
                    "amount": "999.99",
                    "currency": "USD",
                    "owner": alice,
                },
            }
        },
        f"example-app-create-{os.urandom(8).hex()}",
    )
    end = (await c.call("GET", "/v2/state/ledger-end", user="Alice")).json()["offset"]
    assert end >= created_at
    iou = newest(await acs(c, end))
    assert iou["templateId"].endswith(":Iou:Iou")
    assert iou["createArgument"]["owner"] == alice
    assert iou["createArgument"]["currency"] == "USD"
    assert float(iou["createArgument"]["amount"]) == pytest.approx(999.99)
    assert iou["createdEventBlob"]  # includeCreatedEventBlob: true

    transferred_at = await submit(
        c,
        "Alice",
        alice,
        {
            "ExerciseCommand": {
                "templateId": IOU,
                "choice": "Iou_Transfer",
                "choiceArgument": {"newOwner": bob},
                "contractId": iou["contractId"],
            }
        },
        f"example-app-transfer{os.urandom(8).hex()}",
    )
    assert transferred_at > created_at
    entries = await acs(c, transferred_at)
    transfer = newest(entries)
    assert transfer["templateId"].endswith(":Iou:IouTransfer")
    assert transfer["createArgument"]["newOwner"] == bob
    assert transfer["createArgument"]["iou"]["owner"] == alice
    assert iou["contractId"] not in {
        e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] for e in entries
    }

    accepted_at = await submit(
        c,
        "Bob",
        bob,
        {
            "ExerciseCommand": {
                "templateId": TRANSFER,
                "choice": "IouTransfer_Accept",
                "choiceArgument": {},
                "contractId": transfer["contractId"],
            }
        },
        f"example-app-accept{os.urandom(8).hex()}",
    )
    assert accepted_at > transferred_at
    entries = await acs(c, accepted_at)
    bobs = newest(entries)
    assert bobs["templateId"].endswith(":Iou:Iou")
    assert bobs["createArgument"]["owner"] == bob
    assert bobs["createArgument"]["issuer"] == alice
    assert bobs["createArgument"]["observers"] == []
    assert transfer["contractId"] not in {
        e["contractEntry"]["JsActiveContract"]["createdEvent"]["contractId"] for e in entries
    }


async def test_example_without_auth(tmp_path):
    server = start_server(tmp_path / "ledger.db", "--no-auth")
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            c = Client(http, auth=False)
            await run_example(c)
            first = await c.call("GET", "/v2/state/ledger-end")
            await run_example(c)  # a re-run: users and parties exist, older contracts accumulate
            end = (await c.call("GET", "/v2/state/ledger-end")).json()["offset"]
            assert end > first.json()["offset"]
            entries = await acs(c, end)
            owners = [
                e["contractEntry"]["JsActiveContract"]["createdEvent"]["createArgument"]["owner"]
                for e in entries
            ]
            assert len(entries) == 2 and all(o.startswith("Bob::") for o in owners)
    finally:
        server.stop()


async def test_example_with_auth(tmp_path):
    server = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            c = Client(http, auth=True)
            # The example's ACS asks for every party's contracts: that needs CanReadAsAnyParty.
            await c.call(
                "POST",
                "/v2/users",
                {"user": {"id": "auditor"}, "rights": [{"kind": {"CanReadAsAnyParty": {"value": {}}}}]},
            )
            await run_example(c)
            await run_example(c)
            # Without a token the same calls are refused.
            r = await http.get("/v2/state/ledger-end")
            assert r.status_code == 401
            validate_response("GET", "/v2/state/ledger-end", 401, r.json())
            # Alice may not act as Bob.
            bob = (await c.call("GET", "/v2/users/Bob")).json()["user"]["primaryParty"]
            r = await http.post(
                "/v2/commands/submit-and-wait",
                headers={"Authorization": f"Bearer {token('Alice')}"},
                json={
                    "commands": [
                        {
                            "CreateCommand": {
                                "templateId": IOU,
                                "createArguments": {
                                    "observers": [],
                                    "issuer": bob,
                                    "amount": "1.0",
                                    "currency": "USD",
                                    "owner": bob,
                                },
                            }
                        }
                    ],
                    "userId": "Alice",
                    "commandId": f"x-{os.urandom(8).hex()}",
                    "actAs": [bob],
                    "readAs": [bob],
                },
            )
            assert r.status_code == 403, r.text
    finally:
        server.stop()
