"""The server's websocket protocol: uvicorn's sans-I/O one, plus an ASGI extension that sends many text messages
in one call, which the websocket streams use to send their elements a run at a time, and no reading of frames before the
application accepts the upgrade.

Through uvicorn's own protocol every message is one ASGI send: a trip through Starlette's and uvicorn's `send`, a
frame built by websockets and a write to the socket, which together cost more than reading and rendering the entry.
Here a run of messages (the streams send 64 KiB at a time) becomes one buffer of frames and one write; flow control
stays uvicorn's (a send waits while the transport's buffer is over its high-water mark), so what is buffered for a
connection stays under that mark plus one run.

The extension is advertised in the scope (`SEND_TEXTS` in `scope["extensions"]`): a `websocket.send` message
carrying `SEND_TEXTS` (a list of UTF-8 encoded texts) sends each as one text message, in order. Apps look for it in
the scope first; without it (another server, an in-process test client) they send one message at a time.
"""

from __future__ import annotations

import struct

SEND_TEXTS = "participant.websocket.send_texts"

_HEADER_16 = struct.Struct("!BBH").pack
_HEADER_64 = struct.Struct("!BBQ").pack


def text_frames(texts: list[bytes]) -> bytes:
    """Each text as one unmasked, unfragmented text frame (RFC 6455 §5.2), as a server sends them."""
    parts: list[bytes] = []
    add = parts.append
    for text in texts:
        n = len(text)
        if n < 126:
            add(bytes((0x81, n)))
        elif n < 65536:
            add(_HEADER_16(0x81, 126, n))
        else:
            add(_HEADER_64(0x81, 127, n))
        add(text)
    return b"".join(parts)


def protocol_class():
    """The websocket protocol for uvicorn's `ws` setting: uvicorn's sans-I/O protocol with `SEND_TEXTS`, or "auto"
    (uvicorn's default, one message per send) when this uvicorn has no sans-I/O protocol."""
    try:
        from uvicorn.protocols.utils import ClientDisconnected
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.protocol import State
    except ImportError:
        return "auto"

    class BatchingWebSocketProtocol(WebSocketsSansIOProtocol):
        def handle_connect(self, event) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)  # none when the handshake was refused
            if scope is not None:
                scope.setdefault("extensions", {})[SEND_TEXTS] = {}
                # Nothing the client sends is read until the application has accepted the upgrade (it checks the
                # token first): a client that is refused never has a frame read.
                self.transport.pause_reading()

        def keepalive_timeout(self) -> None:
            # uvicorn sends 1011 and closes, but a close waits for the send buffer to drain: a client that reads
            # nothing would keep the connection, its buffer and its stream's task forever. It is dropped instead.
            super().keepalive_timeout()
            if self.transport.get_write_buffer_size():
                self.transport.abort()

        async def send(self, message) -> None:
            texts = message.get(SEND_TEXTS) if message["type"] == "websocket.send" else None
            if texts is None:
                accepting = message["type"] == "websocket.accept" and not self.handshake_complete
                await super().send(message)
                if accepting and self.handshake_complete and not self.read_paused:
                    self.transport.resume_reading()
                return
            await self.writable.wait()
            if self.disconnected or self.conn.state is not State.OPEN:
                raise ClientDisconnected()
            if not self.handshake_complete or self.close_sent or self.initial_response is not None:
                raise RuntimeError(f"{SEND_TEXTS} is for an accepted websocket that is not closing")
            if self.conn.extensions:  # permessage-deflate: websockets compresses each message
                for text in texts:
                    self.conn.send_text(text)
                data = b"".join(self.conn.data_to_send())
            else:
                data = text_frames(texts)
            self.transport.write(data)

    return BatchingWebSocketProtocol
