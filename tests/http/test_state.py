"""State service over HTTP: the active contract set (list and page forms), ledger end, pruning, synchronizers."""

from __future__ import annotations

import base64

import pytest

from tests.http.helpers import (
    ACS_PAGE,
    IOU,
    TRANSFER,
    acs,
    acs_body,
    assert_bad_body,
    assert_error,
    cids,
    commands,
    create,
    created_cid,
    created_events,
    event_format,
    iou_args,
    submit_tx,
    template,
    wildcard,
)


async def iou(ledger_api, issuer: str, owner: str, amount: str = "10.0", *, user: str, **kw) -> str:
    return created_cid(await ledger_api.create_iou(issuer, owner, amount, user=user, **kw))


async def acs_ok(ledger_api, body: dict, *, user: str, params: dict | None = None) -> list[dict]:
    r = await acs(ledger_api, body, user=user, params=params)
    assert r.status_code == 200, r.text
    return r.json()


# -- offsets ---------------------------------------------------------------------------------------------------


async def test_offset_zero_is_empty(ledger_api, alice_bob):
    alice, _ = alice_bob
    await iou(ledger_api, alice, alice, user="Alice")
    assert await acs_ok(ledger_api, acs_body(0, event_format(alice)), user="Alice") == []


async def test_offset_after_ledger_end(ledger_api, alice_bob):
    alice, _ = alice_bob
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end + 1, event_format(alice)), user="Alice")
    body = assert_error(r, 400, "OFFSET_AFTER_LEDGER_END")
    assert body["errorCategory"] == 12
    assert f"({end + 1})" in body["cause"] and f"({end})" in body["cause"]


async def test_negative_offset(ledger_api, alice_bob):
    alice, _ = alice_bob
    assert_error(
        await acs(ledger_api, acs_body(-1, event_format(alice)), user="Alice"), 400, "NEGATIVE_OFFSET"
    )


async def test_older_offset_shows_the_contracts_active_then(ledger_api, alice_bob):
    alice, bob = alice_bob
    first = await iou(ledger_api, alice, alice, "1.0", user="Alice")
    at = await ledger_api.ledger_end()
    r = await ledger_api.exercise(IOU, first, "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice")
    assert r.status_code == 200, r.text
    later = await iou(ledger_api, alice, alice, "2.0", user="Alice")
    then = await acs_ok(ledger_api, acs_body(at, event_format(alice)), user="Alice")
    now = await acs_ok(ledger_api, acs_body(await ledger_api.ledger_end(), event_format(alice)), user="Alice")
    assert cids(then) == [first]
    assert first not in cids(now) and later in cids(now)


# -- the legacy filter / verbose pair -------------------------------------------------------------------------


def legacy_filter(*parties: str) -> dict:
    fmt = event_format(*parties)
    return {"filtersByParty": fmt["filtersByParty"], "filtersForAnyParty": None}


