"""Canton Coin on the bundled participant: the splice DARs uploaded over the API, AmuletRules with the test
sources' configuration (splice-token-standard-test's `AmuletRegistry.Parameters`), the rounds bootstrapped through
`AmuletRules_Bootstrap_Rounds` as `Splice.Scripts.Util.setupApp` does, then a tap, a transfer and a lock with its
expiry as `TestTap`, `Util.pay` and `Util.lockTo1` do, a round advanced to issuing and its app reward claimed as
`Util.runNextIssuanceInternal` and the reward tests do, an uncaught exception of splice's own, and the token
standard's HoldingV1 view: the Daml runs in the participant's Daml-LF evaluator and every response is checked
against the 3.5 spec."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.amulet import (  # the configuration the test sources set up
    AMULET_CONFIG,
    MICROS_PER_HOUR,
    ROUND,
    RULES,
)
from participant.server.app import create_app
from tests.conftest import LedgerApi, copy_database, settings_for
from tests.daml_lf.conftest import AMULET
from tests.http.helpers import (
    LEDGER_EFFECTS,
    acs,
    acs_body,
    assert_error,
    commands,
    create,
    created_events,
    event_format,
    events_of,
    exercise,
    submit_tx,
    template,
    transaction_format,
)

AMULET_T = "#splice-amulet:Splice.Amulet:Amulet"
HOLDING_I = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"


async def _user(ledger_api, hint: str, dso: str) -> str:
    """A party and its user, reading as the DSO too (as `setupUserWithoutValidatorRight` grants)."""
    r = await ledger_api.post("/v2/parties", {"partyIdHint": hint})
    assert r.status_code == 200, r.text
    party = r.json()["partyDetails"]["party"]
    rights = [
        {"kind": {"CanActAs": {"value": {"party": party}}}},
        {"kind": {"CanReadAs": {"value": {"party": party}}}},
        {"kind": {"CanReadAs": {"value": {"party": dso}}}},
    ]
    r = await ledger_api.post("/v2/users", {"user": {"id": hint, "primaryParty": party}, "rights": rights})
    assert r.status_code == 200, r.text
    return party


async def _upload_splice(ledger_api, dar_bytes, dars_dir) -> None:
    names = sorted(p.name for p in (dars_dir / "splice").glob("splice-api-*.dar"))
    for name in ["splice-util-0.1.4.dar", *names, AMULET.split("/")[1]]:
        r = await ledger_api.call(
            "POST",
            "/v2/dars",
            content=dar_bytes(f"splice/{name}"),
            headers={"content-type": "application/octet-stream"},
        )
        assert r.status_code == 200, (name, r.text)


async def _active(ledger_api, party: str, user: str, template_id: str) -> list[dict]:
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end, event_format(party, filters=[template(template_id)])), user=user)
    assert r.status_code == 200, r.text
    return created_events(r.json())


async def _setup_app(ledger_api, dar_bytes, dars_dir, config: dict, round0_micros: int) -> dict:
    await _upload_splice(ledger_api, dar_bytes, dars_dir)
    dso = await ledger_api.party("DSO")
    alice = await _user(ledger_api, "alice", dso)
    bob = await _user(ledger_api, "bob", dso)
    rules = {
        "dso": dso,
        "configSchedule": {"initialValue": config, "futureValues": []},
        "isDevNet": True,
    }
    r = await submit_tx(ledger_api, commands([dso], create(rules, RULES)), user="DSO")
    assert r.status_code == 200, r.text
    [(_, created)] = events_of(r)
    rules_cid = created["contractId"]
    bootstrap: dict[str, Any] = {"amuletPrice": "1.0", "round0Duration": {"microseconds": str(round0_micros)}}
    bootstrap["initialRound"] = None
    r = await submit_tx(
        ledger_api,
        commands([dso], exercise(rules_cid, "AmuletRules_Bootstrap_Rounds", bootstrap, RULES)),
        user="DSO",
    )
    assert r.status_code == 200, r.text
    rounds = await _active(ledger_api, dso, "DSO", ROUND)
    return {"dso": dso, "alice": alice, "bob": bob, "rules": rules_cid, "rounds": rounds}


@pytest.fixture(scope="module")
def amulet_ledger(tmp_path_factory, dar_bytes, dars_dir) -> tuple[Path, dict]:
    """A participant's database with the splice DARs uploaded and the app set up with the test sources'
    configuration (rounds of a day), made once for the module, and the parties and contracts of the app. Each test
    of `amulet_app` runs on a copy of it: the uploads and the bootstrap took 5 to 14 s of setup a test."""
    db = tmp_path_factory.mktemp("amulet") / "ledger.db"

    async def set_up() -> dict:
        participant = create_app(settings_for(db))
        async with participant.router.lifespan_context(participant):
            transport = httpx.ASGITransport(app=participant)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
                return await _setup_app(
                    LedgerApi(http), dar_bytes, dars_dir, AMULET_CONFIG, 24 * MICROS_PER_HOUR
                )

    return db, asyncio.run(set_up())


@pytest.fixture
async def participant_app(request, tmp_path):
    """The participant: on a copy of `amulet_ledger` for the tests of `amulet_app`, on a fresh database for the
    others (whose rounds are set up otherwise)."""
    db = tmp_path / "ledger.db"
    if "amulet_app" in request.fixturenames:
        template, _ = request.getfixturevalue("amulet_ledger")
        copy_database(template, db)
    participant = create_app(settings_for(db))
    async with participant.router.lifespan_context(participant):
        yield participant


@pytest.fixture
def amulet_app(amulet_ledger) -> dict:
    return amulet_ledger[1]


async def test_the_dso_bootstraps_three_open_mining_rounds(amulet_app) -> None:
    rounds = sorted(amulet_app["rounds"], key=lambda e: int(e["createArgument"]["round"]["number"]))
    assert [e["createArgument"]["round"]["number"] for e in rounds] == ["0", "1", "2"]
    assert all(Decimal(e["createArgument"]["amuletPrice"]) == 1 for e in rounds)
    assert {e["signatories"][0] for e in rounds} == {amulet_app["dso"]}


async def _tap(ledger_api, app: dict, who: str, user: str, amount: str) -> dict:
    round0 = next(e for e in app["rounds"] if e["createArgument"]["round"]["number"] == "0")
    tap = {"receiver": who, "amount": amount, "openRound": round0["contractId"]}
    cmds = commands([who], exercise(app["rules"], "AmuletRules_DevNet_Tap", tap, RULES), readAs=[app["dso"]])
    r = await submit_tx(ledger_api, cmds, user=user, fmt=transaction_format(who, shape=LEDGER_EFFECTS))
    assert r.status_code == 200, r.text
    [amulet] = [
        e for kind, e in events_of(r) if kind == "CreatedEvent" and e["templateId"].endswith(":Amulet")
    ]
    return amulet


async def test_a_tap_creates_an_amulet_for_the_receiver(ledger_api, amulet_app) -> None:
    alice, dso = amulet_app["alice"], amulet_app["dso"]
    amulet = await _tap(ledger_api, amulet_app, alice, "alice", "10.0")
    arg = amulet["createArgument"]
    assert arg["owner"] == alice and arg["dso"] == dso
    assert Decimal(arg["amount"]["initialAmount"]) == 10
    assert arg["amount"]["createdAt"] == {"number": "0"}
    assert Decimal(arg["amount"]["ratePerRound"]["rate"]) == Decimal("0.00002")
    [active] = await _active(ledger_api, alice, "alice", AMULET_T)
    assert active["contractId"] == amulet["contractId"]


def holding_filter(view: bool = True) -> dict:
    return {
        "identifierFilter": {
            "InterfaceFilter": {
                "value": {
                    "interfaceId": HOLDING_I,
                    "includeInterfaceView": view,
                    "includeCreatedEventBlob": False,
                }
            }
        }
    }


async def test_an_amulet_is_read_as_a_holding_v1_through_an_interface_filter(ledger_api, amulet_app) -> None:
    alice, dso = amulet_app["alice"], amulet_app["dso"]
    amulet = await _tap(ledger_api, amulet_app, alice, "alice", "10.0")
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end, event_format(alice, filters=[holding_filter()])), user="alice")
    assert r.status_code == 200, r.text
    [active] = created_events(r.json())
    assert active["contractId"] == amulet["contractId"]
    [view] = active["interfaceViews"]
    assert view["interfaceId"].endswith(":Splice.Api.Token.HoldingV1:Holding")
    assert view["viewStatus"]["code"] == 0
    assert view["implementationPackageId"] == active["templateId"].split(":")[0]
    meta = "amulet.splice.lfdecentralizedtrust.org/"
    assert view["viewValue"] == {
        "owner": alice,
        "instrumentId": {"admin": dso, "id": "Amulet"},
        "amount": "10.0000000000",
        "lock": None,
        "meta": {"values": {f"{meta}created-in-round": "0", f"{meta}rate-per-round": "0.00002"}},
    }


@pytest.mark.parametrize(("view", "blob"), [(True, False), (False, True), (False, False)])
async def test_an_interface_filter_alone_reads_the_whole_create_argument(
    ledger_api, amulet_app, view: bool, blob: bool
) -> None:
    """Canton 3.x: `createArgument` is required in every CreatedEvent (no longer only under a template or wildcard
    filter, as in Ledger API v1); a read through the HoldingV1 interface alone carries the Amulet's own argument,
    rendered from the Amulet's types, whether or not it asks for the view or the blob."""
    alice = amulet_app["alice"]
    await _tap(ledger_api, amulet_app, alice, "alice", "10.0")
    end = await ledger_api.ledger_end()
    [by_template] = await _active(ledger_api, alice, "alice", AMULET_T)
    interface_only = holding_filter(view)
    interface_only["identifierFilter"]["InterfaceFilter"]["value"]["includeCreatedEventBlob"] = blob
    r = await acs(ledger_api, acs_body(end, event_format(alice, filters=[interface_only])), user="alice")
    assert r.status_code == 200, r.text
    [by_interface] = created_events(r.json())
    assert by_interface["createArgument"] == by_template["createArgument"]
    assert by_interface["createArgument"]["amount"] == {
        "initialAmount": "10.0000000000",
        "createdAt": {"number": "0"},
        "ratePerRound": {"rate": "0.0000200000"},
    }
    assert by_interface["templateId"] == by_template["templateId"]
    assert bool(by_interface["createdEventBlob"]) is blob
    assert len(by_interface["interfaceViews"]) == int(view)


