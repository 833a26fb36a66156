"""The update (PATCH) endpoints of users and parties, identity provider configs, package bytes and preferences,
and the endpoints this participant answers with 501."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import httpx
import pytest

from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for
from tests.http.helpers import assert_error

IDP_ADMIN_RIGHT: dict[str, Any] = {"kind": {"IdentityProviderAdmin": {"value": {}}}}


def user_patch(user_id: str, paths: list[str], **user) -> dict:
    return {"user": {"id": user_id, **user}, "updateMask": {"paths": paths, "unknownFields": {"fields": {}}}}


def party_patch(
    party: str, paths: list[str], annotations: dict | None = None, version: str = "", **details
) -> dict:
    return {
        "partyDetails": {
            "party": party,
            "isLocal": True,
            "identityProviderId": "",
            "localMetadata": {"resourceVersion": version, "annotations": annotations or {}},
            **details,
        },
        "updateMask": {"paths": paths},
    }


async def patch(ledger_api, path: str, body: dict, user: str | None = "participant_admin"):
    return await ledger_api.call("PATCH", path, json=body, user=user)


def idp(idp_id: str, issuer: str | None = None, **extra) -> dict:
    return {
        "identityProviderId": idp_id,
        "isDeactivated": False,
        "issuer": issuer or f"https://{idp_id}.example",
        "jwksUrl": f"https://{idp_id}.example/jwks",
        "audience": "",
        **extra,
    }


# -- users ------------------------------------------------------------------------------------------------------


async def test_update_user_fields_named_by_the_mask(ledger_api, alice_bob):
    alice, bob = alice_bob
    before = (await ledger_api.get("/v2/users/Alice")).json()["user"]
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch(
            "Alice",
            ["primary_party", "metadata.annotations"],
            primaryParty=bob,
            isDeactivated=True,
            metadata={"resourceVersion": "", "annotations": {"team": "blue", "example.com/owner": "ops"}},
        ),
    )
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert user["primaryParty"] == bob and user["isDeactivated"] is False  # not in the mask: unchanged
    assert user["metadata"]["annotations"] == {"team": "blue", "example.com/owner": "ops"}
    assert user["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"]
    assert (await ledger_api.get("/v2/users/Alice")).json()["user"] == user


async def test_annotations_merge_and_an_empty_value_removes(ledger_api, alice_bob):
    await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata"], metadata={"annotations": {"a": "1", "b": "2"}}),
    )
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata.annotations"], metadata={"annotations": {"a": "", "c": "3"}}),
    )
    assert r.json()["user"]["metadata"]["annotations"] == {"b": "2", "c": "3"}


async def test_a_parent_path_changes_only_fields_given_a_value(ledger_api, alice_bob):
    alice, _ = alice_bob
    # `metadata` with no annotations leaves them; `primary_party` named exactly with "" clears it
    await patch(
        ledger_api, "/v2/users/Alice", user_patch("Alice", ["metadata"], metadata={"annotations": {"k": "v"}})
    )
    r = await patch(ledger_api, "/v2/users/Alice", user_patch("Alice", ["metadata", "primary_party"]))
    assert r.status_code == 200, r.text
    assert (
        r.json()["user"]["metadata"]["annotations"] == {"k": "v"} and r.json()["user"]["primaryParty"] == ""
    )


async def test_resource_version_guards_concurrent_updates(ledger_api, alice_bob):
    version = (await ledger_api.get("/v2/users/Alice")).json()["user"]["metadata"]["resourceVersion"]
    ok = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch(
            "Alice",
            ["metadata.annotations"],
            metadata={"resourceVersion": version, "annotations": {"x": "1"}},
        ),
    )
    assert ok.status_code == 200, ok.text
    newer = ok.json()["user"]["metadata"]["resourceVersion"]
    assert newer != version
    stale = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch(
            "Alice",
            ["metadata.annotations"],
            metadata={"resourceVersion": version, "annotations": {"x": "2"}},
        ),
    )
    body = assert_error(stale, 409, "CONCURRENT_USER_UPDATE_DETECTED")
    assert (
        body["cause"]
        == "Update operation for user 'Alice' failed due to a concurrent update to the same user"
    )
    assert (await ledger_api.get("/v2/users/Alice")).json()["user"]["metadata"] == {
        "resourceVersion": newer,
        "annotations": {"x": "1"},
    }  # the refused update changed nothing


async def test_two_updates_from_one_version_race_and_one_loses(ledger_api, alice_bob):
    version = (await ledger_api.get("/v2/users/Bob")).json()["user"]["metadata"]["resourceVersion"]
    answers = await asyncio.gather(
        *(
            patch(
                ledger_api,
                "/v2/users/Bob",
                user_patch(
                    "Bob",
                    ["metadata.annotations"],
                    metadata={"resourceVersion": version, "annotations": {"n": str(i)}},
                ),
            )
            for i in range(4)
        )
    )
    assert sorted(r.status_code for r in answers) == [200, 409, 409, 409]


async def test_deactivate_and_reactivate(ledger_api, alice_bob):
    r = await patch(
        ledger_api, "/v2/users/Alice", user_patch("Alice", ["is_deactivated"], isDeactivated=True)
    )
    assert r.status_code == 200 and r.json()["user"]["isDeactivated"] is True
    assert_error(await ledger_api.get("/v2/state/ledger-end", user="Alice"), 403, "NA")
    r = await patch(
        ledger_api, "/v2/users/Alice", user_patch("Alice", ["is_deactivated"], isDeactivated=False)
    )
    assert r.status_code == 200, r.text
    assert (await ledger_api.get("/v2/state/ledger-end", user="Alice")).status_code == 200


async def test_an_admin_cannot_deactivate_itself(ledger_api):
    r = await patch(
        ledger_api,
        "/v2/users/participant_admin",
        user_patch("participant_admin", ["is_deactivated"], isDeactivated=True),
    )
    body = assert_error(r, 400, "INVALID_ARGUMENT")
    assert "cannot self-deactivate" in body["cause"]


@pytest.mark.parametrize(
    "paths, reason",
    [
        ([], "The update mask contains no entries"),
        (["rights"], "The update path: 'rights' points to an unknown field."),
        (["metadata.labels"], "The update path: 'metadata.labels' points to an unknown field."),
        (["primaryParty"], "The update path: 'primaryParty' points to an unknown field."),
        (["is_deactivated", "is_deactivated"], "The update path: 'is_deactivated' is duplicated."),
    ],
)
async def test_bad_masks(ledger_api, alice_bob, paths, reason):
    body = assert_error(
        await patch(ledger_api, "/v2/users/Alice", user_patch("Alice", paths)),
        400,
        "INVALID_USER_UPDATE_REQUEST",
    )
    assert body["cause"] == f"Update operation for user id 'Alice' failed due to: {reason}"
    assert body["resources"] == [["USER", "Alice"]]


@pytest.mark.parametrize(
    "body, code",
    [
        ({"user": {"id": "Alice"}}, "MISSING_FIELD"),  # no update mask
        (user_patch("Alice", ["metadata"], metadata={"resourceVersion": "seven"}), "INVALID_FIELD"),
        (user_patch("Alice", ["primary_party"], primaryParty="not!a!party"), "INVALID_FIELD"),
        (user_patch("Alice", ["metadata"], metadata={"annotations": {"bad key!": "v"}}), "INVALID_ARGUMENT"),
        (
            user_patch("Alice", ["metadata"], metadata={"annotations": {"k": "v" * (256 * 1024)}}),
            "INVALID_ARGUMENT",
        ),
        (user_patch("Alice", ["metadata"], identityProviderId="no-such-idp"), "INVALID_ARGUMENT"),
    ],
)
async def test_update_user_request_errors(ledger_api, alice_bob, body, code):
    before = (await ledger_api.get("/v2/users/Alice")).json()
    assert_error(await patch(ledger_api, "/v2/users/Alice", body), 400, code)
    assert (await ledger_api.get("/v2/users/Alice")).json() == before  # a bad request changes nothing


async def test_stored_annotations_have_a_size_limit(ledger_api, alice_bob):
    half = "v" * (150 * 1024)
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata"], metadata={"annotations": {"a": half}}),
    )
    assert r.status_code == 200, r.text
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata"], metadata={"annotations": {"b": half}}),
    )
    body = assert_error(r, 400, "MAX_USER_ANNOTATIONS_SIZE_EXCEEDED")
    assert body["cause"] == "Maximum annotations size for user 'Alice' has been exceeded"


async def test_update_unknown_user(ledger_api):
    body = assert_error(
        await patch(ledger_api, "/v2/users/nobody", user_patch("nobody", ["metadata"])), 404, "USER_NOT_FOUND"
    )
    assert body["cause"] == 'updating user failed for unknown user "nobody"'


async def test_path_and_body_must_name_the_same_user(ledger_api, alice_bob):
    body = assert_error(
        await patch(ledger_api, "/v2/users/Alice", user_patch("Bob", ["metadata"])), 400, "INVALID_ARGUMENT"
    )
    assert "Alice does not match user in body: Some(Bob)" in body["cause"]
    # checked before the token, as Canton's JSON layer does
    assert_error(
        await patch(ledger_api, "/v2/users/Alice", {"updateMask": {"paths": ["metadata"]}}, user=None),
        400,
        "INVALID_ARGUMENT",
    )


async def test_update_user_rights(ledger_api, alice_bob):
    body = user_patch("Alice", ["metadata"], metadata={"annotations": {"k": "v"}})
    assert_error(await patch(ledger_api, "/v2/users/Alice", body, user=None), 401, "NA")
    assert_error(await patch(ledger_api, "/v2/users/Alice", body, user="Alice"), 403, "NA")  # not even itself
    assert_error(await patch(ledger_api, "/v2/users/Alice", body, user="Bob"), 403, "NA")
    r = await ledger_api.post("/v2/users", {"user": {"id": "idp-admin"}, "rights": [IDP_ADMIN_RIGHT]})
    assert r.status_code == 200, r.text
    r = await patch(
        ledger_api, "/v2/users/Alice", body, user="idp-admin"
    )  # an IDP admin of the default provider
    assert r.status_code == 200, r.text


async def test_update_user_identity_provider(ledger_api, alice_bob):
    assert (await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp")})).status_code == 200
    version = (await ledger_api.get("/v2/users/Alice")).json()["user"]["metadata"]["resourceVersion"]
    r = await patch(
        ledger_api,
        "/v2/users/Alice/identity-provider-id",
        {"userId": "Alice", "sourceIdentityProviderId": "", "targetIdentityProviderId": "corp"},
    )
    assert r.status_code == 200 and r.json() == {}
    user = (await ledger_api.get("/v2/users/Alice")).json()["user"]
    assert user["identityProviderId"] == "corp" and user["metadata"]["resourceVersion"] != version
    # tokens here are the default provider's: a user of "corp" can no longer use them
    assert_error(await ledger_api.get("/v2/state/ledger-end", user="Alice"), 403, "NA")
    # updates now name the user's provider; the old one is refused
    assert_error(await patch(ledger_api, "/v2/users/Alice", user_patch("Alice", ["metadata"])), 403, "NA")
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata"], identityProviderId="corp", metadata={"annotations": {"k": "v"}}),
    )
    assert r.status_code == 200, r.text
    # an IDP admin of the default provider may not touch users of "corp"
    assert (
        await ledger_api.post("/v2/users", {"user": {"id": "idp-admin"}, "rights": [IDP_ADMIN_RIGHT]})
    ).status_code == 200
    r = await patch(
        ledger_api,
        "/v2/users/Alice",
        user_patch("Alice", ["metadata"], identityProviderId="corp"),
        user="idp-admin",
    )
    assert_error(r, 403, "NA")
    # wrong source, unknown target, mismatched path, not an admin
    r = await patch(
        ledger_api,
        "/v2/users/Alice/identity-provider-id",
        {"userId": "Alice", "sourceIdentityProviderId": "", "targetIdentityProviderId": "corp"},
    )
    assert_error(r, 403, "NA")
    r = await patch(
        ledger_api,
        "/v2/users/Alice/identity-provider-id",
        {"userId": "Alice", "sourceIdentityProviderId": "corp", "targetIdentityProviderId": "nope"},
    )
    assert_error(r, 400, "INVALID_ARGUMENT")
    r = await patch(ledger_api, "/v2/users/Alice/identity-provider-id", {"userId": "Bob"})
    assert_error(r, 400, "INVALID_ARGUMENT")
    r = await patch(ledger_api, "/v2/users/Bob/identity-provider-id", {"userId": "Bob"}, user="Bob")
    assert_error(r, 403, "NA")
    r = await patch(ledger_api, "/v2/users/nobody/identity-provider-id", {"userId": "nobody"})
    assert_error(r, 404, "USER_NOT_FOUND")
    # a provider with users cannot be deleted; once they are moved back, it can
    assert_error(await ledger_api.call("DELETE", "/v2/idps/corp"), 400, "INVALID_ARGUMENT")
    r = await patch(
        ledger_api,
        "/v2/users/Alice/identity-provider-id",
        {"userId": "Alice", "sourceIdentityProviderId": "corp", "targetIdentityProviderId": ""},
    )
    assert r.status_code == 200, r.text
    assert (await ledger_api.call("DELETE", "/v2/idps/corp")).status_code == 200
    assert (await ledger_api.get("/v2/state/ledger-end", user="Alice")).status_code == 200


# -- parties ----------------------------------------------------------------------------------------------------


async def test_update_party_annotations(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = (await ledger_api.get(f"/v2/parties/{alice}")).json()["partyDetails"][0]
    r = await patch(
        ledger_api,
        f"/v2/parties/{alice}",
        party_patch(alice, ["local_metadata.annotations"], {"desk": "fx", "floor": "2"}),
    )
    assert r.status_code == 200, r.text
    details = r.json()["partyDetails"]
    assert (
        details["localMetadata"]["annotations"] == {"desk": "fx", "floor": "2"} and details["isLocal"] is True
    )
    assert details["localMetadata"]["resourceVersion"] != before["localMetadata"]["resourceVersion"]
    r = await patch(ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], {"floor": ""}))
    assert r.json()["partyDetails"]["localMetadata"]["annotations"] == {"desk": "fx"}
    assert (await ledger_api.get(f"/v2/parties/{alice}")).json()["partyDetails"][0] == r.json()[
        "partyDetails"
    ]


async def test_update_party_resource_version(ledger_api, alice_bob):
    alice, _ = alice_bob
    version = (await ledger_api.get(f"/v2/parties/{alice}")).json()["partyDetails"][0]["localMetadata"][
        "resourceVersion"
    ]
    r = await patch(
        ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], {"a": "1"}, version)
    )
    assert r.status_code == 200, r.text
    r = await patch(
        ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], {"a": "2"}, version)
    )
    body = assert_error(r, 409, "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED")
    assert (
        body["cause"]
        == f"Update operation for party '{alice}' failed due to a concurrent update to the same party"
    )
    r = await patch(ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], version="x"))
    assert_error(r, 400, "INVALID_FIELD")


@pytest.mark.parametrize(
    "paths, extra, reason",
    [
        ([], {}, "The update mask contains no entries"),
        (["display_name"], {}, "The update path: 'display_name' points to an unknown field."),
        (["local_metadata", "local_metadata"], {}, "The update path: 'local_metadata' is duplicated."),
        (
            ["is_local"],
            {"isLocal": False},
            "Update request attempted to modify not-modifiable 'is_local' attribute",
        ),
    ],
)
async def test_update_party_invalid_requests(ledger_api, alice_bob, paths, extra, reason):
    alice, _ = alice_bob
    body = assert_error(
        await patch(ledger_api, f"/v2/parties/{alice}", party_patch(alice, paths, **extra)),
        400,
        "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
    )
    assert body["cause"] == f"Update operation for party '{alice}' failed due to: {reason}"


async def test_update_party_immutable_identity_provider(ledger_api, alice_bob):
    alice, _ = alice_bob
    assert (await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp")})).status_code == 200
    body = assert_error(
        await patch(
            ledger_api,
            f"/v2/parties/{alice}",
            party_patch(alice, ["identity_provider_id"], identityProviderId="corp"),
        ),
        400,
        "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
    )
    assert "Use UpdatePartyIdentityProviderId" in body["cause"]
    # naming is_local with the value it has is allowed
    r = await patch(
        ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["is_local", "local_metadata"], {"k": "v"})
    )
    assert r.status_code == 200, r.text


async def test_update_unknown_party(ledger_api, alice_bob):
    namespace = alice_bob[0].split("::", 1)[1]
    ghost = f"Ghost::{namespace}"
    body = assert_error(
        await patch(ledger_api, f"/v2/parties/{ghost}", party_patch(ghost, ["local_metadata"])),
        404,
        "PARTY_NOT_FOUND",
    )
    assert body["cause"] == f"Party: '{ghost}' was not found when updating a party record"


async def test_update_party_checks(ledger_api, alice_bob):
    alice, bob = alice_bob
    assert_error(
        await patch(ledger_api, f"/v2/parties/{alice}", party_patch(bob, ["local_metadata"])),
        400,
        "INVALID_ARGUMENT",
    )
    assert_error(
        await patch(ledger_api, f"/v2/parties/{alice}", {"partyDetails": {"party": alice}}),
        400,
        "MISSING_FIELD",
    )
    assert_error(
        await patch(
            ledger_api,
            f"/v2/parties/{alice}",
            party_patch(alice, ["local_metadata"], {"k": "v"}),
            user="Alice",
        ),
        403,
        "NA",
    )
    assert_error(
        await patch(ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"]), user=None),
        401,
        "NA",
    )
    big = {"a": "v" * (200 * 1024)}
    assert (
        await patch(ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], big))
    ).status_code == 200
    r = await patch(
        ledger_api, f"/v2/parties/{alice}", party_patch(alice, ["local_metadata"], {"b": "v" * (100 * 1024)})
    )
    assert_error(r, 400, "MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED")


# -- identity provider configs ------------------------------------------------------------------------------------


async def test_idp_crud(ledger_api):
    r = await ledger_api.get("/v2/idps")
    assert r.status_code == 200 and r.json() == {"identityProviderConfigs": []}
    r = await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp", audience="ledger")})
    assert r.status_code == 200, r.text
    created = r.json()["identityProviderConfig"]
    assert created == idp("corp", audience="ledger")
    assert (await ledger_api.get("/v2/idps/corp")).json() == {"identityProviderConfig": created}
    assert (await ledger_api.get("/v2/idps")).json() == {"identityProviderConfigs": [created]}
    r = await patch(
        ledger_api,
        "/v2/idps/corp",
        {
            "identityProviderConfig": idp(
                "corp", issuer="https://new.example", isDeactivated=True, audience=""
            ),
            "updateMask": {"paths": ["issuer", "is_deactivated"]},
        },
    )
    assert r.status_code == 200, r.text
    updated = r.json()["identityProviderConfig"]
    assert updated["issuer"] == "https://new.example" and updated["isDeactivated"] is True
    assert updated["audience"] == "ledger"  # not in the mask
    r = await ledger_api.call("DELETE", "/v2/idps/corp")
    assert r.status_code == 200 and r.json() == {}
    body = assert_error(await ledger_api.get("/v2/idps/corp"), 404, "IDP_CONFIG_NOT_FOUND")
    assert body["cause"] == 'getting identity provider config failed for unknown identity provider id="corp"'


async def test_idps_survive_a_restart(tmp_path):
    for step in range(2):
        app = create_app(settings_for(tmp_path / "idps.db"))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http,
        ):
            ledger_api = LedgerApi(http)
            if step == 0:
                assert (
                    await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp")})
                ).status_code == 200
            else:
                assert (await ledger_api.get("/v2/idps/corp")).json()["identityProviderConfig"] == idp("corp")


async def test_idp_errors(ledger_api, alice_bob):
    assert (await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp")})).status_code == 200
    body = assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp", "https://x.example")}),
        409,
        "IDP_CONFIG_ALREADY_EXISTS",
    )
    assert (
        body["cause"]
        == 'creating identity provider config failed, as identity provider "corp" already exists'
    )
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("other", "https://corp.example")}),
        409,
        "IDP_CONFIG_ISSUER_ALREADY_EXISTS",
    )
    assert_error(await ledger_api.post("/v2/idps", {}), 400, "MISSING_FIELD")
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("x", jwksUrl="not a url")}),
        400,
        "INVALID_FIELD",
    )
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": {**idp("x"), "issuer": ""}}),
        400,
        "MISSING_FIELD",
    )
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("bad id!")}), 400, "INVALID_FIELD"
    )
    r = await patch(
        ledger_api, "/v2/idps/corp", {"identityProviderConfig": idp("corp"), "updateMask": {"paths": ["x"]}}
    )
    body = assert_error(r, 400, "INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST")
    assert body["cause"] == (
        "Update operation for identity provider config 'corp' failed due to: "
        "The update path: 'x' points to an unknown field."
    )
    r = await patch(
        ledger_api, "/v2/idps/corp", {"identityProviderConfig": idp("other"), "updateMask": {"paths": ["x"]}}
    )
    assert_error(r, 400, "INVALID_ARGUMENT")
    r = await patch(
        ledger_api,
        "/v2/idps/nope",
        {"identityProviderConfig": idp("nope"), "updateMask": {"paths": ["audience"]}},
    )
    assert_error(r, 404, "IDP_CONFIG_NOT_FOUND")
    assert_error(await ledger_api.call("DELETE", "/v2/idps/nope"), 404, "IDP_CONFIG_NOT_FOUND")
    for i in range(9):
        r = await ledger_api.post("/v2/idps", {"identityProviderConfig": idp(f"idp{i}")})
        assert r.status_code == 200, r.text
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("one-too-many")}),
        400,
        "TOO_MANY_IDENTITY_PROVIDER_CONFIGS",
    )
    # participant admins only
    assert_error(await ledger_api.get("/v2/idps", user="Alice"), 403, "NA")
    assert_error(await ledger_api.get("/v2/idps/corp", user="Alice"), 403, "NA")
    assert_error(
        await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("y")}, user="Alice"), 403, "NA"
    )
    assert_error(await ledger_api.call("DELETE", "/v2/idps/corp", user="Alice"), 403, "NA")
    assert_error(await ledger_api.get("/v2/idps", user=None), 401, "NA")


async def test_users_and_parties_name_existing_providers(ledger_api):
    assert_error(
        await ledger_api.post("/v2/parties", {"partyIdHint": "P", "identityProviderId": "nope"}),
        400,
        "INVALID_ARGUMENT",
    )
    body = assert_error(
        await ledger_api.post("/v2/users", {"user": {"id": "u", "identityProviderId": "nope"}}),
        400,
        "INVALID_ARGUMENT",
    )
    assert body["cause"].endswith("Provided identity_provider_id nope has not been found.")
    assert (await ledger_api.post("/v2/idps", {"identityProviderConfig": idp("corp")})).status_code == 200
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "P", "identityProviderId": "corp"})
    assert r.status_code == 200 and r.json()["partyDetails"]["identityProviderId"] == "corp"
    r = await ledger_api.post("/v2/users", {"user": {"id": "u", "identityProviderId": "corp"}})
    assert r.status_code == 200 and r.json()["user"]["identityProviderId"] == "corp"
    assert (await ledger_api.call("DELETE", "/v2/users/u")).status_code == 200
    body = assert_error(
        await ledger_api.call("DELETE", "/v2/idps/corp"), 400, "INVALID_ARGUMENT"
    )  # party P is in it
    assert "still belong to identity provider corp" in body["cause"]


# -- packages ---------------------------------------------------------------------------------------------------


async def test_package_bytes_hash_to_the_package_id(ledger_api, alice_bob):
    package_ids = (await ledger_api.get("/v2/packages", user="Alice")).json()["packageIds"]
    for package_id in package_ids:
        r = await ledger_api.get(f"/v2/packages/{package_id}", user="Alice")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/octet-stream"
        assert r.headers["canton-package-hash"] == package_id == hashlib.sha256(r.content).hexdigest()
        description = json.loads(r.content)
        assert {"name", "version", "templates", "dataTypes"} <= set(description)


async def test_package_bytes_errors(ledger_api, alice_bob):
    body = assert_error(
        await ledger_api.get(f"/v2/packages/{'0' * 64}", user="Alice"), 404, "PACKAGE_NOT_FOUND"
    )
    assert body["resources"] == [["PACKAGE", "0" * 64]]
    assert_error(await ledger_api.get("/v2/packages/not!an!id", user="Alice"), 400, "INVALID_ARGUMENT")
    assert_error(await ledger_api.get(f"/v2/packages/{'0' * 64}", user=None), 401, "NA")


async def test_preferred_package_version(ledger_api, alice_bob):
    alice, _ = alice_bob
    package_id = (await ledger_api.get("/v2/packages")).json()["packageIds"][0]
    syncs = [
        s["synchronizerId"]
        for s in (await ledger_api.get("/v2/state/connected-synchronizers")).json()["connectedSynchronizers"]
    ]
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version",
        user="Alice",
        params={"package-name": "model-tests", "parties": [alice]},
    )
    assert r.status_code == 200, r.text
    preference = r.json()["packagePreference"]
    assert preference["packageReference"] == {
        "packageId": package_id,
        "packageName": "model-tests",
        "packageVersion": "1.0.0",
    }
    assert preference["synchronizerId"] == syncs[0]
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version",
        user="Alice",
        params={"package-name": "model-tests", "synchronizer-id": syncs[-1]},
    )
    assert r.json()["packagePreference"]["synchronizerId"] == syncs[-1]
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version",
        user="Alice",
        params={"package-name": "no-such-package"},
    )
    assert r.status_code == 200 and r.json() == {
        "packagePreference": None
    }  # null, as Canton prints a missing one
    r = await ledger_api.get("/v2/interactive-submission/preferred-package-version", user="Alice")
    assert r.status_code == 400 and r.text.startswith("Invalid value for: query parameter package-name")
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version",
        user="Alice",
        params={"package-name": "model-tests", "synchronizer-id": "nowhere::1220ab"},
    )
    assert_error(r, 400, "INVALID_ARGUMENT")
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version",
        user=None,
        params={"package-name": "model-tests"},
    )
    assert_error(r, 401, "NA")


async def test_preferred_packages(ledger_api, alice_bob):
    alice, bob = alice_bob
    requirement = {"packageName": "model-tests", "parties": [alice, bob]}
    r = await ledger_api.post(
        "/v2/interactive-submission/preferred-packages",
        {"packageVettingRequirements": [requirement]},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    assert [p["packageName"] for p in r.json()["packageReferences"]] == ["model-tests"]
    r = await ledger_api.post(
        "/v2/interactive-submission/preferred-packages",
        {"packageVettingRequirements": [requirement, {"packageName": "unknown-name", "parties": [alice]}]},
        user="Alice",
    )
    body = assert_error(r, 400, "NO_PREFERRED_PACKAGES_FOUND")
    assert body["cause"].startswith("Failed to compute package preferences. Reason: ")
    r = await ledger_api.post(
        "/v2/interactive-submission/preferred-packages", {"packageVettingRequirements": []}, user="Alice"
    )
    assert_error(r, 400, "MISSING_FIELD")
    r = await ledger_api.post(
        "/v2/interactive-submission/preferred-packages",
        {"packageVettingRequirements": [requirement], "vettingValidAt": "yesterday"},
        user="Alice",
    )
    assert r.status_code == 400 and r.text.startswith("Invalid value for: body")


# -- what this participant cannot be ----------------------------------------------------------------------------

UNSUPPORTED = [
    ("GET", "/v2/package-vetting", "any"),
    ("POST", "/v2/package-vetting", "admin"),
    ("POST", "/v2/package-vetting/list", "any"),
    ("POST", "/v2/package-vetting/update", "admin"),
    ("POST", "/v2/interactive-submission/prepare", "any"),
    ("POST", "/v2/interactive-submission/execute", "any"),
    ("POST", "/v2/interactive-submission/executeAndWait", "any"),
    ("POST", "/v2/interactive-submission/executeAndWaitForTransaction", "any"),
    ("POST", "/v2/parties/external/allocate", "any"),
    ("POST", "/v2/parties/external/generate-topology", "any"),
]


@pytest.mark.parametrize("method, path, rights", UNSUPPORTED, ids=[f"{m} {p}" for m, p, _ in UNSUPPORTED])
async def test_unsupported_endpoints_say_why(ledger_api, alice_bob, method, path, rights):
    r = await ledger_api.call(method, path, json={}, user=None)
    assert_error(r, 401, "NA")
    r = await ledger_api.call(method, path, json={}, user="Alice")
    if rights == "admin":
        assert_error(r, 403, "NA")
        r = await ledger_api.call(method, path, json={})
    assert r.status_code == 501, r.text
    body = r.json()
    assert body["code"].startswith("Method not found: com.daml.ledger.api.v2.")
    assert body["errorCategory"] == -1 and body["grpcCodeValue"] == 12
    assert body["cause"].startswith("UNIMPLEMENTED: Method not found: ")
    assert "Not supported by this participant: " in body["cause"]


async def test_unsupported_endpoints_decode_json_bodies_first(ledger_api):
    r = await ledger_api.call("POST", "/v2/interactive-submission/prepare", content=b"{not json", user=None)
    assert r.status_code == 400 and r.text.startswith("Invalid value for: body")
