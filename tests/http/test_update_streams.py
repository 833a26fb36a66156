"""The update streams' list forms beyond /v2/updates (flats, trees), the tree lookups, submit-and-wait for a
tree, get-updates-page in both directions with every page-token error, and the list forms that wait for more
(completions, and updates without an end). Every JSON answer is checked against the spec by
`LedgerApi`."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from participant.services import updates_page
from tests.http.helpers import (
    IOU,
    LEDGER_EFFECTS,
    TRANSFER,
    assert_bad_body,
    assert_error,
    commands,
    create,
    create_and_exercise,
    created_cid,
    event_format,
    iou_args,
    template,
    update_format,
)

PAGE = "/v2/updates/get-updates-page"
WAIT = 20  # seconds a waiting request may take at most before the test gives up


def legacy(party: str, **kw) -> dict:
    fmt = event_format(party, **kw)
    return {"filtersByParty": fmt["filtersByParty"], "filtersForAnyParty": None}


def kinds(tx: dict) -> list[str]:
    return [next(iter(e)) for e in tx["events"]]


def tree_kinds(tree: dict) -> dict[int, str]:
    return {int(k): next(iter(v)) for k, v in tree["eventsById"].items()}


@pytest.fixture
async def nested(ledger_api, alice_bob) -> dict:
    """Alice splits a new Iou (one create-and-exercise: two creates under the exercise), then transfers a half."""
    alice, bob = alice_bob
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-transaction",
        {
            "commands": commands(
                [alice],
                create_and_exercise(iou_args(alice, alice, "100.0"), "Iou_Split", {"splitAmount": "40.0"}),
            )
        },
        user="Alice",
    )
    assert r.status_code == 200, r.text
    split = r.json()["transaction"]
    r = await ledger_api.exercise(
        IOU, created_cid(split), "Iou_Transfer", {"newOwner": bob}, act_as=[alice], user="Alice"
    )
    assert r.status_code == 200, r.text
    return {"split": split, "transfer": r.json()["transaction"]}


# --- flats and trees ---------------------------------------------------------------------------------------------


async def test_flats_are_acs_delta_and_trees_ledger_effects(ledger_api, alice_bob, nested):
    alice, _ = alice_bob
    body = {"beginExclusive": 0, "verbose": True, "filter": legacy(alice)}
    r = await ledger_api.post("/v2/updates/flats", body, user="Alice")
    assert r.status_code == 200, r.text
    flats = [u["update"]["Transaction"]["value"] for u in r.json()]
    assert [kinds(t) for t in flats] == [["CreatedEvent", "CreatedEvent"], ["ArchivedEvent", "CreatedEvent"]]
    r = await ledger_api.post("/v2/updates/trees", body, user="Alice")
    assert r.status_code == 200, r.text
    trees = [u["update"]["TransactionTree"]["value"] for u in r.json()]
    assert [t["updateId"] for t in trees] == [nested["split"]["updateId"], nested["transfer"]["updateId"]]
    split, transfer = trees
    assert tree_kinds(split) == {
        0: "CreatedTreeEvent",
        1: "ExercisedTreeEvent",
        2: "CreatedTreeEvent",
        3: "CreatedTreeEvent",
    }
    exercised = split["eventsById"]["1"]["ExercisedTreeEvent"]["value"]
    assert exercised["choice"] == "Iou_Split" and exercised["lastDescendantNodeId"] == 3
    assert tree_kinds(transfer) == {0: "ExercisedTreeEvent", 1: "CreatedTreeEvent"}
    assert transfer["eventsById"]["1"]["CreatedTreeEvent"]["value"]["templateId"].endswith(":Iou:IouTransfer")
    assert "events" not in split and split["commandId"]


async def test_tree_legacy_filter_gets_a_wildcard(ledger_api, alice_bob, nested):
    """Canton widens each party's legacy filter for trees: a template filter alone still shows every event."""
    alice, _ = alice_bob
    only_transfers = legacy(alice, filters=[template(TRANSFER)])
    r = await ledger_api.post(
        "/v2/updates/trees", {"beginExclusive": 0, "filter": only_transfers}, user="Alice"
    )
    assert r.status_code == 200, r.text
    assert len(r.json()) == 2 and len(r.json()[0]["update"]["TransactionTree"]["value"]["eventsById"]) == 4
    r = await ledger_api.post(
        "/v2/updates/flats", {"beginExclusive": 0, "filter": only_transfers}, user="Alice"
    )
    assert [kinds(u["update"]["Transaction"]["value"]) for u in r.json()] == [["CreatedEvent"]]


