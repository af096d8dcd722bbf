"""Seat a remote bot that speaks the Bhoos protocol, keeping its time and its faults.

The host gives the bot a budget per round (1.5 s by default, as the competition did) for its
call and its thirteen cards. When the bot answers late, not at all, with something that is not
the protocol's JSON, or with an illegal call or card, the host plays a legal substitute (the
minimum call, the lowest legal card), notes the fault, and the game goes on.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import http.client
import json
import math
import socket
import time
import urllib.parse
from typing import Any

from callbreak.bots.protocol import (
    ProtocolError,
    answer_call,
    answer_card,
    bid_body,
    play_body,
    player_ids,
)
from callbreak.cards import Card
from callbreak.game import Call, Observation, Play
from callbreak.players.base import (
    CALL,
    ILLEGAL,
    LATE,
    MALFORMED,
    PLAY,
    SILENT,
    Fault,
    PlayerError,
    substitute,
)

__all__ = ["RemotePlayer"]

NO_LIMIT_TIMEOUT = 300.0  # with no budget, a bot that never answers is still given up on
NOMINAL_BUDGET_MS = 1500
HELLO_WAIT = 10.0


class RemotePlayer:
    """A bot at ``http://host:port`` playing one seat."""

    def __init__(self, address: str, budget: float = 1.5, names: list[str] | None = None) -> None:
        parsed = urllib.parse.urlsplit(address)
        if parsed.scheme != "http" or not parsed.hostname or parsed.query or parsed.fragment:
            raise PlayerError(f"a remote bot's address is http://HOST:PORT, not {address!r}")
        try:
            self.port = parsed.port or 80
        except ValueError:
            raise PlayerError(f"bad port in the bot address {address!r}") from None
        if not math.isfinite(budget) or budget < 0 or budget > 3600:
            raise PlayerError(f"the budget per round is 0 (none) to 3600 seconds, not {budget}")
        self.spec = address
        self.host = parsed.hostname
        self.prefix = parsed.path.rstrip("/")
        self.budget = budget
        self.ids = player_ids(names)
        self.faults: list[Fault] = []
        """Every fault of this bot, in order; the seating files each under its deal."""
        self._round_key: tuple[int, int, int] | None = None
        self._left = budget
        self._connection: http.client.HTTPConnection | None = None
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bot")

    # --- the table's side ----------------------------------------------------------------------

    def ready(self, wait: float = HELLO_WAIT) -> None:
        """Wait until the bot answers ``GET /hi``; raise PlayerError naming it if it never does."""
        deadline = time.monotonic() + wait
        problem = "no answer"
        while time.monotonic() < deadline:
            try:
                answer = self._request("GET", "/hi", None, timeout=2.0)
                if isinstance(answer, dict) and answer.get("value") == "hello":
                    return
                problem = f"GET /hi answered {answer!r}, not {{'value': 'hello'}}"
            except (OSError, http.client.HTTPException, ProtocolError) as error:
                problem = _describe(error)
            time.sleep(0.1)
        raise PlayerError(f"cannot reach the bot at {self.spec}: {problem}")

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The bot's call, or the host's substitute (the minimum call) when it fails.

        ``time`` is not used: the bot's limit is its budget per round."""
        instead = substitute(observation)
        assert isinstance(instead, Call)
        answer = self._ask("/bid", bid_body, observation, CALL, str(instead.value))
        if answer is None:
            return instead.value
        try:
            value = answer_call(answer)
        except ProtocolError as error:
            self._fault(observation, CALL, MALFORMED, str(error), str(instead.value))
            return instead.value
        if value not in observation.legal_calls:
            low, high = observation.legal_calls[0], observation.legal_calls[-1]
            self._fault(
                observation,
                CALL,
                ILLEGAL,
                f"called {value}; calls run {low}-{high}",
                str(instead.value),
            )
            return instead.value
        return value

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The bot's card, or the host's substitute (the lowest legal card) when it fails."""
        instead = substitute(observation)
        assert isinstance(instead, Play)
        card_instead = instead.card
        answer = self._ask("/play", play_body, observation, PLAY, str(card_instead))
        if answer is None:
            return card_instead
        try:
            card = answer_card(answer)
        except ProtocolError as error:
            self._fault(observation, PLAY, MALFORMED, str(error), str(card_instead))
            return card_instead
        if card not in observation.legal_cards:
            legal = " ".join(c.bhoos() for c in observation.legal_cards)
            self._fault(
                observation,
                PLAY,
                ILLEGAL,
                f"played {card.bhoos()}; legal: {legal}",
                str(card_instead),
            )
            return card_instead
        return card

    # --- talking to the bot --------------------------------------------------------------------

    def _ask(
        self, path: str, make_body: Any, observation: Observation, action: str, substitute: str
    ) -> object | None:
        # A round is known by its number, its dealer and the seat's dealt hand (what it holds
        # and what it has played), which also tells a redeal apart.
        dealt = observation.hand.mask
        for trick in (*observation.tricks, observation.trick):
            for seat, card in trick.plays():
                if seat == observation.seat:
                    dealt |= 1 << card
        key = (observation.deal_number, observation.dealer, dealt)
        if key != self._round_key:  # a new round: a fresh budget
            self._round_key, self._left = key, self.budget
        limited = self.budget > 0
        if limited and self._left <= 0:
            self._fault(observation, action, LATE, "no time left in this round", substitute)
            return None
        # Without a limit the bot is still told the competition's budget: bots size their
        # thinking to it, and 0 would read as no time at all.
        left_ms = round(self._left * 1000) if limited else NOMINAL_BUDGET_MS
        body = make_body(observation, self.ids, left_ms)
        started = time.monotonic()
        try:
            answer = self._request("POST", path, body, self._left if limited else NO_LIMIT_TIMEOUT)
        except TimeoutError:
            self._spend(started)
            self._fault(observation, action, LATE, f"no answer within {left_ms} ms", substitute)
            return None
        except (OSError, http.client.HTTPException) as error:
            self._spend(started)
            self._fault(observation, action, SILENT, _describe(error), substitute)
            return None
        except ProtocolError as error:
            self._spend(started)
            self._fault(observation, action, MALFORMED, str(error), substitute)
            return None
        self._spend(started)
        return answer

    def _spend(self, started: float) -> None:
        self._left -= time.monotonic() - started

    def _fault(
        self, observation: Observation, action: str, kind: str, detail: str, substitute: str
    ) -> None:
        self.faults.append(Fault(observation.seat, action, kind, detail, substitute))

    def _request(self, method: str, path: str, body: object, timeout: float) -> object:
        """One request, answered within ``timeout`` seconds in all (TimeoutError otherwise).

        The exchange runs in a worker thread so that the limit holds for the whole answer,
        however slowly it trickles in; past the limit the connection is shut, which ends the
        worker too.
        """
        future = self._worker.submit(self._exchange, method, path, body, timeout)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            connection = self._connection
            self._connection = None
            if connection is not None and connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                future.result(timeout=5)
            raise TimeoutError(f"no answer within {timeout:.3f} s") from None

    def _exchange(self, method: str, path: str, body: object, timeout: float) -> object:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        reused = self._connection is not None
        connection = self._connection or http.client.HTTPConnection(self.host, self.port)
        self._connection = connection
        connection.timeout = timeout
        if connection.sock is not None:
            connection.sock.settimeout(timeout)
        try:
            connection.request(method, self.prefix + path, payload, headers)
            response = connection.getresponse()
            raw = response.read(1_000_001)
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            connection.close()
            self._connection = None
            if not reused:
                raise
            # A kept-alive connection the bot had closed before the request: the bot never saw
            # it, so sending it once more on a fresh connection cannot repeat a move.
            return self._exchange(method, path, body, timeout)
        except BaseException:
            connection.close()
            self._connection = None
            raise
        if response.status != 200:
            raise ProtocolError(f"HTTP {response.status}: {raw[:200].decode(errors='replace')}")
        if len(raw) > 1_000_000:
            raise ProtocolError("the answer is over 1 MB")
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            raise ProtocolError(f"the answer is not JSON: {raw[:80]!r}") from None

    def close(self) -> None:
        """Close the kept-alive connection and the worker thread."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._worker.shutdown(wait=False)


def _describe(error: BaseException) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host"
    return str(error) or type(error).__name__
