"""The numba search kernel against the engine: legality, random deals, playouts, the exact
solver, sampling, and the knowledge the rules reveal."""

from __future__ import annotations

import hashlib
import inspect
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from callbreak.cards import Card, CardSet
from callbreak.game import Deal, Match
from callbreak.players import kernel
from callbreak.players.inference import PLAY_WEIGHTS
from callbreak.players.kernel import flags_of, scoring_of
from callbreak.players.knowledge import Knowledge
from callbreak.rules import (
    PROFILES,
    Rules,
    deal_score,
    duty_steps,
    legal_cards,
    made_call,
    score_deal,
    trick_state,
)
from tests.helpers import reference_legal

profiles = st.sampled_from(sorted(PROFILES))


def _random_position(rules: Rules, seed: int, plays: int) -> Deal:
    rng = random.Random(seed)
    deal = Match(rules, seed=seed).deal
    for _ in range(4):
        deal.call(rng.choice(list(rules.call_range())))
    for _ in range(plays):
        deal.play(rng.choice(list(deal.legal_cards())))
    return deal


def _trick_state(deal: Deal) -> tuple[int, int, int, int]:
    """The current trick's state as the kernel takes it (plain ints, not Card members)."""
    return trick_state([int(card) for card in deal.trick.cards], deal.trick.leader)


def _state(deal: Deal) -> kernel.State:
    """The deal's state at its turn as the kernel's policy and model take it."""
    led, high_led, high_spade, win = _trick_state(deal)
    gone, done, voids = _public(deal)
    trick = deal.trick
    first = not deal.tricks
    return kernel.State(
        trick.leader, len(trick.cards), led, high_led, high_spade, win, first, gone, done, voids
    )


# --- bits -----------------------------------------------------------------------------------


@njit
def _bits(mask: int) -> tuple[int, int, int]:
    return kernel.popcount(mask), kernel.low_index(mask), kernel.high_index(mask)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 52) - 1) | st.sampled_from([0, 1, 1 << 51]))
def test_bit_intrinsics_agree_with_python(mask: int) -> None:
    # Zero keeps the answers of the lookup tables the intrinsics replaced (48 and 0), so that
    # a caller reading an empty mask indexes the same table entry as before.
    low = (mask & -mask).bit_length() - 1 if mask else 48
    high = mask.bit_length() - 1 if mask else 0
    assert _bits(mask) == (mask.bit_count(), low, high)


# --- legality -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(profile=profiles, seed=st.integers(0, 2**32), plays=st.integers(0, 51))
def test_kernel_legality_matches_the_rules_along_a_deal(
    profile: str, seed: int, plays: int
) -> None:
    """Walk a random legal deal and compare the legality readings at every step: the kernel's,
    the duties', the independent reference and the Deal's."""
    rules = PROFILES[profile]
    rng = random.Random(seed)
    deal = Match(rules, seed=seed).deal
    for _ in range(4):
        deal.call(rules.min_call)
    flags = flags_of(rules)
    for _ in range(plays + 1):
        seat = deal.turn
        assert seat is not None
        hand = deal.held(seat).mask
        trick = list(deal.trick.cards)
        first = not deal.tricks
        led, high_led, high_spade, _win = _trick_state(deal)
        checked = legal_cards(hand, trick, first, rules)
        assert kernel.legal(hand, led, high_led, high_spade, first, flags) == checked
        assert set(CardSet(checked)) == reference_legal(CardSet(hand), trick, first, rules)
        assert CardSet(checked) == deal.legal_cards()
        if len(deal.tricks) == 12 and len(trick) == 3:
            break
        deal.play(rng.choice(list(deal.legal_cards())))