async def test_trees_with_an_update_format_and_their_errors(ledger_api, alice_bob, nested):
    alice, bob = alice_bob
    fmt = update_format(bob, shape=LEDGER_EFFECTS)
    r = await ledger_api.post("/v2/updates/trees", {"beginExclusive": 0, "updateFormat": fmt}, user="Bob")
    assert r.status_code == 200, r.text
    (only,) = r.json()  # Bob sees the transfer offered to him
    assert tree_kinds(only["update"]["TransactionTree"]["value"]) == {1: "CreatedTreeEvent"}
    both = {"beginExclusive": 0, "updateFormat": fmt, "filter": legacy(bob)}
    assert_error(await ledger_api.post("/v2/updates/trees", both, user="Bob"), 400, "INVALID_ARGUMENT")
    assert_error(
        await ledger_api.post("/v2/updates/flats", {"beginExclusive": 0}, user="Bob"), 400, "INVALID_ARGUMENT"
    )
    end = await ledger_api.ledger_end()
    r = await ledger_api.post(
        "/v2/updates/trees", {"beginExclusive": end + 1, "filter": legacy(bob)}, user="Bob"
    )
    assert_error(r, 400, "OFFSET_AFTER_LEDGER_END")
    r = await ledger_api.post("/v2/updates/flats", {"beginExclusive": 0, "filter": legacy(alice)}, user="Bob")
    assert_error(r, 403, "NA")
    assert_bad_body(await ledger_api.post("/v2/updates/trees", {"beginExclusive": "x"}, user="Bob"))


async def test_descending_order_needs_an_end(ledger_api, alice_bob, nested):
    alice, _ = alice_bob
    body = {"beginExclusive": 0, "descendingOrder": True, "updateFormat": update_format(alice)}
    body_error = assert_error(
        await ledger_api.post("/v2/updates", body, user="Alice"), 400, "DESCENDING_ORDER_MISSING_END"
    )
    assert body_error["cause"] == "end_inclusive is not provided when descending_order is true"
    end = await ledger_api.ledger_end()
    r = await ledger_api.post(
        "/v2/updates/trees",
        {**body, "endInclusive": end, "updateFormat": None, "filter": legacy(alice)},
        user="Alice",
    )
    offsets = [u["update"]["TransactionTree"]["value"]["offset"] for u in r.json()]
    assert offsets == sorted(offsets, reverse=True) and len(offsets) == 2


# --- tree lookups and submit-and-wait for a tree --------------------------------------------------------------


