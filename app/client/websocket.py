"""What every websocket stream of the JSON API shares: its URL and the subprotocols that carry the token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.client.http import TokenSource

if TYPE_CHECKING:
    from websockets.typing import Subprotocol


def ws_url(base_url: str, path: str) -> str:
    """The ws:// (or wss://) URL of `path` on the participant at `base_url`."""
    if base_url.startswith("https://"):
        return "wss://" + base_url[len("https://") :] + path
    return "ws://" + base_url.removeprefix("http://") + path


async def subprotocols(tokens: TokenSource | None) -> list[Subprotocol]:
    """`jwt.token.<token>, daml.ws.auth`: a browser cannot set headers on a websocket, so Canton reads the token
    from the subprotocols."""
    from websockets.typing import Subprotocol

    protocols = [Subprotocol("daml.ws.auth")]
    if tokens is not None:
        protocols.insert(0, Subprotocol(f"jwt.token.{await tokens.token()}"))
    return protocols
