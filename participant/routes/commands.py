"""Command service: submit and wait (for the transaction), asynchronous submit, and the completion list."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import CompletionStreamRequest, JsCommands, JsSubmitAndWaitForTransactionRequest
from participant.routes.common import claims, context, decode, json, list_limit, trace_context_of
from participant.services import submission


async def submit_and_wait_for_transaction(request: Request):
    req = await decode(request, JsSubmitAndWaitForTransactionRequest)
    c = await claims(request)
    return json(await submission.submit_and_wait_for_transaction(context(request), req, c, trace_context_of(request)))


async def submit_and_wait(request: Request):
    cmds = await decode(request, JsCommands)
    c = await claims(request)
    return json(await submission.submit_and_wait(context(request), cmds, c, trace_context_of(request)))


async def submit_async(request: Request):
    cmds = await decode(request, JsCommands)
    c = await claims(request)
    return json(await submission.submit_async(context(request), cmds, c, trace_context_of(request)))


async def completions(request: Request):
    limits = list_limit(request)
    req = await decode(request, CompletionStreamRequest)
    c = await claims(request)
    return json(await submission.completions(context(request), req, c, limits))


routes = [
    Route("/v2/commands/submit-and-wait-for-transaction", submit_and_wait_for_transaction, methods=["POST"]),
    Route("/v2/commands/submit-and-wait", submit_and_wait, methods=["POST"]),
    Route("/v2/commands/async/submit", submit_async, methods=["POST"]),
    Route("/v2/commands/completions", completions, methods=["POST"]),
]