async def _payer(ledger_api, name: str, parties: list[str], dso: str) -> str:
    """A user acting as every party of `parties` (the sender and the receiver sign a transfer together, as the
    test sources' `pay` submits), reading as the DSO."""
    rights = [{"kind": {"CanActAs": {"value": {"party": p}}}} for p in parties]
    rights.append({"kind": {"CanReadAs": {"value": {"party": dso}}}})
    r = await ledger_api.post("/v2/users", {"user": {"id": name}, "rights": rights})
    assert r.status_code == 200, r.text
    return name


def transfer_body(app: dict, sender: str, inputs: list[str], outputs: list[dict]) -> dict:
    round0 = next(e for e in app["rounds"] if e["createArgument"]["round"]["number"] == "0")
    return {
        "transfer": {
            "sender": sender,
            "provider": sender,
            "inputs": [{"tag": "InputAmulet", "value": cid} for cid in inputs],
            "outputs": outputs,
            "beneficiaries": None,
        },
        # `amuletTransferContext openRound None`: no issuing rounds, no validator rights, no featured app.
        "context": {
            "openMiningRound": round0["contractId"],
            "issuingMiningRounds": [],
            "validatorRights": [],
            "featuredAppRight": None,
        },
        "expectedDso": app["dso"],
    }


async def test_a_transfer_pays_the_receiver_and_returns_the_change_less_the_fees(
    ledger_api, amulet_app
) -> None:
    alice, bob, dso = amulet_app["alice"], amulet_app["bob"], amulet_app["dso"]
    tapped = await _tap(ledger_api, amulet_app, alice, "alice", "100.0")
    user = await _payer(ledger_api, "alice-and-bob", [alice, bob], dso)
    output = {"receiver": bob, "receiverFeeRatio": "0.0", "amount": "40.0", "lock": None}
    body = transfer_body(amulet_app, alice, [tapped["contractId"]], [output])
    cmds = commands(
        [alice, bob], exercise(amulet_app["rules"], "AmuletRules_Transfer", body, RULES), readAs=[dso]
    )
    r = await submit_tx(ledger_api, cmds, user=user, fmt=transaction_format(alice, bob, shape=LEDGER_EFFECTS))
    assert r.status_code == 200, r.text
    # By hand from AMULET_CONFIG["transferConfig"]: the stepped transfer fee on 40 (below the first step, 100) is 1% = 0.40, the
    # output's create fee 0.03, the sender's change pays its own create fee 0.03; no holding fee within round 0.
    output_fee, change_fee = Decimal("0.40") + Decimal("0.03"), Decimal("0.03")
    change = Decimal(100) - Decimal(40) - output_fee - change_fee
    events = events_of(r)
    (kind, rules_exercise), (_, amulet_exercise) = events[:2]
    assert kind == "ExercisedEvent" and rules_exercise["choice"] == "AmuletRules_Transfer"
    assert amulet_exercise["contractId"] == tapped["contractId"] and amulet_exercise["consuming"]
    result = rules_exercise["exerciseResult"]
    summary = result["summary"]
    assert Decimal(summary["inputAmuletAmount"]) == 100
    assert [Decimal(f) for f in summary["outputFees"]] == [output_fee]
    assert Decimal(summary["senderChangeFee"]) == change_fee
    assert Decimal(summary["senderChangeAmount"]) == change
    assert Decimal(summary["holdingFees"]) == 0
    assert result["meta"]["values"]["splice.lfdecentralizedtrust.org/burned"] == str(output_fee + change_fee)
    coupons = {
        e["templateId"].split(":", 1)[1]: e
        for kind, e in events
        if kind == "CreatedEvent" and e["templateId"].endswith("RewardCoupon")
    }
    amulets = {
        e["createArgument"]["owner"]: e
        for kind, e in events
        if kind == "CreatedEvent" and e["templateId"].endswith(":Splice.Amulet:Amulet")
    }
    assert Decimal(amulets[bob]["createArgument"]["amount"]["initialAmount"]) == 40
    assert Decimal(amulets[alice]["createArgument"]["amount"]["initialAmount"]) == change
    assert result["senderChangeAmulet"] == amulets[alice]["contractId"]
    assert result["createdAmulets"] == [{"tag": "TransferResultAmulet", "value": amulets[bob]["contractId"]}]
    # Nothing is created or lost but the fees: what went in is what came out plus what was burned.
    out = sum(Decimal(a["createArgument"]["amount"]["initialAmount"]) for a in amulets.values())
    assert out + output_fee + change_fee == 100
    # The fees paid become the provider's app reward and the sender's validator reward for round 0.
    assert Decimal(coupons["Splice.Amulet:AppRewardCoupon"]["createArgument"]["amount"]) == output_fee
    assert Decimal(coupons["Splice.Amulet:ValidatorRewardCoupon"]["createArgument"]["amount"]) == output_fee
    assert [a["contractId"] for a in await _active(ledger_api, bob, "bob", AMULET_T)] == [
        amulets[bob]["contractId"]
    ]