@settings(max_examples=300, deadline=None)
@given(
    profile=profiles,
    hand=st.sets(st.integers(0, 51), min_size=1, max_size=13),
    trick=st.lists(st.integers(0, 51), min_size=0, max_size=3, unique=True),
    first=st.booleans(),
)
def test_kernel_legality_matches_the_rules_on_arbitrary_hands(
    profile: str, hand: set[int], trick: list[int], first: bool
) -> None:
    """Arbitrary hands and tricks, even ones no real deal reaches, get the same answer."""
    rules = PROFILES[profile]
    hand -= set(trick)
    if not hand:
        return
    mask = sum(1 << c for c in hand)
    led, high_led, high_spade, _win = trick_state(trick)
    assert kernel.legal(mask, led, high_led, high_spade, first, flags_of(rules)) == legal_cards(
        mask, trick, first, rules
    )


@settings(max_examples=300, deadline=None)
@given(
    trick=st.lists(st.integers(0, 51), min_size=0, max_size=4, unique=True),
    leader=st.integers(0, 3),
)
def test_kernel_trick_state_is_the_rules_one(trick: list[int], leader: int) -> None:
    cards = np.array([*trick, 0, 0, 0, 0][:4], dtype=np.int64)
    assert kernel.trick_state(cards[: len(trick)], leader) == trick_state(trick, leader)
    state = kernel.state_of(cards, len(trick), leader, False, 0, 0)
    assert (state.led, state.high_led, state.high_spade, state.win_seat) == trick_state(
        trick, leader
    )


@settings(max_examples=300, deadline=None)
@given(profile=profiles, seed=st.integers(0, 2**32), plays=st.integers(0, 51))
def test_policy_and_model_play_legal_cards(profile: str, seed: int, plays: int) -> None:
    rules = PROFILES[profile]
    deal = _random_position(rules, seed, plays)
    seat = deal.turn
    assert seat is not None
    hand = deal.held(seat).mask
    expected = legal_cards(hand, deal.trick.cards, not deal.tricks, rules)
    rng = kernel.seed_state(seed)
    calls = np.array(deal.calls, dtype=np.int64)
    won = np.array(deal.won, dtype=np.int64)
    flags, scoring = flags_of(rules), scoring_of(rules)
    for eps in (0.0, 0.5):
        card = kernel.choose(seat, hand, _state(deal), calls, won, flags, scoring, rng, eps)
        assert expected >> card & 1
    assert expected >> _model_card(deal, rng) & 1


def _public(deal: Deal) -> tuple[int, int, int]:
    """The cards gone (the trick on the table too), the cards of completed tricks and the
    voids shown (bit ``4 * seat + suit``), as the kernel takes them."""
    done = voids = 0
    for trick in deal.tricks:
        led = trick.cards[0] // 13
        for position, card in enumerate(trick.cards):
            done |= 1 << card
            if position and card // 13 != led:
                voids |= 1 << (4 * trick.seat_of(position) + led)
    gone = done
    for card in deal.trick.cards:
        gone |= 1 << card
    return gone, done, voids


def _model_card(deal: Deal, rng: np.ndarray) -> int:
    """The card ``kernel.model_choose`` draws for the seat to play, with ``rng``."""
    seat = deal.turn
    assert seat is not None
    return int(
        kernel.model_choose(
            seat,
            deal.held(seat).mask,
            _state(deal),
            np.array(deal.calls, dtype=np.int64),
            np.array(deal.won, dtype=np.int64),
            flags_of(deal.rules),
            scoring_of(deal.rules),
            rng,
            PLAY_WEIGHTS,
            np.zeros(kernel.MAX_CLASSES, dtype=np.int64),
            np.zeros((kernel.MAX_CLASSES, len(kernel.PLAY_FEATURES))),
        )
    )


def _class_masks(deal: Deal) -> list[int]:
    """The classes of legal cards (``kernel.play_classes``) of the seat to play."""
    seat = deal.turn
    assert seat is not None
    hand = deal.held(seat).mask
    options = legal_cards(hand, deal.trick.cards, not deal.tricks, deal.rules)
    classes = np.zeros(kernel.MAX_CLASSES, dtype=np.int64)
    count = kernel.play_classes(hand, options, _public(deal)[1], classes)
    return [int(mask) for mask in classes[:count]]


