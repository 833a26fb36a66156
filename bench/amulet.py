"""Canton Coin set up for the benches and tests/http/test_amulet.py as the splice test sources do it (`Splice.Scripts.Util.setupApp`): the DSO
party's AmuletRules with the configuration of splice-token-standard-test's `AmuletRegistry.Parameters`, the rounds
bootstrapped through `AmuletRules_Bootstrap_Rounds`; then taps and transfers through `AmuletRules_Transfer` as
`TestTap` and `Util.pay` do. Everything goes through the JSON Ledger API with an `httpx.AsyncClient`, so the same
set-up serves a participant process and one running in the bench's own process.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import ADMIN_USER, bearer

RULES = "#splice-amulet:Splice.AmuletRules:AmuletRules"
ROUND = "#splice-amulet:Splice.Round:OpenMiningRound"
SUBMIT = "/v2/commands/submit-and-wait-for-transaction"
MICROS_PER_MINUTE = 60_000_000
MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE
TRANSFER_CHOICE = "AmuletRules_Transfer"


def amulet_dars(dars: Path) -> list[Path]:
    """splice-amulet and the DARs it depends on, dependencies first."""
    splice = dars / "splice"
    return [
        splice / "splice-util-0.1.4.dar",
        *sorted(splice.glob("splice-api-*.dar")),
        splice / "splice-amulet-0.1.14.dar",
    ]


def _pair(first, second) -> dict:
    return {"_1": first, "_2": second}


def _issuance(per_year: str, validator: str, app: str) -> dict:
    return {
        "amuletToIssuePerYear": per_year,
        "validatorRewardPercentage": validator,
        "appRewardPercentage": app,
        "validatorRewardCap": "0.2",
        "featuredAppRewardCap": "100.0",
        "unfeaturedAppRewardCap": "0.6",
        "optValidatorFaucetCap": None,
    }


def _hours(n: int) -> dict:
    return {"microseconds": str(n * MICROS_PER_HOUR)}


AMULET_CONFIG = {
    "transferConfig": {
        "createFee": {"fee": "0.03"},
        "holdingFee": {"rate": "0.00002"},
        "lockHolderFee": {"fee": "0.005"},
        "transferFee": {
            "initialRate": "0.01",
            "steps": [_pair("100.0", "0.001"), _pair("1000.0", "0.0001"), _pair("1000000.0", "0.00001")],
        },
        "extraFeaturedAppRewardAmount": "1.0",
        "maxNumInputs": "100",
        "maxNumOutputs": "100",
        "maxNumLockHolders": "10",
    },
    "issuanceCurve": {
        "initialValue": _issuance("40e9", "0.05", "0.15"),
        "futureValues": [
            _pair(_hours(12 * 365), _issuance("20e9", "0.12", "0.40")),
            _pair(_hours(36 * 365), _issuance("10e9", "0.18", "0.62")),
            _pair(_hours(5 * 24 * 365), _issuance("5e9", "0.21", "0.69")),
            _pair(_hours(10 * 24 * 365), _issuance("2.5e9", "0.2", "0.75")),
        ],
    },
    "decentralizedSynchronizer": {
        "requiredSynchronizers": {"map": [["decentralized-synchronizer-id-0", {}]]},
        "activeSynchronizer": "decentralized-synchronizer-id-0",
        "fees": {
            "baseRateTrafficLimits": {
                "burstAmount": "200000",
                "burstWindow": {"microseconds": str(10 * MICROS_PER_MINUTE)},
            },
            "minTopupAmount": "1000000",
            "extraTrafficPrice": "1.0",
            "readVsWriteScalingFactor": "4",
        },
    },
    "tickDuration": {"microseconds": str(10 * MICROS_PER_MINUTE)},
    "packageConfig": {
        name: "0.1.0"
        for name in (
            "amulet",
            "amuletNameService",
            "dsoGovernance",
            "validatorLifecycle",
            "wallet",
            "walletPayments",
        )
    },
    "transferPreapprovalFee": "0.00274",
    "featuredAppActivityMarkerAmount": "1.0",
}


@dataclass(frozen=True)
class AmuletApp:
    """The DSO, a sender and a receiver, the user acting as both (`pay` submits as sender and receiver), the
    AmuletRules contract and the open round 0."""

    dso: str
    sender: str
    receiver: str
    user: str
    rules: str
    round0: str


def _exercise(contract_id: str, choice: str, argument: dict) -> dict:
    return {
        "ExerciseCommand": {
            "templateId": RULES,
            "contractId": contract_id,
            "choice": choice,
            "choiceArgument": argument,
        }
    }


def request(command: dict, act_as: list[str], read_as: list[str], command_id: str) -> dict:
    """The submit-and-wait-for-transaction body of one command, its transaction in the ledger-effects shape for
    the acting parties (so that exercises and their results show)."""
    wildcard = {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
    return {
        "commands": {"commands": [command], "commandId": command_id, "actAs": act_as, "readAs": read_as},
        "transactionFormat": {
            "eventFormat": {
                "filtersByParty": {p: {"cumulative": [wildcard]} for p in act_as},
                "verbose": False,
            },
            "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS",
        },
    }


async def _submit(http: httpx.AsyncClient, user: str, body: dict) -> dict:
    r = await http.post(SUBMIT, json=body, headers=bearer(user))
    r.raise_for_status()
    return r.json()["transaction"]


async def _party(http: httpx.AsyncClient, hint: str) -> str:
    r = await http.post("/v2/parties", json={"partyIdHint": hint}, headers=bearer(ADMIN_USER))
    r.raise_for_status()
    return r.json()["partyDetails"]["party"]


async def upload(http: httpx.AsyncClient, dars: list[Path]) -> None:
    for dar in dars:
        headers = {**bearer(ADMIN_USER), "content-type": "application/octet-stream"}
        r = await http.post("/v2/dars", content=dar.read_bytes(), headers=headers)
        r.raise_for_status()


async def setup(http: httpx.AsyncClient, prefix: str = "amulet") -> AmuletApp:
    """The DSO's AmuletRules and rounds, a sender and a receiver, and a user `{prefix}-payer` acting as both and
    reading as the DSO; the packages must be loaded."""
    dso, sender, receiver = [await _party(http, f"{prefix}-{n}") for n in ("dso", "sender", "receiver")]
    user = f"{prefix}-payer"
    rights = [{"kind": {"CanActAs": {"value": {"party": p}}}} for p in (dso, sender, receiver)]
    r = await http.post(
        "/v2/users", json={"user": {"id": user}, "rights": rights}, headers=bearer(ADMIN_USER)
    )
    r.raise_for_status()
    rules = {
        "dso": dso,
        "configSchedule": {"initialValue": AMULET_CONFIG, "futureValues": []},
        "isDevNet": True,
    }
    create = {"CreateCommand": {"templateId": RULES, "createArguments": rules}}
    [event] = (await _submit(http, user, request(create, [dso], [], f"{prefix}-rules")))["events"]
    rules_cid = event["CreatedEvent"]["contractId"]
    bootstrap = {
        "amuletPrice": "1.0",
        "round0Duration": {"microseconds": str(24 * MICROS_PER_HOUR)},
        "initialRound": None,
    }
    cmd = _exercise(rules_cid, "AmuletRules_Bootstrap_Rounds", bootstrap)
    tx = await _submit(http, user, request(cmd, [dso], [], f"{prefix}-rounds"))
    round0 = next(
        e["CreatedEvent"]["contractId"]
        for e in tx["events"]
        if "CreatedEvent" in e
        and e["CreatedEvent"]["templateId"].endswith(":Splice.Round:OpenMiningRound")
        and e["CreatedEvent"]["createArgument"]["round"]["number"] == "0"
    )
    return AmuletApp(dso, sender, receiver, user, rules_cid, round0)


def tap_command(app: AmuletApp, amount: str) -> dict:
    tap = {"receiver": app.sender, "amount": amount, "openRound": app.round0}
    return _exercise(app.rules, "AmuletRules_DevNet_Tap", tap)


def tapped(transaction: dict) -> str:
    """The amulet a tap created."""
    return next(
        e["CreatedEvent"]["contractId"]
        for e in transaction["events"]
        if "CreatedEvent" in e and e["CreatedEvent"]["templateId"].endswith(":Splice.Amulet:Amulet")
    )


def transfer_command(app: AmuletApp, amulet: str, amount: str) -> dict:
    """`amount` of the sender's `amulet` to the receiver, the change back to the sender (`Util.pay`)."""
    output = {"receiver": app.receiver, "receiverFeeRatio": "0.0", "amount": amount, "lock": None}
    argument = {
        "transfer": {
            "sender": app.sender,
            "provider": app.sender,
            "inputs": [{"tag": "InputAmulet", "value": amulet}],
            "outputs": [output],
            "beneficiaries": None,
        },
        "context": {
            "openMiningRound": app.round0,
            "issuingMiningRounds": [],
            "validatorRights": [],
            "featuredAppRight": None,
        },
        "expectedDso": app.dso,
    }
    return _exercise(app.rules, TRANSFER_CHOICE, argument)


def change(transaction: dict) -> str:
    """The sender's change of a transfer: the amulet the next transfer spends."""
    for event in transaction["events"]:
        exercised = event.get("ExercisedEvent")
        if exercised is not None and exercised["choice"] == TRANSFER_CHOICE:
            return exercised["exerciseResult"]["senderChangeAmulet"]
    raise ValueError("no AmuletRules_Transfer in the transaction")
