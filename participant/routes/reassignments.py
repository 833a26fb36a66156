"""Reassignment submission: the asynchronous submit and submit-and-wait-for-reassignment (docs/ledger-api.md §4.5)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import SubmitAndWaitForReassignmentRequest, SubmitReassignmentRequest
from participant.routes.common import claims, context, decode, json, trace_context_of
from participant.services import submission


async def submit_reassignment(request: Request):
    """`{}` once the reassignment is accepted; its outcome, success or failure, is in the completions."""
    req = await decode(request, SubmitReassignmentRequest)
    c = await claims(request)
    return json(await submission.submit_reassignment(context(request), req, c, trace_context_of(request)))


async def submit_and_wait_for_reassignment(request: Request):
    req = await decode(request, SubmitAndWaitForReassignmentRequest)
    c = await claims(request)
    return json(
        await submission.submit_and_wait_for_reassignment(context(request), req, c, trace_context_of(request))
    )


routes = [
    Route("/v2/commands/async/submit-reassignment", submit_reassignment, methods=["POST"]),
    Route(
        "/v2/commands/submit-and-wait-for-reassignment", submit_and_wait_for_reassignment, methods=["POST"]
    ),
]
