"""uvicorn's WebSocket protocol with a bound on what a peer can make it hold, and reading
paused only once a few messages wait.

uvicorn answers every ping frame with a pong written at once, with no regard for whether the
peer reads: a client that sends pings and never reads makes the server keep every pong in
memory (60 MB of pings held 56 MB until the client went away), past the frame limit and the
message limits, which never see a ping. The app's own messages wait for the socket to drain
(and a connection that falls 200 behind is closed: ``hub.OUTBOX_LIMIT``), so only pongs
need a bound. A browser never sends pings; a client that leaves this much unread is dropped.

uvicorn also stops reading a socket as soon as one message waits for the app, and reads again
once the app took it: two changes to the event loop's selector (two system calls) for every
message, a twelfth of the server's samples under 400 rooms (py-spy). Here reading stops only
once :data:`QUEUED` messages wait, which still bounds what a peer can make the server hold
(:data:`QUEUED` frames of at most ``messages.MAX_FRAME_BYTES``).
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["MAX_UNSENT_BYTES", "QUEUED", "BoundedWebSocket"]

MAX_UNSENT_BYTES = 256_000
"""Bytes waiting to go to a peer, after a pong, beyond which the peer is dropped."""
QUEUED = 4
"""Messages from a peer waiting for the app, at which its socket stops being read."""


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O), dropping a peer that leaves more
    than ``MAX_UNSENT_BYTES`` of pongs unread, and reading until ``QUEUED`` messages wait."""

    def handle_ping(self) -> None:
        """Answer the ping, and drop a peer that does not read its answers."""
        super().handle_ping()
        if self.transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
            self.transport.abort()

    def send_receive_event_to_app(self) -> None:
        """Queue a message for the app; stop reading only once ``QUEUED`` wait (uvicorn stops
        at the first, unless it has stopped already: its flag, set here meanwhile, says so)."""
        if self.read_paused or self.queue.qsize() + 1 >= QUEUED:
            super().send_receive_event_to_app()
            return
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False
