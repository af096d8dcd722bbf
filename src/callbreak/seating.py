"""Seats: a player spec becomes a seated player, and one step moves a match on.

Everything that runs a match goes through here: :func:`play_match` (and with it the arena and
the warm-up), the browser's tables, and, one decision at a time, the bot server. A spec is read
once into a :class:`PlayerSpec`: one of our levels with its options, or a remote bot's address.
A level given without a seed gets one derived from the match seed and its seat, so that the
same match plays the same way again. A :class:`Seating` holds the four seats of one match: each
seat's occupant (a player, or nobody while a person decides there) may change between two
decisions, and every decision's time and faults are kept for the :class:`MatchResult`.

>>> from callbreak.game import Match
>>> result = play_match(Match("strict", seed=1), ["beginner", "random", "random", "random"])
>>> result.match.is_over, len(result.times[0]) == 5 * 14
(True, True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time as clock
import traceback
from collections.abc import Mapping, Sequence

from callbreak.bots.remote import BotAddresses, RemotePlayer
from callbreak.cards import Card
from callbreak.errors import CallbreakError, SpecError
from callbreak.game import Action, Call, ClaimRedeal, Match, Observation, Play
from callbreak.players import (
    Fault,
    Player,
    PlayerError,
    check_options,
    level_options,
    substitute,
)
from callbreak.players import build_player as _build_level
from callbreak.players.base import (
    CALL,
    DEAL_OVER,
    DEAL_START,
    FAILED,
    MATCH_OVER,
    PLAY,
    REDEAL,
    Event,
    written,
)
from callbreak.record import Record
from callbreak.spec import format_spec, parse_spec

__all__ = [
    "Decision",
    "MatchResult",
    "PlayerSpec",
    "Seating",
    "close",
    "decide",
    "derive_seed",
    "is_remote",
    "make_player",
    "play_match",
]

REMOTE_SCHEMES = ("http://", "https://")
EXAMPLE = "'expert', 'expert(time=0.5, seed=7)' or 'http://127.0.0.1:7000'"
OPEN_ENDED_DEALS = 5
"""Deals an open-ended match plays when nobody at the table stops it (as many as a five-deal
match)."""


def is_remote(spec: str) -> bool:
    """Whether a spec is the address of a remote bot rather than one of our levels."""
    return spec.strip().startswith(REMOTE_SCHEMES)


def derive_seed(*parts: object) -> int:
    """A 48-bit seed named by ``parts``: the same parts give the same seed, others an unrelated
    one (a hash, so that seats and sets drawn from one match seed are independent)."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclasses.dataclass(frozen=True)
class PlayerSpec:
    """A player spec read once: one of our levels with its options, or a remote bot.

    >>> spec = PlayerSpec.parse(" Expert ( time = 0.5 ) ")
    >>> str(spec), str(spec.with_defaults(seed=4, deadline=False))
    ('expert(time=0.5)', 'expert(time=0.5, seed=4, deadline=false)')
    >>> str(PlayerSpec.parse("random").with_defaults(seed=4, deadline=False))
    'random(seed=4)'
    """

    name: str
    """The level's name in lower case, or the remote bot's address."""
    options: tuple[tuple[str, object], ...] = ()
    remote: bool = False

    @classmethod
    def parse(cls, text: str | PlayerSpec) -> PlayerSpec:
        """Read a spec; PlayerError names an unknown level, option or a malformed text."""
        if isinstance(text, PlayerSpec):
            return text
        if not isinstance(text, str):
            raise PlayerError(f"a player spec must be text, not {text!r}")
        if is_remote(text):
            return cls(text.strip(), remote=True)
        try:
            name, options = parse_spec(text, "player", EXAMPLE)
        except SpecError as error:
            raise PlayerError(str(error)) from None
        name = name.lower()
        check_options(name, options)
        return cls(name, tuple(options.items()))

    def with_defaults(self, **defaults: object) -> PlayerSpec:
        """This spec with each default added where it is not given and the level takes it
        (a remote bot's address is left as it is)."""
        if self.remote:
            return self
        known = level_options(self.name)
        given = dict(self.options)
        for key, value in defaults.items():
            if key in known:
                given.setdefault(key, value)
        return dataclasses.replace(self, options=tuple(given.items()))

    def __str__(self) -> str:
        return self.name if self.remote else format_spec(self.name, dict(self.options))

    def build(
        self, *, bot_budget: float = 1.5, ready: bool = True, bots: BotAddresses | None = None
    ) -> Player:
        """The player. A remote bot gets ``bot_budget`` seconds per round (0: no limit) and,
        with ``ready``, must answer ``GET /hi`` first (PlayerError naming it otherwise); with
        ``bots``, it is only ever called at an address they allow."""
        if not self.remote:
            return _build_level(self.name, dict(self.options), str(self))
        remote = RemotePlayer(self.name, budget=bot_budget, allowed=bots)
        if ready:
            try:
                remote.ready()
            except BaseException:
                remote.close()
                raise
        return remote