@pytest.mark.parametrize("seed", range(8))
def test_model_draws_cards_as_the_inference_weighs_them(seed: int) -> None:
    """The model-played seats of a playout draw each class of legal cards exactly as
    ``play_log_likelihoods`` says the model plays it (one model for both), and only its lowest
    card (the cards of a class play the same): with the uniform number each draw takes (read
    from a copy of the generator), the class drawn is the one whose share of the chances it
    falls in."""
    rules = PROFILES[sorted(PROFILES)[seed % len(PROFILES)]]
    plays = 5 + 5 * seed
    while len(_class_masks(_random_position(rules, seed, plays))) < 2:
        plays += 1  # the next position, until the seat has a choice
    deal = _random_position(rules, seed, plays)
    seat = deal.turn
    assert seat is not None
    hand = deal.held(seat).mask
    led, high_led, high_spade, win = _trick_state(deal)
    first = not deal.tricks
    gone, done, voids = _public(deal)
    calls = np.array(deal.calls, dtype=np.int64)
    won = np.array(deal.won, dtype=np.int64)
    state = (seat, hand, deal.trick.leader, len(deal.trick.cards), led, high_led, high_spade, win)
    flags, scoring = flags_of(rules), scoring_of(rules)
    masks = _class_masks(deal)
    # The model's chance of each class: the likelihood of its lowest card played from here.
    chances = []
    for mask in masks:
        card = _lowest(mask)
        pool = np.zeros((1, 4), dtype=np.int64)
        pool[0, seat] = hand & ~(1 << card)
        event = [*state[:1], *state[2:], int(first), gone, done, voids, card, 1 << card]
        chances.append(
            np.exp(
                kernel.play_log_likelihoods(
                    pool,
                    np.array([event], dtype=np.int64),
                    won.reshape(1, 4),
                    calls,
                    flags,
                    scoring,
                    PLAY_WEIGHTS,
                    kernel.PLAY_FLOOR,
                    1,
                )[0]
            )
        )
    assert sum(chances) == pytest.approx(1.0)
    bounds = np.cumsum(chances)
    rng = kernel.seed_state(seed)
    drawn = set()
    for _ in range(300):
        uniform = kernel.rand_float(rng.copy())
        card = _model_card(deal, rng)
        (k,) = [k for k, mask in enumerate(masks) if mask >> card & 1]
        assert card == _lowest(masks[k])
        expected = min(int(np.searchsorted(bounds, uniform, side="right")), len(masks) - 1)
        near_a_bound = min(abs(bounds - uniform)) < 1e-9
        assert k == expected or near_a_bound, (uniform, bounds, k)
        drawn.add(k)
    assert len(drawn) > 1


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


# --- random deals ---------------------------------------------------------------------------


@settings(deadline=None)  # the first example compiles or loads the function
@given(mask=st.integers(1, (1 << 52) - 1), seed=st.integers(0, 1000))
def test_random_bit_is_in_the_mask(mask: int, seed: int) -> None:
    assert mask >> kernel.random_bit(mask, kernel.seed_state(seed)) & 1


def test_random_bit_is_uniform() -> None:
    rng = kernel.seed_state(3)
    mask = (1 << 5) | (1 << 17) | (1 << 40)
    counts = {5: 0, 17: 0, 40: 0}
    for _ in range(3000):
        counts[int(kernel.random_bit(mask, rng))] += 1
    assert all(900 < n < 1100 for n in counts.values()), counts


