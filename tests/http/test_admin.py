"""Party management, user management and package services over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.helpers import assert_error


def act_as(party: str) -> dict:
    return {"kind": {"CanActAs": {"value": {"party": party}}}}


def read_as(party: str) -> dict:
    return {"kind": {"CanReadAs": {"value": {"party": party}}}}


ADMIN_RIGHT: dict[str, Any] = {"kind": {"ParticipantAdmin": {"value": {}}}}


async def new_user(ledger_api, user_id: str, rights: list[dict] | None = None, **user):
    return await ledger_api.post("/v2/users", {"user": {"id": user_id, **user}, "rights": rights or []})


# -- parties ----------------------------------------------------------------------------------------------------


async def test_allocate_party(ledger_api):
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "Carol", "identityProviderId": ""})
    assert r.status_code == 200, r.text
    details = r.json()["partyDetails"]
    namespace = (await ledger_api.get("/v2/parties/participant-id")).json()["participantId"].split("::", 1)[1]
    assert details["party"] == f"Carol::{namespace}"
    assert details["isLocal"] is True


async def test_allocate_party_without_hint(ledger_api):
    r = await ledger_api.post("/v2/parties", {})
    assert r.status_code == 200, r.text
    assert r.json()["partyDetails"]["party"].startswith("party-")


async def test_allocate_party_needs_admin(ledger_api, alice_bob):
    assert_error(await ledger_api.post("/v2/parties", {"partyIdHint": "Mallory"}, user="Alice"), 403, "NA")


async def test_self_allocation(ledger_api, alice_bob):
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "AliceTwo", "userId": "Alice"}, user="Alice")
    assert r.status_code == 200, r.text
    party = r.json()["partyDetails"]["party"]
    rights = (await ledger_api.get("/v2/users/Alice/rights", user="Alice")).json()["rights"]
    assert act_as(party) in rights


async def test_list_parties(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await ledger_api.get("/v2/parties")
    assert r.status_code == 200, r.text
    listed = [p["party"] for p in r.json()["partyDetails"]]
    assert {alice, bob} <= set(listed)
    r = await ledger_api.get("/v2/parties", params={"filter-party": "Bob"})
    assert [p["party"] for p in r.json()["partyDetails"]] == [bob]
    assert_error(await ledger_api.get("/v2/parties", user="Alice"), 403, "NA")


async def test_list_parties_in_pages(ledger_api, alice_bob):
    seen, token = [], None
    while True:
        params = {"pageSize": 1} | ({"pageToken": token} if token else {})
        body = (await ledger_api.get("/v2/parties", params=params)).json()
        seen += [p["party"] for p in body["partyDetails"]]
        token = body["nextPageToken"]
        if not token:
            break
    assert sorted(seen) == sorted(alice_bob)


async def test_participant_id(ledger_api):
    r = await ledger_api.get("/v2/parties/participant-id")
    assert r.status_code == 200, r.text
    pid = r.json()["participantId"]
    assert "::1220" in pid and not pid.startswith("PAR::")


async def test_get_parties(ledger_api, alice_bob):
    alice, bob = alice_bob
    namespace = alice.split("::", 1)[1]
    r = await ledger_api.get(f"/v2/parties/{alice}", params={"parties": [bob, f"Nobody::{namespace}"]})
    assert r.status_code == 200, r.text
    assert sorted(p["party"] for p in r.json()["partyDetails"]) == sorted([alice, bob])
    r = await ledger_api.get(f"/v2/parties/Nobody::{namespace}")
    assert r.status_code == 200 and r.json() == {"partyDetails": []}


async def test_get_parties_rights(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await ledger_api.get(f"/v2/parties/{alice}", user="Alice")
    assert r.status_code == 200 and [p["party"] for p in r.json()["partyDetails"]] == [alice]
    assert_error(await ledger_api.get(f"/v2/parties/{bob}", user="Alice"), 403, "NA")


# -- users ------------------------------------------------------------------------------------------------------


async def test_create_and_get_user(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await new_user(
        ledger_api,
        "carol",
        [act_as(alice)],
        primaryParty=alice,
        metadata={"resourceVersion": "", "annotations": {"team": "blue"}},
    )
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert user["id"] == "carol" and user["primaryParty"] == alice and user["isDeactivated"] is False
    assert user["metadata"]["annotations"] == {"team": "blue"}
    r = await ledger_api.get("/v2/users/carol")
    assert r.status_code == 200 and r.json()["user"] == user


async def test_user_already_exists(ledger_api, alice_bob):
    body = assert_error(await new_user(ledger_api, "Alice"), 409, "USER_ALREADY_EXISTS")
    assert body["errorCategory"] == 10


async def test_user_not_found(ledger_api):
    """Each operation is named in the cause as Canton's ApiUserManagementService names it."""
    rights = {"userId": "nobody", "rights": [ADMIN_RIGHT]}
    for answer, operation in [
        (await ledger_api.get("/v2/users/nobody"), "getting user"),
        (await ledger_api.get("/v2/users/nobody/rights"), "list user rights"),
        (await ledger_api.call("DELETE", "/v2/users/nobody"), "deleting user"),
        (await ledger_api.post("/v2/users/nobody/rights", rights), "grant user rights"),
        (await ledger_api.call("PATCH", "/v2/users/nobody/rights", json=rights), "revoke user rights"),
    ]:
        body = assert_error(answer, 404, "USER_NOT_FOUND")
        assert body["cause"] == f'{operation} failed for unknown user "nobody"'


