"""Command service: submit and wait (for the transaction), asynchronous submit, and the completion list."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from participant.api import CompletionStreamRequest, JsCommands, JsSubmitAndWaitForTransactionRequest
from participant.routes.common import claims, context, decode, json, list_limit
from participant.services import submission


def trace_context_of(request: Request) -> dict | None:
    # The raw header list, not `request.headers.get`: that raises and catches a KeyError when the header is
    # missing, which is the usual case. Names are lowercase in ASGI scopes; the first value wins, as in Headers.
    parent = state = None
    for name, value in request.scope["headers"]:
        if name == b"traceparent" and parent is None:
            parent = value.decode("latin-1")
        elif name == b"tracestate" and state is None:
            state = value.decode("latin-1")
    if parent is None:
        return None
    return {"traceparent": parent, "tracestate": state}


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
