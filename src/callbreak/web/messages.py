"""The WebSocket of a table: who a connection is, what it may send, and what each message does.

Every socket first says who it is: ``{"type": "hello", "token": T}``. A match's socket
(``/ws/matches/ID``) plays seat 0 with the token the match was made with, and is closed without
it (nobody watches a match). A room's socket (``/ws/rooms/CODE``) plays the seat its token holds,
or watches with no token. Every message is a JSON object with a ``type``; anything malformed or
refused gets one ``error`` back and the table goes on. A connection only ever receives its own
seat's view (see ``docs/web.md`` and ``docs/rooms.md``).

Every :data:`PING_SECONDS` the server sends each connection ``{"type": "ping", "every": S}``:
a browser cannot see the WebSocket protocol's own pings, and a process that froze (stopped, a
machine out of memory) sends nothing, so a page that has heard nothing for a few intervals
knows the server is gone, closes the socket and reconnects (``static/socket.js``). The
protocol's pings, which uvicorn sends (``callbreak serve``), find the clients that are gone.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError, InvalidCardError
from callbreak.game import Action, Call, ClaimRedeal, Play
from callbreak.refusals import Refusal, check_text, parse_json, refusal
from callbreak.web.actions import Stop, TableAction
from callbreak.web.drain import RESTARTING, Drain
from callbreak.web.hints import Hints
from callbreak.web.http import LOG
from callbreak.web.hub import ROOM_VIEW, VIEW
from callbreak.web.limits import CLOSED, DEFAULT, Bucket, Limits, address_of
from callbreak.web.model import LOBBY, MATCH, ROOM, StaleAction, TableData, read_settings
from callbreak.web.reactions import Reactions, check_reaction
from callbreak.web.tables import LiveTable, Tables

__all__ = ["MAX_FRAME_BYTES", "MAX_MESSAGE_BYTES", "PING_SECONDS", "connect", "handle"]

MAX_MESSAGE_BYTES = 4_000
MAX_FRAME_BYTES = 16_384
"""The largest frame the server reads (``callbreak serve``): a message of 4,000 characters of up
to 4 bytes each; a larger frame closes its socket (1009) before it is read."""
HELLO_SECONDS = 10.0
PING_SECONDS = 5.0
"""How often a connection hears from the server, whatever else happens at its table."""
ACTIONS = ("call", "play", "redeal", "stop")


async def connect(
    tables: Tables,
    socket: WebSocket,
    table_id: str,
    kind: str,
    limits: Limits = DEFAULT,
    every: float = PING_SECONDS,
    drain: Drain | None = None,
) -> None:
    """Serve one connection to a match (``kind`` 'match') or a room until it goes away, with a
    ping every ``every`` seconds; none is taken to a table once ``drain`` has begun."""
    origin = socket.headers.get("origin")
    if origin and urllib.parse.urlsplit(origin).netloc != socket.headers.get("host"):
        await socket.close(code=4403)  # another site's page may not play here
        return
    await socket.accept()
    tables.metrics.sockets.inc()
    try:
        await _serve(tables, socket, table_id, kind, limits, every, drain)
    finally:
        tables.metrics.sockets.dec()


async def _serve(
    tables: Tables,
    socket: WebSocket,
    table_id: str,
    kind: str,
    limits: Limits,
    every: float,
    drain: Drain | None,
) -> None:
    token: object = None
    if kind == MATCH:
        # The token before the match: an unknown id and a wrong token get the same answer.
        token, problem = await _read_hello(socket)
        if token is None:
            await _refuse(socket, problem or Refusal("hello_needed"), 4401)
            return
    table = await tables.get(table_id)
    held = kind != MATCH or (table is not None and table.state.data.seat_of(token) == 0)
    if table is None or table.state.data.kind != kind or not held:
        await _refuse(socket, Refusal("no_such_match" if kind == MATCH else "no_such_room"), 4404)
        return
    bucket = Bucket(limits.messages_per_second, limits.message_burst)
    if kind == ROOM:
        token = await _hello(table, socket)
    if drain is not None and drain.draining:
        # Shutting down since the socket came: joining now would start the table's driver
        # here again, with its lease, which the drain has just given up.
        await socket.close(code=RESTARTING)
        return
    # The room caught up, the seat looked up and the connection taken in one letter: from
    # then on every copy of the room re-seats the connections it holds.
    try:
        # Unless created here, the first seated player's address is the table's client.
        held_token = token if isinstance(token, str) else None
        seat = await table.join(socket, held_token, kind == ROOM, address_of(socket.scope))
    except table.backend.failures:
        # The room could not be read as stored now (the store out of reach past its
        # retries): the person's page says so and reconnects, nothing is half-joined.
        LOG.warning("table %s could not take a connection: the store does not answer", table.id)
        await _refuse(socket, Refusal("store"), 1011)
        await table.part(socket)
        return
    if kind == ROOM and token is not None and seat is None and not table.hub.token_of(socket):
        # A token that holds no seat (one that holds a seat from a later deal, a computer's
        # taken over, is kept: its welcome says so).
        await table.hub.send(Refusal("watching").message(), socket)
    beat = asyncio.get_running_loop().create_task(_beat(table, socket, every))
    try:
        strikes = 0
        while True:
            text = await _receive(socket)
            if text is None:
                break
            if not bucket.take():
                strikes += 1
                await table.hub.send(Refusal("too_many_messages").message(), socket)
                if strikes > limits.strikes:
                    await table.hub.flush(socket)
                    await socket.close(code=CLOSED)
                    break
                continue
            await handle(table, socket, text, tables)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        beat.cancel()
        await table.part(socket)


async def _beat(table: LiveTable, socket: WebSocket, every: float) -> None:
    """A ping on the connection's own queue after every ``every`` seconds it was sent nothing
    else: behind its other messages, so a connection that is merely slow is not taken for
    dead. A page hears any message as a sign of life, so a table in play sends no pings (at a
    thousand rooms they were a fifth of the messages)."""
    ping = {"type": "ping", "every": every}
    wait = every
    while True:
        await asyncio.sleep(wait)
        quiet = table.hub.quiet(socket)
        if quiet < every:
            wait = every - quiet
            continue
        await table.hub.send(ping, socket)
        wait = every


async def _receive(socket: WebSocket) -> str | None:
    """The next message's text (None once the connection is gone)."""
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        try:
            text = (message.get("bytes") or b"").decode()
        except UnicodeDecodeError:
            text = "\x00"  # not JSON: answered with an error like any bad text
    return str(text)


