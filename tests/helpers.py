"""Test helpers: an independent reference for legality and builders of given positions."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from callbreak.cards import Card, CardSet, Suit, full_deck, parse_cards
from callbreak.game import Deal
from callbreak.rules import Rules
from callbreak.web.limits import Limits

T = TypeVar("T")

FAST = Limits(
    creations_per_minute=60_000,
    creation_burst=10_000,
    lookups_per_minute=60_000,
    lookup_burst=10_000,
    requests_per_minute=60_000,
    request_burst=10_000,
    sockets=1_000,
    messages_per_second=10_000,
    message_burst=10_000,
)
"""The server's limits for tests that act at machine speed, all from one address."""


def parse_tenths(text: str) -> int:
    """Points written with at most one decimal, as integer tenths: '-4.0' → -40 (the inverse of
    ``rules.format_tenths``, which the tests read back)."""
    match = re.fullmatch(r"\s*([+-]?)(\d+)(?:\.(\d))?\s*", text)
    if not match:
        raise ValueError(f"not a score with at most one decimal: {text!r}")
    tenths = int(match[2]) * 10 + int(match[3] or 0)
    return -tenths if match[1] == "-" else tenths


def reference_legal(
    hand: Iterable[Card], trick: list[Card], first: bool, rules: Rules
) -> set[Card]:
    """The legal cards, written straight from the duty table of rules.md with Card objects.

    Deliberately independent of rules.duties and kernel.legal (no masks, no shared code),
    so that the property tests compare two readings of the rules.
    """
    hand = set(hand)
    if not trick:
        others = {c for c in hand if c.suit != Suit.SPADES}
        if first and rules.no_spade_first_lead and others:
            return others
        return hand
    led = trick[0].suit
    spades_in_trick = [c for c in trick if c.suit == Suit.SPADES]
    trumped = led != Suit.SPADES and bool(spades_in_trick)
    same_suit = {c for c in hand if c.suit == led}
    if same_suit:
        if rules.free_following or trumped:
            return same_suit
        best = max(c.rank for c in trick if c.suit == led)
        return {c for c in same_suit if c.rank > best} or same_suit
    my_spades = {c for c in hand if c.suit == Suit.SPADES}
    if not my_spades:
        return hand
    if not spades_in_trick:
        return my_spades
    best_spade = max(c.rank for c in spades_in_trick)
    over = {c for c in my_spades if c.rank > best_spade}
    if over:
        return over
    return my_spades if rules.forced_low_spade else hand


def cards(text: str) -> set[Card]:
    """A set of cards from text."""
    return set(parse_cards(text))


def scenario(rules: Rules, plays: str, hand: str, fill_suits: str) -> Deal:
    """A first-trick position: ``plays`` are on the trick and the next seat holds ``hand``.

    The tested seat's other cards come only from ``fill_suits`` (suit letters), so they cannot
    change which of the given cards is legal. Seats that already played are made void in the
    led suit when they did not follow, and void in spades too when they discarded, so that
    their plays were legal.
    """
    played = parse_cards(plays)
    mine = parse_cards(hand)
    dealer = 3
    leader = 0
    tested = len(played)
    allowed: list[set[Suit]] = [set(Suit) for _ in range(4)]
    led = played[0].suit if played else None
    for position, card in enumerate(played):
        if card.suit != led:
            allowed[position].discard(led)  # type: ignore[arg-type]
            if card.suit != Suit.SPADES:
                allowed[position].discard(Suit.SPADES)
    allowed[tested] = {Suit("SHDC".index(letter)) for letter in fill_suits}
    hands: list[set[Card]] = [set() for _ in range(4)]
    for position, card in enumerate(played):
        hands[position].add(card)
    hands[tested] |= set(mine)
    used = set(played) | set(mine)
    rest = [c for c in full_deck() if c not in used]
    # Most constrained cards first, each to the eligible seat with the most room left.
    rest.sort(key=lambda c: sum(c.suit in allowed[s] for s in range(4)))
    for card in rest:
        seats = [s for s in range(4) if card.suit in allowed[s] and len(hands[s]) < 13]
        if not seats:
            raise AssertionError(f"cannot place {card} in this scenario")
        seat = max(seats, key=lambda s: 13 - len(hands[s]))
        hands[seat].add(card)
    deal = Deal([CardSet(h) for h in hands], dealer, rules)
    for _ in range(4):
        deal.call(rules.min_call)
    for card in played:
        deal.play(card)
    assert deal.turn == (leader + tested) % 4
    return deal