async def test_list_users(ledger_api, alice_bob):
    r = await ledger_api.get("/v2/users")
    assert r.status_code == 200, r.text
    assert {"participant_admin", "Alice", "Bob"} <= {u["id"] for u in r.json()["users"]}
    r = await ledger_api.get("/v2/users", params={"pageSize": 2})
    body = r.json()
    assert len(body["users"]) == 2 and body["nextPageToken"]
    rest = (await ledger_api.get("/v2/users", params={"pageToken": body["nextPageToken"]})).json()["users"]
    assert len(body["users"]) + len(rest) == 3


async def test_delete_user(ledger_api, alice_bob):
    r = await ledger_api.call("DELETE", "/v2/users/Bob")
    assert r.status_code == 200 and r.json() == {}
    assert_error(await ledger_api.get("/v2/users/Bob"), 404, "USER_NOT_FOUND")
    assert_error(
        await ledger_api.get("/v2/state/ledger-end", user="Bob"), 403, "NA"
    )  # its tokens stop working


async def test_rights(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await ledger_api.get("/v2/users/Alice/rights")
    assert r.status_code == 200, r.text
    assert sorted(map(str, r.json()["rights"])) == sorted(map(str, [act_as(alice), read_as(alice)]))
    r = await ledger_api.post(
        "/v2/users/Alice/rights", {"userId": "Alice", "rights": [read_as(bob), act_as(alice)]}
    )
    assert r.status_code == 200 and r.json()["newlyGrantedRights"] == [read_as(bob)]
    r = await ledger_api.call(
        "PATCH", "/v2/users/Alice/rights", json={"userId": "Alice", "rights": [read_as(bob), ADMIN_RIGHT]}
    )
    assert r.status_code == 200 and r.json()["newlyRevokedRights"] == [read_as(bob)]
    assert read_as(bob) not in (await ledger_api.get("/v2/users/Alice/rights")).json()["rights"]


async def test_user_management_needs_admin(ledger_api, alice_bob):
    assert_error(
        await ledger_api.post("/v2/users", {"user": {"id": "eve"}, "rights": [ADMIN_RIGHT]}, user="Alice"),
        403,
        "NA",
    )
    assert_error(await ledger_api.get("/v2/users", user="Alice"), 403, "NA")
    assert_error(await ledger_api.get("/v2/users/Bob", user="Alice"), 403, "NA")
    assert_error(await ledger_api.get("/v2/users/Bob/rights", user="Alice"), 403, "NA")
    assert_error(await ledger_api.call("DELETE", "/v2/users/Bob", user="Alice"), 403, "NA")
    assert_error(
        await ledger_api.post(
            "/v2/users/Alice/rights", {"userId": "Alice", "rights": [ADMIN_RIGHT]}, user="Alice"
        ),
        403,
        "NA",
    )
    assert_error(
        await ledger_api.call(
            "PATCH",
            "/v2/users/Alice/rights",
            user="Alice",
            json={"userId": "Alice", "rights": [act_as(alice_bob[0])]},
        ),
        403,
        "NA",
    )


async def test_a_user_reads_itself(ledger_api, alice_bob):
    r = await ledger_api.get("/v2/users/Alice", user="Alice")
    assert r.status_code == 200 and r.json()["user"]["id"] == "Alice"
    assert (await ledger_api.get("/v2/users/Alice/rights", user="Alice")).status_code == 200


async def test_authenticated_user(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.get("/v2/authenticated-user", user="Alice")
    assert r.status_code == 200, r.text
    assert r.json()["user"]["id"] == "Alice" and r.json()["user"]["primaryParty"] == alice
    r = await ledger_api.get("/v2/authenticated-user")
    assert r.json()["user"]["id"] == "participant_admin"


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"user": {"id": "bad user id with spaces"}, "rights": []}, 400, "INVALID_FIELD"),
        ({"user": {"id": "ok"}, "rights": [{"kind": {"Empty": {}}}]}, 400, "MISSING_FIELD"),
        ({"rights": []}, 400, "MISSING_FIELD"),
    ],
)
async def test_create_user_request_errors(ledger_api, body, status, code):
    assert_error(await ledger_api.post("/v2/users", body), status, code)