async def _read_hello(socket: WebSocket) -> tuple[object, Refusal | None]:
    """Read a connection's first message, ``{"type": "hello", "token": T}``: the token it
    names (None for none, or when the message is no hello), and what was wrong with it."""
    try:
        text = await asyncio.wait_for(_receive(socket), HELLO_SECONDS)
    except TimeoutError:
        text = '{"type": "hello"}'
    if text is None:
        raise WebSocketDisconnect()
    try:
        message = read_message(text)
        if message["type"] != "hello":
            raise Refusal("hello_first")
    except Refusal as error:
        return None, error
    return message.get("token"), None


async def _refuse(socket: WebSocket, refused: Refusal, code: int) -> None:
    """Say why, and close the connection."""
    await socket.send_text(json.dumps(refused.message()))
    await socket.close(code=code)


async def _hello(table: LiveTable, socket: WebSocket) -> object:
    """Read the first message of a room's connection: the token it names (None for a
    spectator). It is looked up in the room as stored when the connection joins: this
    process's copy may be behind a lobby change made through another (a seat given away)."""
    token, problem = await _read_hello(socket)
    if problem is not None:
        await table.hub.send(problem.message(), socket)
    return token


async def handle(table: LiveTable, socket: WebSocket, text: str, tables: Tables) -> None:
    """One message from a connection; a refused one is answered with an error."""
    try:
        message = read_message(text)
        # No reading of the store first: an action is refused by the store's append when made
        # on a lobby revision another process has moved past (a seat given away there), and
        # this copy then takes the store's room and re-seats its connections.
        await _dispatch(table, socket, table.hub.seat_of(socket), message, tables)
    except StaleAction as error:
        await table.hub.send(error.message() | {"stale": True}, socket)
        await table.hub.send(VIEW, socket)
    except CallbreakError as error:
        await table.hub.send(refusal(error).message(), socket)
    except Exception as error:  # ours or the store's: keep the socket and the table
        # The detail (a host, a port, a trace) is for the log only; the person gets words and a
        # code that say whether trying again may help.
        LOG.exception("a message to table %s failed", table.id)
        stored = isinstance(error, table.backend.failures)
        await table.hub.send(Refusal("store" if stored else "internal").message(), socket)
        # The table as this copy has it, nothing of the refused action in it: the page draws
        # what is true rather than a card that never landed.
        await table.hub.send(VIEW, socket)


