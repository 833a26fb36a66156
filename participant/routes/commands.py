"""Command service: submit and wait (for the transaction, its tree or not), asynchronous submit, and the
completions (list and websocket forms)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from participant.api import CompletionStreamRequest, JsCommands, JsSubmitAndWaitForTransactionRequest
from participant.routes import streams
from participant.routes.common import (
    claims,
    context,
    decode,
    json,
    list_limit,
    stream_idle_timeout,
    trace_context_of,
)
from participant.services import completions as completion_service
from participant.services import submission


async def submit_and_wait_for_transaction(request: Request):
    req = await decode(request, JsSubmitAndWaitForTransactionRequest)
    c = await claims(request)
    return json(
        await submission.submit_and_wait_for_transaction(context(request), req, c, trace_context_of(request))
    )


async def submit_and_wait_for_transaction_tree(request: Request):
    cmds = await decode(request, JsCommands)
    c = await claims(request)
    return json(
        await submission.submit_and_wait_for_transaction_tree(
            context(request), cmds, c, trace_context_of(request)
        )
    )


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
    idle = stream_idle_timeout(request)
    req = await decode(request, CompletionStreamRequest)
    c = await claims(request)
    ctx = context(request)
    subscription = await completion_service.subscribe(ctx, req, c)
    return json(await completion_service.completions(ctx, subscription, limits, idle))


async def _open_completions(ctx, req: CompletionStreamRequest, c):
    return completion_service.stream(ctx, await completion_service.subscribe(ctx, req, c))


async def completions_stream(websocket: WebSocket):
    await streams.serve(websocket, CompletionStreamRequest, _open_completions)


routes = [
    Route("/v2/commands/submit-and-wait-for-transaction", submit_and_wait_for_transaction, methods=["POST"]),
    Route(
        "/v2/commands/submit-and-wait-for-transaction-tree",
        submit_and_wait_for_transaction_tree,
        methods=["POST"],
    ),
    Route("/v2/commands/submit-and-wait", submit_and_wait, methods=["POST"]),
    Route("/v2/commands/async/submit", submit_async, methods=["POST"]),
    Route("/v2/commands/completions", completions, methods=["POST"]),
    WebSocketRoute("/v2/commands/completions", completions_stream),
]
