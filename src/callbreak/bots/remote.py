"""Seat a remote bot that speaks the Bhoos protocol, keeping its time and its faults.

The host gives the bot a budget per round (1.5 s by default, as the competition did) for its
call and its thirteen cards. When the bot answers late, not at all, with something that is not
the protocol's JSON, or with an illegal call or card, the host plays a legal substitute (the
minimum call, the lowest legal card), notes the fault, and the game goes on.

A host that seats bots for people it does not know (the web app) says which addresses it may
call (:class:`BotAddresses`): every connection is then made only to an address checked at the
moment of connecting, every address the bot's host name resolves to, so that a name cannot
point elsewhere later. No redirect is ever followed: an answer other than 200 is a fault.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import http.client
import ipaddress
import json
import math
import socket
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from callbreak.bots.protocol import (
    ProtocolError,
    answer_call,
    answer_card,
    bid_body,
    card_text,
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
    Player,
    PlayerError,
    substitute,
)

__all__ = ["NO_BOTS", "BotAddresses", "RemotePlayer"]

NO_LIMIT_TIMEOUT = 300.0  # with no budget, a bot that never answers is still given up on
NOMINAL_BUDGET_MS = 1500
HELLO_WAIT = 10.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[..., list[tuple[Any, ...]]]


def split_address(address: str) -> tuple[str, int, str]:
    """The host, port and path of a bot's ``http://HOST:PORT[/PATH]``; PlayerError otherwise."""
    parsed = urllib.parse.urlsplit(address)
    if parsed.scheme != "http" or not parsed.hostname or parsed.query or parsed.fragment:
        raise PlayerError(f"a remote bot's address is http://HOST:PORT, not {address!r}")
    try:
        port = parsed.port or 80
    except ValueError:
        raise PlayerError(f"bad port in the bot address {address!r}") from None
    return parsed.hostname.lower(), port, parsed.path


@dataclasses.dataclass(frozen=True)
class BotAddresses:
    """The remote bots a host may call: exact ``http://HOST:PORT`` addresses (any path on them)
    and networks (any port of an address in them). Empty, the default, allows none.

    >>> allowed = BotAddresses.parse("http://bots.example:7000, 10.0.0.0/8")
    >>> allowed.check("http://BOTS.example:7000/v1"), allowed.check("http://10.1.2.3:80")
    (None, None)
    >>> allowed.check("http://127.0.0.1:7000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    callbreak.players.base.PlayerError: remote bots at http://127.0.0.1:7000 are not allowed ...
    """

    exact: tuple[tuple[str, int], ...] = ()
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> BotAddresses:
        """Read a comma-separated list of addresses and networks; PlayerError names a bad one."""
        exact: list[tuple[str, int]] = []
        networks: list[Network] = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            if "://" in item:
                host, port, path = split_address(item)
                if path not in ("", "/"):
                    raise PlayerError(f"an allowed bot address is http://HOST:PORT, not {item!r}")
                exact.append((host, port))
                continue
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise PlayerError(
                    f"cannot read {item!r}: allow bots as http://HOST:PORT or as networks "
                    "such as 127.0.0.1/32 or 10.0.0.0/8"
                ) from None
        return cls(tuple(exact), tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.exact or self.networks)

    def __str__(self) -> str:
        items = [f"http://{_netloc(host, port)}" for host, port in self.exact]
        return ", ".join([*items, *map(str, self.networks)]) or "none"

    def check(self, address: str, resolve: Resolver | None = None) -> None:
        """Raise PlayerError unless a bot at ``address`` may be called (blocking: a host name
        checked against the networks is resolved, and every address it has must be in them)."""
        host, port, _ = split_address(address)
        self.addresses(host, port, resolve)

    def addresses(
        self, host: str, port: int, resolve: Resolver | None = None
    ) -> list[tuple[Any, ...]] | None:
        """Where a connection to ``host:port`` may go: None for an exact address (the host's
        own name resolution), or the socket addresses of ``host`` (``resolve``: by default
        ``socket.getaddrinfo``), every one of them within the networks; PlayerError otherwise."""
        host = host.lower()
        if (host, port) in self.exact:
            return None
        if not self:
            raise PlayerError(
                "this server calls no remote bot (its operator may allow some with "
                "callbreak serve --bots ADDRESS,...)"
            )
        # The allowed addresses are the operator's own network: not named to a stranger.
        refused = PlayerError(
            f"remote bots at http://{_netloc(host, port)} are not allowed on this server"
        )
        if not self.networks:
            raise refused
        try:
            found = (resolve or socket.getaddrinfo)(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise PlayerError(f"cannot find the bot's host {host!r}") from None
        if not found or not all(self._within(info[4][0]) for info in found):
            raise refused
        return [info[4] for info in found]

    def _within(self, text: str) -> bool:
        try:
            address = ipaddress.ip_address(text.split("%")[0])  # without an IPv6 zone
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


NO_BOTS = BotAddresses()
"""No remote bot may be called: the web app's default."""


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _Connection(http.client.HTTPConnection):
    """A connection made only to an address ``allowed`` admits, checked as it connects."""

    def __init__(self, host: str, port: int, allowed: BotAddresses) -> None:
        super().__init__(host, port)
        self.allowed = allowed

    def connect(self) -> None:
        try:
            targets = self.allowed.addresses(self.host, self.port)
        except PlayerError as error:  # nothing is sent: to the table, the bot is unreachable
            raise ConnectionRefusedError(str(error)) from None
        if targets is None:
            super().connect()
            return
        problem: OSError = ConnectionRefusedError("no address to connect to")
        for target in targets:
            try:
                self.sock = socket.create_connection(target[:2], self.timeout)
            except OSError as error:
                problem = error
                continue
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return
        raise problem


class RemotePlayer(Player):
    """A bot at ``http://host:port`` playing one seat; with ``allowed``, only at an address it
    admits (checked on every connection)."""

    def __init__(
        self,
        address: str,
        budget: float = 1.5,
        names: list[str] | None = None,
        allowed: BotAddresses | None = None,
    ) -> None:
        host, self.port, path = split_address(address)
        if not math.isfinite(budget) or budget < 0 or budget > 3600:
            raise PlayerError(f"the budget per round is 0 (none) to 3600 seconds, not {budget}")
        self.spec = address
        self.host = host
        self.prefix = path.rstrip("/")
        self.allowed = allowed
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
            legal = " ".join(card_text(c) for c in observation.legal_cards)
            self._fault(
                observation,
                PLAY,
                ILLEGAL,
                f"played {card_text(card)}; legal: {legal}",
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
        connection = self._connection or (
            http.client.HTTPConnection(self.host, self.port)
            if self.allowed is None
            else _Connection(self.host, self.port, self.allowed)
        )
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