async def test_an_uncaught_daml_exception_is_unhandled_exception_named_after_its_type_and_changes_nothing(
    ledger_api, amulet_app
) -> None:
    """Splice throws its own `InvalidTransfer` when the inputs cannot pay: no handler takes it, so the answer is
    UNHANDLED_EXCEPTION, category 9, the cause naming its type and message, the resources EXCEPTION_TYPE and
    EXCEPTION_VALUE (docs/ledger-api.md §6.4)."""
    alice, bob, dso = amulet_app["alice"], amulet_app["bob"], amulet_app["dso"]
    tapped = await _tap(ledger_api, amulet_app, alice, "alice", "100.0")
    user = await _payer(ledger_api, "alice-pays-too-much", [alice, bob], dso)
    before = await ledger_api.ledger_end()
    output = {"receiver": bob, "receiverFeeRatio": "0.0", "amount": "400.0", "lock": None}
    body = transfer_body(amulet_app, alice, [tapped["contractId"]], [output])
    cmds = commands(
        [alice, bob], exercise(amulet_app["rules"], "AmuletRules_Transfer", body, RULES), readAs=[dso]
    )
    r = await submit_tx(ledger_api, cmds, user=user)
    failure = assert_error(r, 400, "UNHANDLED_EXCEPTION")
    # Missing: the 400 out, its stepped transfer fee (1% of the first 100, 0.1% of the next 300: 1.3) and its create
    # fee 0.03, less the 100 in; the message is `show` of the reason, as the Daml defines it.
    message = "ITR_InsufficientFunds {missingAmount = 301.33}"
    assert failure["cause"] == (
        "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Splice.AmuletRules:InvalidTransfer "
        f"(error category 9): {message}."
    )
    assert failure["errorCategory"] == 9 and failure["grpcCodeValue"] == 9
    assert failure["resources"] == [
        ["EXCEPTION_TYPE", "Splice.AmuletRules:InvalidTransfer"],
        ["EXCEPTION_VALUE", message],
    ]
    assert failure["context"]["definite_answer"] == "false" and "error_id" not in failure["context"]
    assert await ledger_api.ledger_end() == before
    [active] = await _active(ledger_api, alice, "alice", AMULET_T)
    assert active["contractId"] == tapped["contractId"]


