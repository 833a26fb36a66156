"""An answer's body is let go as soon as the client has handed it on: the response objects of httpx sit in reference
cycles until the collector finds them, and a snapshot is read in pages of a megabyte each."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from app.client.http import Http
from app.client.requests_log import RequestLog
from tests.client.conftest import raw_server

BODY = b'{"activeContracts":[],"pad":"' + b"x" * 1_000_000 + b'"}'
PAGES = 8


async def serve_pages(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    for _ in range(PAGES):
        await reader.readuntil(b"\r\n\r\n")
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(BODY)}\r\n\r\n"
        writer.write(head.encode() + BODY)
        await writer.drain()


async def test_page_bodies_are_not_kept_by_uncollected_responses():
    async with raw_server(serve_pages) as (url, _connections):
        http = Http(url, None, log=RequestLog(max_body_bytes=0))
        gc.collect()
        gc.disable()  # what the collector would find later is what this test looks for
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(PAGES):
                body = await http.request("GET", "/v2/state/active-contracts-page")
                assert len(body) == len(BODY)
                del body
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
            gc.enable()
            await http.aclose()
    assert held < len(BODY), f"{held:,} bytes still held after {PAGES} pages of {len(BODY):,}"