async def test_transaction_tree_by_offset_and_by_id(ledger_api, alice_bob, nested):
    alice, bob = alice_bob
    split = nested["split"]
    r = await ledger_api.get(
        f"/v2/updates/transaction-tree-by-offset/{split['offset']}", params={"parties": alice}, user="Alice"
    )
    assert r.status_code == 200, r.text
    tree = r.json()["transaction"]
    assert tree["updateId"] == split["updateId"] and len(tree["eventsById"]) == 4
    r = await ledger_api.get(
        f"/v2/updates/transaction-tree-by-id/{split['updateId']}", params={"parties": alice}, user="Alice"
    )
    assert r.status_code == 200 and r.json() == {"transaction": tree}
    # Bob witnesses only the offer of the transfer: the create, under an exercise he does not see
    r = await ledger_api.get(
        f"/v2/updates/transaction-tree-by-id/{nested['transfer']['updateId']}",
        params={"parties": bob},
        user="Bob",
    )
    assert tree_kinds(r.json()["transaction"]) == {1: "CreatedTreeEvent"}
    # errors
    base = "/v2/updates/transaction-tree-by-offset"
    assert_error(
        await ledger_api.get(f"{base}/{split['offset']}", params={"parties": bob}, user="Bob"),
        404,
        "UPDATE_NOT_FOUND",
    )
    assert_error(
        await ledger_api.get(f"{base}/0", params={"parties": alice}, user="Alice"), 400, "NON_POSITIVE_OFFSET"
    )
    assert_error(await ledger_api.get(f"{base}/{split['offset']}", user="Alice"), 400, "INVALID_ARGUMENT")
    assert_error(
        await ledger_api.get(f"{base}/{split['offset']}", params={"parties": alice}, user="Bob"), 403, "NA"
    )
    assert_bad_body(await ledger_api.get(f"{base}/seven", params={"parties": alice}, user="Alice"))
    by_id = "/v2/updates/transaction-tree-by-id"
    assert_error(
        await ledger_api.get(f"{by_id}/{'1220' + '0' * 64}", params={"parties": alice}, user="Alice"),
        404,
        "UPDATE_NOT_FOUND",
    )
    assert_error(
        await ledger_api.get(f"{by_id}/not-an-id", params={"parties": alice}, user="Alice"),
        400,
        "INVALID_ARGUMENT",
    )


async def test_submit_and_wait_for_transaction_tree(ledger_api, alice_bob):
    alice, _ = alice_bob
    cmds = commands([alice], create_and_exercise(iou_args(alice, alice), "Iou_Split", {"splitAmount": "1.0"}))
    r = await ledger_api.post("/v2/commands/submit-and-wait-for-transaction-tree", cmds, user="Alice")
    assert r.status_code == 200, r.text
    tree = r.json()["transactionTree"]
    assert tree_kinds(tree) == {
        0: "CreatedTreeEvent",
        1: "ExercisedTreeEvent",
        2: "CreatedTreeEvent",
        3: "CreatedTreeEvent",
    }
    assert tree["commandId"] == cmds["commandId"] and tree["offset"] == await ledger_api.ledger_end()
    r = await ledger_api.post("/v2/commands/submit-and-wait-for-transaction-tree", cmds, user="Alice")
    assert_error(r, 409, "DUPLICATE_COMMAND")
    r = await ledger_api.post(
        "/v2/commands/submit-and-wait-for-transaction-tree", commands([alice]), user="Alice"
    )
    assert_error(r, 400, "MISSING_FIELD")
    assert_bad_body(
        await ledger_api.post("/v2/commands/submit-and-wait-for-transaction-tree", {}, user="Alice")
    )


# --- get-updates-page ---------------------------------------------------------------------------------------


@pytest.fixture
async def five(ledger_api, alice_bob) -> list[int]:
    """Five Ious of Alice's, with one of Bob's in between: the offsets of Alice's."""
    alice, bob = alice_bob
    out = []
    for i in range(5):
        out.append((await ledger_api.create_iou(alice, alice, f"{i + 1}.0", user="Alice"))["offset"])
        if i == 2:
            await ledger_api.create_iou(bob, bob, user="Bob")
    return out


async def walk(ledger_api, body: dict, user: str, max_pages: int = 20) -> tuple[list[int], list[dict]]:
    """Follow the tokens until the last page: the offsets seen and every page."""
    pages: list[dict] = []
    token = None
    while len(pages) < max_pages:
        r = await ledger_api.post(PAGE, {**body, "pageToken": token}, user=user)
        assert r.status_code == 200, r.text
        pages.append(r.json())
        token = pages[-1]["nextPageToken"]
        if token is None:
            break
    seen = [u["update"]["Transaction"]["value"]["offset"] for p in pages for u in p["updates"]]
    return seen, pages