def make_player(spec: str | PlayerSpec, *, bot_budget: float = 1.5, ready: bool = True) -> Player:
    """A player from its spec: 'random', 'beginner', 'intermediate', 'expert(time=0.5, seed=7)',
    or a remote bot's address, 'http://127.0.0.1:7000' (see :meth:`PlayerSpec.build`).

    >>> make_player("intermediate(seed=3)").spec
    'intermediate(seed=3)'
    """
    return PlayerSpec.parse(spec).build(bot_budget=bot_budget, ready=ready)


def close(player: Player) -> None:
    """Let a player free what it holds (a remote bot's connection), if it holds anything."""
    player.close()


# --- one decision ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision of one seat: the action, the seconds it took, and what went wrong."""

    seat: int
    action: Action
    seconds: float
    faults: tuple[Fault, ...] = ()
    """The player's faults in this decision: a remote bot's late or illegal answers, or (where
    the host substitutes) the failure of a player of ours."""


def decide(
    player: Player,
    observation: Observation,
    *,
    time: float | None = None,
    substitute_failures: bool = False,
) -> Decision:
    """Ask ``player`` for its decision in ``observation``, checked against the rules and timed:
    the one step of every host (:meth:`Seating.decide` for the seat to act, the bot server).

    ``time`` limits this decision. A player that fails (an error, an illegal answer) raises
    PlayerError (or its own error), unless ``substitute_failures``: then the host's substitute
    is played and noted as a fault.
    """
    kept = player.faults  # a remote bot keeps the faults the host noted
    before = len(kept)
    started = clock.perf_counter()
    failed: tuple[Fault, ...] = ()
    try:
        action = _answer(player, observation, time)
    except Exception as error:
        if not substitute_failures:
            raise
        if not isinstance(error, PlayerError):
            traceback.print_exception(error)  # a bug of ours: leave its trace in the log
        action = substitute(observation)
        kind, shown = written(action)
        failed = (Fault(observation.seat, kind, FAILED, str(error), shown),)
    seconds = clock.perf_counter() - started
    return Decision(observation.seat, action, seconds, tuple(kept[before:]) + failed)


def _answer(player: Player, observation: Observation, time: float | None) -> Action:
    """The player's action in ``observation``; PlayerError unless the rules allow it.

    ``time`` is passed on only when given, so that a player written without the parameter still
    plays where nobody limits it.
    """
    limit = {} if time is None else {"time": time}
    name = player.spec or type(player).__name__
    if observation.may_claim_redeal and player.claim_redeal(observation):
        return ClaimRedeal()
    if observation.legal_calls:
        value = player.call(observation, **limit)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlayerError(f"{name} called {value!r}, not a whole number")
        if value not in observation.legal_calls:
            low, high = observation.legal_calls[0], observation.legal_calls[-1]
            raise PlayerError(f"{name} called {value}; calls run {low}-{high}")
        return Call(value)
    card = player.play(observation, **limit)
    if not isinstance(card, int) or card not in observation.legal_cards:
        shown = card.pretty() if isinstance(card, Card) else repr(card)
        raise PlayerError(f"{name} played {shown}; legal: {observation.legal_cards.pretty()}")
    return Play(Card(card))