def test_shuffled_deals_are_partitions_and_differ() -> None:
    deck = np.arange(52, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    rng = kernel.seed_state(1)
    seen = set()
    for _ in range(20):
        kernel.shuffle_deal(deck, hands, rng)
        assert [int(h).bit_count() for h in hands] == [13] * 4
        assert int(hands[0] | hands[1] | hands[2] | hands[3]) == (1 << 52) - 1
        seen.add(tuple(int(h) for h in hands))
    assert len(seen) == 20


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_random_deals_take_13_tricks_each(profile: str) -> None:
    won = kernel.random_deals(1000, flags_of(PROFILES[profile]), 7)
    assert int(won.sum()) == 13_000 and (won > 2000).all()


def test_random_play_agrees_with_the_checked_deal() -> None:
    """Replaying the kernel's random cards through a Deal: every card legal, the same tricks."""
    deck = np.arange(52, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    plays = np.zeros(52, dtype=np.int64)
    for profile, rules in PROFILES.items():
        rng = kernel.seed_state(len(profile))
        for seed in range(30):
            kernel.shuffle_deal(deck, hands, rng)
            dealt = [CardSet(int(h)) for h in hands]
            leader = seed % 4
            won = np.zeros(4, dtype=np.int64)
            kernel.random_play(hands, leader, flags_of(rules), rng, won, plays)
            assert list(hands) == [0, 0, 0, 0]
            deal = Deal(dealt, (leader - 1) % 4, rules)
            for _ in range(4):
                deal.call(rules.min_call)
            for card in plays:
                deal.play(Card(int(card)))  # raises IllegalPlayError on an illegal card
            assert deal.won == list(won), profile


# --- playouts -------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    profile=profiles,
    seed=st.integers(0, 2**32),
    plays=st.integers(0, 51),
    modelled=st.sampled_from([0, 0, 0b1111, 0b1110, 0b0101]),  # seats played by the model
)
def test_playout_finishes_the_deal_legally(
    profile: str, seed: int, plays: int, modelled: int
) -> None:
    rules = PROFILES[profile]
    deal = _random_position(rules, seed, plays)
    hands = np.array([deal.held(s).mask for s in range(4)], dtype=np.int64)
    trick = np.array([*deal.trick.cards, 0, 0, 0, 0][:4], dtype=np.int64)
    won = np.array(deal.won, dtype=np.int64)
    gone = ((1 << 52) - 1) & ~int(hands[0] | hands[1] | hands[2] | hands[3])
    state = kernel.state_of(
        trick, len(deal.trick.cards), deal.trick.leader, not deal.tricks, gone, 0
    )
    kernel.playout(
        hands,
        state,
        np.array(deal.calls, dtype=np.int64),
        won,
        flags_of(rules),
        scoring_of(rules),
        kernel.seed_state(seed),
        kernel.Playouts(0.1, PLAY_WEIGHTS if modelled else kernel.NO_MODEL, modelled),
        np.zeros(kernel.MAX_CLASSES, dtype=np.int64),
        np.zeros((kernel.MAX_CLASSES, len(kernel.PLAY_FEATURES))),
    )
    assert list(hands) == [0, 0, 0, 0]
    assert int(won.sum()) == 13


def _brute_force(deal: Deal) -> tuple[int, ...]:
    """Max^n by plain recursion through the checked Deal: every seat maximises its own score,
    ties going to the move that leaves the others less (as the kernel does)."""
    if deal.phase.value == "over":
        return tuple(deal.scores())
    seat = deal.turn
    assert seat is not None
    best: tuple[int, ...] | None = None
    for card in sorted(deal.legal_cards()):
        deal.play(card)
        value = _brute_force(deal)
        deal.undo()
        rest = sum(value) - value[seat]
        if best is None or (value[seat], -rest) > (best[seat], -(sum(best) - best[seat])):
            best = value
    assert best is not None
    return best


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_exact_solver_matches_brute_force(profile: str) -> None:
    rules = PROFILES[profile]
    keys = np.zeros(1 << 12, dtype=np.uint64)
    values = np.zeros(1 << 12, dtype=np.int64)
    nodes = np.zeros(1, dtype=np.int64)
    for seed in range(25):
        deal = _random_position(rules, seed, 40 + seed % 4)  # 2-3 tricks left, mid-trick too
        expected = _brute_force(deal)
        hands = np.array([deal.held(s).mask for s in range(4)], dtype=np.int64)
        packed = kernel.solve(
            hands,
            _state(deal),
            np.array(deal.calls, dtype=np.int64),
            np.array(deal.won, dtype=np.int64),
            flags_of(rules),
            scoring_of(rules),
            keys,
            values,
            nodes,
        )
        assert tuple(kernel.unpack(packed, s) for s in range(4)) == expected, seed


def test_kernel_score_matches_the_rules() -> None:
    for profile in ("strict", "pagat"):
        rules = PROFILES[profile]
        for call in range(1, 14):
            for tricks in range(14):
                assert kernel.score(call, tricks, scoring_of(rules)) == score_deal(
                    rules, call, tricks
                )


def test_sampled_worlds_respect_sizes_and_constraints() -> None:
    rng = random.Random(2)
    for _ in range(20):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << c for c in deck[:10])
        unseen = sum(1 << c for c in deck[10:42])  # the last 10 cards are gone
        sizes = np.array([10, 11, 10, 11], dtype=np.int64)
        hearts = 0x1FFF << 13
        allowed = np.array([0, unseen & ~hearts, unseen, unseen], dtype=np.int64)
        worlds = kernel.sample_worlds(200, 0, hand, unseen, allowed, sizes, rng.getrandbits(32))
        assert (worlds[:, 0] == hand).all()
        for world in worlds:
            assert int(world[1]) & hearts == 0
            assert [int(world[s]).bit_count() for s in (1, 2, 3)] == [11, 10, 11]
            assert int(world[1] | world[2] | world[3]) == unseen