async def test_pages_ascending_with_an_end(ledger_api, alice_bob, five):
    alice, _ = alice_bob
    body = {"endOffsetInclusive": five[-1], "maxPageSize": 2, "updateFormat": update_format(alice)}
    seen, pages = await walk(ledger_api, body, "Alice")
    assert seen == five and len(pages) == 3
    assert pages[0]["lowestPageOffsetExclusive"] == 0
    for before, after in zip(pages, pages[1:], strict=False):
        assert after["lowestPageOffsetExclusive"] == before["highestPageOffsetInclusive"]
    assert pages[-1]["highestPageOffsetInclusive"] == five[-1]


async def test_pages_descending(ledger_api, alice_bob, five):
    alice, _ = alice_bob
    body = {"maxPageSize": 2, "descendingOrder": True, "updateFormat": update_format(alice)}
    seen, pages = await walk(ledger_api, body, "Alice")
    assert seen == five[::-1] and pages[-1]["nextPageToken"] is None
    assert pages[0]["highestPageOffsetInclusive"] == await ledger_api.ledger_end()
    assert pages[-1]["lowestPageOffsetExclusive"] == 0
    body = {**body, "beginOffsetExclusive": five[1], "endOffsetInclusive": five[3]}
    assert (await walk(ledger_api, body, "Alice"))[0] == [five[3], five[2]]


async def test_ascending_pages_without_an_end_tail_the_ledger(ledger_api, alice_bob, five):
    alice, _ = alice_bob
    body = {"maxPageSize": 10, "updateFormat": update_format(alice)}
    r = await ledger_api.post(PAGE, body, user="Alice")
    first = r.json()
    assert [u["update"]["Transaction"]["value"]["offset"] for u in first["updates"]] == five
    assert first["nextPageToken"] and first["highestPageOffsetInclusive"] == await ledger_api.ledger_end()
    r = await ledger_api.post(PAGE, {**body, "pageToken": first["nextPageToken"]}, user="Alice")
    empty = r.json()
    assert empty["updates"] == [] and empty["nextPageToken"]
    new = await ledger_api.create_iou(alice, alice, user="Alice")
    r = await ledger_api.post(PAGE, {**body, "pageToken": empty["nextPageToken"]}, user="Alice")
    page = r.json()
    assert [u["update"]["Transaction"]["value"]["updateId"] for u in page["updates"]] == [new["updateId"]]
    assert page["lowestPageOffsetExclusive"] == empty["highestPageOffsetInclusive"]


async def test_page_request_errors(ledger_api, alice_bob, five):
    alice, _ = alice_bob
    fmt = update_format(alice)
    end = await ledger_api.ledger_end()

    async def error(body: dict, status: int, code: str, user: str = "Alice") -> dict:
        return assert_error(await ledger_api.post(PAGE, body, user=user), status, code)

    await error({"updateFormat": fmt, "maxPageSize": 0}, 400, "INVALID_ARGUMENT")
    cause = (await error({"updateFormat": fmt, "maxPageSize": 2001}, 400, "INVALID_ARGUMENT"))["cause"]
    assert cause.endswith("Requested page size must not exceed 2000, but got 2001")
    await error({"updateFormat": fmt, "endOffsetInclusive": end + 1}, 400, "OFFSET_AFTER_LEDGER_END")
    cause = (
        await error(
            {"updateFormat": fmt, "beginOffsetExclusive": 3, "endOffsetInclusive": 2}, 400, "INVALID_ARGUMENT"
        )
    )["cause"]
    assert cause.endswith("beginOffsetExclusive is after endOffsetInclusive")
    await error({"updateFormat": fmt, "endOffsetInclusive": 0}, 400, "NON_POSITIVE_OFFSET")
    await error({"updateFormat": fmt, "beginOffsetExclusive": -1}, 400, "NEGATIVE_OFFSET")
    await error({}, 400, "MISSING_FIELD")
    await error({"updateFormat": fmt}, 403, "NA", user="Bob")
    assert_bad_body(await ledger_api.post(PAGE, {"updateFormat": fmt, "pageToken": "%%"}, user="Alice"))


