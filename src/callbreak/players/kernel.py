"""The search's inner loop, compiled with numba: legality, a card-play policy, playouts, an
exact endgame solver and a sampler of hidden hands, all on 52-bit integer masks.

This is the package's one fast path: the players search through it, and the engine benchmark
plays random deals through it (:func:`random_deals`). Card ``c`` is bit ``c``
(``suit * 13 + rank - 2``; spades are bits 0-12), as everywhere in the package. Legality, the
trick's winner and the score are the rules' own integer functions compiled here
(:func:`callbreak.rules.legal_mask`, :func:`~callbreak.rules.trick_step`,
:func:`~callbreak.rules.deal_score`); the tests compare them with an independent reading of the
rules and count the perft golden positions through them. Nothing in this module sees an
``Observation``: callers pass only what the seat may know, or, inside a sampled world, what
that world says.

A trick in progress is ``(leader, n, led, high_led, high_spade, win_seat)``: who led, how many
cards are in, and the state :func:`callbreak.rules.trick_step` keeps: the led suit (-1 before
the lead), the highest card of the led suit, the highest spade (-1 for none) and the seat
winning so far.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from math import erf
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.dispatcher import Dispatcher
from numba.core.extending import intrinsic, register_jitable
from numba.core.typing.templates import Signature

from callbreak import cards, rules
from callbreak.cards import FULL_MASK

# --- compiling and the cache ----------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])

SOURCES: tuple[Path, ...] = (Path(cards.__file__), Path(rules.__file__), Path(__file__))
"""Every source file whose code or constants the kernel compiles: the rules' integer functions
(and the card masks they read) are compiled into the kernel's loops."""


def source_stamp(paths: Sequence[Path]) -> str:
    """A hash of the text of ``paths``: the kernel's cache holds machine code for this stamp."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


SOURCE_STAMP = source_stamp(SOURCES)


class _StampedLocator(_CacheLocator):
    """numba's own cache place for a function, with :data:`SOURCE_STAMP` as its freshness.

    numba checks only the file a function is defined in, so a change to ``rules.py`` alone left
    the kernel's callers running the machine code of the old rules. Stamped with every
    compiled source, an index written for other sources is discarded and compiled anew.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        path: str = self._inner.get_cache_path()
        return path

    def get_source_stamp(self) -> str:
        return SOURCE_STAMP

    def get_disambiguator(self) -> str:
        name: str = self._inner.get_disambiguator()
        return name


class _KernelCacheImpl(CompileResultCacheImpl):
    def __init__(self, py_func: Callable[..., Any]) -> None:
        super().__init__(py_func)  # type: ignore[no-untyped-call]
        self._locator = _StampedLocator(self._locator)


class _KernelCache(FunctionCache):
    _impl_class = _KernelCacheImpl


def compiled(**options: Any) -> Callable[[F], F]:
    """``numba.njit(nogil=True, **options)`` with the kernel's cache (keyed on
    :data:`SOURCE_STAMP`).

    Every function lets go of the interpreter's lock while it runs: a search of seconds that
    held it stopped every other thread of the process for as long (a server's event loop, which
    serves every table, stalled up to half a second a decision; issue 39). The functions touch
    no Python object, so nothing else needs the lock meanwhile.
    """

    def wrap(function: F) -> F:
        dispatcher = njit(**{"nogil": True, **options})(function)
        dispatcher._cache = _KernelCache(dispatcher.py_func)  # type: ignore[no-untyped-call]
        return cast(F, dispatcher)

    return wrap


# The rules' plain-integer helpers, compiled into whatever kernel function calls them (the
# rules' own functions call them too, so they are registered rather than wrapped).
for _helper in (rules.duty_steps, rules.made_call, rules.deal_score):
    register_jitable(inline="always")(_helper)

# --- tables ---------------------------------------------------------------------------------

