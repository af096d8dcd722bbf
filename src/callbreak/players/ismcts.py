"""Information-set Monte Carlo tree search: the sparring partner the expert must beat.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse, IEEE TCIAIG 2012): one tree over the
deciding seat's information sets. Every iteration deals a fresh world consistent with
everything the rules have revealed (:mod:`callbreak.players.knowledge`, no soft evidence),
descends through the cards legal in that world by UCB with availability counts, adds a node,
and plays the deal out with the kernel's policy (:func:`callbreak.players.kernel.ismcts`).
Calls are chosen by flat Monte Carlo: the deal is played out by the policy from the first lead
in sampled worlds for each candidate call, and the call with the best expected score is made.

As with the expert, the amount of search comes from the ``time`` budget through a cost model
(seconds per iteration, measured once on the project machine), never from the clock, so a seed
fixes every decision; the clock only stops a search early when ``deadline`` is on and the
machine is slower than the model.
"""

from __future__ import annotations

import random
import time as clock

import numpy as np

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.calling import call_lookup, candidate_calls, simulated_call
from callbreak.players.knowledge import Knowledge
from callbreak.players.timing import chunk_sizes, overruns
from callbreak.spec import format_spec

__all__ = ["IsmctsPlayer"]

# Cost model of one iteration on one thread: dealing a world, descending the tree and the
# playout all grow with the cards still to be played (benchmarks/cost_model.py, 2026-12-02:
# 0.34 us per iteration with 0-7 cards left, 4.64 us with 48-52; least squares -0.2 us + 0.0975
# us per card). At equal ``time`` it must spend what the expert spends, so the constant is set
# from both players' CPU time at the same positions (cost_model.py --compare: at time=0.1 the
# expert spent 143 ms per decision and IS-MCTS 100 ms with 100 ns per card), see
# docs/benchmarks.md.
SECONDS_PER_ITERATION = 0.0
SECONDS_PER_ITERATION_CARD = 70e-9
MAX_ITERATIONS = 400_000  # per tree: the tree's memory is one node per iteration
CHUNKS = 16
CALL_ROLLOUTS = 4
SECONDS_PER_WORLD_SAMPLED = 5e-6


class IsmctsPlayer:
    """Single-observer information-set MCTS with policy playouts."""

    def __init__(
        self,
        time: float = 1.0,
        seed: int | None = None,
        *,
        threads: int = 2,
        deadline: bool = True,
        exploration: float = 0.7,
        eps: float = 0.1,
    ) -> None:
        if not 0.01 <= time <= 600:
            raise ValueError(f"time must be 0.01-600 seconds, not {time}")
        if not 1 <= threads <= 64:
            raise ValueError(f"threads must be 1-64, not {threads}")
        if not exploration >= 0:
            raise ValueError(f"exploration must be 0 or more, not {exploration}")
        self.time = time
        self.seed = random.getrandbits(48) if seed is None else seed
        self.rng = random.Random(self.seed)
        self.threads = threads
        self.deadline = deadline
        self.exploration = exploration
        self.eps = eps
        options: dict[str, object] = {"time": time}
        if seed is not None:
            options["seed"] = seed
        for name, value, default in (
            ("threads", threads, 2),
            ("deadline", deadline, True),
            ("exploration", exploration, 0.7),
            ("eps", eps, 0.1),
        ):
            if value != default:
                options[name] = value
        self.spec = format_spec("ismcts", options)
        self.last_search: dict[str, float] = {}
        self.cut_short = 0

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The compiled kernel functions its calls (or its cards) call (see ``ExpertPlayer``)."""
        if calling:
            return ("hand_strength", "sample_worlds", "world_calls", "simulate")
        return ("ismcts",)

    def _budget(self, limit: float | None) -> float:
        return self.time if limit is None else min(self.time, limit)

    # --- calls -----------------------------------------------------------------------------

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The call with the best expected score over policy playouts of sampled worlds."""
        started = clock.perf_counter()
        budget = self._budget(time)
        rules = observation.rules
        knowledge = Knowledge.from_observation(observation)
        candidates = candidate_calls(knowledge.hand, rules)
        per_world = len(candidates) * CALL_ROLLOUTS * 52 * kernel.SECONDS_PER_PLAYOUT_CARD
        per_world = per_world / self.threads + SECONDS_PER_WORLD_SAMPLED
        count = max(32, min(20_000, int(budget * 0.8 / per_world)))
        allowed = knowledge.allowed_array()
        worlds = kernel.sample_worlds(
            count,
            observation.seat,
            knowledge.hand,
            knowledge.unseen,
            allowed,
            knowledge.sizes_array(),
            self.rng.getrandbits(48),
        )
        worlds = worlds[worlds[:, 0] >= 0]
        known = kernel.known_calls(observation.calls)
        played = knowledge.played_array()
        world_calls = kernel.world_calls(worlds, known, played, call_lookup(rules))
        with kernel.threads_of(self.threads):
            best = simulated_call(
                worlds, world_calls, observation, candidates, CALL_ROLLOUTS, self.eps, self.rng
            )
        self.last_search = {
            "worlds": float(len(worlds)),
            "seconds": clock.perf_counter() - started,
        }
        return best

    # --- plays -----------------------------------------------------------------------------

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The most visited card at the root after the budget's iterations."""
        legal = observation.legal_cards
        if len(legal) == 1:
            return next(iter(legal))
        ranked = self.rank_cards(observation, time=time)
        return ranked[0][0]

    def rank_cards(
        self, observation: Observation, *, time: float | None = None
    ) -> list[tuple[Card, float, float]]:
        """Every legal card with its root visits and mean reward (points / 10), best first."""
        started = clock.perf_counter()
        budget = self._budget(time)
        knowledge = Knowledge.from_observation(observation)
        ranked, done, cut_short = grow_trees(
            observation,
            knowledge,
            iteration_count(knowledge, budget * 0.8),
            self.rng,
            threads=self.threads,
            eps=self.eps,
            exploration=self.exploration,
            deadline=started + budget * 0.98 if self.deadline else None,
        )
        self.cut_short += cut_short
        self.last_search = {
            "iterations": float(done),
            "seconds": clock.perf_counter() - started,
        }
        return ranked