def test_unconstrained_sampling_is_uniform() -> None:
    hand = (1 << 13) - 1  # seat 0 holds all spades
    unseen = ((1 << 52) - 1) & ~hand
    sizes = np.array([13, 13, 13, 13], dtype=np.int64)
    allowed = np.array([0, unseen, unseen, unseen], dtype=np.int64)
    worlds = kernel.sample_worlds(6000, 0, hand, unseen, allowed, sizes, 5)
    share = [(worlds[:, s] >> 20 & 1).mean() for s in (1, 2, 3)]
    assert all(abs(p - 1 / 3) < 0.03 for p in share), share


@settings(max_examples=150, deadline=None)
@given(profile=profiles, seed=st.integers(0, 2**32), plays=st.integers(0, 51))
def test_knowledge_never_excludes_a_held_card(profile: str, seed: int, plays: int) -> None:
    rules = PROFILES[profile]
    deal = _random_position(rules, seed, plays)
    for seat in range(4):
        knowledge = Knowledge.from_observation(deal.observation(seat))
        for other in range(4):
            held = deal.held(other).mask
            assert not knowledge.excluded[other] & held
            if other != seat:
                assert held & ~knowledge.allowed(other) == 0
        assert knowledge.unseen == sum(deal.held(o).mask for o in range(4) if o != seat)
        assert list(knowledge.sizes) == [len(deal.held(o)) for o in range(4)]


def test_knowledge_reads_a_must_beat_follow() -> None:
    """10♥ led and a low heart followed: under must-beat the follower holds no J♥-A♥; under
    free following (pagat) that follow reveals nothing."""
    ten, higher = Card.TH, CardSet.parse("JH QH KH AH").mask
    for profile, reveals in (("strict", True), ("pagat", False)):
        rules = PROFILES[profile]
        for seed in range(2000):
            deal = _random_position(rules, seed, 0)
            leader = deal.turn
            assert leader is not None
            follower = (leader + 1) % 4
            low = deal.held(follower).suit(1).lowest()
            if ten not in deal.held(leader) or low is None or low > ten:
                continue
            deal.play(ten)
            if low not in deal.legal_cards():
                continue  # must beat: the follower holds a higher heart
            deal.play(low)
            knowledge = Knowledge.from_observation(deal.observation((leader + 2) % 4))
            assert (knowledge.excluded[follower] & higher == higher) is reveals
            break
        else:
            pytest.fail("no position found")