SUIT = np.array([0x1FFF << (13 * s) for s in range(4)], dtype=np.int64)
SPADES = 0x1FFF
NON_SPADES = FULL_MASK & ~SPADES
ABOVE = np.array([(0x1FFF << (13 * (c // 13))) & ~((2 << c) - 1) for c in range(52)], np.int64)

# --- threads --------------------------------------------------------------------------------


def cores(threads: int) -> int:
    """The threads numba may use for a player of ``threads``, if the process has them."""
    # numba sets its config's attributes at import, from the environment: no stubs know them.
    available: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    return max(1, min(threads, available))


@contextlib.contextmanager
def threads_of(threads: int) -> Iterator[None]:
    """Run numba's parallel loops on ``threads`` threads (as many as the process has)."""
    previous = numba.get_num_threads()
    numba.set_num_threads(cores(threads))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


# --- Ctrl-C in the parallel loops ----------------------------------------------------------


_LAUNCH = threading.Lock()


def _launching() -> contextlib.AbstractContextManager[object]:
    """What a call of a parallel function holds while it runs: nothing under a threading layer
    that is thread-safe (OpenMP, TBB), :data:`_LAUNCH` under numba's own ``workqueue``.

    The functions let go of the interpreter's lock (:func:`compiled`), so two threads (two
    tables' searches on a server) can launch parallel loops at once, and the workqueue layer
    then aborts the whole process ("Concurrent access has been detected"). Until the first
    launch numba has not chosen its layer: held then too.
    """
    try:
        layer = numba.threading_layer()  # type: ignore[attr-defined]  # not in numba's stubs
    except ValueError:  # no parallel loop has run yet in this process
        return _LAUNCH
    return _LAUNCH if layer == "workqueue" else contextlib.nullcontext()


def interruptible(function: F) -> F:
    """``function`` (a ``parallel=True`` kernel function) with Ctrl-C raised as itself, one
    call at a time when numba's threading layer needs that (:func:`_launching`).

    A Ctrl-C that lands while numba's parallel loop runs leaves the KeyboardInterrupt pending
    when the compiled function returns, and Python reports that as a ``SystemError``
    ("returned a result with an exception set"), which ended an arena with a traceback
    instead of its report. The interrupt is at the end of that error's causes: raise it.
    """

    @functools.wraps(function)
    def call(*args: Any) -> Any:
        try:
            with _launching():
                return function(*args)
        except SystemError as error:
            cause = error.__cause__  # through numba's own SystemErrors on the way out
            while cause is not None and not isinstance(cause, KeyboardInterrupt):
                cause = cause.__cause__
            if cause is None:
                raise
            raise KeyboardInterrupt from None

    return cast(F, call)


def dispatcher(value: object) -> Any:
    """The numba dispatcher behind a kernel function (the parallel ones are wrapped by
    :func:`interruptible`), or None for plain Python; note that a dispatcher's own
    ``__wrapped__`` is its Python function."""
    if isinstance(value, Dispatcher):
        return value
    inner = getattr(value, "__wrapped__", None)
    return inner if isinstance(inner, Dispatcher) else None


def flags_of(profile: rules.Rules) -> int:
    """The legality switches of ``profile`` packed into the int :func:`legal` reads."""
    return profile.flags


def scoring_of(profile: rules.Rules) -> np.ndarray:
    """The scoring switches as :func:`score` reads them: ``[exact, bonus_call or 0, bonus]``."""
    return np.array(profile.scoring, dtype=np.int64)


def trick_cards(cards: Sequence[int]) -> np.ndarray:
    """A trick's cards in play order, padded to four, as the kernel's functions read a trick."""
    padded = np.zeros(4, dtype=np.int64)
    padded[: len(cards)] = cards
    return padded


def calls_of(calls: Sequence[int | None]) -> np.ndarray:
    """The seats' calls as the kernel reads them: 0 for a seat yet to call."""
    return np.array([call or 0 for call in calls], dtype=np.int64)


def known_calls(calls: Sequence[int | None]) -> np.ndarray:
    """The calls heard so far as ``world_calls`` and ``call_weights`` read them: -1 for a seat
    yet to call."""
    return np.array([-1 if call is None else call for call in calls], dtype=np.int64)


# --- positions ------------------------------------------------------------------------------

# numba takes named tuples as values: the compiled functions receive a position, a state or a
# way of playing out as one argument (its fields are passed flat, as separate arguments were),
# read its fields by name, and build new states as a deal goes on.


class State(NamedTuple):
    """A deal at one turn as every seat sees it, as the policy, the model of play, the
    playouts and the solver read it: the trick in progress (see the module's docstring),
    whether it is the deal's first, and what the cards played have shown."""

    leader: int
    n: int
    led: int
    high_led: int
    high_spade: int
    win_seat: int
    first: bool
    gone: int
    """Every card played this deal, the current trick included."""
    done: int
    """The cards of completed tricks."""
    voids: int
    """Bit ``4 * seat + suit`` is set for each suit a seat has shown out of."""


class Position(NamedTuple):
    """A deal in play as the seat to decide may know it, where the searches (:func:`evaluate`,
    :func:`ismcts`) start: built from an observation by
    :func:`callbreak.players.knowledge.position`, the one place that reads an observation for
    the kernel's searches."""

    seat: int
    hand: int
    unseen: int
    """The cards in the other seats' hands."""
    leader: int
    trick: np.ndarray
    """The current trick's cards in play order, padded to four (:func:`trick_cards`)."""
    n: int
    """How many cards the current trick has."""
    first: bool
    """Whether the current trick is the deal's first."""
    gone: int
    voids: int
    calls: np.ndarray
    """The seats' calls (:func:`calls_of`)."""
    won: np.ndarray
    """The tricks each seat has taken."""
    flags: int
    """The legality switches (:func:`flags_of`)."""


class Playouts(NamedTuple):
    """How a playout plays the seats: by the policy with a share ``eps`` of random cards, and
    the seats in the mask ``modelled`` (bit ``seat``) by the model of play with weights
    ``model`` instead (see :func:`model_choose`)."""

    eps: float
    model: np.ndarray
    modelled: int


class Trees(NamedTuple):
    """Information-set trees, one per row, kept between calls of :func:`ismcts`: each node's
    card, the seat that played it, its first child and next sibling (-1 for none), its visits,
    its availability count and its total reward; ``size[t]`` is tree ``t``'s node count."""

    card: np.ndarray
    mover: np.ndarray
    child: np.ndarray
    sibling: np.ndarray
    visits: np.ndarray
    avail: np.ndarray
    total: np.ndarray
    size: np.ndarray


def new_trees(count: int, capacity: int) -> Trees:
    """``count`` trees of a root each, with room for ``capacity`` nodes."""
    return Trees(
        card=np.zeros((count, capacity), dtype=np.int64),
        mover=np.zeros((count, capacity), dtype=np.int64),
        child=np.full((count, capacity), -1, dtype=np.int64),
        sibling=np.full((count, capacity), -1, dtype=np.int64),
        visits=np.zeros((count, capacity)),
        avail=np.zeros((count, capacity)),
        total=np.zeros((count, capacity)),
        size=np.ones(count, dtype=np.int64),
    )


# Desire for tricks, in the policy.
NEED = 2  # still short of the call
HAPPY = 1  # call made; more tricks are welcome (overtrick scoring) or one more is fine
AVOID = -1  # one more trick would break an exact call


# --- bits -----------------------------------------------------------------------------------


# The three bit operations compile to single instructions (popcnt, tzcnt, lzcnt on this
# machine's CPU) through LLVM's intrinsics. They were 16-bit table lookups inlined by numba into
# every caller, which made each caller's first compile seconds longer (three 64 KB tables
# frozen into each function) and ran slower.


@intrinsic
def _popcount(typingctx: object, x: types.Integer) -> tuple[Signature, Callable[..., object]]:
    """The number of set bits of ``x``."""

    def codegen(context: Any, builder: Any, signature: Signature, args: Any) -> object:
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(x), codegen


@intrinsic
def _low_index(typingctx: object, x: types.Integer) -> tuple[Signature, Callable[..., object]]:
    """Index of the lowest set bit of a non-zero mask (48 for zero, as the tables gave)."""

    def codegen(context: Any, builder: Any, signature: Signature, args: Any) -> object:
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        zero = value.type(0)
        index = builder.cttz(value, cgutils.false_bit)
        empty = builder.icmp_signed("==", value, zero)
        return builder.select(empty, value.type(48), index)

    return types.int64(x), codegen


@intrinsic
def _high_index(typingctx: object, x: types.Integer) -> tuple[Signature, Callable[..., object]]:
    """Index of the highest set bit of a non-zero mask (0 for zero, as the tables gave)."""

    def codegen(context: Any, builder: Any, signature: Signature, args: Any) -> object:
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        zero = value.type(0)
        lead = builder.ctlz(value, cgutils.false_bit)
        index = builder.sub(value.type(63), lead)
        return builder.select(builder.icmp_signed("==", value, zero), zero, index)

    return types.int64(x), codegen


# What numba calls them with, for the type checker (an intrinsic's Python signature is its
# typing function's).
popcount = cast(Callable[[int], int], _popcount)
low_index = cast(Callable[[int], int], _low_index)
high_index = cast(Callable[[int], int], _high_index)


@compiled(inline="always")
def rand_float(rng: np.ndarray) -> float:
    """A float in [0, 1) from an xorshift64* generator whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return float((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@compiled(inline="always")
def random_bit(mask: int, rng: np.ndarray) -> int:
    """A uniformly random card of a non-empty mask."""
    skip = int(rand_float(rng) * popcount(mask))
    for _ in range(skip):
        mask &= mask - 1
    return low_index(mask)


def seed_state(seed: int) -> np.ndarray:
    """A generator state for :func:`rand_float` from any integer seed (never zero)."""
    mixed = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return np.array([mixed or 1], dtype=np.uint64)


# --- rules ----------------------------------------------------------------------------------


# The rules' own legality and trick step, compiled into the loops below: one definition of what
# may be played and who wins a trick for the engine, the knowledge, the policies and the search.
# numba inlines the step in its callers' code, so the playout and the solver compile to the code
# they had with the step written out in them (compared with inspect_asm; one-thread timings
# agree within noise). The cache's stamp covers rules.py (see SOURCES).
legal = compiled()(rules.legal_mask)
trick_step = compiled(inline="always")(rules.trick_step)
# The rules' fold of a trick calls the step by its Python name: registered, numba compiles that
# call as the step itself, so the fold below is the rules' own (called with ``trick[:n]``).
register_jitable(inline="always")(rules.trick_step)
# (Typed for the kernel's callers, who pass the cards as an array: ``trick[:n]``.)
trick_state = cast(
    Callable[[np.ndarray, int], tuple[int, int, int, int]], compiled()(rules.trick_state)
)


@compiled(inline="always")
def winning_cards(cards: int, led: int, high_led: int, high_spade: int) -> int:
    """Which of ``cards`` would take the lead of the trick if played now."""
    if led < 0:
        return cards
    if high_spade >= 0:
        return cards & SPADES & ABOVE[high_spade]
    return (cards & SUIT[led] & ABOVE[high_led]) | (cards & SPADES)


@compiled(inline="always")
def score(call: int, tricks: int, scoring: np.ndarray) -> int:
    """A deal score in tenths (:func:`callbreak.rules.deal_score`). ``scoring`` is
    ``[exact, bonus_call or 0, bonus_score]``."""
    return rules.deal_score(call, tricks, scoring[0], scoring[1], scoring[2])


# --- hand strength --------------------------------------------------------------------------


HAND_FEATURES = (
    "one",
    "side aces",
    "side aces in long suits",
    "kings with ace",
    "guarded kings",
    "bare kings",
    "queens with an honour",
    "guarded queens",
    "voids",
    "singletons",
    "doubletons",
    "ace of spades",
    "king of spades",
    "bare king of spades",
    "queen of spades",
    "queen of spades with two guards",
    "jack of spades",
    "jack of spades with three guards",
    "spades",
    "spades beyond four",
    "spades x voids",
    "spades x singletons",
)
#: Weights of the features above, fitted by benchmarks/calibrate_hand.py (see its output in
#: docs/strength.md).
HAND_WEIGHTS = np.array(
    [
        -0.671,
        1.058,
        0.905,
        0.609,
        0.674,
        0.007,
        0.194,
        0.273,
        0.476,
        0.195,
        0.032,
        0.857,
        0.749,
        -0.341,
        0.292,
        0.332,
        0.241,
        0.301,
        0.506,
        0.375,
        0.055,
        0.033,
    ]
)


@compiled()
def fill_hand_features(hand: int, out: np.ndarray) -> None:
    """The features of a 13-card hand that predict its tricks, in ``HAND_FEATURES`` order."""
    out[:] = 0.0
    out[0] = 1.0
    for suit in (1, 2, 3):
        part = (hand >> (13 * suit)) & 0x1FFF
        length = popcount(part)
        ace, king, queen = part >> 12 & 1, part >> 11 & 1, part >> 10 & 1
        if ace:
            out[1 if length <= 5 else 2] += 1
        if king:
            if length >= 2:
                out[3 if ace else 4] += 1
            else:
                out[5] += 1
        if queen and length >= 3:
            out[6 if (ace or king) else 7] += 1
        if length <= 2:
            out[8 + length] += 1
    spades = hand & 0x1FFF
    count = popcount(spades)
    out[11] = spades >> 12 & 1
    out[12] = spades >> 11 & 1
    out[13] = 1.0 if (spades >> 11 & 1) and count == 1 else 0.0
    out[14] = spades >> 10 & 1
    out[15] = 1.0 if (spades >> 10 & 1) and count >= 3 else 0.0
    out[16] = spades >> 9 & 1
    out[17] = 1.0 if (spades >> 9 & 1) and count >= 4 else 0.0
    out[18] = count
    out[19] = max(0, count - 4)
    out[20] = count * out[8]
    out[21] = count * out[9]


@compiled()
def hand_features(hand: int) -> np.ndarray:
    """The features of a hand as a new array."""
    out = np.empty(len(HAND_FEATURES))
    fill_hand_features(hand, out)
    return out


@compiled()
def hand_strength(hand: int) -> float:
    """Expected tricks of a 13-card hand: its features weighted by ``HAND_WEIGHTS``."""
    features = np.empty(len(HAND_FEATURES))
    fill_hand_features(hand, features)
    total = 0.0
    for index in range(len(HAND_WEIGHTS)):
        total += features[index] * HAND_WEIGHTS[index]
    return total


@compiled()
def call_weights(
    pool: np.ndarray, calls: np.ndarray, played: np.ndarray, seat: int, spread: float
) -> np.ndarray:
    """How likely each world makes the calls heard (``calls[s] < 0``: not yet called).

    A seat's call is taken to be its hand's strength less a little caution, give or take
    ``spread``; a small floor keeps any world from being ruled out by a surprising call.
    """
    weights = np.ones(pool.shape[0])
    for w in range(pool.shape[0]):
        for other in range(4):
            if other == seat or calls[other] < 0:
                continue
            gap = calls[other] - hand_strength(pool[w, other] | played[other]) + 0.3
            weights[w] *= 0.02 + np.exp(-(gap * gap) / (2.0 * spread * spread))
    return weights


@compiled()
def sound_call_weights(
    pool: np.ndarray,
    calls: np.ndarray,
    played: np.ndarray,
    seat: int,
    spread: float,
    low: np.ndarray,
    high: np.ndarray,
) -> np.ndarray:
    """How likely each world makes the calls heard (``calls[s] < 0``: not yet called), when a
    call is the sound call of a hand whose strength is the world's give or take ``spread``.

    A sound caller calls ``c`` with a hand of strength in ``[low[c], high[c])`` (read off the
    profile's call lookup, :func:`callbreak.players.calling.call_bounds`): the chance of call
    ``c`` is the normal curve's mass over that range around the world's strength. So a call of
    the profile's lowest (its range open below) says only that the hand is at most that strong,
    where a reading of the call as the hand's strength would wrongly lift weak hands. A small
    floor keeps any world from being ruled out by a surprising call.
    """
    weights = np.ones(pool.shape[0])
    for w in range(pool.shape[0]):
        for other in range(4):
            if other == seat or calls[other] < 0:
                continue
            strength = hand_strength(pool[w, other] | played[other])
            weights[w] *= 0.02 + sound_call_chance(strength, calls[other], spread, low, high)
    return weights


@compiled(inline="always")
def sound_call_chance(
    strength: float, call: int, spread: float, low: np.ndarray, high: np.ndarray
) -> float:
    """The chance that a hand of ``strength`` is called ``call`` when the caller's sense of its
    strength is off by a normal error of ``spread``: the normal curve's mass over ``[low[call],
    high[call])`` (an infinite bound is all or nothing, an empty range nothing)."""
    root = spread * np.sqrt(2.0)
    above = 0.5 * (1.0 + erf((high[call] - strength) / root))
    below = 0.5 * (1.0 + erf((low[call] - strength) / root))
    return above - below


# --- the card-play policy -------------------------------------------------------------------


@compiled(inline="always")
def desire(call: int, won: int, scoring: np.ndarray) -> int:
    if won < call:
        return NEED
    if scoring[0] and won >= call + 1:
        return AVOID
    return HAPPY


@compiled(inline="always")
def lowest_rank(cards: int) -> int:
    """The card of lowest rank in ``cards`` (non-spades first), from the shortest suit on ties."""
    best, best_rank, best_len = -1, 99, 99
    for suit in (1, 2, 3, 0):
        part = cards & SUIT[suit]
        if not part:
            continue
        card = low_index(part)
        rank = card - 13 * suit + (20 if suit == 0 else 0)  # keep spades unless nothing else
        length = popcount(part)
        if rank < best_rank or (rank == best_rank and length < best_len):
            best, best_rank, best_len = card, rank, length
    return best


@compiled(inline="always")
def highest_rank(cards: int) -> int:
    """The card of highest rank in ``cards`` among non-spades, else the highest spade."""
    best, best_rank = -1, -1
    for suit in (1, 2, 3):
        part = cards & SUIT[suit]
        if part:
            card = high_index(part)
            if card - 13 * suit > best_rank:
                best, best_rank = card, card - 13 * suit
    if best < 0:
        best = high_index(cards)
    return best


@compiled()
def choose(
    seat: int,
    hand: int,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    rng: np.ndarray,
    eps: float,
) -> int:
    """A sensible card for ``seat`` holding ``hand`` using only what it may know (``state``).

    The policy plays toward its call: it takes tricks it needs with the cheapest sure winner,
    keeps winning cheaply once the call is made, breaks a rival who still needs the trick when
    that is cheap, and ducks with its highest losing card when a trick would break an exact
    call. With probability ``eps`` it plays a random legal card instead, which keeps playouts
    from being too predictable.
    """
    n, led, high_led, high_spade = state.n, state.led, state.high_led, state.high_spade
    win_seat, gone, voids = state.win_seat, state.gone, state.voids
    options = legal(hand, led, high_led, high_spade, state.first, flags)
    if options & (options - 1) == 0:
        return low_index(options)
    if eps > 0.0 and rand_float(rng) < eps:
        return random_bit(options, rng)
    want = desire(calls[seat], won[seat], scoring)
    unseen = FULL_MASK & ~(gone | hand)
    unseen_spades = unseen & SPADES

    if n == 0:  # leading
        if want == AVOID:
            safe = 0
            for suit in (1, 2, 3, 0):
                part = options & SUIT[suit]
                if part and unseen & SUIT[suit] & ABOVE[low_index(part)]:
                    safe |= 1 << low_index(part)
            return lowest_rank(safe) if safe else lowest_rank(options)
        best, best_room = -1, -1
        for suit in (1, 2, 3):
            part = options & SUIT[suit]
            if not part:
                continue
            top = high_index(part)
            if unseen & ABOVE[top]:
                continue  # not the master card of its suit
            shown_out = False
            for other in range(4):
                if other != seat and voids >> (4 * other + suit) & 1:
                    shown_out = True
            if shown_out and unseen_spades:
                continue  # someone would trump it
            room = popcount(unseen & SUIT[suit])
            if room > best_room:
                best, best_room = top, room
        if best >= 0 and best_room > 0:
            return best
        spades = options & SPADES
        master_spade = spades and unseen_spades and not unseen_spades & ABOVE[high_index(spades)]
        if master_spade and (popcount(spades) >= 2 or popcount(unseen_spades) <= popcount(spades)):
            return high_index(spades)  # draw trumps with the master spade
        longest, longest_len = -1, 0
        for suit in (1, 2, 3):
            part = options & SUIT[suit]
            if popcount(part) > longest_len:
                longest, longest_len = suit, popcount(part)
        if longest >= 0:
            return low_index(options & SUIT[longest])
        return low_index(options)

    wins = winning_cards(options, led, high_led, high_spade)
    last = n == 3
    if want == AVOID:
        losing = options & ~wins
        if losing:
            return highest_rank(losing)
        return high_index(wins)
    safe = 0
    if wins:
        if last:
            safe = wins
        else:
            later_void = False
            for k in range(1, 4 - n):
                if voids >> (4 * ((seat + k) & 3) + led) & 1:
                    later_void = True
            rest = wins
            while rest:
                card = low_index(rest)
                rest &= rest - 1
                if unseen & ABOVE[card]:
                    continue
                if card >= 13 and later_void and unseen_spades:
                    continue
                safe |= 1 << card
    if safe:
        return lowest_rank(safe)  # the cheapest sure winner, sparing spades
    if want == NEED and wins:
        return high_index(wins & SPADES) if wins & SPADES else high_index(wins)
    if wins and win_seat != seat and won[win_seat] < calls[win_seat]:
        return lowest_rank(wins)  # cheap chance to break a rival still short of the call
    if wins == options:
        return lowest_rank(wins)
    return lowest_rank(options & ~wins)


# --- playouts -------------------------------------------------------------------------------

NO_MODEL = np.zeros(0)
"""The model weights of a playout whose seats all play by the policy (``modelled`` is 0)."""

SECONDS_PER_PLAYOUT_CARD = 30e-9
"""What a playout costs per card played, one thread, on the project machine (docs/strength.md):
the search players size their searches from it, never from the clock."""


def others_modelled(model: np.ndarray, seat: int) -> int:
    """The ``modelled`` mask of a playout that plays every seat but ``seat`` by ``model`` (none
    when ``model`` is ``NO_MODEL``)."""
    return 0b1111 & ~(1 << seat) if len(model) else 0


MODEL_PLAYOUT_COST = 3.5
"""How many times a policy playout's cost per card a playout costs whose other three seats play
by the model of play (``model_choose`` weighs the features of every class of legal cards):
``benchmarks/cost_model.py --worlds``, docs/strength.md. Measured on whole playouts from the
first lead; the flat search's playouts from mid-deal are sized by it too, an approximation."""


@compiled()
def playout(
    hands: np.ndarray,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    rng: np.ndarray,
    playouts: Playouts,
    classes: np.ndarray,
    features: np.ndarray,
) -> None:
    """Play the deal out from ``state`` (:func:`state_of`) as ``playouts`` says: with the
    policy, or for the seats it models with a card drawn from the model's distribution;
    ``hands`` and ``won`` are updated. ``classes`` and ``features`` are the model's scratch
    space (``MAX_CLASSES`` rows), allocated by the caller once, not per playout.
    """
    leader, n, led, high_led, high_spade, win_seat, first, gone, done, voids = state
    eps, model, modelled = playouts.eps, playouts.model, playouts.modelled
    while True:
        while n < 4:
            seat = (leader + n) & 3
            hand = hands[seat]
            now = State(leader, n, led, high_led, high_spade, win_seat, first, gone, done, voids)
            if modelled >> seat & 1:
                card = model_choose(
                    seat, hand, now, calls, won, flags, scoring, rng, model, classes, features
                )
            else:
                card = choose(seat, hand, now, calls, won, flags, scoring, rng, eps)
            hands[seat] = hand & ~(1 << card)
            gone |= 1 << card
            if n and card // 13 != led:
                voids |= 1 << (4 * seat + led)
            led, high_led, high_spade, win_seat = trick_step(
                led, high_led, high_spade, win_seat, card, seat
            )
            n += 1
        won[win_seat] += 1
        leader = win_seat
        if not hands[leader]:
            return
        n, led, high_led, high_spade, first = 0, -1, -1, -1, False
        done = gone


@compiled()
def state_of(trick: np.ndarray, n: int, leader: int, first: bool, gone: int, voids: int) -> State:
    """The state of a deal whose current trick is ``trick[:n]`` in play order from ``leader``
    (its completed tricks' cards are ``gone`` less the trick's)."""
    led, high_led, high_spade, win_seat = trick_state(trick[:n], leader)
    done = gone
    for k in range(n):
        done &= ~(1 << trick[k])
    return State(leader, n, led, high_led, high_spade, win_seat, first, gone, done, voids)


# --- random deals ---------------------------------------------------------------------------


@compiled(inline="always")
def shuffle_deal(deck: np.ndarray, hands: np.ndarray, rng: np.ndarray) -> None:
    """Shuffle ``deck`` (the 52 cards in any order) in place and deal it singly into ``hands``."""
    for i in range(51, 0, -1):
        j = int(rand_float(rng) * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    for seat in range(4):
        hands[seat] = 0
    for i in range(52):
        hands[i & 3] |= 1 << deck[i]


@compiled()
def random_play(
    hands: np.ndarray,
    leader: int,
    flags: int,
    rng: np.ndarray,
    won: np.ndarray,
    plays: np.ndarray,
) -> None:
    """Play a deal from its first lead with uniformly random legal cards.

    ``hands`` are emptied, ``won`` counts the tricks each seat takes, and ``plays`` receives
    the cards in the order played.
    """
    first = True
    k = 0
    while hands[leader]:
        led, high_led, high_spade, winner = -1, -1, -1, leader
        for position in range(4):
            seat = (leader + position) & 3
            hand = hands[seat]
            card = random_bit(legal(hand, led, high_led, high_spade, first, flags), rng)
            hands[seat] = hand & ~(1 << card)
            plays[k] = card
            k += 1
            led, high_led, high_spade, winner = trick_step(
                led, high_led, high_spade, winner, card, seat
            )
        won[winner] += 1
        leader = winner
        first = False


@compiled()
def random_deals(count: int, flags: int, seed: int) -> np.ndarray:
    """Deal ``count`` random deals and play each out with uniformly random legal cards, from a
    random leader; return the tricks each seat took over all of them.

    This is the engine benchmark's fast path: dealing, legality and trick winners on one
    thread, as the search uses them.
    """
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    if rng[0] == 0:
        rng[0] = np.uint64(1)
    deck = np.arange(52, dtype=np.int64)
    hands = np.empty(4, dtype=np.int64)
    won = np.zeros(4, dtype=np.int64)
    plays = np.empty(52, dtype=np.int64)
    for _ in range(count):
        shuffle_deal(deck, hands, rng)
        random_play(hands, int(rand_float(rng) * 4.0), flags, rng, won, plays)
    return won


# --- the exact solver -----------------------------------------------------------------------

_MIX = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5],
    dtype=np.uint64,
)
_OFFSET = 1 << 15


@compiled(inline="always")
def _pack(won: np.ndarray, calls: np.ndarray, scoring: np.ndarray) -> int:
    packed = 0
    for seat in range(4):
        packed |= (score(calls[seat], won[seat], scoring) + _OFFSET) << (16 * seat)
    return packed


@compiled(inline="always")
def unpack(packed: int, seat: int) -> int:
    """One seat's utility (a score in tenths) out of a packed vector."""
    return ((packed >> (16 * seat)) & 0xFFFF) - _OFFSET


@compiled(inline="always")
def _key(hands: np.ndarray, leader: int, won: np.ndarray) -> np.uint64:
    key = np.uint64(leader + 1)
    for seat in range(4):
        key ^= np.uint64(hands[seat]) * _MIX[seat]
        key = (key << np.uint64(13)) | (key >> np.uint64(51))
        key ^= np.uint64(won[seat] + 16 * seat) * _MIX[(seat + 1) & 3]
    return key | np.uint64(1)


_ENTER, _NEXT, _RETURN = 0, 1, 2
_DEPTH = 53  # at most 52 cards are played below the root


@compiled()
def solve(
    hands: np.ndarray,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    tt_keys: np.ndarray,
    tt_values: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """The packed utility vector of perfect-information play from here (max^n).

    Every seat plays to maximise its own deal score, and between equal scores prefers the move
    that leaves the others less. Cards that touch once the ones between them are done (in
    completed tricks, ``state.done``) are interchangeable, so only one of them is searched.
    Positions at the start of a trick are memoised in ``tt_keys``/``tt_values`` (a power-of-two
    size). The search keeps its own stack: numba cannot cache recursive functions safely.
    ``hands`` and ``won`` are used as scratch and restored; ``nodes[0]`` counts the positions
    visited, a measure of the work that does not depend on the machine.
    """
    f_leader = np.empty(_DEPTH, np.int64)
    f_n = np.empty(_DEPTH, np.int64)
    f_led = np.empty(_DEPTH, np.int64)
    f_high_led = np.empty(_DEPTH, np.int64)
    f_high_spade = np.empty(_DEPTH, np.int64)
    f_win = np.empty(_DEPTH, np.int64)
    f_first = np.empty(_DEPTH, np.bool_)
    f_done = np.empty(_DEPTH, np.int64)
    f_seat = np.empty(_DEPTH, np.int64)
    f_hand = np.empty(_DEPTH, np.int64)
    f_options = np.empty(_DEPTH, np.int64)
    f_best = np.empty(_DEPTH, np.int64)
    f_best_own = np.empty(_DEPTH, np.int64)
    f_best_rest = np.empty(_DEPTH, np.int64)
    f_key = np.empty(_DEPTH, np.uint64)
    f_trick_winner = np.empty(_DEPTH, np.int64)
    mask = np.uint64(len(tt_keys) - 1)

    d = 0
    f_leader[0], f_n[0], f_led[0], f_high_led[0] = state.leader, state.n, state.led, state.high_led
    f_high_spade[0], f_win[0], f_first[0] = state.high_spade, state.win_seat, state.first
    f_done[0] = state.done
    status = _ENTER
    result = 0
    while True:
        if status == _ENTER:
            nodes[0] += 1
            at_leader, at_n = f_leader[d], f_n[d]
            if at_n == 0:
                if not hands[at_leader]:
                    result = _pack(won, calls, scoring)
                    status = _RETURN
                    continue
                key = _key(hands, at_leader, won)
                if tt_keys[int(key & mask)] == key:
                    result = tt_values[int(key & mask)]
                    status = _RETURN
                    continue
                f_key[d] = key
            seat = (at_leader + at_n) & 3
            hand = hands[seat]
            options = legal(hand, f_led[d], f_high_led[d], f_high_spade[d], f_first[d], flags)
            live = FULL_MASK & ~f_done[d]
            distinct = 0
            rest = options
            while rest:
                card = low_index(rest)
                rest &= rest - 1
                touching = live & ABOVE[card]
                if touching and hand >> low_index(touching) & 1:
                    continue  # the next live card up is ours too: the same play
                distinct |= 1 << card
            f_seat[d], f_hand[d], f_options[d] = seat, hand, distinct
            f_best[d], f_best_own[d], f_best_rest[d] = 0, -(1 << 30), 1 << 30
            status = _NEXT
        elif status == _NEXT:
            options = f_options[d]
            if not options:
                result = f_best[d]
                if f_n[d] == 0:
                    tt_keys[int(f_key[d] & mask)] = f_key[d]
                    tt_values[int(f_key[d] & mask)] = result
                status = _RETURN
                continue
            card = low_index(options)
            f_options[d] = options & (options - 1)
            seat = f_seat[d]
            hands[seat] = f_hand[d] & ~(1 << card)
            at_n = f_n[d]
            c_led, c_high_led, c_high_spade, c_win = trick_step(
                f_led[d], f_high_led[d], f_high_spade[d], f_win[d], card, seat
            )
            e = d + 1
            if at_n == 3:
                won[c_win] += 1
                f_trick_winner[d] = c_win
                # The trick's cards are exactly the live cards no longer in any hand.
                live = FULL_MASK & ~f_done[d]
                played = live & ~(hands[0] | hands[1] | hands[2] | hands[3])
                f_leader[e], f_n[e], f_led[e], f_high_led[e] = c_win, 0, -1, -1
                f_high_spade[e], f_win[e], f_first[e] = -1, c_win, False
                f_done[e] = f_done[d] | played
            else:
                f_trick_winner[d] = -1
                f_leader[e], f_n[e], f_led[e], f_high_led[e] = (
                    f_leader[d],
                    at_n + 1,
                    c_led,
                    c_high_led,
                )
                f_high_spade[e], f_win[e], f_first[e] = c_high_spade, c_win, f_first[d]
                f_done[e] = f_done[d]
            d = e
            status = _ENTER
        else:  # _RETURN: hand the result to the parent frame
            if d == 0:
                return result
            d -= 1
            seat = f_seat[d]
            hands[seat] = f_hand[d]
            if f_trick_winner[d] >= 0:
                won[f_trick_winner[d]] -= 1
            own = unpack(result, seat)
            others = 0
            for other in range(4):
                if other != seat:
                    others += unpack(result, other)
            if own > f_best_own[d] or (own == f_best_own[d] and others < f_best_rest[d]):
                f_best[d], f_best_own[d], f_best_rest[d] = result, own, others
            status = _NEXT


# --- evaluating candidate cards over sampled worlds -----------------------------------------


@interruptible
@compiled(parallel=True)
def evaluate(
    worlds: np.ndarray,
    candidates: np.ndarray,
    position: Position,
    scoring: np.ndarray,
    playouts: Playouts,
    rollouts: int,
    solve_below: int,
    rival_weight: float,
    seed: int,
    tt_bits: int,
    lanes: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's value for the position's seat in each world, ``values[world,
    candidate]``, and the positions each world's exact solves visited (zero for playouts).

    After the candidate card, the world is played out ``rollouts`` times as ``playouts`` says
    (see ``playout``), or solved exactly when at most ``solve_below`` cards are left in the
    holder's hand. The value is the seat's deal score in tenths, minus ``rival_weight`` times
    the others' mean score.
    """
    seat, _hand, _unseen, leader, trick, n, first, gone, voids, calls, won, flags = position
    count, width = worlds.shape[0], candidates.shape[0]
    values = np.zeros((count, width))
    nodes = np.zeros(count, dtype=np.int64)
    cards_left = popcount(worlds[0, seat])
    exact = cards_left <= solve_below
    # One lane per thread, each with its own memo table, takes every lanes-th world; results do
    # not depend on which thread runs which lane.
    for lane in prange(lanes):
        tt_keys = np.zeros(1 << tt_bits, dtype=np.uint64)
        tt_values = np.zeros(1 << tt_bits, dtype=np.int64)
        rng = np.empty(1, dtype=np.uint64)
        hands = np.empty(4, dtype=np.int64)
        scratch_won = np.empty(4, dtype=np.int64)
        scratch_trick = np.empty(4, dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        classes = np.empty(MAX_CLASSES, dtype=np.int64)
        features = np.empty((MAX_CLASSES, len(PLAY_FEATURES)))
        for w in range(lane, count, lanes):
            counter[0] = 0
            for c in range(width):
                card = candidates[c]
                # The same random numbers for every candidate of a world: values differ by the
                # card, not by the luck of the playouts.
                rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(w * 7919 + 1)
                if rng[0] == 0:
                    rng[0] = np.uint64(1)
                for k in range(n):
                    scratch_trick[k] = trick[k]
                scratch_trick[n] = card
                after = state_of(scratch_trick, n + 1, leader, first, gone | (1 << card), voids)
                total = 0.0
                if exact:
                    for s in range(4):
                        hands[s] = worlds[w, s]
                        scratch_won[s] = won[s]
                    hands[seat] &= ~(1 << card)
                    value = _solve_after(
                        hands,
                        scratch_trick,
                        after,
                        calls,
                        scratch_won,
                        flags,
                        scoring,
                        tt_keys,
                        tt_values,
                        counter,
                    )
                    total = _utility(value, seat, rival_weight)
                else:
                    for _ in range(rollouts):
                        for s in range(4):
                            hands[s] = worlds[w, s]
                            scratch_won[s] = won[s]
                        hands[seat] &= ~(1 << card)
                        playout(
                            hands,
                            after,
                            calls,
                            scratch_won,
                            flags,
                            scoring,
                            rng,
                            playouts,
                            classes,
                            features,
                        )
                        total += _utility(_pack(scratch_won, calls, scoring), seat, rival_weight)
                    total /= rollouts
                values[w, c] = total
            nodes[w] = counter[0]
    return values, nodes


@compiled(inline="always")
def _utility(packed: int, seat: int, rival_weight: float) -> float:
    rivals = 0.0
    for other in range(4):
        if other != seat:
            rivals += unpack(packed, other)
    return unpack(packed, seat) - rival_weight * rivals / 3.0


# Below, constant arguments are passed as typed values (``int(np.int64(0))``), not literals:
# numba compiles a function once more for each literal argument it is called with, which made
# the kernel's first compile seconds longer (a helper returning its argument would not do: it
# returns the literal's type).


@compiled()
def _solve_after(
    hands: np.ndarray,
    trick: np.ndarray,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    tt_keys: np.ndarray,
    tt_values: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """Solve from ``state`` (:func:`state_of` the trick's cards ``trick``), completing the
    trick first when it has four cards."""
    if state.n == 4:
        played = 0
        for position in range(4):
            played |= 1 << trick[position]
        win_seat = state.win_seat
        won[win_seat] += 1
        none, no_card, no = int(np.int64(0)), int(np.int64(-1)), bool(np.bool_(False))
        after = State(  # typed arguments, not literals (see above)
            win_seat,
            none,
            no_card,
            no_card,
            no_card,
            win_seat,
            no,
            state.gone,
            state.done | played,
            state.voids,
        )
        value = solve(hands, after, calls, won, flags, scoring, tt_keys, tt_values, nodes)
        won[win_seat] -= 1
        return value
    return solve(hands, state, calls, won, flags, scoring, tt_keys, tt_values, nodes)


# --- sampling hidden hands ------------------------------------------------------------------


@compiled()
def _order_by(keys: np.ndarray, order: np.ndarray) -> None:
    """``order`` = the indices of ``keys`` in increasing order, equal keys in their order (a
    stable insertion sort of at most 39 keys): compiling numpy's argsort took seconds of the
    kernel's first compile."""
    for i in range(keys.shape[0]):
        j = i
        while j > 0 and keys[order[j - 1]] > keys[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@compiled()
def sample_worlds(
    count: int,
    seat: int,
    hand: int,
    unseen: int,
    allowed: np.ndarray,
    sizes: np.ndarray,
    seed: int,
) -> np.ndarray:
    """``count`` deals of the ``unseen`` cards to the other seats, ``worlds[i, seat]`` = hand.

    Each other seat ``s`` receives ``sizes[s]`` cards, all within ``allowed[s]``. Cards are
    placed most constrained first, each to an eligible seat with probability proportional to
    its room left, which is exactly a uniform deal when nothing is constrained. A dead end
    restarts the world; after many failures the world is left with ``-1`` in ``worlds[i, 0]``.
    """
    cards = np.empty(52, dtype=np.int64)
    total = 0
    rest = unseen
    while rest:
        cards[total] = low_index(rest)
        rest &= rest - 1
        total += 1
    options = np.zeros(total, dtype=np.int64)
    for i in range(total):
        for s in range(4):
            if s != seat and allowed[s] >> cards[i] & 1:
                options[i] += 1
    worlds = np.zeros((count, 4), dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(12345)
    order = np.empty(total, dtype=np.int64)
    room = np.empty(4, dtype=np.int64)
    for w in range(count):
        placed = False
        for _attempt in range(200):
            # Most constrained cards first, ties in random order.
            keys = np.empty(total)
            for i in range(total):
                keys[i] = options[i] + rand_float(rng)
            _order_by(keys, order)
            for s in range(4):
                room[s] = sizes[s]
                worlds[w, s] = 0
            ok = True
            for i in range(total):
                card = cards[order[i]]
                weight = 0
                for s in range(4):
                    if s != seat and room[s] > 0 and allowed[s] >> card & 1:
                        weight += room[s]
                if weight == 0:
                    ok = False
                    break
                pick = rand_float(rng) * weight
                for s in range(4):
                    if s != seat and room[s] > 0 and allowed[s] >> card & 1:
                        pick -= room[s]
                        if pick < 0:
                            worlds[w, s] |= 1 << card
                            room[s] -= 1
                            break
            if ok:
                placed = True
                break
        worlds[w, seat] = hand
        if not placed:
            worlds[w, 0] = -1
    return worlds


@interruptible
@compiled(parallel=True)
def simulate(
    worlds: np.ndarray,
    leader: int,
    calls: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    rollouts: int,
    playouts: Playouts,
    seed: int,
) -> np.ndarray:
    """Play each world's deal from the first lead ``rollouts`` times as ``playouts`` says (see
    ``playout``), the seats having called ``calls[world]``.

    Returns the tricks each seat took, ``result[world * rollouts + r, seat]``.
    """
    count = worlds.shape[0]
    result = np.zeros((count * rollouts, 4), dtype=np.int64)
    start, first = int(np.int64(0)), bool(np.bool_(True))  # not literals (see _solve_after)
    for w in prange(count):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(w * 104729 + 1)
        if rng[0] == 0:
            rng[0] = np.uint64(1)
        hands = np.empty(4, dtype=np.int64)
        won = np.zeros(4, dtype=np.int64)
        trick = np.zeros(4, dtype=np.int64)
        classes = np.empty(MAX_CLASSES, dtype=np.int64)
        features = np.empty((MAX_CLASSES, len(PLAY_FEATURES)))
        deal = state_of(trick, start, leader, first, start, start)
        for r in range(rollouts):
            for s in range(4):
                hands[s] = worlds[w, s]
                won[s] = 0
            playout(hands, deal, calls[w], won, flags, scoring, rng, playouts, classes, features)
            for s in range(4):
                result[w * rollouts + r, s] = won[s]
    return result


@compiled()
def world_calls(
    worlds: np.ndarray, known: np.ndarray, played: np.ndarray, lookup: np.ndarray
) -> np.ndarray:
    """Each world's calls: the known ones, and for the others the call their hand suggests.

    ``known[s] < 0`` marks a seat yet to call; ``lookup[int(20 * strength)]`` is the call a
    hand of that strength makes.
    """
    result = np.empty((worlds.shape[0], 4), dtype=np.int64)
    for w in range(worlds.shape[0]):
        for s in range(4):
            if known[s] >= 0:
                result[w, s] = known[s]
            else:
                result[w, s] = sound_call(hand_strength(worlds[w, s] | played[s]), lookup)
    return result


@compiled(inline="always")
def sound_call(strength: float, lookup: np.ndarray) -> int:
    """The call a hand of ``strength`` makes when called soundly: ``lookup[int(20 *
    strength)]``, the strength held to the lookup's range."""
    return lookup[min(max(int(20.0 * strength), 0), len(lookup) - 1)]


# --- information-set Monte Carlo tree search ------------------------------------------------


@compiled()
def prepare_deals(seat: int, unseen: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The unseen cards, most constrained first, and where each group of equally constrained
    cards starts (for :func:`deal_world`): ``starts[k]`` to ``starts[k + 1]`` is a group."""
    total = popcount(unseen)
    cards = np.empty(total, dtype=np.int64)
    options = np.empty(total, dtype=np.int64)
    rest = unseen
    i = 0
    while rest:
        card = low_index(rest)
        rest &= rest - 1
        cards[i] = card
        options[i] = 0
        for s in range(4):
            if s != seat and allowed[s] >> card & 1:
                options[i] += 1
        i += 1
    order = np.empty(total, dtype=np.int64)
    _order_by(options.astype(np.float64), order)  # stable, as a mergesort
    sorted_cards = cards[order]
    starts = np.empty(5, dtype=np.int64)
    k = 0
    for level in range(4):
        starts[level] = k
        while k < total and options[order[k]] <= level:
            k += 1
    starts[4] = total
    return sorted_cards, starts


@compiled()
def deal_world(
    seat: int,
    hand: int,
    cards: np.ndarray,
    starts: np.ndarray,
    allowed: np.ndarray,
    sizes: np.ndarray,
    rng: np.ndarray,
    hands: np.ndarray,
) -> bool:
    """Deal the unseen ``cards`` (from :func:`prepare_deals`) into ``hands``, each other seat
    ``s`` getting ``sizes[s]`` cards within ``allowed[s]``; False after many dead ends.

    Cards are placed most constrained first (in random order within a group), each to an
    eligible seat with probability proportional to its room left: a uniform deal when nothing
    is constrained, as :func:`sample_worlds` deals, without sorting for every world.
    """
    total = cards.shape[0]
    room = np.empty(4, dtype=np.int64)
    for _attempt in range(200):
        for group in range(4):
            low, high = starts[group], starts[group + 1]
            for i in range(high - 1, low, -1):
                j = low + int(rand_float(rng) * (i - low + 1))
                cards[i], cards[j] = cards[j], cards[i]
        for s in range(4):
            room[s] = sizes[s]
            hands[s] = 0
        hands[seat] = hand
        ok = True
        for i in range(total):
            card = cards[i]
            weight = 0
            for s in range(4):
                if s != seat and room[s] > 0 and allowed[s] >> card & 1:
                    weight += room[s]
            if weight == 0:
                ok = False
                break
            pick = rand_float(rng) * weight
            for s in range(4):
                if s != seat and room[s] > 0 and allowed[s] >> card & 1:
                    pick -= room[s]
                    if pick < 0:
                        hands[s] |= 1 << card
                        room[s] -= 1
                        break
        if ok:
            return True
    return False


@interruptible
@compiled(parallel=True)
def ismcts(
    trees: Trees,
    rngs: np.ndarray,
    iterations: int,
    position: Position,
    allowed: np.ndarray,
    sizes: np.ndarray,
    worlds: np.ndarray,
    scoring: np.ndarray,
    playouts: Playouts,
    exploration: float,
) -> None:
    """Run ``iterations`` more iterations of single-observer information-set MCTS (Cowling,
    Powley and Whitehouse 2012) from ``position`` on each of the ``trees``.

    Each iteration deals a fresh world consistent with what the seat knows (``allowed``,
    ``sizes``), or, when ``worlds`` has rows (hands of the four seats, already drawn in
    proportion to what the seat believes), takes one of them at random; it then descends
    from the root (node 0) through the cards legal in that world, choosing by UCB with
    availability counts (each child's count of the iterations in which its card was legal),
    adds one node, plays the deal out as ``playouts`` says, and adds each node's mover's score
    (points / 10) to the nodes on the path. The trees are independent (root parallelisation):
    each has its own generator in ``rngs[t]``.
    """
    tree_card, tree_mover, tree_child, tree_sibling = (
        trees.card,
        trees.mover,
        trees.child,
        trees.sibling,
    )
    tree_visits, tree_avail, tree_total, tree_size = (
        trees.visits,
        trees.avail,
        trees.total,
        trees.size,
    )
    seat, hand, unseen, leader, trick, n, first, gone, voids, calls, won, flags = position
    cards, starts = prepare_deals(seat, unseen, allowed)
    capacity = tree_card.shape[1]
    for t in prange(tree_card.shape[0]):
        rng = rngs[t : t + 1]
        local_cards = cards.copy()
        hands = np.empty(4, dtype=np.int64)
        scratch_won = np.empty(4, dtype=np.int64)
        scratch_trick = np.empty(4, dtype=np.int64)
        path = np.empty(64, dtype=np.int64)
        classes = np.empty(MAX_CLASSES, dtype=np.int64)
        features = np.empty((MAX_CLASSES, len(PLAY_FEATURES)))
        card_of, mover_of = tree_card[t], tree_mover[t]
        child_of, sibling_of = tree_child[t], tree_sibling[t]
        visits, avail, totals = tree_visits[t], tree_avail[t], tree_total[t]
        for _ in range(iterations):
            if tree_size[t] + 1 >= capacity:
                break
            if worlds.shape[0]:
                pick = int(rand_float(rng) * worlds.shape[0])
                for s in range(4):
                    hands[s] = worlds[pick, s]
            elif not deal_world(seat, hand, local_cards, starts, allowed, sizes, rng, hands):
                continue
            for s in range(4):
                scratch_won[s] = won[s]
            for k in range(n):
                scratch_trick[k] = trick[k]
            at_leader, at_n, at_first, at_gone, at_voids = leader, n, first, gone, voids
            led, high_led, high_spade, win_seat = trick_state(scratch_trick[:at_n], at_leader)
            node = 0
            depth = 0
            expanded = False
            while not expanded:
                if at_n == 4:
                    scratch_won[win_seat] += 1
                    at_leader, at_n, at_first = win_seat, 0, False
                    led, high_led, high_spade = -1, -1, -1
                if at_n == 0 and not hands[at_leader]:
                    break  # the deal is over
                mover = (at_leader + at_n) & 3
                options = legal(hands[mover], led, high_led, high_spade, at_first, flags)
                untried = options
                best, best_value = -1, -1e300
                child = child_of[node]
                while child >= 0:
                    card = card_of[child]
                    if options >> card & 1:
                        untried &= ~(1 << card)
                        avail[child] += 1
                        value = totals[child] / visits[child] + exploration * np.sqrt(
                            np.log(avail[child]) / visits[child]
                        )
                        if value > best_value:
                            best, best_value = child, value
                    child = sibling_of[child]
                if untried:
                    card = random_bit(untried, rng)
                    best = tree_size[t]
                    tree_size[t] += 1
                    card_of[best], mover_of[best] = card, mover
                    child_of[best], sibling_of[best] = -1, child_of[node]
                    child_of[node] = best
                    visits[best], avail[best], totals[best] = 0.0, 1.0, 0.0
                    expanded = True
                card = card_of[best]
                node = best
                path[depth] = node
                depth += 1
                hands[mover] &= ~(1 << card)
                at_gone |= 1 << card
                if at_n and card // 13 != led:
                    at_voids |= 1 << (4 * mover + led)
                led, high_led, high_spade, win_seat = trick_step(
                    led, high_led, high_spade, win_seat, card, mover
                )
                scratch_trick[at_n] = card
                at_n += 1
            if at_n > 0 or hands[at_leader]:
                at = state_of(scratch_trick, at_n, at_leader, at_first, at_gone, at_voids)
                playout(
                    hands, at, calls, scratch_won, flags, scoring, rng, playouts, classes, features
                )
            for i in range(depth):
                node = path[i]
                visits[node] += 1.0
                who = mover_of[node]
                totals[node] += score(calls[who], scratch_won[who], scoring) / 100.0


# --- a model of play, for inference ---------------------------------------------------------

PLAY_FEATURES = (
    "the policy's card",
    "takes the lead of the trick",
    "rank, leading",
    "rank, taking the lead",
    "rank, not taking the lead",
    "spade",
    "master, leading",
    "length of its suit",
    "lowest of its suit",
    "leading a suit someone has shown out of",
    "rank, still short of the call",
)
MAX_CLASSES = 13
PLAY_FLOOR = 0.02
"""The share of a uniform choice among the classes in the model of play: no card is so
surprising that it rules a world out."""


@compiled()
def play_classes(hand: int, options: int, done: int, out: np.ndarray) -> int:
    """Group the ``options`` into classes of cards that play the same (same suit, every card
    between them done or in ``hand``): ``out[k]`` is the mask of class ``k``; returns the count.
    """
    count = 0
    rest = options
    previous = -1
    while rest:
        card = low_index(rest)
        rest &= rest - 1
        if previous >= 0 and previous // 13 == card // 13:
            between = ((1 << card) - 1) & ~((2 << previous) - 1)
            if not between & ~done & ~hand:
                out[count - 1] |= 1 << card
                previous = card
                continue
        out[count] = 1 << card
        count += 1
        previous = card
    return count


@compiled()
def fill_play_features(
    seat: int,
    hand: int,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    card: int,
    classes: np.ndarray,
    out: np.ndarray,
    rng: np.ndarray,
) -> tuple[int, int]:
    """The features (``PLAY_FEATURES``) of each class of legal cards of ``hand`` in ``out`` and
    the classes' masks in ``classes``; returns the class count and the index of the class
    holding ``card`` (-1 when ``card`` is not legal). Uses only what ``seat`` knows (its hand
    then, and the public ``state``); ``rng`` is untouched (the policy runs without
    randomness)."""
    n, led, high_led, high_spade = state.n, state.led, state.high_led, state.high_spade
    gone, voids = state.gone, state.voids
    options = legal(hand, led, high_led, high_spade, state.first, flags)
    count = play_classes(hand, options, state.done, classes)
    if count <= 1:
        return count, 0 if options >> card & 1 else -1  # no choice: nothing to learn
    policy = choose(seat, hand, state, calls, won, flags, scoring, rng, 0.0)
    live = FULL_MASK & ~gone & ~hand
    short = won[seat] < calls[seat]
    chosen = -1
    for k in range(count):
        members = classes[k]
        top = high_index(members)
        suit = top // 13
        rank = (top - 13 * suit) / 12.0
        wins = n > 0 and winning_cards(members, led, high_led, high_spade) != 0
        for f in range(out.shape[1]):
            out[k, f] = 0.0
        out[k, 0] = 1.0 if members >> policy & 1 else 0.0
        out[k, 1] = 1.0 if wins else 0.0
        if n == 0:
            out[k, 2] = rank
            out[k, 6] = 0.0 if live & ABOVE[top] else 1.0
        elif wins:
            out[k, 3] = rank
        else:
            out[k, 4] = rank
        out[k, 5] = 1.0 if suit == 0 else 0.0
        out[k, 7] = popcount(hand & SUIT[suit]) / 13.0
        out[k, 8] = 1.0 if members & (hand & SUIT[suit]) & -(hand & SUIT[suit]) else 0.0
        if n == 0 and suit != 0:
            for other in range(4):
                if other != seat and voids >> (4 * other + suit) & 1:
                    out[k, 9] = 1.0
        if short:
            out[k, 10] = rank
        if members >> card & 1:
            chosen = k
    return count, chosen


@compiled(inline="always")
def _class_scores(features: np.ndarray, count: int, weights: np.ndarray) -> float:
    """The model's unnormalised chance of each of the ``count`` classes, ``exp(weights .
    features)`` scaled by the largest, written over ``features[k, 0]``; returns their sum. The
    one softmax of the model of play: the sampler and the likelihood must agree."""
    top = -1e300
    for j in range(count):
        value = 0.0
        for f in range(len(PLAY_FEATURES)):
            value += weights[f] * features[j, f]
        features[j, 0] = value  # reuse the row's first cell for its score
        if value > top:
            top = value
    norm = 0.0
    for j in range(count):
        features[j, 0] = np.exp(features[j, 0] - top)
        norm += features[j, 0]
    return norm


@compiled()
def model_choose(
    seat: int,
    hand: int,
    state: State,
    calls: np.ndarray,
    won: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    rng: np.ndarray,
    weights: np.ndarray,
    classes: np.ndarray,
    features: np.ndarray,
) -> int:
    """A card for ``seat`` drawn from the model of play with ``weights`` (the distribution
    ``play_log_likelihoods`` weighs worlds by: a softmax over the classes of legal cards mixed
    with ``PLAY_FLOOR`` of a uniform choice), the lowest card of the class drawn (the cards of
    a class play the same). ``classes`` and ``features`` are scratch space."""
    count, _chosen = fill_play_features(
        seat, hand, state, calls, won, flags, scoring, 0, classes, features, rng
    )
    if count <= 1:
        return low_index(classes[0])
    norm = _class_scores(features, count, weights)
    pick = rand_float(rng)
    for j in range(count - 1):
        pick -= (1.0 - PLAY_FLOOR) * features[j, 0] / norm + PLAY_FLOOR / count
        if pick < 0.0:
            return low_index(classes[j])
    return low_index(classes[count - 1])


@interruptible
@compiled(parallel=True)
def play_log_likelihoods(
    pool: np.ndarray,
    events: np.ndarray,
    event_won: np.ndarray,
    calls: np.ndarray,
    flags: int,
    scoring: np.ndarray,
    weights: np.ndarray,
    floor: float,
    lanes: int,
) -> np.ndarray:
    """The log-likelihood of the other seats' plays in each world of ``pool`` under the model
    of play: a softmax of ``weights`` over the features of each class of legal cards, mixed
    with ``floor`` of a uniform choice so that no world is ruled out by one surprising card.

    ``events[e]`` is one play by another seat: ``(seat, leader, n, led, high_led, high_spade,
    win_seat, first, gone, done, voids, card, later)`` before the play, where ``later`` holds
    the cards that seat played from this play on: its hand then was the world's hand and
    ``later``. ``event_won[e]`` are the tricks won before it.
    """
    count = pool.shape[0]
    result = np.zeros(count)
    width = len(PLAY_FEATURES)
    for lane in prange(lanes):
        classes = np.empty(MAX_CLASSES, dtype=np.int64)
        features = np.empty((MAX_CLASSES, width))
        rng = np.ones(1, dtype=np.uint64)
        for w in range(lane, count, lanes):
            total = 0.0
            for e in range(events.shape[0]):
                seat = events[e, 0]
                hand = pool[w, seat] | events[e, 12]
                before = State(
                    events[e, 1],
                    events[e, 2],
                    events[e, 3],
                    events[e, 4],
                    events[e, 5],
                    events[e, 6],
                    events[e, 7] != 0,
                    events[e, 8],
                    events[e, 9],
                    events[e, 10],
                )
                k, chosen = fill_play_features(
                    seat,
                    hand,
                    before,
                    calls,
                    event_won[e],
                    flags,
                    scoring,
                    events[e, 11],
                    classes,
                    features,
                    rng,
                )
                if k <= 1:
                    continue
                if chosen < 0:
                    total += -30.0  # not even legal here: the hard constraints missed it
                    continue
                norm = _class_scores(features, k, weights)
                p = features[chosen, 0] / norm
                total += np.log((1.0 - floor) * p + floor / k)
            result[w] = total
    return result