async def test_every_page_token_error(ledger_api, alice_bob, five):
    alice, _ = alice_bob
    participant = (await ledger_api.get("/v2/parties/participant-id", user="Alice")).json()["participantId"]
    body = {"maxPageSize": 2, "endOffsetInclusive": five[-1], "updateFormat": update_format(alice)}
    first = (await ledger_api.post(PAGE, body, user="Alice")).json()
    token = updates_page.PageToken.decode(first["nextPageToken"])
    assert token.participant_checksum == updates_page.participant_checksum(participant)

    async def refused(changed: dict, detail: str, code: str = "INVALID_UPDATES_PAGE_TOKEN") -> None:
        r = await ledger_api.post(PAGE, {**body, **changed}, user="Alice")
        error = assert_error(r, 400, code)
        assert error["cause"].endswith(detail), error["cause"]

    def crafted(request: dict, **kw) -> str:
        from participant.api import GetUpdatesPageRequest

        fields = {
            "lowest": token.lowest,
            "highest": token.highest,
            "participant_checksum": token.participant_checksum,
            "request_checksum": updates_page.request_checksum(GetUpdatesPageRequest.model_validate(request)),
            **kw,
        }
        return updates_page.PageToken(**fields).encode()

    # every parameter the checksum covers
    for changed in (
        {"maxPageSize": 3},
        {"endOffsetInclusive": five[-2]},
        {"beginOffsetExclusive": 0},
        {"updateFormat": update_format(alice, verbose=True)},
    ):
        await refused(
            {**changed, "pageToken": first["nextPageToken"]},
            "Page token was obtained with different request parameters",
        )
    await refused(
        {"pageToken": crafted(body, version="2")},
        "Page continuation token was generated by a different Canton version",
    )
    await refused(
        {"pageToken": crafted(body, participant_checksum="0badc0de")},
        "Page token was obtained from an other participant node",
    )
    await refused({"pageToken": crafted(body, lowest=-1)}, "lowestPageOffsetExclusive bound is negative")
    await refused({"pageToken": crafted(body, highest=-5)}, "highestPageOffsetInclusive bound is negative")
    await refused(
        {"pageToken": crafted(body, highest=five[-1])}, "Page token not from descendingOrder=false request"
    )
    descending = {**body, "descendingOrder": True}
    await refused(
        {"descendingOrder": True, "pageToken": crafted(descending, lowest=0)},
        "Page token not from descendingOrder=true request",
    )
    await refused(
        {"pageToken": "dGhpcyBpcyBub3Qgb3Vycw=="},
        "Invalid field stream_continuation_token: Invalid continuation token for GetActiveContractsRequest",
        code="INVALID_FIELD",
    )


# --- list forms that wait ------------------------------------------------------------------------------------


async def test_completions_wait_for_a_new_one(ledger_api, alice_bob):
    alice, _ = alice_bob
    await ledger_api.create_iou(alice, alice, user="Alice")
    body = {"userId": "Alice", "parties": [alice], "beginExclusive": 0}
    # Waiting for two completions where there is one: it comes back with the second when it commits.
    waiting = asyncio.create_task(
        ledger_api.post(
            "/v2/commands/completions",
            body,
            user="Alice",
            params={"limit": 2, "stream_idle_timeout_ms": WAIT * 1000},
        )
    )
    await asyncio.sleep(0)  # let the request start waiting first (either order gives the same answer)
    cmds = commands([alice], create(iou_args(alice, alice)))
    r = await ledger_api.post("/v2/commands/submit-and-wait", cmds, user="Alice")
    assert r.status_code == 200, r.text
    async with asyncio.timeout(WAIT * 2):
        r = await waiting
    assert r.status_code == 200, r.text
    got = [c["completionResponse"]["Completion"]["value"] for c in r.json()]
    assert len(got) == 2 and got[1]["commandId"] == cmds["commandId"]


