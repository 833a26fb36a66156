"""Authentication over HTTP: tokens, their failures, the public endpoints, and the `--no-auth` mode."""

from __future__ import annotations

import time

import jwt
import pytest

from participant.auth import AUDIENCE_PREFIX
from tests.conftest import SECRET, token
from tests.http.helpers import SUBMIT_TX, assert_bad_body, assert_error, commands, create, iou_args
from tests.spec import validate

LEDGER_END = "/v2/state/ledger-end"


def auth(value: str) -> dict:
    return {"Authorization": value}


async def test_missing_token(ledger_api):
    body = assert_error(await ledger_api.get(LEDGER_END, user=None), 401, "NA")
    assert body["grpcCodeValue"] == 16


@pytest.mark.parametrize(
    "make",
    [
        lambda: token("participant_admin", ttl_seconds=-3600),  # expired
        lambda: jwt.encode(
            {"sub": "participant_admin", "scope": "daml_ledger_api"}, SECRET + "x", algorithm="HS256"
        ),
        lambda: jwt.encode(
            {"sub": "participant_admin"}, SECRET, algorithm="HS256"
        ),  # neither scope nor audience
        lambda: "not.a.jwt",
    ],
)
async def test_invalid_tokens_are_401(ledger_api, make):
    r = await ledger_api.get(LEDGER_END, user=None, headers=auth(f"Bearer {make()}"))
    assert_error(r, 401, "NA")


async def test_other_schemes_are_401(ledger_api):
    assert_error(await ledger_api.get(LEDGER_END, user=None, headers=auth(f"Basic {token('x')}")), 401, "NA")


@pytest.mark.parametrize("audience_form", [False, True], ids=["scope-token", "audience-token"])
async def test_unknown_user_is_403_invalid_token(ledger_api, audience_form):
    pid = await participant_id(ledger_api)
    t = token("ghost", participant_id=pid, audience_form=audience_form)
    body = assert_error(await ledger_api.get(LEDGER_END, user=None, headers=auth(f"Bearer {t}")), 403, "NA")
    validate("JsCantonError", body)
    assert body["grpcCodeValue"] == 7
    assert body["context"] == {"ledger_api_error": "invalid token"}


@pytest.mark.parametrize(
    "claims",
    [
        pytest.param({"scope": "daml_ledger_api", "aud": "participant9::1220abcd"}, id="scope-aud-another"),
        pytest.param({"scope": "daml_ledger_api", "aud": ""}, id="scope-aud-empty"),
        pytest.param({"aud": AUDIENCE_PREFIX + "participant9::1220abcd"}, id="audience-another"),
    ],
)
async def test_a_token_for_another_participant_is_403(ledger_api, claims):
    t = jwt.encode(
        {"sub": "participant_admin", "exp": int(time.time()) + 300} | claims, SECRET, algorithm="HS256"
    )
    body = assert_error(await ledger_api.get(LEDGER_END, user=None, headers=auth(f"Bearer {t}")), 403, "NA")
    validate("JsCantonError", body)
    assert (body["grpcCodeValue"], body["context"]) == (7, {})


async def test_empty_bearer_is_400_text(ledger_api):
    assert_bad_body(await ledger_api.get(LEDGER_END, user=None, headers=auth("Bearer ")))


async def participant_id(ledger_api) -> str:
    return (await ledger_api.get("/v2/parties/participant-id")).json()["participantId"]


@pytest.mark.parametrize(
    "scope",
    [
        pytest.param({}, id="no-scope"),
        pytest.param({"scope": "openid profile"}, id="unrelated-scope"),
        pytest.param({"scope": "daml_ledger_api"}, id="ledger-api-scope"),
    ],
)
async def test_audience_token_whatever_its_scope(ledger_api, scope):
    claims = {"sub": "participant_admin", "aud": AUDIENCE_PREFIX + await participant_id(ledger_api)} | scope
    t = jwt.encode(claims | {"exp": int(time.time()) + 300}, SECRET, algorithm="HS256")
    r = await ledger_api.get(LEDGER_END, user=None, headers=auth(f"Bearer {t}"))
    assert r.status_code == 200, r.text


async def test_version_needs_no_token(ledger_api):
    r = await ledger_api.get("/v2/version", user=None)
    assert r.status_code == 200, r.text
    assert r.json()["version"].startswith("3.5.")
    r = await ledger_api.get("/v2/version", user=None, headers=auth("Bearer garbage"))
    assert r.status_code == 200


async def test_admin_cannot_act_or_read_as_parties(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()  # the parties' allocations
    r = await ledger_api.post(SUBMIT_TX, {"commands": commands([alice], create(iou_args(alice, alice)))})
    assert_error(r, 403, "NA")
    assert await ledger_api.ledger_end() == before


# -- --no-auth --------------------------------------------------------------------------------------------------


async def test_no_auth_needs_a_user_id_for_commands(open_ledger):
    alice = await open_ledger.party("Alice", user=False)
    before = await open_ledger.ledger_end()
    r = await open_ledger.post(
        SUBMIT_TX, {"commands": commands([alice], create(iou_args(alice, alice)))}, user=None
    )
    body = assert_error(r, 400, "INVALID_TOKEN")
    assert body["cause"].startswith("The submitted request is missing a user-id")
    assert await open_ledger.ledger_end() == before


async def test_no_auth_acts_as_any_party(open_ledger):
    alice = await open_ledger.party("Alice", user=False)
    bob = await open_ledger.party("Bob", user=False)
    before = await open_ledger.ledger_end()
    cmds = commands([alice, bob], create(iou_args(alice, bob)), userId="ledger-api-user")
    r = await open_ledger.post(SUBMIT_TX, {"commands": cmds}, user=None)
    assert r.status_code == 200, r.text
    r = await open_ledger.post(
        "/v2/commands/completions",
        {"userId": "ledger-api-user", "parties": [alice], "beginExclusive": 0},
        user=None,
    )
    assert r.status_code == 200 and len(r.json()) == 1
    end = await open_ledger.ledger_end()
    assert end == before + 1
    r = await open_ledger.post(
        "/v2/state/active-contracts",
        {
            "filter": {"filtersByParty": {}, "filtersForAnyParty": {"cumulative": []}},
            "verbose": False,
            "activeAtOffset": end,
            "eventFormat": None,
        },
        user=None,
    )
    assert r.status_code == 200 and len(r.json()) == 1


async def test_no_auth_ignores_tokens_and_has_no_authenticated_user(open_ledger):
    r = await open_ledger.get(LEDGER_END, user=None, headers=auth("Bearer not-even-a-jwt"))
    assert r.status_code == 200, r.text
    assert_error(await open_ledger.get("/v2/authenticated-user", user=None), 400, "INVALID_TOKEN")