# --- Ctrl-C -----------------------------------------------------------------------------------


def test_ctrl_c_in_a_parallel_search_is_a_keyboard_interrupt() -> None:
    # A Ctrl-C while numba's parallel loop runs can come out of the compiled function as a
    # SystemError ("returned a result with an exception set") caused by a SystemError of
    # numba's caused by the KeyboardInterrupt; an arena ended with that traceback, not its
    # report. The same chain, raised by hand (a real signal lands there only sometimes):
    def search() -> None:
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as interrupt:
                raise SystemError("_numba_unpickle returned a result with an exception set") from (
                    interrupt
                )
        except SystemError as inner:
            raise SystemError("evaluate returned a result with an exception set") from inner

    with pytest.raises(KeyboardInterrupt):
        kernel.interruptible(search)()

    def broken() -> None:
        raise SystemError("something else")

    with pytest.raises(SystemError, match="something else"):
        kernel.interruptible(broken)()
    # Every parallel function of the kernel is wrapped so (a dispatcher's own __wrapped__ is
    # its Python function; the wrapper's is the dispatcher).
    from numba.core.registry import CPUDispatcher

    parallel, wrapped = set(), set()
    for name, value in vars(kernel).items():
        inner = getattr(value, "__wrapped__", None)
        if isinstance(value, CPUDispatcher) and value.targetoptions.get("parallel"):
            parallel.add(name)
        elif isinstance(inner, CPUDispatcher):
            wrapped.add(name)
            assert inner.targetoptions.get("parallel")
    assert not parallel, f"not wrapped by kernel.interruptible: {parallel}"
    assert wrapped == {"evaluate", "simulate", "ismcts", "play_log_likelihoods"}


# --- the cache ----------------------------------------------------------------------------

_WINNER = """
import numpy as np
from callbreak import rules
from callbreak.players import kernel
trick = [21, 25, 1, 24]  # T♥ A♥ 3♠ K♥: the 3♠ trumps, under the real rules
state = kernel.trick_state(np.array(trick, dtype=np.int64), 0)
print(int(state[3]), rules.trick_state(trick)[3], sum(kernel.trick_state.stats.cache_hits.values()))
"""