async def test_an_idle_completions_list_ends_after_the_timeout(ledger_api, alice_bob):
    alice, _ = alice_bob
    await ledger_api.create_iou(alice, alice, user="Alice")
    body = {"userId": "Alice", "parties": [alice], "beginExclusive": 0}
    async with asyncio.timeout(WAIT):
        r = await ledger_api.post(
            "/v2/commands/completions", body, user="Alice", params={"stream_idle_timeout_ms": 20}
        )
    assert r.status_code == 200 and len(r.json()) == 1
    async with asyncio.timeout(WAIT):  # and by default (half a second, as Canton's)
        r = await ledger_api.post(
            "/v2/commands/completions",
            {**body, "beginExclusive": await ledger_api.ledger_end()},
            user="Alice",
        )
    assert r.status_code == 200 and r.json() == []
    r = await ledger_api.post(
        "/v2/commands/completions", body, user="Alice", params={"stream_idle_timeout_ms": "x"}
    )
    assert_bad_body(r)


async def test_open_ended_updates_list_waits(ledger_api, alice_bob):
    alice, _ = alice_bob
    await ledger_api.create_iou(alice, alice, user="Alice")
    body = {"beginExclusive": 0, "updateFormat": update_format(alice)}
    waiting = asyncio.create_task(
        ledger_api.post(
            "/v2/updates", body, user="Alice", params={"limit": 2, "stream_idle_timeout_ms": WAIT * 1000}
        )
    )
    await asyncio.sleep(0)
    new = await ledger_api.create_iou(alice, alice, "2.0", user="Alice")
    async with asyncio.timeout(WAIT * 2):
        r = await waiting
    assert [u["update"]["Transaction"]["value"]["updateId"] for u in r.json()][1] == new["updateId"]
    async with asyncio.timeout(WAIT):  # idle for the default half second: what is there
        r = await ledger_api.post("/v2/updates", body, user="Alice")
    assert len(r.json()) == 2


async def test_pages_around_the_pruning_offset(ledger_api, alice_bob, tmp_path):
    """Canton's `TXPagedDynamicPruningInJustAfterThePageDescending`: a descending walk stops at the pruning offset
    that came between two pages; ascending pages start there, and refuse to begin before it."""
    alice, _ = alice_bob
    made = [
        (await ledger_api.create_iou(alice, alice, f"{i + 1}.0", user="Alice"))["offset"] for i in range(5)
    ]
    body = {"maxPageSize": 2, "descendingOrder": True, "updateFormat": update_format(alice)}
    first = (await ledger_api.post(PAGE, body, user="Alice")).json()
    assert [u["update"]["Transaction"]["value"]["offset"] for u in first["updates"]] == [made[4], made[3]]
    pruned = made[1]
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "participant.server.cli",
            "prune",
            "--db",
            str(tmp_path / "ledger.db"),
            "--up-to",
            str(pruned),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    second = (await ledger_api.post(PAGE, {**body, "pageToken": first["nextPageToken"]}, user="Alice")).json()
    assert [u["update"]["Transaction"]["value"]["offset"] for u in second["updates"]] == [made[2]]
    assert second["nextPageToken"] is None and second["lowestPageOffsetExclusive"] == pruned
    ascending = {"maxPageSize": 10, "updateFormat": update_format(alice)}
    page = (await ledger_api.post(PAGE, ascending, user="Alice")).json()
    assert page["lowestPageOffsetExclusive"] == pruned
    assert [u["update"]["Transaction"]["value"]["offset"] for u in page["updates"]] == made[2:]
    r = await ledger_api.post(PAGE, {**ascending, "beginOffsetExclusive": pruned - 1}, user="Alice")
    assert_error(r, 400, "PARTICIPANT_PRUNED_DATA_ACCESSED")
