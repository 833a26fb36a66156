"""No client mistake gets a 500, and no rejected request changes the ledger.

Valid bodies of every POST endpoint are mutated at random (seeded, bounded): keys dropped, values replaced by
other JSON types, nulls, huge numbers, odd strings, deep nesting, or the body truncated into invalid JSON.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

SEED = 20261122
MUTATIONS_PER_BODY = 60

ODD_VALUES: list[object] = [
    None,
    0,
    -1,
    2**63,
    -(2**63) - 1,
    1.5,
    "",
    "x" * 300,
    "::",
    "00" * 69,
    "#a:b:c",
    "é\u0000",
    [],
    [None],
    {},
    {"Empty": {}},
    True,
    {"a": {"b": {"c": [1, {"d": None}]}}},
]


def valid_bodies(alice: str, cid: str, end: int) -> dict[str, dict]:
    fmt = {
        "filtersByParty": {
            alice: {
                "cumulative": [
                    {
                        "identifierFilter": {
                            "TemplateFilter": {
                                "value": {
                                    "templateId": "#model-tests:Iou:Iou",
                                    "includeCreatedEventBlob": True,
                                }
                            }
                        }
                    }
                ]
            }
        },
        "verbose": True,
    }
    commands = {
        "commands": [
            {
                "ExerciseCommand": {
                    "templateId": "#model-tests:Iou:Iou",
                    "contractId": cid,
                    "choice": "Iou_Split",
                    "choiceArgument": {"splitAmount": "1"},
                }
            }
        ],
        "commandId": "fuzz",
        "actAs": [alice],
        "readAs": [alice],
        "workflowId": "w",
        "deduplicationPeriod": {"DeduplicationDuration": {"value": {"seconds": 60, "nanos": 0}}},
    }
    return {
        "/v2/state/active-contracts": {"activeAtOffset": end, "eventFormat": fmt},
        "/v2/contracts/contract-by-id": {"contractId": cid, "queryingParties": [alice]},
        "/v2/events/events-by-contract-id": {"contractId": cid, "eventFormat": fmt},
        "/v2/commands/submit-and-wait-for-transaction": {
            "commands": commands,
            "transactionFormat": {"eventFormat": fmt, "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"},
        },
        "/v2/commands/submit-and-wait": commands,
        "/v2/updates": {
            "beginExclusive": 0,
            "endInclusive": end,
            "updateFormat": {
                "includeTransactions": {"eventFormat": fmt, "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}
            },
        },
        "/v2/commands/completions": {"userId": "Alice", "parties": [alice], "beginExclusive": 0},
        "/v2/parties": {"partyIdHint": "Fuzzy", "identityProviderId": ""},
        "/v2/users": {
            "user": {"id": "fuzzy", "primaryParty": alice},
            "rights": [{"kind": {"CanReadAs": {"value": {"party": alice}}}}],
        },
    }


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def mutate(body: dict, rng: random.Random) -> bytes:
    if rng.random() < 0.1:
        text = json.dumps(body)
        return text[: rng.randrange(len(text))].encode()
    body = copy.deepcopy(body)
    target = rng.choice([p for p in paths(body) if p])
    parent = body
    for key in target[:-1]:
        parent = parent[key]
    last = target[-1]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[last]
    else:
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
    return json.dumps(body).encode()


@pytest.mark.parametrize("endpoint", sorted(valid_bodies("p", "c", 0)))
async def test_mutated_bodies_never_get_a_500(ledger_api, alice_bob, endpoint):
    alice, _ = alice_bob
    tx = await ledger_api.create_iou(alice, alice, "50", user="Alice")
    cid = tx["events"][0]["CreatedEvent"]["contractId"]
    end = await ledger_api.ledger_end()
    body = valid_bodies(alice, cid, end)[endpoint]
    user = "participant_admin" if endpoint in ("/v2/parties", "/v2/users") else "Alice"
    rng = random.Random(f"{SEED}{endpoint}")
    for _ in range(MUTATIONS_PER_BODY):
        content = mutate(body, rng)
        r = await ledger_api.call(
            "POST", endpoint, user=user, content=content, headers={"Content-Type": "application/json"}
        )
        assert r.status_code < 500, (content, r.status_code, r.text)
        if r.status_code >= 400 and r.headers["content-type"].startswith("application/json"):
            assert r.json()["code"], r.text


async def test_rejected_submissions_write_nothing(ledger_api, alice_bob):
    alice, _ = alice_bob
    tx = await ledger_api.create_iou(alice, alice, "50", user="Alice")
    cid = tx["events"][0]["CreatedEvent"]["contractId"]
    end = await ledger_api.ledger_end()
    body = valid_bodies(alice, cid, end)["/v2/commands/submit-and-wait-for-transaction"]
    rng = random.Random(SEED)
    rejected = 0
    for i in range(MUTATIONS_PER_BODY):
        content = json.loads(json.dumps(body))
        content["commands"]["commandId"] = f"fuzz-{i}"
        content["commands"]["commands"][0]["ExerciseCommand"]["choiceArgument"] = {
            "splitAmount": rng.choice(["0", "-1", "50", "51", "1e400", "abc", None, 7, [], {}])
        }
        r = await ledger_api.post("/v2/commands/submit-and-wait-for-transaction", content, user="Alice")
        assert r.status_code < 500, r.text
        if r.status_code != 200:
            rejected += 1
            assert await ledger_api.ledger_end() == end
        else:
            break  # the contract is consumed; what follows would be rejected for that reason alone
    assert rejected > 0


async def test_huge_bodies_are_refused(ledger_api, alice_bob):
    end = await ledger_api.ledger_end()
    big = b'{"activeAtOffset": 0, "pad": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    r = await ledger_api.call(
        "POST",
        "/v2/commands/submit-and-wait",
        user="Alice",
        content=big,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413
    assert r.text.startswith("Invalid value for: body")
    assert await ledger_api.ledger_end() == end


@pytest.mark.parametrize("amount", ["9" * 200, "1e500", "-" + "1" * 120 + ".5"])
async def test_a_number_longer_than_any_numeric_is_the_clients_mistake(ledger_api, alice_bob, amount):
    alice, _ = alice_bob
    tx = await ledger_api.create_iou(alice, alice, "50", user="Alice")
    cid = tx["events"][0]["CreatedEvent"]["contractId"]
    body = valid_bodies(alice, cid, 0)["/v2/commands/submit-and-wait"]
    body["commands"][0]["ExerciseCommand"]["choiceArgument"] = {"splitAmount": amount}
    r = await ledger_api.post("/v2/commands/submit-and-wait", body, user="Alice")
    assert r.status_code == 400, r.text
    assert (
        r.json()["code"] == "COMMAND_PREPROCESSING_FAILED"
        and "without loss of precision" in r.json()["cause"]
    )
