"""`Reassigner` follows a reassignment through the completions. Against a real participant: a move and back, and
synchronous refusals. Faked (what a remote participant may do): a failure that only the completion tells, an answer
lost after the participant accepted, and a completion that never comes."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from app.client import LedgerClient, event_format
from app.client.acs import read_snapshot
from app.reassign import FAILED, SUCCEEDED, UNKNOWN, Reassigner, split_status
from tests.client.conftest import mock_client
from tests.conftest import SECRET, start_demo_server

ALICE = "Alice::1220" + "ab" * 32
GLOBAL, PRIVATE = "global::1220" + "01" * 32, "private::1220" + "02" * 32
SUBMIT = "/v2/commands/async/submit-reassignment"


@pytest.fixture
def participant(tmp_path):
    server = start_demo_server(tmp_path / "ledger.db")
    yield server
    server.stop()


async def _one_of_alices(client: LedgerClient, party: str) -> tuple[str, str]:
    """A contract of Alice's that is active (not in flight), with its synchronizer."""
    offset = await client.ledger_end()
    async for batch in read_snapshot(client, offset, event_format([party])):
        for entry in batch.entries:
            active = entry["contractEntry"].get("JsActiveContract")
            if active is not None:
                return active["createdEvent"]["contractId"], active["synchronizerId"]
    raise AssertionError("Alice has no active contract")


async def test_a_move_and_back_against_a_real_participant(participant):
    from app.tokens import MintedToken

    async with LedgerClient(participant.url, MintedToken(SECRET, "Alice")) as client:
        user = await client.authenticated_user()
        synchronizers = [s.synchronizer_id for s in await client.connected_synchronizers(user.primary_party)]
        cid, source = await _one_of_alices(client, user.primary_party)
        target = next(s for s in synchronizers if s != source)
        seen = []
        reassigner = Reassigner(client, user.id, lambda step: seen.append(step.state))
        there = await reassigner.move([cid], source, target, user.primary_party)
        assert [s.state for s in there] == [SUCCEEDED, SUCCEEDED]
        assert there[0].reassignment_id.startswith("00") and there[1].contract_ids == [cid]
        assert seen[:2] == ["submitting", "submitted"]
        back = await reassigner.move([cid], target, source, user.primary_party)
        assert [s.state for s in back] == [SUCCEEDED, SUCCEEDED]
        assert back[0].reassignment_id != there[0].reassignment_id

        # refused at once: the contract is not on that synchronizer (it is back on `source`)
        refused = await reassigner.unassign([cid], target, source, user.primary_party)
        assert refused.state == FAILED and refused.error is not None and refused.error_id
        assert refused.offset is None
        # and an assign of a reassignment that is complete already
        again = await reassigner.assign(back[0].reassignment_id, target, source, user.primary_party)
        assert again.state == FAILED and again.error_id


def _completion(command_id: str, offset: int, *, failure: str = "") -> dict:
    status = {"code": 3, "message": failure, "details": []} if failure else None
    return {
        "completionResponse": {
            "Completion": {
                "value": {
                    "commandId": command_id,
                    "status": status,
                    "updateId": "" if failure else "upd-1",
                    "userId": "Alice",
                    "actAs": [ALICE],
                    "submissionId": "s1",
                    "offset": offset,
                    "synchronizerTime": {"synchronizerId": PRIVATE, "recordTime": "2026-01-15T09:30:00Z"},
                }
            }
        }
    }


def _stand_in(*, completion=None, lose_first_answer: bool = False):
    """A participant that accepts every reassignment and answers the completions with `completion(command_id)`."""
    state: dict[str, Any] = {"submitted": [], "lost": False}

    def handler(request):
        path = request.url.path
        if path == "/v2/state/ledger-end":
            return _json({"offset": 10})
        if path == SUBMIT:
            body = orjson.loads(request.content)
            state["submitted"].append(body["reassignmentCommands"]["commandId"])
            if lose_first_answer and not state["lost"]:
                state["lost"] = True  # it arrived; the answer did not
                raise httpx.ReadError("connection reset by peer")
            if lose_first_answer and len(state["submitted"]) > 1:
                return _json(DUPLICATE, 409)  # the participant deduplicates the retry
            return _json({})
        if path == "/v2/commands/completions":
            command_ids = state["submitted"]
            return _json([completion(command_ids[-1])] if completion and command_ids else [])
        return _json({"code": "NOT_FOUND"}, 404)

    return handler, state


DUPLICATE: dict[str, Any] = {
    "code": "DUPLICATE_COMMAND",
    "cause": "A command with the given command id has already been successfully processed",
    "correlationId": None,
    "traceId": None,
    "context": {},
    "resources": [],
    "errorCategory": 10,
    "grpcCodeValue": 6,
    "retryInfo": None,
    "definiteAnswer": None,
}


def _json(data, status: int = 200):
    return httpx.Response(status, content=orjson.dumps(data), headers={"content-type": "application/json"})


async def test_a_failure_only_the_completion_tells():
    message = (
        "INVALID_ARGUMENT(8,c755de34): The submitted request has invalid arguments: Cannot find reassignment "
        "data for reassignment `00ab`: reassignment already completed"
    )
    handler, _ = _stand_in(completion=lambda cid: _completion(cid, 11, failure=message))
    async with mock_client(handler) as client:
        step = await Reassigner(client, "Alice").assign("00ab", GLOBAL, PRIVATE, ALICE)
    assert step.state == FAILED and step.offset == 11
    assert step.error_id == "INVALID_ARGUMENT" and step.cause.startswith("The submitted request has invalid")
    assert (
        step.error is None
    )  # not a refused request: the participant accepted it and reported the failure later


async def test_an_answer_lost_after_acceptance_is_retried_with_the_same_command_id():
    handler, state = _stand_in(completion=lambda cid: _completion(cid, 12), lose_first_answer=True)
    async with mock_client(handler) as client:
        step = await Reassigner(client, "Alice").assign("00ab", GLOBAL, PRIVATE, ALICE)
    assert step.state == SUCCEEDED and step.offset == 12
    assert len(state["submitted"]) == 2 and len(set(state["submitted"])) == 1


async def test_a_completion_that_never_comes_ends_as_unknown():
    handler, _ = _stand_in(completion=None)
    async with mock_client(handler) as client:
        step = await Reassigner(client, "Alice", follow_timeout_s=0.3).assign("00ab", GLOBAL, PRIVATE, ALICE)
    assert step.state == UNKNOWN and step.command_id in step.cause


def test_status_messages_split_into_error_id_and_cause():
    assert split_status("UNKNOWN_CONTRACT_SYNCHRONIZERS(9,0a1b): cause here") == (
        "UNKNOWN_CONTRACT_SYNCHRONIZERS",
        "cause here",
    )
    assert split_status("something else") == ("", "something else")