# --- the seats of a match ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A match with what its decisions cost: seconds per decision and faults by deal."""

    match: Match
    times: tuple[tuple[float, ...], ...]
    """Each seat's decision times in seconds, in order."""
    faults: Mapping[int, tuple[Fault, ...]]
    """Faults by the deal's index in ``match.deals`` (thrown-in deals counted)."""

    def fault_counts(self) -> list[int]:
        """How many faults each seat's players made."""
        counts = [0, 0, 0, 0]
        for faults in self.faults.values():
            for fault in faults:
                counts[fault.seat] += 1
        return counts

    def record(self) -> Record:
        """The game record of the match as far as it was played, faults included."""
        notes = {deal: [f.to_json() for f in faults] for deal, faults in self.faults.items()}
        return Record.from_match(self.match, notes)


Occupant = Player | PlayerSpec | None


class Seating:
    """The four seats of one match, and the step that moves it on.

    An occupant is a player, a spec (the player is built when the seat first has to decide,
    seeded from the match seed and the seat when the spec has no seed), or None for a seat
    where a person decides. :meth:`sit` changes a seat's occupant between two decisions.
    Players the seating built are closed by :meth:`close`; players handed in belong to the
    caller. With ``ready``, remote bots must answer before they are seated; with ``bots``,
    they are called only at the addresses allowed (a host open to strangers); with
    ``substitute_failures``, a failing player gets the host's substitute (a browser table must
    go on) instead of stopping the match (an arena must not hide a broken player). With
    ``reveal_to_oracles``, a player marked ``omniscient`` (the ``oracle``, for measuring only)
    is shown every hand before each of its decisions; no other player ever is.
    """

    def __init__(
        self,
        match: Match,
        occupants: Sequence[Player | PlayerSpec | str | None],
        *,
        bot_budget: float = 1.5,
        ready: bool = True,
        substitute_failures: bool = False,
        reveal_to_oracles: bool = False,
        bots: BotAddresses | None = None,
    ) -> None:
        if len(occupants) != 4:
            raise CallbreakError(f"a match needs 4 players, not {len(occupants)}")
        self.match = match
        self._occupants: list[Occupant] = [
            PlayerSpec.parse(occupant) if isinstance(occupant, str) else occupant
            for occupant in occupants
        ]
        self.bot_budget = bot_budget
        self.ready = ready
        self.substitute_failures = substitute_failures
        self.reveal_to_oracles = reveal_to_oracles
        self.bots = bots
        self._built: list[Player] = []
        self._lock = threading.Lock()  # a browser table builds players in worker threads
        self._times: list[list[float]] = [[], [], [], []]
        self._faults: dict[int, list[Fault]] = {}
        self._announced = -1

    # --- who sits where ------------------------------------------------------------------------

    def occupant(self, seat: int) -> Occupant:
        """Who sits in ``seat`` now, without building anything."""
        return self._occupants[seat]

    def sit(self, seat: int, occupant: Player | PlayerSpec | str | None) -> Occupant:
        """Give ``seat`` to another occupant from the next decision on; returns the previous
        one (still open, so that it can be given the seat back)."""
        with self._lock:
            previous = self._occupants[seat]
            self._occupants[seat] = (
                PlayerSpec.parse(occupant) if isinstance(occupant, str) else occupant
            )
        return previous

    def player(self, seat: int) -> Player | None:
        """The player in ``seat``, built from its spec on first need; None for a person."""
        with self._lock:
            occupant = self._occupants[seat]
            if not isinstance(occupant, PlayerSpec):
                return occupant
            spec = occupant.with_defaults(seed=derive_seed(self.match.seed, "computer", seat))
            player = spec.build(bot_budget=self.bot_budget, ready=self.ready, bots=self.bots)
            self._built.append(player)
            self._occupants[seat] = player
            return player

    def close(self) -> None:
        """Close every player the seating built."""
        for player in self._built:
            close(player)
        self._built.clear()

    # --- the step ------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        """The seat to act, or None once the match is over."""
        return None if self.match.is_over else self.match.deal.turn

    def decide(
        self,
        observation: Observation | None = None,
        *,
        time: float | None = None,
    ) -> Decision:
        """The decision of the player whose turn it is (blocking: it may search or wait on a
        remote bot). ``observation`` is that seat's view, when the caller took it already."""
        seat = self.turn if observation is None else observation.seat
        if seat is None:
            raise CallbreakError("nobody is to act: the match is over")
        player = self.player(seat)
        if player is None:
            raise CallbreakError(f"seat {seat} is a person's: its decisions come from them")
        self._announce()
        if self.reveal_to_oracles and player.omniscient:
            # A reference for measuring (players.MEASURING): only hosts that ask show it the hands.
            player.see(tuple(self.match.deal.held(s).mask for s in range(4)))
        seen = observation if observation is not None else self.match.observation(seat)
        return decide(player, seen, time=time, substitute_failures=self.substitute_failures)

    def apply(self, action: Action, decision: Decision | None = None) -> None:
        """Take ``action`` for the seat to act and tell every player of it; the time and faults
        of ``decision`` (the computer's decision that chose it) are kept."""
        match = self.match
        self._announce()
        seat = match.deal.turn
        assert seat is not None and (decision is None or decision.seat == seat)
        index = len(match.deals) - 1
        deal = match.deal
        match.apply(action)
        if decision is not None:
            self._times[seat].append(decision.seconds)
            if decision.faults:
                self._faults.setdefault(index, []).extend(decision.faults)
        self._inform(_event(seat, action, index))
        if deal.is_over:
            self._inform(Event(DEAL_OVER, None, deal.phase.value, index))
        if match.is_over:
            self._inform(Event(MATCH_OVER, None, None, index))

    def stop(self) -> None:
        """End an open-ended match between deals."""
        self.match.stop()
        self._inform(Event(MATCH_OVER, None, None, len(self.match.deals) - 1))

    def step(self) -> Decision:
        """One decision of the seat to act, applied."""
        decision = self.decide()
        self.apply(decision.action, decision)
        return decision

    def play(self, *, time: float | None = None) -> MatchResult:
        """Play the match to its end (every seat must hold a player); ``time`` limits each
        decision, as a competition's clock does."""
        for seat in range(4):
            if self.player(seat) is None:
                raise CallbreakError(f"seat {seat} has no player to play the match")
        match = self.match
        while not match.is_over:
            if (
                match.rules.deals is None
                and len(match.played_deals()) >= OPEN_ENDED_DEALS
                and not match.deal.actions
            ):
                self.stop()
                break
            decision = self.decide(time=time)
            self.apply(decision.action, decision)
        return self.result()

    def result(self) -> MatchResult:
        """The match with its decision times and faults so far."""
        return MatchResult(
            self.match,
            tuple(tuple(times) for times in self._times),
            {index: tuple(faults) for index, faults in self._faults.items()},
        )

    # --- telling the players -------------------------------------------------------------------

    def _announce(self) -> None:
        index = len(self.match.deals) - 1
        if index != self._announced and not self.match.is_over:
            self._announced = index
            self._inform(Event(DEAL_START, None, None, index))

    def _inform(self, event: Event) -> None:
        for occupant in self._occupants:
            if isinstance(occupant, Player):
                occupant.inform(event)


def _event(seat: int, action: Action, deal_index: int) -> Event:
    if isinstance(action, Call):
        return Event(CALL, seat, action.value, deal_index)
    if isinstance(action, Play):
        return Event(PLAY, seat, action.card, deal_index)
    return Event(REDEAL, seat, None, deal_index)


def play_match(
    match: Match,
    players: Sequence[Player | PlayerSpec | str],
    *,
    bot_budget: float = 1.5,
    time: float | None = None,
    reveal_to_oracles: bool = False,
) -> MatchResult:
    """Play ``match`` to its end with ``players[seat]`` deciding for each seat.

    Players may be given as specs (built here, seeded from the match when they have no seed,
    and closed at the end). An open-ended match stops after as many deals as a five-deal
    match plays. ``time`` limits each decision of our own players (remote bots keep their
    budget per round). ``reveal_to_oracles`` shows every hand to an ``oracle`` (see
    :class:`Seating`).
    """
    seating = Seating(match, players, bot_budget=bot_budget, reveal_to_oracles=reveal_to_oracles)
    try:
        return seating.play(time=time)
    finally:
        seating.close()
