"""Small builders and assertions shared by the HTTP tests."""

from __future__ import annotations

import os
from functools import cache

import httpx

from participant.api import JsCantonError
from tests.spec import schema_keys, spec_available

IOU = "#model-tests:Iou:Iou"
TRANSFER = "#model-tests:Iou:IouTransfer"
SUBMIT_TX = "/v2/commands/submit-and-wait-for-transaction"
ACS = "/v2/state/active-contracts"
ACS_PAGE = "/v2/state/active-contracts-page"
ACS_DELTA = "TRANSACTION_SHAPE_ACS_DELTA"
LEDGER_EFFECTS = "TRANSACTION_SHAPE_LEDGER_EFFECTS"


# -- filters ---------------------------------------------------------------------------------------------------


def wildcard(blob: bool = False) -> dict:
    return {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": blob}}}}


def template(template_id: str = IOU, blob: bool = False) -> dict:
    return {
        "identifierFilter": {
            "TemplateFilter": {"value": {"templateId": template_id, "includeCreatedEventBlob": blob}}
        }
    }


def event_format(
    *parties: str, filters: list[dict] | None = None, any_party: bool = False, verbose: bool = False
) -> dict:
    """Every party (or, with `any_party`, any party) gets the same cumulative filters (default: wildcard)."""
    cumulative = [wildcard()] if filters is None else filters
    return {
        "filtersByParty": {p: {"cumulative": cumulative} for p in parties},
        "filtersForAnyParty": {"cumulative": cumulative} if any_party else None,
        "verbose": verbose,
    }


def transaction_format(*parties: str, shape: str = ACS_DELTA, **kw) -> dict:
    return {"eventFormat": event_format(*parties, **kw), "transactionShape": shape}


def update_format(*parties: str, shape: str = ACS_DELTA, **kw) -> dict:
    """Transactions only, in `shape`, through `event_format(*parties, **kw)`."""
    return {"includeTransactions": transaction_format(*parties, shape=shape, **kw)}


# -- commands --------------------------------------------------------------------------------------------------


def iou_args(
    issuer: str, owner: str, amount: str = "100.0", currency: str = "USD", observers: list[str] | None = None
) -> dict:
    return {
        "issuer": issuer,
        "owner": owner,
        "currency": currency,
        "amount": amount,
        "observers": observers or [],
    }


def create(args: dict, template_id: str = IOU) -> dict:
    return {"CreateCommand": {"templateId": template_id, "createArguments": args}}


def exercise(cid: str, choice: str, argument: dict | None = None, template_id: str = IOU) -> dict:
    return {
        "ExerciseCommand": {
            "templateId": template_id,
            "contractId": cid,
            "choice": choice,
            "choiceArgument": {} if argument is None else argument,
        }
    }


def create_and_exercise(
    args: dict, choice: str, argument: dict | None = None, template_id: str = IOU
) -> dict:
    return {
        "CreateAndExerciseCommand": {
            "templateId": template_id,
            "createArguments": args,
            "choice": choice,
            "choiceArgument": {} if argument is None else argument,
        }
    }


def new_id(prefix: str = "cmd") -> str:
    return f"{prefix}-{os.urandom(6).hex()}"


def commands(act_as: list[str], *cmds: dict, **extra) -> dict:
    """A JsCommands body; `extra` adds or overrides keys (camelCase)."""
    return {"commands": list(cmds), "commandId": new_id(), "actAs": act_as, **extra}


async def submit_tx(ledger_api, cmds: dict, *, user: str, fmt: dict | None = None) -> httpx.Response:
    body: dict = {"commands": cmds}
    if fmt is not None:
        body["transactionFormat"] = fmt
    return await ledger_api.post(SUBMIT_TX, body, user=user)


def events_of(r: httpx.Response) -> list[tuple[str, dict]]:
    """(kind, event) of each event of a submit-and-wait-for-transaction answer."""
    assert r.status_code == 200, r.text
    return [next(iter(e.items())) for e in r.json()["transaction"]["events"]]


def created_cid(tx: dict, index: int = 0) -> str:
    return [e["CreatedEvent"] for e in tx["events"] if "CreatedEvent" in e][index]["contractId"]


# -- state -----------------------------------------------------------------------------------------------------


def acs_body(offset: int, fmt: dict | None = None, **extra) -> dict:
    return {"activeAtOffset": offset, "eventFormat": fmt, **extra}


async def acs(ledger_api, body: dict, *, user: str, params: dict | None = None) -> httpx.Response:
    return await ledger_api.call("POST", ACS, json=body, user=user, params=params)


def created_events(entries: list[dict]) -> list[dict]:
    return [e["contractEntry"]["JsActiveContract"]["createdEvent"] for e in entries]


def cids(entries: list[dict]) -> list[str]:
    return [ev["contractId"] for ev in created_events(entries)]


async def grant_read_any(ledger_api, user_id: str = "auditor") -> str:
    """A user with CanReadAsAnyParty only."""
    r = await ledger_api.post(
        "/v2/users", {"user": {"id": user_id}, "rights": [{"kind": {"CanReadAsAnyParty": {"value": {}}}}]}
    )
    assert r.status_code == 200, r.text
    return user_id


# -- assertions ------------------------------------------------------------------------------------------------


@cache
def error_keys() -> frozenset[str]:
    """The keys of every JsCantonError: the spec's; without the spec, the wire model's (which
    tests/test_api_models.py holds to the spec when it is there)."""
    if spec_available():
        return frozenset(schema_keys("JsCantonError"))
    return frozenset(field.alias or name for name, field in JsCantonError.model_fields.items())


def assert_error(r: httpx.Response, status: int, code: str) -> dict:
    """A JsCantonError with this status and code, every key present."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert set(body) == error_keys(), set(body) ^ error_keys()
    assert body["code"] == code, body
    if code == "NA":
        assert body["errorCategory"] == -1
        assert body["cause"] == "A security-sensitive error has been received"
    else:
        assert body["errorCategory"] > 0 and body["cause"]
    return body


def assert_bad_body(r: httpx.Response, status: int = 400) -> str:
    """tapir's decode failure: text/plain starting with `Invalid value for:`."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("text/plain"), r.headers
    assert r.text.startswith("Invalid value for:"), r.text
    return r.text