def test_a_change_to_the_rules_alone_compiles_the_kernel_again(tmp_path: Path) -> None:
    """numba's own cache checks only the file a function is defined in: a change to rules.py
    would leave the kernel's callers running the old rules' machine code. The kernel's cache
    is stamped with every compiled source instead."""
    package = tmp_path / "src" / "callbreak"
    shutil.copytree(
        Path(kernel.__file__).parents[1], package, ignore=shutil.ignore_patterns("__pycache__")
    )
    environment = os.environ | {
        "PYTHONPATH": str(tmp_path / "src"),
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
    }

    def winners() -> list[int]:
        done = subprocess.run(
            [sys.executable, "-c", _WINNER],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        return [int(word) for word in done.stdout.split()]

    assert winners() == [2, 2, 0]  # compiled
    assert winners() == [2, 2, 1]  # loaded from the cache
    # Spades stop trumping: only rules.py changes, kernel.py is untouched.
    path = package / "rules.py"
    text = path.read_text()
    assert text.count("if card > high_spade:") == 1
    path.write_text(text.replace("if card > high_spade:", "if False:"))
    assert winners() == [1, 1, 0]  # compiled again, with the new rules
    assert winners() == [1, 1, 1]


def test_the_cache_stamp_covers_every_compiled_function() -> None:
    sources = {path.resolve() for path in kernel.SOURCES}
    for name, value in vars(kernel).items():
        function = kernel.dispatcher(value)
        if function is not None:
            assert Path(inspect.getfile(function.py_func)).resolve() in sources, name
    for helper in (duty_steps, made_call, deal_score):
        assert Path(inspect.getfile(helper)).resolve() in sources


# --- the interpreter's lock -------------------------------------------------------------------


def test_every_compiled_function_lets_go_of_the_interpreters_lock() -> None:
    # A search that held the lock stopped every other thread of its process for as long: a
    # server's event loop, which serves every table, stalled up to half a second (issue 39).
    held = [
        name
        for name, value in vars(kernel).items()
        if (function := kernel.dispatcher(value)) is not None
        and not function.targetoptions.get("nogil")
    ]
    assert held == []


def _worst_gap(search: Callable[[], object]) -> float:
    """The longest that a thread sleeping a millisecond at a time went without running while
    ``search`` ran in another thread."""
    done = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            search()
        except BaseException as error:  # handed to the test
            failed.append(error)
        finally:
            done.set()

    searching = threading.Thread(target=run)
    worst, last = 0.0, time.perf_counter()
    searching.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
    searching.join()
    assert not failed, failed
    return worst


def _hash_for(seconds: float) -> None:
    """Work a core for ``seconds`` without the interpreter's lock (hashlib lets go of it)."""
    block, until = bytes(1 << 22), time.perf_counter() + seconds
    while time.perf_counter() < until:
        hashlib.sha256(block).digest()


@pytest.mark.slow
def test_a_thread_runs_on_while_the_expert_searches() -> None:
    """A 1 ms ticker thread sees no gap over 50 ms while the expert decides in another thread
    (it saw 130-530 ms while the kernel held the interpreter's lock): beyond what the ticker
    sees beside work that holds no lock, which a loaded machine's scheduling alone makes."""
    from callbreak.players import build_player
    from callbreak.warmup import warm_up

    warm_up()  # compiling (or loading the cache) holds the lock: done before anything is timed
    # The expert, its search in chunks of about 0.1 s (a chunk held the lock whole), on
    # one thread: the check is of the lock, not of two cores shared with the ticker.
    expert = build_player("expert", {"time": 2, "threads": 1, "seed": 1})
    advanced = build_player("advanced", {"seed": 2})
    called = Match("strict(deals=1)", seed="lock")
    while called.deal.legal_calls():
        called.call(advanced.call(called.observation(called.deal.turn or 0)))

    def search() -> None:
        fresh = Match("strict(deals=1)", seed="lock")
        expert.call(fresh.observation(fresh.deal.turn or 0))
        expert.play(called.observation(called.deal.turn or 0))

    # A held lock shows in every try; a scheduling hiccup of a loaded machine does not repeat.
    tries = []
    for _ in range(3):
        alone = _worst_gap(lambda: _hash_for(1.0))
        tries.append((_worst_gap(search), alone))
        if tries[-1][0] <= 0.050 + alone:
            break
    assert any(gap <= 0.050 + alone for gap, alone in tries), [
        f"{gap * 1000:.0f} ms searching, {alone * 1000:.0f} ms beside lock-free work"
        for gap, alone in tries
    ]


_CONCURRENT = """
import threading
import numpy as np
from callbreak.players import kernel
from callbreak.players.expert import ExpertPlayer
from callbreak.game import Match

player = ExpertPlayer(time=0.05, seed=1, deadline=False)
def decide():
    match = Match("strict(deals=1)", seed="threads")
    match.call(player.call(match.observation(match.deal.turn or 0)))
threads = [threading.Thread(target=lambda: [decide() for _ in range(3)]) for _ in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
import numba
print(numba.threading_layer())
"""


@pytest.mark.slow
def test_searches_in_several_threads_under_the_workqueue_layer() -> None:
    """numba's own threading layer aborts the process when two threads launch parallel loops at
    once, which the interpreter's lock prevented until the kernel let go of it; the kernel's
    parallel functions then run one at a time."""
    environment = os.environ | {"NUMBA_THREADING_LAYER": "workqueue", "NUMBA_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", _CONCURRENT],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["workqueue"]
