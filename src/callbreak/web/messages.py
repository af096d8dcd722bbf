"""The WebSocket of a browser table: the messages a browser may send, and what each one does.

Every message is a JSON object with a ``type``. Anything malformed or refused by the rules gets
one ``error`` message back and the match goes on; the browser only ever receives its own
seat's view (see ``docs/web.md``).
"""

from __future__ import annotations

import json
import traceback
import urllib.parse
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from callbreak.cards import parse_card
from callbreak.errors import CallbreakError, InvalidCardError
from callbreak.game import Action, Call, ClaimRedeal, Play
from callbreak.web.hints import hint_message
from callbreak.web.scheduler import SPEEDS
from callbreak.web.tables import Table, Tables

__all__ = ["MAX_MESSAGE_BYTES", "connect", "handle"]

MAX_MESSAGE_BYTES = 4_000
ACTIONS = ("call", "play", "redeal", "stop")


async def connect(tables: Tables, socket: WebSocket, match_id: str) -> None:
    """Serve one browser tab of a match until it goes away."""
    origin = socket.headers.get("origin")
    if origin and urllib.parse.urlsplit(origin).netloc != socket.headers.get("host"):
        await socket.close(code=4403)  # another site's page may not play here
        return
    await socket.accept()
    table = tables.get(match_id)
    if table is None:
        await socket.send_text(json.dumps({"type": "error", "message": "no such match"}))
        await socket.close(code=4404)
        return
    table.sockets.add(socket)
    try:
        await table.send({"type": "state", "state": table.view()}, socket)
        table.wake()
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                try:
                    text = (message.get("bytes") or b"").decode()
                except UnicodeDecodeError:
                    text = "\x00"  # not JSON: answered with an error like any bad text
            await handle(table, socket, text)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        table.sockets.discard(socket)


async def handle(table: Table, socket: WebSocket, text: str) -> None:
    """One message from a browser tab; a refused one is answered with an error."""
    try:
        await _dispatch(table, socket, read_message(text))
    except CallbreakError as error:
        await table.send({"type": "error", "message": str(error)}, socket)
    except Exception as error:  # a bug of ours: say so, keep the socket and the match
        traceback.print_exception(error)
        await table.send({"type": "error", "message": f"internal error: {error}"}, socket)


def read_message(text: str) -> dict[str, Any]:
    """A message as a JSON object with a string ``type``; CallbreakError otherwise."""
    if len(text) > MAX_MESSAGE_BYTES:
        raise CallbreakError("the message is too long")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise CallbreakError("the message is not JSON") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise CallbreakError('a message is a JSON object with a "type"')
    return message


async def _dispatch(table: Table, socket: WebSocket, message: dict[str, Any]) -> None:
    kind = message["type"]
    if kind == "settings":
        table.settings = read_settings(message, table.settings)
        table.save_settings()
        await table.broadcast()
        table.wake()
        return
    if kind == "hint":
        await _hint(table, socket)
        return
    if kind == "sync":
        await table.send({"type": "state", "state": table.view()}, socket)
        return
    if kind not in ACTIONS:
        raise CallbreakError(f"unknown message type {kind!r}")
    match = table.match
    if match.is_over:
        raise CallbreakError("the match is over")
    if "seat" in message and message["seat"] != table.human:
        raise CallbreakError(f"you play seat {table.human}, not seat {message['seat']!r}")
    if kind == "stop":
        if not table.can_stop:
            raise CallbreakError("the match can be ended only between deals of an open-ended match")
        table.stop()
        await table.broadcast()
        return
    if match.deal.turn != table.human:
        who = match.deal.turn
        if who is None:
            raise CallbreakError("nothing to do now")
        raise CallbreakError(f"it is {table.names[who]}'s turn, not yours")
    action = read_action(kind, message)
    deal = match.deal
    if isinstance(action, Play):
        problem = deal.explain(action.card)
    elif isinstance(action, Call):
        problem = deal.call_problem(action.value)
    else:
        problem = None if deal.may_claim_redeal() else "you may not claim a redeal now"
    if problem:
        raise CallbreakError(problem)
    table.apply(action)
    await table.broadcast()
    table.wake()


def read_settings(message: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The table's settings after a ``settings`` message (fields not given stay)."""
    speed = message.get("speed", current.get("speed", "normal"))
    if not isinstance(speed, str) or speed not in SPEEDS:
        raise CallbreakError(f"speed must be one of {', '.join(SPEEDS)}, not {speed!r}")
    auto = message.get("auto_forced", current.get("auto_forced", False))
    if not isinstance(auto, bool):
        raise CallbreakError("auto_forced must be true or false")
    return {"speed": speed, "auto_forced": auto}


def read_action(kind: str, message: dict[str, Any]) -> Action:
    """The action a ``call``, ``play`` or ``redeal`` message asks for."""
    if kind == "call":
        value = message.get("value")
        if type(value) is not int:
            raise CallbreakError('a call message needs a whole number "value"')
        return Call(value)
    if kind == "redeal":
        return ClaimRedeal()
    text = message.get("card")
    if not isinstance(text, str):
        raise CallbreakError('a play message needs a "card" such as "TH"')
    try:
        return Play(parse_card(text))
    except InvalidCardError as error:
        raise CallbreakError(str(error)) from None


async def _hint(table: Table, socket: WebSocket) -> None:
    if table.match.is_over or table.match.deal.turn != table.human:
        raise CallbreakError("a hint is for your own turn")
    if table.hint_running:
        raise CallbreakError("a hint is already being worked out")
    observation = table.match.observation(table.human)
    table.hint_running = True
    try:
        message = await run_in_threadpool(hint_message, observation, table.version)
    finally:
        table.hint_running = False
    await table.send(message, socket)
