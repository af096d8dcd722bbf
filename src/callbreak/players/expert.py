"""The expert: search under hidden information.

Belief: the unseen cards are dealt to the other seats many times over, consistent with
everything the rules have revealed (:mod:`callbreak.players.knowledge`), and each such world is
weighted by how likely the other seats' calls and plays are for the hands it gives them
(:mod:`callbreak.players.inference`); the worlds are then resampled by weight. Decision: an
information-set tree (:func:`callbreak.players.ismcts.grow_trees`) is grown over those worlds
while more than ``solve_below`` cards are in hand; after that each candidate card is played in
every world and the deal solved exactly by max^n search. With ``search=flat`` every candidate is
played in every world throughout, the deal finished by the policy for every seat. A card's value
is the seat's expected deal score under the profile's scoring, so a made call counts far more
than an overtrick. Calls are chosen by simulation: the deal is played out for each candidate
call and the call with the best expected score (and, in the last deal, the best chance of
finishing first) is made.

The amount of search is fixed by the ``time`` budget through a cost model, not by the clock,
so that a seed always gives the same decision; the clock only cuts a search short when the
machine is slower than the model (then the decision may differ between runs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import time as clock
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.base import Player
from callbreak.players.calling import (
    call_bounds,
    call_lookup,
    call_table,
    candidate_calls,
    expected_tricks,
    first_place_chance,
    first_place_chance_ahead,
    model_distribution,
    shifted,
)
from callbreak.players.inference import PLAY_WEIGHTS, play_log_likelihoods
from callbreak.players.ismcts import (
    Growth,
    SearchOptions,
    grow_trees,
    iteration_count,
    options_signature,
)
from callbreak.players.knowledge import Knowledge, position
from callbreak.players.learned import LearnedPlayer
from callbreak.players.timing import chunk_sizes, overruns, share

__all__ = ["ExpertOptions", "ExpertPlayer"]

# Cost model, measured on the project machine with one thread (see docs/strength.md). The
# search size follows from it, never from the clock, so that a seed fixes every decision.
# A playout's cost per card is the kernel's (kernel.SECONDS_PER_PLAYOUT_CARD).
# Exact solves vary a lot with the position, so their model is cautious and their count capped:
# a few thousand solved worlds already pin a card's value.
SECONDS_PER_NODE = 40e-9
MAX_SOLVED_WORLDS = 4_000
PILOT_WORLDS = 32
TT_BITS = 16
SECONDS_PER_WORLD_SAMPLED = 5e-6
MAX_WORLDS = 40_000
CHUNKS = 16  # looks at the clock per search: the search stops if the next chunk would overrun
MIN_CHUNK = 32
# The model of play costs this much per world and per play of another seat it weighs (one
# thread; measured like the rest, see docs/benchmarks.md).
SECONDS_PER_PLAY_WEIGHED = 180e-9

Calls = Literal["simulate", "model", "blend", "learned"]
CALLS = get_args(Calls)
"""How a call's trick distribution is found: by policy playouts of sampled worlds, by the call
model fitted on the expert's own deals (no search), the mean of both, or by the learned
player's calls head (:mod:`callbreak.players.learned`, no search)."""
Situation = Literal["last", "every"]
SITUATIONS = get_args(Situation)
"""Which deals' calls weigh the chance of finishing first: the last only, or every deal."""
Spend = Literal["even", "deal"]
SPEND = get_args(Spend)
"""How the budget is spent: ``time`` on every decision with a choice, or ``time`` times 14 per
deal, shared out by how hard each decision is (:mod:`callbreak.players.timing`), a decision
stopping early once its best card is clear."""
TREE_EXPLORATION = 0.7  # the IS-MCTS player's default
# An iteration over drawn worlds skips dealing one: it costs about three quarters of the
# IS-MCTS player's (0.73 to 0.76: 122 against 167 ns per card left, one thread, 40 positions,
# `NUMBA_NUM_THREADS=1 python benchmarks/cost_model.py --worlds --positions 40`), so its
# constant (70 ns, set to spend what the flat search spends) is scaled by 0.76.
SECONDS_PER_TREE_ITERATION_CARD = 53e-9
# With the others played by the model in the playouts an iteration costs this many times more
# (less than a playout's kernel.MODEL_PLAYOUT_COST: the descent through the tree costs the same;
# `benchmarks/cost_model.py --worlds`).
MODEL_TREE_COST = 2.3
DECISIONS_PER_DEAL = 14
SETTLED_Z = 3.0
"""A decision is clear when the best card beats each other by this many standard errors."""
Search = Literal["flat", "tree"]
SEARCH = get_args(Search)
"""How cards are chosen: each candidate played out in every world by the policy (exact solves
near the end), or an information-set tree (the IS-MCTS of :mod:`callbreak.players.ismcts`)
grown over the expert's own weighted worlds instead of uniform ones, while more than
``solve_below`` cards are in hand (the exact solves then; ``solve_below=0`` keeps the tree to
the end)."""
TREE_WORLDS_SHARE = 0.2
"""With ``search=tree``, the share of a decision's search time spent drawing (and weighing)
the worlds the tree is grown over; the rest grows the tree."""
Inference = Literal["rules", "calls", "plays"]
INFERENCE = get_args(Inference)
"""What weights the sampled worlds: nothing beyond the rules, the calls, or the calls and every
play (a model of sensible play, :mod:`callbreak.players.inference`)."""
Cards = Literal["search", "learned"]
CARDS = get_args(Cards)
"""How the cards are chosen: by the search (``search``), or by the learned player's cards head
(``learned``, no search: with the expert's own calls, what those calls are worth to it)."""
Playouts = Literal["policy", "model", "calls", "cards"]
PLAYOUTS = get_args(Playouts)
"""How the other seats play in the playouts: by the kernel's policy (with ``eps`` random
cards), or by the model of play fitted on the expert's deals (``inference.PLAY_WEIGHTS``, each
card drawn from its distribution: a better model of what the others will do, at about
``kernel.MODEL_PLAYOUT_COST`` times the cost per card) everywhere, in the call simulations
only, or in the searches for a card only."""


