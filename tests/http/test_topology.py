"""Party allocations are topology transactions: each takes the next offset, and an update format that includes
topology events shows its `ParticipantAuthorizationAdded` to those who may read the party, in the streams, pages
and lookups alike; other formats skip it."""

from __future__ import annotations

from participant.api import JsGetUpdateResponse, JsGetUpdatesResponse
from participant.base.timestamps import parse_timestamp
from tests.http.helpers import assert_error, update_format


def topology(*parties: str) -> dict:
    return {"includeTopologyEvents": {"includeParticipantAuthorizationEvents": {"parties": list(parties)}}}


async def _participant_id(ledger_api) -> str:
    return (await ledger_api.get("/v2/parties/participant-id")).json()["participantId"]


async def test_an_allocation_is_a_topology_transaction_at_the_next_offset(ledger_api, reader):
    before = await ledger_api.ledger_end()
    alice = await ledger_api.party("Alice")
    end = await ledger_api.ledger_end()
    assert end == before + 1
    r = await ledger_api.post(
        "/v2/updates",
        {"beginExclusive": before, "endInclusive": end, "updateFormat": topology(alice)},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    (update,) = r.json()
    read = JsGetUpdatesResponse.read(update).update  # what the terminal client reads
    assert read is not None and read.value.value.offset == end
    tx = update["update"]["TopologyTransaction"]["value"]
    assert tx["offset"] == end and tx["updateId"].startswith("1220")
    assert tx["events"] == [
        {
            "event": {
                "ParticipantAuthorizationAdded": {
                    "value": {
                        "partyId": alice,
                        "participantId": await _participant_id(ledger_api),
                        "participantPermission": "PARTICIPANT_PERMISSION_SUBMISSION",
                    }
                }
            }
        }
    ]
    syncs = (await ledger_api.get("/v2/state/connected-synchronizers")).json()["connectedSynchronizers"]
    assert tx["synchronizerId"] == syncs[0]["synchronizerId"]

    by_offset = await ledger_api.post(
        "/v2/updates/update-by-offset", {"offset": end, "updateFormat": topology(alice)}, user="Alice"
    )
    assert by_offset.status_code == 200, by_offset.text
    assert by_offset.json()["update"]["TopologyTransaction"]["value"] == tx
    read_one = JsGetUpdateResponse.read(by_offset.json()).update
    assert read_one is not None and read_one.tag == "TopologyTransaction"
    by_id = await ledger_api.post(
        "/v2/updates/update-by-id", {"updateId": tx["updateId"], "updateFormat": topology()}, user=reader
    )
    assert by_id.status_code == 200, by_id.text
    assert by_id.json()["update"]["TopologyTransaction"]["value"] == tx

    # A format without topology events skips it: the stream has nothing there, the lookup finds nothing.
    r = await ledger_api.post(
        "/v2/updates",
        {"beginExclusive": before, "endInclusive": end, "updateFormat": update_format(alice)},
        user="Alice",
    )
    assert r.status_code == 200 and r.json() == []
    assert_error(
        await ledger_api.post(
            "/v2/updates/update-by-offset",
            {"offset": end, "updateFormat": update_format(alice)},
            user="Alice",
        ),
        404,
        "UPDATE_NOT_FOUND",
    )


async def test_topology_events_are_filtered_by_party_and_need_read_rights(ledger_api, reader):
    before = await ledger_api.ledger_end()
    alice = await ledger_api.party("Alice")
    bob = await ledger_api.party("Bob")
    end = await ledger_api.ledger_end()
    assert end == before + 2

    async def hosted(fmt: dict, user: str) -> list[str]:
        r = await ledger_api.post(
            "/v2/updates", {"beginExclusive": before, "endInclusive": end, "updateFormat": fmt}, user=user
        )
        assert r.status_code == 200, r.text
        return [
            e["event"]["ParticipantAuthorizationAdded"]["value"]["partyId"]
            for u in r.json()
            for e in u["update"]["TopologyTransaction"]["value"]["events"]
        ]

    assert await hosted(topology(bob), "Bob") == [bob]
    assert await hosted(topology(), reader) == [alice, bob]  # every party's: read as any party
    assert_error(
        await ledger_api.post(
            "/v2/updates",
            {"beginExclusive": before, "endInclusive": end, "updateFormat": topology(alice)},
            user="Bob",
        ),
        403,
        "NA",
    )
    assert_error(
        await ledger_api.post(
            "/v2/updates",
            {"beginExclusive": before, "endInclusive": end, "updateFormat": topology()},
            user="Alice",
        ),
        403,
        "NA",
    )


async def test_an_allocation_on_a_named_synchronizer_is_reported_there_and_a_refused_one_takes_no_offset(
    ledger_api, reader
):
    syncs = (await ledger_api.get("/v2/state/connected-synchronizers")).json()["connectedSynchronizers"]
    private = syncs[1]["synchronizerId"]
    before = await ledger_api.ledger_end()
    r = await ledger_api.post("/v2/parties", {"partyIdHint": "Carol", "synchronizerId": private})
    assert r.status_code == 200, r.text
    carol = r.json()["partyDetails"]["party"]
    r = await ledger_api.post(
        "/v2/updates/update-by-offset", {"offset": before + 1, "updateFormat": topology(carol)}, user=reader
    )
    assert r.status_code == 200, r.text
    assert r.json()["update"]["TopologyTransaction"]["value"]["synchronizerId"] == private
    assert_error(await ledger_api.post("/v2/parties", {"partyIdHint": "Carol"}), 400, "INVALID_ARGUMENT")
    assert await ledger_api.ledger_end() == before + 1


async def test_record_times_grow_with_offsets_across_allocations_and_transactions(ledger_api, reader):
    before = await ledger_api.ledger_end()
    alice = await ledger_api.party("Alice")
    await ledger_api.create_iou(alice, alice, user="Alice")
    await ledger_api.party("Bob")
    fmt = {**update_format(alice), **topology()}
    r = await ledger_api.post("/v2/updates", {"beginExclusive": before, "updateFormat": fmt}, user=reader)
    assert r.status_code == 200, r.text
    kinds = [next(iter(u["update"])) for u in r.json()]
    assert kinds == ["TopologyTransaction", "Transaction", "TopologyTransaction"]
    values = [next(iter(u["update"].values()))["value"] for u in r.json()]
    assert [v["offset"] for v in values] == [before + 1, before + 2, before + 3]
    times = [parse_timestamp(v["recordTime"]) for v in values]
    assert times == sorted(times)
