"""The transport under uvicorn's protocol joins the writes of one loop step into one write, in order."""

from __future__ import annotations

import asyncio

from participant.protocols.http_protocol import CoalescingTransport


class RecordingTransport(asyncio.Transport):
    """What the connection's socket was asked to do."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default=None):
        return ("127.0.0.1", 1) if name == "peername" else default


async def test_writes_of_one_step_go_out_as_one():
    real = RecordingTransport()
    t = CoalescingTransport(real, asyncio.get_running_loop())
    t.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    t.write(b"{}")
    assert real.writes == []
    assert t.get_write_buffer_size() == len(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
    await asyncio.sleep(0)
    assert real.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    t.write(b"next")
    await asyncio.sleep(0)
    assert real.writes[1:] == [b"next"]


async def test_close_writes_what_is_pending_first_and_abort_drops_it():
    real = RecordingTransport()
    t = CoalescingTransport(real, asyncio.get_running_loop())
    t.write(b"last words")
    t.close()
    assert real.writes == [b"last words"] and real.closed
    await asyncio.sleep(0)
    assert real.writes == [b"last words"]

    real = RecordingTransport()
    t = CoalescingTransport(real, asyncio.get_running_loop())
    t.write(b"never sent")
    t.abort()
    await asyncio.sleep(0)
    assert real.writes == [] and real.aborted


async def test_everything_else_is_the_real_transports():
    real = RecordingTransport()
    t = CoalescingTransport(real, asyncio.get_running_loop())
    assert t.get_extra_info("peername") == ("127.0.0.1", 1)
    assert not t.is_closing()