def playout_models(playouts: str) -> tuple[np.ndarray, np.ndarray]:
    """The model weights the other seats play by in the call simulations and in the card
    searches (``kernel.NO_MODEL``: by the policy) for a ``playouts`` option (``PLAYOUTS``)."""
    if playouts not in PLAYOUTS:
        raise ValueError(f"playouts must be one of {', '.join(PLAYOUTS)}, not {playouts!r}")
    calls = PLAY_WEIGHTS if playouts in ("model", "calls") else kernel.NO_MODEL
    cards = PLAY_WEIGHTS if playouts in ("model", "cards") else kernel.NO_MODEL
    return calls, cards


CallLikelihood = Literal["gap", "sound"]
CALL_LIKELIHOOD = get_args(CallLikelihood)
"""How a heard call weighs a world: by its gap to the hand's strength less a little caution
(:func:`kernel.call_weights`), or as the sound call of a hand about as strong as the world's,
within the profile's lowest and highest calls (:func:`kernel.sound_call_weights`)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExpertOptions(SearchOptions):
    """The expert's options (those of every searching player, then its own), checked here."""

    rollouts: int = 8
    """Policy playouts per world and candidate in the flat search and the call simulations."""
    eps: float = 0.1
    """The share of random cards in the policy's playouts."""
    solve_below: int = 5
    """With this many cards in hand or fewer, every world is solved exactly."""
    rival_weight: float = 0.0
    """How much the others' mean score counts against the seat's own in the exact solves."""
    win_weight: float = 4.0
    """Points a call's chance of finishing first is worth (in the last deal)."""
    call_spread: float = 1.5
    """The spread of a heard call around the strength of the hand a world gives (tricks)."""
    call_shift: float = 0.0
    """Tricks the simulated distribution of the seat's own tricks is moved up at a call."""
    call_likelihood: CallLikelihood = "gap"
    inference: Inference = "plays"
    play_temperature: float = 2.0
    """Softens the model of play's likelihood of a world (above 0)."""
    pool: int = 3
    """Worlds drawn per world kept, before the resampling by weight."""
    calls: Calls = "simulate"
    situation: Situation = "last"
    spend: Spend = "even"
    search: Search = "tree"
    playouts: Playouts = "policy"
    cards: Cards = "search"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.call_spread > 0:
            raise ValueError(f"call_spread must be above 0, not {self.call_spread}")
        if not 0 <= self.call_shift <= 3:
            raise ValueError(f"call_shift must be 0-3 tricks, not {self.call_shift}")
        if not self.play_temperature > 0:
            raise ValueError(f"play_temperature must be above 0, not {self.play_temperature}")
        if not 1 <= self.pool <= 100:
            raise ValueError(f"pool must be 1-100, not {self.pool}")
        if self.playouts == "calls" and self.calls in ("model", "learned"):
            raise ValueError("playouts=calls needs call simulations: calls=simulate or blend")