async def test_rights_path_and_body_must_agree(ledger_api, alice_bob):
    r = await ledger_api.post("/v2/users/Alice/rights", {"userId": "Bob", "rights": [ADMIN_RIGHT]})
    assert_error(r, 400, "INVALID_ARGUMENT")


async def test_deactivated_user_cannot_call(ledger_api, alice_bob):
    r = await new_user(ledger_api, "sleepy", isDeactivated=True)
    assert r.status_code == 200 and r.json()["user"]["isDeactivated"] is True
    assert_error(await ledger_api.get("/v2/state/ledger-end", user="sleepy"), 403, "NA")


# -- packages ---------------------------------------------------------------------------------------------------


async def test_packages(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await ledger_api.get("/v2/packages", user="Alice")
    assert r.status_code == 200, r.text
    package_ids = r.json()["packageIds"]
    tx = await ledger_api.create_iou(alice, alice, user="Alice")
    iou_package = tx["events"][0]["CreatedEvent"]["templateId"].split(":")[0]
    assert iou_package in package_ids
    r = await ledger_api.get(f"/v2/packages/{iou_package}/status", user="Alice")
    assert r.status_code == 200 and r.json() == {"packageStatus": "PACKAGE_STATUS_REGISTERED"}
    r = await ledger_api.get(f"/v2/packages/{'0' * 64}/status", user="Alice")
    assert r.status_code == 200 and r.json() == {"packageStatus": "PACKAGE_STATUS_UNSPECIFIED"}
    assert_error(await ledger_api.get("/v2/packages", user=None), 401, "NA")


async def test_allocate_an_existing_party(ledger_api, alice_bob):
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "Alice"})
    assert r.status_code in (400, 409), r.text
    assert r.json()["code"] in {"INVALID_ARGUMENT", "PARTY_ALREADY_EXISTS"}


async def test_self_allocation_for_another_user_is_denied(ledger_api, alice_bob):
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "Sneaky", "userId": "Bob"}, user="Alice")
    assert_error(r, 403, "NA")


async def test_health_checks_need_no_token(ledger_api):
    live = await ledger_api.get("/livez", user=None)
    assert live.status_code == 200 and live.content == b""
    ready = await ledger_api.get("/readyz", user=None)
    assert ready.status_code == 200 and ready.text == "ready"