LOCK_SECONDS = timedelta(seconds=2)
LOCKED = "#splice-amulet:Splice.Amulet:LockedAmulet"


async def test_a_lock_holds_the_amulet_until_it_expires(ledger_api, amulet_app) -> None:
    alice, bob, dso = amulet_app["alice"], amulet_app["bob"], amulet_app["dso"]
    tapped = await _tap(ledger_api, amulet_app, alice, "alice", "100.0")
    user = await _payer(ledger_api, "alice-and-holder", [alice, bob], dso)
    expires = datetime.now(UTC) + LOCK_SECONDS
    lock = {"holders": [bob], "expiresAt": expires.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "optContext": None}
    output = {"receiver": alice, "receiverFeeRatio": "0.0", "amount": "20.0", "lock": lock}
    body = transfer_body(amulet_app, alice, [tapped["contractId"]], [output])
    cmds = commands(
        [alice, bob], exercise(amulet_app["rules"], "AmuletRules_Transfer", body, RULES), readAs=[dso]
    )
    r = await submit_tx(ledger_api, cmds, user=user, fmt=transaction_format(alice, bob, shape=LEDGER_EFFECTS))
    assert r.status_code == 200, r.text
    # A self-transfer pays no transfer fee: the locked output pays its create fee and one holder's fee.
    output_fee, change_fee = Decimal("0.03") + Decimal("0.005"), Decimal("0.03")
    summary = events_of(r)[0][1]["exerciseResult"]["summary"]
    assert [Decimal(f) for f in summary["outputFees"]] == [output_fee]
    assert Decimal(summary["senderChangeAmount"]) == 100 - 20 - output_fee - change_fee
    [locked] = await _active(ledger_api, alice, "alice", LOCKED)
    assert locked["createArgument"]["lock"]["holders"] == [bob]
    assert Decimal(locked["createArgument"]["amulet"]["amount"]["initialAmount"]) == 20
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end, event_format(bob, filters=[holding_filter()])), user="bob")
    [held] = created_events(r.json())
    # The lock holder sees the locked amulet as alice's Holding, locked by it until the lock's expiry.
    view = held["interfaceViews"][0]["viewValue"]
    assert held["contractId"] == locked["contractId"] and view["owner"] == alice
    assert view["amount"] == "20.0000000000"
    assert view["lock"]["holders"] == [bob]
    assert view["lock"]["expiresAt"] == locked["createArgument"]["lock"]["expiresAt"]
    round0 = next(e for e in amulet_app["rounds"] if e["createArgument"]["round"]["number"] == "0")
    expire = exercise(
        locked["contractId"], "LockedAmulet_OwnerExpireLock", {"openRoundCid": round0["contractId"]}, LOCKED
    )
    early = await submit_tx(ledger_api, commands([alice], expire, readAs=[dso]), user="alice")
    # the standard library's failWithStatus: DAML_FAILURE in its category, its metadata and error id in the context
    failure = assert_error(early, 400, "DAML_FAILURE")
    assert failure["cause"].startswith(
        "Interpretation error: Error: User failure: stdlib.daml.com/deadline-not-exceeded (error category 9): "
        "Ledger time is strictly before deadline 'Lock.expiresAt' at "
    )
    assert failure["context"]["error_id"] == "stdlib.daml.com/deadline-not-exceeded"
    # the same moment: Daml's TIMESTAMP_TO_TEXT prints the fraction in groups of three digits (`.880640Z`), the
    # JSON value encoding with as few as it needs (`.88064Z`)
    assert _time(failure["context"]["deadline"]) == _time(locked["createArgument"]["lock"]["expiresAt"])
    assert [e["contractId"] for e in await _active(ledger_api, alice, "alice", LOCKED)] == [
        locked["contractId"]
    ]
    await asyncio.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 0.2)
    fmt = transaction_format(alice, shape=LEDGER_EFFECTS)
    r = await submit_tx(ledger_api, commands([alice], expire, readAs=[dso]), user="alice", fmt=fmt)
    assert r.status_code == 200, r.text
    [(_, exercised), (_, unlocked)] = events_of(r)
    assert exercised["consuming"] and exercised["contractId"] == locked["contractId"]
    result = exercised["exerciseResult"]
    assert result["meta"]["values"]["splice.lfdecentralizedtrust.org/reason"] == "lock expired"
    assert result["amuletSum"]["amulet"] == unlocked["contractId"]
    assert unlocked["createArgument"] == locked["createArgument"]["amulet"]
    assert await _active(ledger_api, alice, "alice", LOCKED) == []