class ExpertPlayer(Player):
    """Search under hidden information over weighted samples of the hidden hands: an
    information-set tree over them (``search=tree``, the default) or determinized search
    (PIMC, ``search=flat``), exact solves near the end."""

    OPTIONS: ClassVar[type[ExpertOptions]] = ExpertOptions
    NAME: ClassVar[str] = "expert"

    def __init__(self, *args: Any, **options: Any) -> None:
        """A player with :class:`ExpertOptions` (``time`` and ``seed`` may come first)."""
        self.options = self.OPTIONS(*args, **options)
        seed = self.options.seed
        self.seed = random.getrandbits(48) if seed is None else seed
        self.rng = random.Random(self.seed)
        self.call_model, self.card_model = playout_models(self.options.playouts)
        # read now, so that missing weights are refused when the player is built
        uses_learned = "learned" in (self.options.calls, self.options.cards)
        self.learned = LearnedPlayer() if uses_learned else None
        # Model playouts cost more per card: the searches are sized down to the same time.
        self.call_cost = kernel.MODEL_PLAYOUT_COST if len(self.call_model) else 1.0
        self.card_cost = kernel.MODEL_PLAYOUT_COST if len(self.card_model) else 1.0
        self.tree_cost = MODEL_TREE_COST if len(self.card_model) else 1.0
        self._bank = DECISIONS_PER_DEAL * self.options.time
        self.spec = self.options.spec(self.NAME)
        self.last_search: dict[str, float] = {}
        self.last_visits: dict[int, float] = {}
        """With ``search=tree``, the root visits of each legal card in the last ``rank_cards``
        (empty after a call or a flat search, where every option was weighed in every world):
        how much of the search stands behind each value (the self-play data keeps them)."""
        self.cut_short = 0
        """How many searches the clock cut short (each may make a run unrepeatable)."""

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The compiled kernel functions its calls (or its cards) call: a host that is still
        compiling them on a first start may let a simpler level stand in
        (:func:`callbreak.warmup.ready`)."""
        by_calls = (
            "sound_call_weights" if self.options.call_likelihood == "sound" else "call_weights"
        )
        weighing = {"rules": (), "calls": (by_calls,)}
        worlds = (
            "sample_worlds",
            *weighing.get(self.options.inference, (by_calls, "play_log_likelihoods")),
        )
        if not calling and self.options.cards == "learned":
            return ()
        if not calling:
            # The tree hands the last ``solve_below`` cards to the flat search's exact solves.
            tree = self.options.search == "tree"
            searches: tuple[str, ...] = (
                ("ismcts",) if tree and self.options.solve_below < 13 else ()
            )
            if not tree or self.options.solve_below > 0:
                searches += ("evaluate",)
            return (*worlds, *searches)
        if self.options.calls in ("model", "learned"):
            return ("hand_strength",)
        return ("hand_strength", *worlds, "world_calls", "simulate")

    # --- calls -----------------------------------------------------------------------------

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The call with the best simulated expected value, within ``time`` when given."""
        return self.rank_calls(observation, time=time)[0][0]

    def claim_redeal(self, observation: Observation) -> bool:
        """A spadeless hand asks for a new deal unless it is worth three tricks."""
        return expected_tricks(observation.hand.mask) < 3

    def rank_calls(
        self, observation: Observation, *, time: float | None = None
    ) -> list[tuple[int, float, list[float]]]:
        """Candidate calls, best first: (call, expected value in points, trick distribution)."""
        started = clock.perf_counter()
        self.last_visits = {}
        if self.options.spend == "deal":
            self._bank = (
                DECISIONS_PER_DEAL * self.options.time
            )  # a new deal (or a deal dealt again)
        allotted = self._allot(observation, 0)
        self._bank -= allotted
        budget = self._budget(time, allotted)
        rules = observation.rules
        knowledge = Knowledge.from_observation(observation)
        candidates = candidate_calls(knowledge.hand, rules)
        model = model_distribution(knowledge.hand, observation)
        if self.options.calls == "learned":
            assert self.learned is not None
            model = self.learned.distribution(observation)
        if self.options.calls in ("model", "learned"):  # a fitted model alone: no search
            ranked = [
                (call, self._call_value(model, call, observation), model) for call in candidates
            ]
            ranked.sort(key=lambda item: (-round(item[1], 9), item[0]))
            self.last_search = {"worlds": 0.0, "playouts": 0.0}
            self.last_search["seconds"] = clock.perf_counter() - started
            return ranked
        per_world = (
            len(candidates)
            * self.options.rollouts
            * 52
            * kernel.SECONDS_PER_PLAYOUT_CARD
            * self.call_cost
        )
        count = self._world_count(per_world, budget)
        worlds = self._worlds(observation, knowledge, count)
        leader = (observation.dealer + 1) % 4
        known = kernel.known_calls(observation.calls)
        played = knowledge.played_array()
        world_calls = kernel.world_calls(worlds, known, played, call_lookup(rules))
        flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
        playouts = self._playouts(self.call_model, observation.seat)
        ranked = []
        for call in candidates:
            world_calls[:, observation.seat] = call

            def work(chunk: np.ndarray, seed: int, start: int) -> np.ndarray:
                calls = world_calls[start : start + len(chunk)]
                rollouts = self.options.rollouts
                return kernel.simulate(
                    chunk, leader, calls, flags, scoring, rollouts, playouts, seed
                )

            won = self._run(work, worlds, started, budget)
            histogram = np.bincount(won[:, observation.seat], minlength=14)[:14]
            # The playouts play this seat by the policy, weaker than its search will: its own
            # tricks come out low (docs/strength.md), so they may be moved up.
            distribution = shifted(list(histogram / histogram.sum()), self.options.call_shift)
            if self.options.calls == "blend":
                distribution = [(a + b) / 2 for a, b in zip(distribution, model, strict=True)]
            ranked.append((call, self._call_value(distribution, call, observation), distribution))
        ranked.sort(key=lambda item: (-round(item[1], 9), item[0]))
        self.last_search = {
            "worlds": float(len(worlds)),
            "playouts": float(len(worlds) * len(candidates) * self.options.rollouts),
            "seconds": clock.perf_counter() - started,
        }
        return ranked

    def _call_value(self, distribution: list[float], call: int, observation: Observation) -> float:
        """A call's expected score in points, and ``win_weight`` times its chance of finishing
        first (in the last deal; in every deal with ``situation=every``)."""
        value = dict(call_table(distribution, observation.rules))[call]
        if not self.options.win_weight:
            return value
        if observation.deals_left == 0:
            value += self.options.win_weight * first_place_chance(distribution, call, observation)
        elif self.options.situation == "every" and observation.deals_left is not None:
            chance = first_place_chance_ahead(distribution, call, observation)
            value += self.options.win_weight * chance
        return value

    # --- plays -----------------------------------------------------------------------------

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The card with the best expected value over the sampled worlds, within ``time`` when
        given."""
        legal = observation.legal_cards
        if len(legal) == 1:
            return next(iter(legal))
        return self.rank_cards(observation, time=time)[0][0]

    def rank_cards(
        self, observation: Observation, *, time: float | None = None
    ) -> list[tuple[Card, float]]:
        """Every legal card with its expected deal value in points, best first: by the tree
        (``search=tree``) while more than ``solve_below`` cards are in hand, by exact solves of
        every world from there on, and by policy playouts of every world otherwise."""
        if self.options.cards == "learned":  # the cards head's chances, not points
            assert self.learned is not None
            chances = self.learned.card_chances(observation)
            self.last_visits, self.last_search = {}, {"worlds": 0.0, "playouts": 0.0}
            return sorted(chances.items(), key=lambda item: (-item[1], int(item[0])))
        started = clock.perf_counter()
        self.last_visits = {}
        knowledge = Knowledge.from_observation(observation)
        legal = sorted(observation.legal_cards)
        groups = _equivalent_groups(legal, knowledge)
        allotted = self._allot(observation, len(groups))
        budget = self._budget(time, allotted)
        cards_left = len(observation.hand)
        # Near the end the flat search solves each world exactly: the tree hands those over.
        exact = cards_left <= self.options.solve_below
        if self.options.search == "tree" and not exact:
            self._bank -= allotted
            return self._rank_by_tree(observation, knowledge, started, budget)
        candidates = np.array([group[-1] for group in groups], dtype=np.int64)
        work = self._evaluator(observation, knowledge, candidates)
        if exact:
            values = self._rank_by_solves(work, observation, knowledge, started, budget)
        else:
            values, searched = self._rank_by_playouts(
                work, observation, knowledge, len(candidates), started, budget
            )
            allotted *= searched  # a clear decision stops early
        means = values.mean(axis=0) / 10
        ranked = [
            (Card(card), float(means[index]))
            for index, group in enumerate(groups)
            for card in group
        ]
        ranked.sort(key=lambda item: (-round(item[1], 9), int(item[0])))
        self._bank -= allotted
        self.last_search = {
            "worlds": float(values.shape[0]),
            "playouts": 0.0 if exact else float(values.size * self.options.rollouts),
            "solves": float(values.size) if exact else 0.0,
            "seconds": clock.perf_counter() - started,
        }
        return ranked

    def _evaluator(
        self, observation: Observation, knowledge: Knowledge, candidates: np.ndarray
    ) -> Callable[[np.ndarray, int, int], tuple[np.ndarray, np.ndarray]]:
        """``work(worlds, seed, lanes)``: each candidate's value in every world (by playouts,
        or solved exactly with ``solve_below`` cards left) and the positions each solve
        visited."""
        at = position(observation, knowledge)
        scoring = kernel.scoring_of(observation.rules)
        playouts = self._playouts(self.card_model, observation.seat)
        options = self.options

        def work(chunk: np.ndarray, seed: int, lanes: int) -> tuple[np.ndarray, np.ndarray]:
            return kernel.evaluate(
                chunk,
                candidates,
                at,
                scoring,
                playouts,
                options.rollouts,
                options.solve_below,
                options.rival_weight,
                seed,
                TT_BITS,
                lanes,
            )

        return work

    def _rank_by_solves(
        self,
        work: Callable[[np.ndarray, int, int], tuple[np.ndarray, np.ndarray]],
        observation: Observation,
        knowledge: Knowledge,
        started: float,
        budget: float,
    ) -> np.ndarray:
        """Each candidate's value in tenths in every world, every world solved exactly."""
        # Solves vary a lot in size, so a pilot batch counts the positions they visit (a count
        # that does not depend on the machine) and the rest is sized from that. Without a
        # deadline a huge solve would have no brake, so the pilot's count also caps the worlds.
        solved = MAX_SOLVED_WORLDS
        if self.options.inference == "plays":  # weighing many worlds costs: half the budget
            weigh = self._weigh_cost(knowledge)
            solved = min(solved, self._world_count(0.0, budget / 2, weigh))
        worlds = self._worlds(observation, knowledge, solved)
        # The pilot runs in one lane: lanes keep separate memo tables, and its count of
        # positions must not depend on how many threads the machine gives.
        pilot, nodes = work(worlds[:PILOT_WORLDS], self.rng.getrandbits(48), 1)
        per_world = max(float(nodes.mean()), 1.0) * SECONDS_PER_NODE
        count = min(self._world_count(per_world, budget), len(worlds))
        if count <= PILOT_WORLDS:
            return pilot
        rest = self._run(
            lambda c, s, _start: work(c, s, self._cores())[0],
            worlds[PILOT_WORLDS:count],
            started,
            budget,
        )
        return np.concatenate([pilot, rest])

    def _rank_by_playouts(
        self,
        work: Callable[[np.ndarray, int, int], tuple[np.ndarray, np.ndarray]],
        observation: Observation,
        knowledge: Knowledge,
        candidates: int,
        started: float,
        budget: float,
    ) -> tuple[np.ndarray, float]:
        """Each candidate's value in tenths in every world by policy playouts (``search=flat``),
        and the share of the worlds searched before the decision was clear."""
        per_world = (
            candidates
            * self.options.rollouts
            * 4
            * len(observation.hand)
            * kernel.SECONDS_PER_PLAYOUT_CARD
            * self.card_cost
        )
        count = self._world_count(per_world, budget, self._weigh_cost(knowledge))
        worlds = self._worlds(observation, knowledge, count)
        values = self._run(
            lambda c, s, _start: work(c, s, self._cores())[0],
            worlds,
            started,
            budget,
            _clear if self.options.spend == "deal" else None,
        )
        return values, len(values) / len(worlds)

    def _rank_by_tree(
        self, observation: Observation, knowledge: Knowledge, started: float, budget: float
    ) -> list[tuple[Card, float]]:
        """``search=tree``: every legal card with its mean value in points, most visited first,
        from information-set trees grown over the expert's weighted worlds."""
        drawing = budget * 0.8 * TREE_WORLDS_SHARE
        count = self._world_count(0.0, drawing / 0.8, self._weigh_cost(knowledge))
        worlds = self._worlds(observation, knowledge, count)
        growth = Growth(
            iterations=iteration_count(
                knowledge,
                budget * 0.8 - drawing,
                SECONDS_PER_TREE_ITERATION_CARD * self.tree_cost,
            ),
            threads=self.options.threads,
            eps=self.options.eps,
            exploration=TREE_EXPLORATION,
            deadline=started + budget * 0.98 if self.options.deadline else None,
        )
        ranked, done, cut_short = grow_trees(
            observation, knowledge, growth, self.rng, worlds=worlds, model=self.card_model
        )
        self.cut_short += cut_short
        self.last_visits = {int(card): visits for card, visits, _mean in ranked}
        self.last_search = {
            "worlds": float(len(worlds)),
            "iterations": float(done),
            "seconds": clock.perf_counter() - started,
        }
        # The tree's rewards are a tenth of the points (kernel.ismcts): back to points.
        return [(card, 10 * mean) for card, _visits, mean in ranked]

    # --- search machinery ------------------------------------------------------------------

    def _allot(self, observation: Observation, choices: int) -> float:
        """This decision's own budget: ``time``, or with ``spend=deal`` its share of what is
        left of the deal's budget (by :mod:`callbreak.players.timing`)."""
        if self.options.spend == "even":
            return self.options.time
        return max(0.01, share(observation, self._bank, choices or None))

    def _budget(self, limit: float | None, allotted: float | None = None) -> float:
        """Seconds for one decision: its own budget, or less when a host limits it."""
        own = self.options.time if allotted is None else allotted
        return own if limit is None else min(own, limit)

    def _world_count(self, search_seconds: float, budget: float, weigh: float = 0.0) -> int:
        """How many worlds fit the budget when each costs ``search_seconds`` on one thread
        (and ``weigh`` to weigh by the model of play).

        The count assumes ``threads`` cores whatever the machine has, so that the same seed
        makes the same decisions everywhere; fewer cores only make the search slower.
        """
        per_world = (search_seconds + weigh) / self.options.threads + SECONDS_PER_WORLD_SAMPLED
        return _clamp(int(budget * 0.8 / per_world), 32, MAX_WORLDS)

    def _weigh_cost(self, knowledge: Knowledge) -> float:
        """Seconds (one thread) to weigh the pool behind one world by the model of play."""
        if self.options.inference != "plays":
            return 0.0
        others = sum(bin(mask).count("1") for mask in knowledge.played_by)
        others -= bin(knowledge.played_by[knowledge.seat]).count("1")
        return self.options.pool * others * SECONDS_PER_PLAY_WEIGHED

    def _playouts(self, model: np.ndarray, seat: int) -> kernel.Playouts:
        """How its playouts play: the policy with ``eps`` random cards, the other seats by
        ``model`` (its call model or its card model) when it has one."""
        return kernel.Playouts(self.options.eps, model, kernel.others_modelled(model, seat))

    def _cores(self) -> int:
        """The threads numba may use for this player: ``threads``, if the process has them."""
        return kernel.cores(self.options.threads)

    def _run(
        self,
        work: Callable[[np.ndarray, int, int], np.ndarray],
        worlds: np.ndarray,
        started: float,
        budget: float,
        settled: Callable[[np.ndarray], bool] | None = None,
    ) -> np.ndarray:
        """Run ``work(chunk, seed, start)`` over the worlds in chunks (``start`` is the chunk's
        first index), stopping before the deadline when one is kept, and once ``settled(values
        so far)`` says the decision is clear (checked from a quarter of the worlds on)."""
        deadline = started + budget * 0.98
        full = max(MIN_CHUNK, -(-len(worlds) // CHUNKS))
        sizes = chunk_sizes(len(worlds), full, MIN_CHUNK if self.options.deadline else full)
        parts = []
        begin = 0
        with self._threads():
            for index, size in enumerate(sizes):
                before = clock.perf_counter()
                seed = self.rng.getrandbits(48)
                end = begin + size
                parts.append(work(worlds[begin:end], seed, begin))
                now = clock.perf_counter()
                if end >= len(worlds):
                    break
                if self.options.deadline and overruns(
                    before, now, size, sizes[index + 1], deadline
                ):
                    self.cut_short += 1  # slower than the cost model: stop before the budget
                    break
                if (
                    settled is not None
                    and 4 * end >= len(worlds)
                    and settled(np.concatenate(parts))
                ):
                    break
                begin = end
        return np.concatenate(parts)

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        """Run numba's parallel loops on this player's number of threads."""
        return kernel.threads_of(self.options.threads)

    def _worlds(self, observation: Observation, knowledge: Knowledge, count: int) -> np.ndarray:
        """``count`` worlds consistent with the knowledge, resampled by the likelihood of the
        calls (and of the plays, with ``inference=plays``)."""
        seat = observation.seat
        allowed = knowledge.allowed_array()
        sizes = knowledge.sizes_array()

        def sample(allowed: np.ndarray) -> np.ndarray:
            pool = kernel.sample_worlds(
                count * self.options.pool,
                seat,
                knowledge.hand,
                knowledge.unseen,
                allowed,
                sizes,
                self.rng.getrandbits(48),
            )
            return pool[pool[:, 0] >= 0]

        pool = sample(allowed)
        if len(pool) == 0:  # should not happen; fall back to the voids alone
            voids = [knowledge.unseen & ~_void_mask(knowledge.voids, s) for s in range(4)]
            pool = sample(np.array(voids, dtype=np.int64))
        if self.options.inference == "rules":
            weights = np.ones(len(pool))
        else:
            weights = self._call_weights(pool, observation, knowledge)
        if self.options.inference == "plays":
            with self._threads():
                likelihood = play_log_likelihoods(pool, observation, lanes=self._cores())
            if len(likelihood) and likelihood.min() < likelihood.max():
                weights = weights * np.exp(
                    (likelihood - likelihood.max()) / self.options.play_temperature
                )
        return _resample(pool, weights, count, self.rng)

    def _call_weights(
        self, pool: np.ndarray, observation: Observation, knowledge: Knowledge
    ) -> np.ndarray:
        """How likely each world makes the calls already heard (a call of 5 means strength)."""
        calls = kernel.known_calls(observation.calls)
        played = knowledge.played_array()
        if self.options.call_likelihood == "sound":
            low, high = call_bounds(observation.rules)
            return kernel.sound_call_weights(
                pool, calls, played, observation.seat, self.options.call_spread, low, high
            )
        return kernel.call_weights(pool, calls, played, observation.seat, self.options.call_spread)


ExpertPlayer.__signature__ = options_signature(ExpertOptions)  # type: ignore[attr-defined]


def _equivalent_groups(legal: Sequence[Card], knowledge: Knowledge) -> list[list[Card]]:
    """Legal cards in groups that play the same: same suit, all cards between them done."""
    groups: list[list[Card]] = []
    for card in legal:
        if groups and groups[-1][-1].suit == card.suit:
            previous = groups[-1][-1]
            between = ((1 << card) - 1) & ~((2 << previous) - 1)
            if not between & ~knowledge.done & ~knowledge.hand:
                groups[-1].append(card)
                continue
        groups.append([card])
    return groups


def _clear(values: np.ndarray) -> bool:
    """Whether the best candidate so far beats every other by ``SETTLED_Z`` standard errors
    (paired over the worlds: each world gave every candidate the same luck)."""
    if values.shape[1] < 2 or values.shape[0] < 8:
        return True
    best = int(np.argmax(values.mean(axis=0)))
    for other in range(values.shape[1]):
        if other == best:
            continue
        gaps = values[:, best] - values[:, other]
        spread = float(gaps.std(ddof=1))
        if spread > 0 and gaps.mean() < SETTLED_Z * spread / np.sqrt(len(gaps)):
            return False
    return True


def _void_mask(voids: int, seat: int) -> int:
    mask = 0
    for suit in range(4):
        if voids >> (4 * seat + suit) & 1:
            mask |= 0x1FFF << (13 * suit)
    return mask


def _resample(pool: np.ndarray, weights: np.ndarray, count: int, rng: random.Random) -> np.ndarray:
    """Systematic resampling: ``count`` worlds drawn in proportion to their weights."""
    total = weights.sum()
    if total <= 0 or not np.isfinite(total):
        weights = np.ones(len(pool))
        total = float(len(pool))
    cumulative = np.cumsum(weights / total)
    start = rng.random() / count
    points = start + np.arange(count) / count
    indices = np.minimum(np.searchsorted(cumulative, points), len(pool) - 1)
    # Shuffled, so that any leading part of the worlds is a fair sample too.
    order = list(range(count))
    rng.shuffle(order)
    return np.ascontiguousarray(pool[indices[order]])


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))