def read_message(text: str) -> dict[str, Any]:
    """A message as a JSON object with a string ``type``; a Refusal otherwise."""
    if len(text) > MAX_MESSAGE_BYTES:
        raise Refusal("message_long")
    try:
        message = parse_json(text)
    except (ValueError, RecursionError):
        raise Refusal("message_not_json") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise Refusal("message_shape")
    check_text(message)  # a token or a card with a lone surrogate: refused here, not dropped
    return message


async def _dispatch(
    table: LiveTable, socket: WebSocket, seat: int | None, message: dict[str, Any], tables: Tables
) -> None:
    kind = message["type"]
    if kind == "sync":
        await table.hub.send(ROOM_VIEW, socket)
        await table.hub.send(VIEW, socket)
        return
    if kind == "hello":
        raise Refusal("hello_again")
    if kind not in (*ACTIONS, "settings", "hint", "seen", "react"):
        raise Refusal("message_type", type=kind)
    if kind == "seen" and seat is None:
        return  # a spectator's summary holds nobody up
    if seat is None:
        raise Refusal("spectator")
    if kind == "seen":
        await _seen(table, seat, message.get("deals"))
        return
    if table.state.data.public is not None and kind in ("settings", "stop"):
        raise Refusal("public_table")  # a pool's table has no creator: nobody's to change
    if kind == "settings":
        if seat != 0:
            raise Refusal("settings_creator")
        new = read_settings(message, table.state.data.settings)
        token = table.hub.token_of(socket)

        def settle(data: TableData) -> None:
            if data.seat_of(token) != 0:  # checked on the room as stored, not this copy
                raise StaleAction("seat_changed")
            data.settings.update(new)

        await table.change(settle)
        return
    if kind == "hint":
        await _hint(table, socket, seat, tables.hints)
        return
    if kind == "react":
        await _react(table, socket, seat, message.get("reaction"), tables.reactions)
        return
    if "seat" in message and message["seat"] != seat:
        raise Refusal("wrong_seat", seat=seat, asked=message["seat"])
    action: TableAction = Stop() if kind == "stop" else read_action(kind, message)
    await table.act(seat, action, message.get("version"), by=socket)


async def _react(
    table: LiveTable, socket: WebSocket, seat: int, value: object, reactions: Reactions
) -> None:
    """A seated person's reaction, shown on their badge to everyone at the table: one of the
    preset set, within the person's and the address's rate (nothing is sent otherwise)."""
    if not table.state.is_room:
        raise Refusal("message_type", type="react")  # nobody else sits at a match
    reaction = check_reaction(value)
    reactions.take(table.state.data, seat, address_of(socket.scope))
    await table.react(seat, reaction)


async def _seen(table: LiveTable, seat: int, deals: object) -> None:
    """The person in ``seat`` closed the summary of the first ``deals`` scored deals: the
    computers need not wait for them before the next deal. A page that shows summaries says so
    at once (``deals`` 0 on a fresh page): only such seats are waited for, never a client that
    shows none (a script, a bot)."""
    state = table.state
    if type(deals) is not int or not 0 <= deals <= len(state.match.deals):
        raise Refusal("seen_deals")
    await table.seen(seat, deals)


def read_action(kind: str, message: dict[str, Any]) -> Action:
    """The action a ``call``, ``play`` or ``redeal`` message asks for."""
    if kind == "call":
        value = message.get("value")
        if type(value) is not int:
            raise Refusal("call_value")
        return Call(value)
    if kind == "redeal":
        return ClaimRedeal()
    text = message.get("card")
    if not isinstance(text, str):
        raise Refusal("play_card")
    try:
        return Play(parse_card(text))
    except InvalidCardError as error:
        raise Refusal("bad_card", detail=str(error)) from None


async def _hint(table: LiveTable, socket: WebSocket, seat: int, hints: Hints) -> None:
    if table.state.is_room:
        # A hint shows what the seat holds: asked of the room as stored (the seat may have
        # been given away through another process), as an action is by the store's append.
        await table.catch_up()
        if not table.hub.holds(socket, seat):
            raise StaleAction("seat_changed")
    state = table.state
    if state.data.settings.get("challenge"):
        raise Refusal("challenge_hint")  # the expert would play the day's deals for the seat
    match = state.match
    busy = state.pending is not None  # an action being stored: the turn is moving on
    if state.status == LOBBY or busy or match.is_over or match.deal.turn != seat:
        raise Refusal("hint_turn")
    message = await hints.hint(state.id, state.version, match.observation(seat))
    await table.hub.send(message, socket)