async def test_a_failed_ensure_is_canton_s_unhandled_precondition_failed_and_changes_nothing(
    ledger_api, amulet_app
) -> None:
    dso = amulet_app["dso"]
    before = await ledger_api.ledger_end()
    amount = {"initialAmount": "-1.0", "createdAt": {"number": "0"}, "ratePerRound": {"rate": "0.00002"}}
    amulet = {"dso": dso, "owner": dso, "amount": amount}
    r = await submit_tx(ledger_api, commands([dso], create(amulet, AMULET_T)), user="DSO")
    body = assert_error(r, 400, "UNHANDLED_EXCEPTION")
    # `ensure` throws PreconditionFailed with Daml's own message: the template's name and the contract as `show`
    # prints it; no handler takes it.
    exception_type = "DA.Exception.PreconditionFailed:PreconditionFailed"
    assert body["cause"].startswith(
        f"Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/{exception_type} (error category 9): "
        "Template precondition violated: Amulet {"
    )
    assert body["errorCategory"] == 9 and body["grpcCodeValue"] == 9
    resources = dict(body["resources"])
    assert resources["EXCEPTION_TYPE"] == exception_type
    assert resources["EXCEPTION_VALUE"].startswith("Template precondition violated: Amulet {")
    assert await ledger_api.ledger_end() == before
    assert await _active(ledger_api, dso, "DSO", AMULET_T) == []