async def test_legacy_filter_gives_the_same_answer_as_event_format(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = await iou(ledger_api, alice, alice, user="Alice")
    end = await ledger_api.ledger_end()
    legacy = await acs_ok(
        ledger_api, {"activeAtOffset": end, "filter": legacy_filter(alice), "verbose": True}, user="Alice"
    )
    modern = await acs_ok(ledger_api, acs_body(end, event_format(alice)), user="Alice")
    assert cids(legacy) == cids(modern) == [cid]
    assert created_events(legacy) == created_events(modern)


@pytest.mark.parametrize(
    "extra, words",
    [
        ({"filter": "legacy"}, "Both event_format and filter are set"),
        ({"verbose": True}, "Both event_format and verbose are set"),
    ],
)
async def test_event_format_excludes_the_legacy_fields(ledger_api, alice_bob, extra, words):
    alice, _ = alice_bob
    extra = {k: legacy_filter(alice) if v == "legacy" else v for k, v in extra.items()}
    r = await acs(
        ledger_api, acs_body(await ledger_api.ledger_end(), event_format(alice), **extra), user="Alice"
    )
    assert words in assert_error(r, 400, "INVALID_ARGUMENT")["cause"]


async def test_event_format_is_required_without_filter(ledger_api, alice_bob):
    r = await acs(ledger_api, {"activeAtOffset": 0, "verbose": False}, user="Alice")
    assert (
        "Either filter/verbose or event_format is required"
        in assert_error(r, 400, "INVALID_ARGUMENT")["cause"]
    )


# -- filters ---------------------------------------------------------------------------------------------------


async def test_party_filter_shows_only_contracts_of_the_party(ledger_api, alice_bob, duo):
    alice, bob = alice_bob
    shared = await iou(ledger_api, alice, bob, user=duo)
    await iou(ledger_api, bob, bob, user="Bob")
    ledger_end = await ledger_api.ledger_end()
    entries = await acs_ok(ledger_api, acs_body(ledger_end, event_format(alice)), user="Alice")
    assert cids(entries) == [shared]
    event = created_events(entries)[0]
    assert event["witnessParties"] == [alice]  # requested stakeholders only
    assert sorted(event["signatories"]) == sorted([alice, bob])
    entry = entries[0]["contractEntry"]["JsActiveContract"]
    assert entry["reassignmentCounter"] == 0 and entry["synchronizerId"]


async def test_template_filter_by_package_name(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = await iou(ledger_api, alice, alice, user="Alice")
    r = await ledger_api.exercise(
        IOU,
        await iou(ledger_api, alice, alice, user="Alice"),
        "Iou_Transfer",
        {"newOwner": bob},
        act_as=[alice],
        user="Alice",
    )
    assert r.status_code == 200, r.text
    end = await ledger_api.ledger_end()
    ious = await acs_ok(ledger_api, acs_body(end, event_format(alice, filters=[template(IOU)])), user="Alice")
    transfers = await acs_ok(
        ledger_api, acs_body(end, event_format(alice, filters=[template(TRANSFER)])), user="Alice"
    )
    assert cids(ious) == [cid]
    assert [e["templateId"].split(":", 1)[1] for e in created_events(transfers)] == ["Iou:IouTransfer"]


async def test_template_filter_with_a_package_id_is_refused(ledger_api, alice_bob):
    alice, _ = alice_bob
    tx = await ledger_api.create_iou(alice, alice, user="Alice")
    package_id_form = tx["events"][0]["CreatedEvent"]["templateId"]
    assert not package_id_form.startswith("#")
    r = await acs(
        ledger_api,
        acs_body(await ledger_api.ledger_end(), event_format(alice, filters=[template(package_id_form)])),
        user="Alice",
    )
    assert "expected a package name" in assert_error(r, 400, "INVALID_FIELD")["cause"]


@pytest.mark.parametrize(
    "template_id, code",
    [
        ("#model-tests:Iou:Nope", "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"),
        ("#no-such-package:Iou:Iou", "PACKAGE_NAMES_NOT_FOUND"),
    ],
)
async def test_template_filter_with_an_unknown_name(ledger_api, alice_bob, template_id, code):
    alice, _ = alice_bob
    r = await acs(ledger_api, acs_body(0, event_format(alice, filters=[template(template_id)])), user="Alice")
    assert_error(r, 404, code)


async def test_filters_for_any_party(ledger_api, alice_bob, reader):
    alice, bob = alice_bob
    a = await iou(ledger_api, alice, alice, user="Alice")
    b = await iou(ledger_api, bob, bob, user="Bob")
    body = acs_body(await ledger_api.ledger_end(), event_format(any_party=True))
    assert cids(await acs_ok(ledger_api, body, user=reader)) == [a, b]
    assert_error(await acs(ledger_api, body, user="Alice"), 403, "NA")


async def test_reading_as_a_foreign_party_is_denied(ledger_api, alice_bob):
    _, bob = alice_bob
    assert_error(await acs(ledger_api, acs_body(0, event_format(bob)), user="Alice"), 403, "NA")


async def test_created_event_blob_only_when_asked(ledger_api, alice_bob):
    alice, _ = alice_bob
    await iou(ledger_api, alice, alice, user="Alice")
    end = await ledger_api.ledger_end()
    for filters in ([wildcard(blob=True)], [template(IOU, blob=True)]):
        [event] = created_events(
            await acs_ok(ledger_api, acs_body(end, event_format(alice, filters=filters)), user="Alice")
        )
        assert base64.b64decode(event["createdEventBlob"])
    [event] = created_events(await acs_ok(ledger_api, acs_body(end, event_format(alice)), user="Alice"))
    assert event["createdEventBlob"] == ""


async def test_workflow_id_only_when_the_command_had_one(ledger_api, alice_bob):
    alice, _ = alice_bob
    await iou(ledger_api, alice, alice, user="Alice")
    r = await submit_tx(
        ledger_api, commands([alice], create(iou_args(alice, alice)), workflowId="wf-1"), user="Alice"
    )
    assert r.status_code == 200, r.text
    entries = await acs_ok(
        ledger_api, acs_body(await ledger_api.ledger_end(), event_format(alice)), user="Alice"
    )
    assert [e["workflowId"] for e in entries] == ["", "wf-1"]


async def test_entries_in_activation_order_as_acs_delta(ledger_api, alice_bob):
    alice, _ = alice_bob
    made = [await iou(ledger_api, alice, alice, str(n), user="Alice") for n in (3, 1, 2)]
    entries = await acs_ok(
        ledger_api, acs_body(await ledger_api.ledger_end(), event_format(alice)), user="Alice"
    )
    assert cids(entries) == made
    offsets = [e["offset"] for e in created_events(entries)]
    assert offsets == sorted(offsets)
    assert all(e["acsDelta"] for e in created_events(entries))


# -- limits and continuation -----------------------------------------------------------------------------------


async def test_limit_truncates_silently(ledger_api, alice_bob):
    alice, _ = alice_bob
    made = [await iou(ledger_api, alice, alice, user="Alice") for _ in range(3)]
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    assert cids(await acs_ok(ledger_api, body, user="Alice", params={"limit": 2})) == made[:2]


async def test_more_than_the_server_limit_is_413(small_ledger):
    alice = await small_ledger.party("Alice")
    for _ in range(4):
        await iou(small_ledger, alice, alice, user="Alice")
    body = acs_body(await small_ledger.ledger_end(), event_format(alice))
    err = assert_error(
        await acs(small_ledger, body, user="Alice"), 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED"
    )
    assert "(4) is greater than the node limit (3)" in err["cause"]
    assert err["retryInfo"] == "1 second" and err["errorCategory"] == 2
    assert len(await acs_ok(small_ledger, body, user="Alice", params={"limit": 3})) == 3
    # a client limit above the server's does not lift it
    assert_error(
        await acs(small_ledger, body, user="Alice", params={"limit": 100}),
        413,
        "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    )


async def test_bad_limit_query_parameter(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await acs(ledger_api, acs_body(0, event_format(alice)), user="Alice", params={"limit": "many"})
    assert "query parameter limit" in assert_bad_body(r)


async def test_continuation_token_resumes_after_its_element(ledger_api, alice_bob):
    alice, _ = alice_bob
    made = [await iou(ledger_api, alice, alice, user="Alice") for _ in range(4)]
    body = acs_body(await ledger_api.ledger_end(), event_format(alice))
    full = await acs_ok(ledger_api, body, user="Alice")
    assert all(e["streamContinuationToken"] for e in full)
    rest = await acs_ok(
        ledger_api, {**body, "streamContinuationToken": full[1]["streamContinuationToken"]}, user="Alice"
    )
    assert cids(rest) == made[2:]
    # paging with limit + token walks the whole snapshot
    walked, token = [], None
    while True:
        page = await acs_ok(
            ledger_api, {**body, "streamContinuationToken": token}, user="Alice", params={"limit": 3}
        )
        if not page:
            break
        walked += cids(page)
        token = page[-1]["streamContinuationToken"]
    assert walked == made


async def test_continuation_token_bound_to_offset_and_format(ledger_api, alice_bob):
    alice, _ = alice_bob
    await iou(ledger_api, alice, alice, user="Alice")
    end = await ledger_api.ledger_end()
    await iou(ledger_api, alice, alice, user="Alice")
    [entry] = await acs_ok(ledger_api, acs_body(end, event_format(alice)), user="Alice")
    token = entry["streamContinuationToken"]
    other_offset = acs_body(end + 1, event_format(alice), streamContinuationToken=token)
    assert_error(await acs(ledger_api, other_offset, user="Alice"), 400, "INVALID_CONTINUATION_TOKEN")
    other_format = acs_body(end, event_format(alice, filters=[template(IOU)]), streamContinuationToken=token)
    assert_error(await acs(ledger_api, other_format, user="Alice"), 400, "INVALID_CONTINUATION_TOKEN")


async def test_garbage_continuation_token(ledger_api, alice_bob):
    alice, _ = alice_bob
    garbage = base64.b64encode(b"not a token").decode()
    r = await acs(ledger_api, acs_body(0, event_format(alice), streamContinuationToken=garbage), user="Alice")
    assert "stream_continuation_token" in assert_error(r, 400, "INVALID_FIELD")["cause"]
    r = await acs(
        ledger_api, acs_body(0, event_format(alice), streamContinuationToken="%%% not base64"), user="Alice"
    )
    assert_bad_body(r)


# -- the page form (GET with a JSON body) ---------------------------------------------------------------------


async def page(ledger_api, body: dict, *, user: str):
    return await ledger_api.call("GET", ACS_PAGE, json=body, user=user)


async def test_page_defaults_to_ledger_end(ledger_api, alice_bob):
    alice, _ = alice_bob
    made = [await iou(ledger_api, alice, alice, user="Alice") for _ in range(2)]
    r = await page(ledger_api, {"eventFormat": event_format(alice)}, user="Alice")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["activeAtOffset"] == await ledger_api.ledger_end()
    assert cids(body["activeContracts"]) == made
    assert body["nextPageToken"] is None
    assert all(e["streamContinuationToken"] == "" for e in body["activeContracts"])


async def test_page_walk_gives_the_same_set_as_the_list(ledger_api, alice_bob):
    alice, _ = alice_bob
    for _ in range(5):
        await iou(ledger_api, alice, alice, user="Alice")
    end = await ledger_api.ledger_end()
    fmt = event_format(alice)
    listed = cids(await acs_ok(ledger_api, acs_body(end, fmt), user="Alice"))
    walked, token, pages = [], None, 0
    while True:
        r = await page(
            ledger_api,
            {"activeAtOffset": end, "eventFormat": fmt, "maxPageSize": 2, "pageToken": token},
            user="Alice",
        )
        assert r.status_code == 200, r.text
        pages += 1
        walked += cids(r.json()["activeContracts"])
        token = r.json()["nextPageToken"]
        if token is None:
            break
    assert walked == listed and len(listed) == 5
    assert pages == 3


@pytest.mark.parametrize(
    "size, words", [(0, "must be positive"), (-1, "must be positive"), (10001, "must not exceed 10000")]
)
async def test_page_size_bounds(ledger_api, alice_bob, size, words):
    alice, _ = alice_bob
    r = await page(ledger_api, {"eventFormat": event_format(alice), "maxPageSize": size}, user="Alice")
    assert words in assert_error(r, 400, "INVALID_ARGUMENT")["cause"]


async def test_page_max_size_10000_is_allowed(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await page(ledger_api, {"eventFormat": event_format(alice), "maxPageSize": 10000}, user="Alice")
    assert r.status_code == 200, r.text


async def test_page_token_bound_to_event_format(ledger_api, alice_bob):
    alice, _ = alice_bob
    for _ in range(2):
        await iou(ledger_api, alice, alice, user="Alice")
    r = await page(ledger_api, {"eventFormat": event_format(alice), "maxPageSize": 1}, user="Alice")
    token = r.json()["nextPageToken"]
    assert token
    r = await page(
        ledger_api,
        {"eventFormat": event_format(alice, filters=[template(IOU)]), "maxPageSize": 1, "pageToken": token},
        user="Alice",
    )
    assert_error(r, 400, "INVALID_ACS_PAGE_TOKEN")
    r = await page(
        ledger_api,
        {"eventFormat": event_format(alice), "pageToken": base64.b64encode(b"junk").decode()},
        user="Alice",
    )
    assert "page_token" in assert_error(r, 400, "INVALID_FIELD")["cause"]


async def test_page_needs_an_event_format(ledger_api, alice_bob):
    r = await page(ledger_api, {"maxPageSize": 5}, user="Alice")
    assert assert_error(r, 400, "MISSING_FIELD")["context"]["field_name"] == "event_format"


async def test_page_offset_after_ledger_end(ledger_api, alice_bob):
    alice, _ = alice_bob
    r = await page(
        ledger_api,
        {"activeAtOffset": await ledger_api.ledger_end() + 5, "eventFormat": event_format(alice)},
        user="Alice",
    )
    assert_error(r, 400, "OFFSET_AFTER_LEDGER_END")


async def test_page_is_get_only(ledger_api, alice_bob):
    r = await ledger_api.call("POST", ACS_PAGE, json={}, user="Alice")
    assert r.status_code == 405


# -- small state endpoints -------------------------------------------------------------------------------------


async def test_ledger_end_moves_with_each_transaction(ledger_api, alice_bob):
    alice, _ = alice_bob
    before = await ledger_api.ledger_end()
    tx = await ledger_api.create_iou(alice, alice, user="Alice")
    assert await ledger_api.ledger_end() == tx["offset"] == before + 1


async def test_ledger_end_of_a_fresh_ledger(ledger_api):
    r = await ledger_api.get("/v2/state/ledger-end")
    assert r.status_code == 200 and r.json() == {"offset": 0}
    assert_error(await ledger_api.get("/v2/state/ledger-end", user=None), 401, "NA")


async def test_latest_pruned_offsets_of_a_fresh_ledger(ledger_api):
    r = await ledger_api.get("/v2/state/latest-pruned-offsets")
    assert r.status_code == 200, r.text
    assert r.json() == {"participantPrunedUpToInclusive": 0, "allDivulgedContractsPrunedUpToInclusive": 0}


async def test_connected_synchronizers(ledger_api, alice_bob):
    alice, bob = alice_bob
    r = await ledger_api.get("/v2/state/connected-synchronizers")
    assert r.status_code == 200, r.text
    syncs = r.json()["connectedSynchronizers"]
    assert syncs and all(s["permission"] == "PARTICIPANT_PERMISSION_UNSPECIFIED" for s in syncs)
    assert all("::" in s["synchronizerId"] and s["synchronizerAlias"] for s in syncs)
    r = await ledger_api.get("/v2/state/connected-synchronizers", params={"party": alice}, user="Alice")
    assert r.status_code == 200, r.text
    assert {s["permission"] for s in r.json()["connectedSynchronizers"]} == {
        "PARTICIPANT_PERMISSION_SUBMISSION"
    }
    r = await ledger_api.get("/v2/state/connected-synchronizers", params={"party": bob}, user="Alice")
    assert_error(r, 403, "NA")


async def test_observer_sees_the_contract(ledger_api, alice_bob):
    alice, bob = alice_bob
    cid = await iou(ledger_api, bob, bob, user="Bob", observers=[alice])
    entries = await acs_ok(
        ledger_api, acs_body(await ledger_api.ledger_end(), event_format(alice)), user="Alice"
    )
    assert cids(entries) == [cid]
    assert created_events(entries)[0]["witnessParties"] == [alice]
    assert created_events(entries)[0]["observers"] == [alice]


async def test_omitted_offset_is_zero(ledger_api, alice_bob):
    alice, _ = alice_bob
    await iou(ledger_api, alice, alice, user="Alice")
    assert await acs_ok(ledger_api, {"eventFormat": event_format(alice)}, user="Alice") == []


async def test_page_offset_zero_means_ledger_end(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = await iou(ledger_api, alice, alice, user="Alice")
    r = await page(ledger_api, {"activeAtOffset": 0, "eventFormat": event_format(alice)}, user="Alice")
    assert r.status_code == 200, r.text
    assert r.json()["activeAtOffset"] == await ledger_api.ledger_end() and cids(
        r.json()["activeContracts"]
    ) == [cid]


async def test_page_walk_is_a_consistent_snapshot(ledger_api, alice_bob):
    alice, _ = alice_bob
    made = [await iou(ledger_api, alice, alice, user="Alice") for _ in range(3)]
    fmt = event_format(alice)
    first = (await page(ledger_api, {"eventFormat": fmt, "maxPageSize": 2}, user="Alice")).json()
    snapshot_at = first["activeAtOffset"]
    r = await ledger_api.exercise(
        IOU, made[0], "Iou_Settle", {}, act_as=[alice], user="Alice"
    )  # archived meanwhile
    assert r.status_code == 200, r.text
    await iou(ledger_api, alice, alice, user="Alice")  # created meanwhile
    second = (
        await page(
            ledger_api,
            {"eventFormat": fmt, "maxPageSize": 2, "pageToken": first["nextPageToken"]},
            user="Alice",
        )
    ).json()
    assert second["activeAtOffset"] == snapshot_at
    assert cids(first["activeContracts"]) + cids(second["activeContracts"]) == made
    assert second["nextPageToken"] is None
    # the token was made without an activeAtOffset: repeating it with one is a different request
    r = await page(
        ledger_api,
        {"activeAtOffset": snapshot_at, "eventFormat": fmt, "pageToken": first["nextPageToken"]},
        user="Alice",
    )
    assert_error(r, 400, "INVALID_ACS_PAGE_TOKEN")


async def test_page_reading_as_a_foreign_party_is_denied(ledger_api, alice_bob):
    _, bob = alice_bob
    assert_error(await page(ledger_api, {"eventFormat": event_format(bob)}, user="Alice"), 403, "NA")
    assert_error(
        await page(ledger_api, {"eventFormat": event_format(any_party=True)}, user="Alice"), 403, "NA"
    )


async def test_invalid_party_in_filter(ledger_api, alice_bob):
    r = await acs(ledger_api, acs_body(0, event_format("not a party!")), user="Alice")
    assert r.status_code == 400 and r.json()["code"] in {"INVALID_ARGUMENT", "INVALID_FIELD"}


async def test_empty_event_format(ledger_api, alice_bob):
    r = await acs(ledger_api, acs_body(0, event_format()), user="Alice")
    assert "cannot be empty simultaneously" in assert_error(r, 400, "INVALID_ARGUMENT")["cause"]


async def test_event_format_with_verbose_false_is_fine(ledger_api, alice_bob):
    alice, _ = alice_bob
    cid = await iou(ledger_api, alice, alice, user="Alice")
    body = acs_body(await ledger_api.ledger_end(), event_format(alice), verbose=False, filter=None)
    assert cids(await acs_ok(ledger_api, body, user="Alice")) == [cid]


async def test_legacy_verbose_alone_is_refused(ledger_api, alice_bob):
    r = await acs(ledger_api, {"activeAtOffset": 0, "verbose": True}, user="Alice")
    assert_error(r, 400, "INVALID_ARGUMENT")