def swap_hidden(deal: Deal, seat: int) -> None:
    """Swap one unplayed card between two seats other than ``seat``: a change of the hidden
    cards that nothing sent to ``seat`` may reveal. The cards are of one suit when possible,
    so that the deal stays one the players could have reached."""
    others = [s for s in range(4) if s != seat][:2]
    held = [deal.held(s) for s in others]
    pairs = [(a, b) for a in held[0] for b in held[1]]
    pairs.sort(key=lambda pair: pair[0].suit != pair[1].suit)
    first, second = pairs[0]
    hands = list(deal.hands)
    for s, give, take in ((others[0], first, second), (others[1], second, first)):
        hands[s] = CardSet((set(hands[s]) - {give}) | {take})
        deal._held[s] = (deal._held[s] & ~(1 << give)) | (1 << take)
    deal.hands = tuple(hands)


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running(app: Any, port: int | None = None, log_level: str = "error") -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on a loopback port (``port``, or a free one); yield
    its address. The server stops when the block ends."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A real redis-server (Debian's package; ``.ci/run`` installs it) on a free loopback
    port, with nothing saved to disk; yields its URL."""
    with redis_process() as (_process, url):
        yield url


@contextlib.contextmanager
def redis_process() -> Iterator[tuple[Any, str]]:
    """:func:`redis_server`, yielding its process too (to stop it, or pause it)."""
    import shutil
    import subprocess
    import tempfile

    binary = shutil.which("redis-server")
    assert binary, "redis-server is not installed: apt-get install redis-server (.ci/run does)"
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2) as probe:
                        probe.sendall(b"PING\r\n")
                        if probe.recv(16).startswith(b"+PONG"):
                            break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
            yield process, f"redis://127.0.0.1:{port}/0"
        finally:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGCONT)  # a test may have paused it
            process.terminate()
            process.wait(10)


class Listener:
    """A plain socket server on loopback standing for an address a stranger names: it keeps
    every connection and byte it gets, and answers each request with ``reply`` (raw HTTP),
    or closes at once when ``reply`` is empty."""

    def __init__(self, reply: bytes = b"") -> None:
        self.reply = reply
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.address = f"http://127.0.0.1:{self.port}"
        self.connections = 0
        self.received = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            with connection:
                connection.settimeout(2)
                with contextlib.suppress(OSError):
                    self.received += connection.recv(65_536)
                    if self.reply:
                        connection.sendall(self.reply)

    def close(self) -> None:
        """Stop listening."""
        self._stop.set()
        self._thread.join(5)
        self.server.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def http_reply(status: str, body: bytes, *headers: str) -> bytes:
    """A raw HTTP/1.1 answer that closes its connection."""
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", "Connection: close", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def start_serve(
    folder: Path, *options: str, name: str = "serve", apart: bool = False
) -> tuple[subprocess.Popen[bytes], str]:
    """A real `callbreak serve` process on a free loopback port, its database ``name``.db in
    ``folder`` and what it prints in ``name``.log there (``apart``: its standard error alone,
    what it says in ``name``.out, so that a ``--log-json`` log holds JSON lines only), a crash
    of its own saying where; its process and address once it listens. The caller stops it
    (:func:`callbreak_serve` does)."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "callbreak", "serve", "--port", str(port)]
    log = folder / f"{name}.log"
    with contextlib.ExitStack() as files:
        errors = files.enter_context(log.open("wb"))
        said = files.enter_context((folder / f"{name}.out").open("wb")) if apart else errors
        process = subprocess.Popen(
            [*command, "--db", str(folder / f"{name}.db"), *options],
            stdout=said,
            stderr=errors,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                stop(process)
                raise AssertionError(f"callbreak serve did not start: {log.read_text()}") from None
            time.sleep(0.2)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a process (SIGTERM, then SIGKILL after 10 s), if it still runs."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextlib.contextmanager
def callbreak_serve(folder: Path, *options: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """:func:`start_serve` for the block: yields the process and its address, then stops it."""
    process, base = start_serve(folder, *options)
    try:
        yield process, base
    finally:
        stop(process)


def on_server(app: Any, work: Callable[[], T] | Coroutine[Any, Any, T]) -> T:
    """Run ``work`` (a function, or a coroutine) on the server's event loop; its result."""
    loop = app.state.upkeep.get_loop()
    if asyncio.iscoroutine(work):
        return asyncio.run_coroutine_threadsafe(work, loop).result(10)
    assert callable(work)
    done: concurrent.futures.Future[T] = concurrent.futures.Future()

    def call() -> None:
        try:
            done.set_result(work())
        except BaseException as error:  # handed to the test
            done.set_exception(error)

    loop.call_soon_threadsafe(call)
    return done.result(10)


class RecordingSocket:
    """A socket that only keeps what it is sent (a live table's connection needs one)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        pass