# A round lasts one tick; one of a second lets the rounds advance within a test, as `runNextIssuance` advances
# them after `setTime` in the test sources.
TICK_MICROS = 1_000_000
SUMMARIZING = "#splice-amulet:Splice.Round:SummarizingMiningRound"
ISSUING = "#splice-amulet:Splice.Round:IssuingMiningRound"
APP_COUPON = "#splice-amulet:Splice.Amulet:AppRewardCoupon"


@pytest.fixture
async def fast_rounds_app(ledger_api, dar_bytes, dars_dir) -> dict:
    config = {**AMULET_CONFIG, "tickDuration": {"microseconds": str(TICK_MICROS)}}
    return await _setup_app(ledger_api, dar_bytes, dars_dir, config, TICK_MICROS)


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def _sleep_until(moment: datetime) -> None:
    await asyncio.sleep(max(0.0, (moment - datetime.now(UTC)).total_seconds()) + 0.1)


def _by_round(events: list[dict]) -> dict[int, dict]:
    return {int(e["createArgument"]["round"]["number"]): e for e in events}


async def test_an_app_reward_is_issued_when_its_round_closes_and_claimed_in_a_transfer(
    ledger_api, fast_rounds_app
) -> None:
    """`runNextIssuanceInternal` as the DSO runs it: round 0 advances to summarizing (round 3 opens), its summary
    of the coupons starts its issuing round, and the provider's AppRewardCoupon of round 0 pays into a transfer as
    an input worth its amount times the issuance per unfeatured app reward coupon."""
    app = fast_rounds_app
    alice, bob, dso = app["alice"], app["bob"], app["dso"]
    tapped = await _tap(ledger_api, app, alice, "alice", "100.0")
    user = await _payer(ledger_api, "alice-and-bob", [alice, bob], dso)
    output = {"receiver": bob, "receiverFeeRatio": "0.0", "amount": "40.0", "lock": None}
    body = transfer_body(app, alice, [tapped["contractId"]], [output])
    transfer = exercise(app["rules"], "AmuletRules_Transfer", body, RULES)
    r = await submit_tx(ledger_api, commands([alice, bob], transfer, readAs=[dso]), user=user)
    assert r.status_code == 200, r.text
    [coupon] = await _active(ledger_api, alice, "alice", APP_COUPON)
    fees = Decimal(
        "0.43"
    )  # the transfer's output fee: 1% of 40 and the create fee, as the first transfer test
    assert (
        Decimal(coupon["createArgument"]["amount"]) == fees
        and coupon["createArgument"]["round"]["number"] == "0"
    )

    rounds = _by_round(app["rounds"])
    await _sleep_until(
        max(
            _time(rounds[0]["createArgument"]["targetClosesAt"]),
            _time(rounds[2]["createArgument"]["opensAt"]),
        )
    )
    advance = {
        "amuletPrice": "1.0",
        "roundToArchiveCid": rounds[0]["contractId"],
        "middleRoundCid": rounds[1]["contractId"],
        "latestRoundCid": rounds[2]["contractId"],
    }
    r = await submit_tx(
        ledger_api,
        commands([dso], exercise(app["rules"], "AmuletRules_AdvanceOpenMiningRounds", advance, RULES)),
        user="DSO",
    )
    assert r.status_code == 200, r.text
    open_rounds = _by_round(await _active(ledger_api, dso, "DSO", ROUND))
    assert sorted(open_rounds) == [1, 2, 3]
    [summarizing] = await _active(ledger_api, dso, "DSO", SUMMARIZING)
    assert summarizing["createArgument"]["round"]["number"] == "0"

    summary = {
        "totalValidatorRewardCoupons": str(fees),
        "totalFeaturedAppRewardCoupons": "0.0",
        "totalUnfeaturedAppRewardCoupons": str(fees),
        "totalSvRewardWeight": "0",
        "optTotalValidatorFaucetCoupons": "0",
    }
    start = {"miningRoundCid": summarizing["contractId"], "summary": summary}
    r = await submit_tx(
        ledger_api,
        commands([dso], exercise(app["rules"], "AmuletRules_MiningRound_StartIssuing", start, RULES)),
        user="DSO",
    )
    assert r.status_code == 200, r.text
    [issuing] = await _active(ledger_api, dso, "DSO", ISSUING)
    issued = issuing["createArgument"]
    assert issued["round"]["number"] == "0"
    # One second's issuance (40e9 a year) leaves pools far above what 0.43 of coupons can take: each coupon gets
    # the cap, 0.6 per unfeatured app reward unit and 0.2 per validator reward unit.
    assert Decimal(issued["issuancePerUnfeaturedAppRewardCoupon"]) == Decimal("0.6")
    assert Decimal(issued["issuancePerValidatorRewardCoupon"]) == Decimal("0.2")
    assert await _active(ledger_api, dso, "DSO", SUMMARIZING) == []

    await _sleep_until(_time(issued["opensAt"]))
    reward = fees * Decimal("0.6")
    claim = {"receiver": bob, "receiverFeeRatio": "0.0", "amount": "0.1", "lock": None}
    body = transfer_body(app, alice, [], [claim])
    body["transfer"]["inputs"] = [{"tag": "InputAppRewardCoupon", "value": coupon["contractId"]}]
    body["context"]["openMiningRound"] = open_rounds[1]["contractId"]
    body["context"]["issuingMiningRounds"] = [[{"number": "0"}, issuing["contractId"]]]
    cmds = commands([alice, bob], exercise(app["rules"], "AmuletRules_Transfer", body, RULES), readAs=[dso])
    r = await submit_tx(ledger_api, cmds, user=user, fmt=transaction_format(alice, bob, shape=LEDGER_EFFECTS))
    assert r.status_code == 200, r.text
    result = events_of(r)[0][1]["exerciseResult"]["summary"]
    assert Decimal(result["inputAppRewardAmount"]) == reward
    # 0.1 out with its fees (1% of it, the create fee 0.03); the change pays its own create fee.
    output_fee = Decimal("0.001") + Decimal("0.03")
    assert [Decimal(f) for f in result["outputFees"]] == [output_fee]
    assert Decimal(result["senderChangeAmount"]) == reward - Decimal("0.1") - output_fee - Decimal("0.03")
    # The claimed coupon is spent; the claim's own fees earn a new one, in the round it ran in.
    [fresh] = await _active(ledger_api, alice, "alice", APP_COUPON)
    assert fresh["contractId"] != coupon["contractId"] and fresh["createArgument"]["round"]["number"] == "1"
    assert Decimal(fresh["createArgument"]["amount"]) == output_fee
