"""uvicorn's WebSocket protocol with a bound on what a peer can make it hold.

uvicorn answers every ping frame with a pong written at once, with no regard for whether the
peer reads: a client that sends pings and never reads makes the server keep every pong in
memory (60 MB of pings held 56 MB until the client went away), past the frame limit and the
message limits, which never see a ping. The app's own messages wait for the socket to drain
(and a connection that falls 200 behind is closed: ``hub.OUTBOX_LIMIT``), so only pongs
need a bound. A browser never sends pings; a client that leaves this much unread is dropped.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["MAX_UNSENT_BYTES", "BoundedWebSocket"]

MAX_UNSENT_BYTES = 256_000
"""Bytes waiting to go to a peer, after a pong, beyond which the peer is dropped."""


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O), dropping a peer that leaves more
    than ``MAX_UNSENT_BYTES`` of pongs unread."""

    def handle_ping(self) -> None:
        """Answer the ping, and drop a peer that does not read its answers."""
        super().handle_ping()
        if self.transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
            self.transport.abort()
