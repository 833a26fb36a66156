"""A submission whose answer is lost: the client retries with the same commandId, the participant refuses the
duplicate, and the client reads the transaction of the attempt that went through instead of reporting a failure."""

from __future__ import annotations

import os

import httpx
import pytest

from app.client import LedgerClient, errors
from app.tokens import MintedToken
from participant.api import Command, CreateCommand, JsCommands
from tests.client.conftest import FAST_RETRY
from tests.conftest import SECRET

SUBMIT = "/v2/commands/submit-and-wait-for-transaction"


class LosesFirstAnswer(httpx.AsyncBaseTransport):
    """Forwards every request to the real participant, but breaks the connection instead of delivering the first
    submission's answer (after the participant committed it)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.submissions = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path == SUBMIT:
            self.submissions += 1
            if self.submissions == 1:
                await response.aread()
                raise httpx.ReadError("connection reset by peer", request=request)
        return response


def _create(party: str) -> JsCommands:
    iou = {"issuer": party, "owner": party, "currency": "CHF", "amount": "7.5", "observers": []}
    return JsCommands(
        commands=[Command.of(CreateCommand(template_id="#model-tests:Iou:Iou", create_arguments=iou))],
        command_id=f"retry-{os.urandom(6).hex()}",
        act_as=[party],
    )


async def test_a_lost_answer_is_recovered_from_the_completions(participant):
    transport = LosesFirstAnswer()
    client = LedgerClient(
        participant.url, MintedToken(SECRET, "Alice"), retry=FAST_RETRY, transport=transport
    )
    try:
        alice = (await client.authenticated_user()).primary_party
        end_before = await client.ledger_end()
        tx = await client.submit_and_wait_for_transaction(_create(alice))
        assert transport.submissions == 2  # the retry was refused as a duplicate...
        assert tx.offset > end_before  # ...and the transaction of the first attempt came back
        created = [e.created_event for e in tx.events if e.created_event is not None]
        assert len(created) == 1 and created[0].create_argument["currency"] == "CHF"
        assert await client.ledger_end() == tx.offset  # the command ran once
    finally:
        await client.aclose()


async def test_a_duplicate_without_an_earlier_attempt_is_reported(participant):
    client = LedgerClient(participant.url, MintedToken(SECRET, "Alice"), retry=FAST_RETRY)
    try:
        alice = (await client.authenticated_user()).primary_party
        commands = _create(alice)
        await client.submit_and_wait_for_transaction(commands)
        with pytest.raises(errors.Conflict) as refused:
            await client.submit_and_wait_for_transaction(commands)
        assert refused.value.code == "DUPLICATE_COMMAND"
    finally:
        await client.aclose()