def iteration_count(
    knowledge: Knowledge, seconds: float, per_card: float = SECONDS_PER_ITERATION_CARD
) -> int:
    """How many iterations (per tree) the cost model fits in ``seconds`` when an iteration
    costs ``per_card`` for every card still to be played."""
    cards_left = sum(knowledge.sizes)
    per_iteration = SECONDS_PER_ITERATION + per_card * cards_left
    return max(64, min(MAX_ITERATIONS, int(seconds / per_iteration)))


NO_WORLDS = np.zeros((0, 4), dtype=np.int64)


def grow_trees(
    observation: Observation,
    knowledge: Knowledge,
    iterations: int,
    rng: random.Random,
    *,
    threads: int,
    eps: float,
    exploration: float,
    deadline: float | None = None,
    worlds: np.ndarray = NO_WORLDS,
    model: np.ndarray = kernel.NO_MODEL,
) -> tuple[list[tuple[Card, float, float]], int, bool]:
    """One decision's information-set trees (one per thread), each grown by ``iterations`` in
    chunks, stopping early if the next chunk would pass ``deadline`` (when given).

    Worlds are dealt fresh in every iteration, uniformly among those the rules allow, unless
    ``worlds`` are given: then each iteration draws one of them (the expert's ``search=tree``
    passes its worlds already weighted by what the calls and plays say). The playouts play the
    other seats by the model of play with weights ``model`` when given. Returns every legal
    card with its root visits and mean reward (points / 10), best first; the iterations run in
    all; and whether the clock cut the search short.
    """
    rules = observation.rules
    trees = threads
    capacity = iterations + 2
    card = np.zeros((trees, capacity), dtype=np.int64)
    mover = np.zeros((trees, capacity), dtype=np.int64)
    child = np.full((trees, capacity), -1, dtype=np.int64)
    sibling = np.full((trees, capacity), -1, dtype=np.int64)
    visits = np.zeros((trees, capacity))
    avail = np.zeros((trees, capacity))
    totals = np.zeros((trees, capacity))
    size = np.ones(trees, dtype=np.int64)
    rngs = np.array(
        [kernel.seed_state(rng.getrandbits(48))[0] for _ in range(trees)],
        dtype=np.uint64,
    )
    trick = observation.trick
    cards_in = kernel.trick_cards(trick.cards)
    allowed = knowledge.allowed_array()
    sizes = knowledge.sizes_array()
    calls = kernel.calls_of(observation.calls)
    won = np.array(observation.won, dtype=np.int64)
    flags, scoring = kernel.flags_of(rules), kernel.scoring_of(rules)
    chunk = -(-iterations // CHUNKS)
    # With a deadline the first steps are an eighth of a chunk (the trees grow the same in
    # any steps): a loaded machine is seen before a chunk has run.
    first = chunk if deadline is None else max(1, chunk // 8)
    steps = chunk_sizes(iterations, chunk, first)
    done, cut_short = 0, False
    with kernel.threads_of(threads):
        for index, step in enumerate(steps):
            before = clock.perf_counter()
            kernel.ismcts(
                card,
                mover,
                child,
                sibling,
                visits,
                avail,
                totals,
                size,
                rngs,
                step,
                observation.seat,
                knowledge.hand,
                knowledge.unseen,
                allowed,
                sizes,
                worlds,
                trick.leader,
                cards_in,
                len(trick.cards),
                not observation.tricks,
                knowledge.gone,
                knowledge.voids,
                calls,
                won,
                flags,
                scoring,
                eps,
                exploration,
                model,
                kernel.others_modelled(model, observation.seat),
            )
            done += step
            now = clock.perf_counter()
            if (
                deadline is not None
                and index + 1 < len(steps)
                and overruns(before, now, step, steps[index + 1], deadline)
            ):
                cut_short = True
                break
    root_visits: dict[int, float] = {}
    root_totals: dict[int, float] = {}
    for t in range(trees):
        node = child[t, 0]
        while node >= 0:
            c = int(card[t, node])
            root_visits[c] = root_visits.get(c, 0.0) + visits[t, node]
            root_totals[c] = root_totals.get(c, 0.0) + totals[t, node]
            node = sibling[t, node]
    ranked = [
        (
            Card(c),
            root_visits.get(c, 0.0),
            root_totals.get(c, 0.0) / root_visits[c] if root_visits.get(c) else 0.0,
        )
        for c in observation.legal_cards
    ]
    ranked.sort(key=lambda item: (-item[1], -round(item[2], 9), int(item[0])))
    return ranked, done * trees, cut_short
