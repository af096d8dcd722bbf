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

import dataclasses
import inspect
import random
import time as clock
import typing
from typing import Any, ClassVar

import numpy as np

from callbreak.cards import Card
from callbreak.game import Observation
from callbreak.players import kernel
from callbreak.players.base import Player
from callbreak.players.calling import call_lookup, candidate_calls, simulated_call
from callbreak.players.knowledge import Knowledge, position
from callbreak.players.timing import chunk_sizes, overruns
from callbreak.spec import format_spec

__all__ = ["Growth", "IsmctsOptions", "IsmctsPlayer", "SearchOptions", "options_signature"]

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


@dataclasses.dataclass(frozen=True)
class SearchOptions:
    """The options every searching player takes, checked here once; the player's spec is
    printed from the fields (``time``, then each option that differs from its default, in the
    fields' order), so that ``make_player(spec)`` builds the same player again. A field typed
    ``Literal[...]`` takes one of its words."""

    time: float = 1.0
    """Seconds per decision: the cost models size the search from it, never the clock."""
    seed: int | None = None
    """The seed of every random choice (None: a fresh one)."""
    _: dataclasses.KW_ONLY
    threads: int = 2
    """The search's threads (as many as the process has); its size assumes this many."""
    deadline: bool = True
    """Whether the clock may cut a search short on a machine slower than the cost model."""

    SHOWN: ClassVar[tuple[str, ...]] = ("time",)
    """The options the spec always shows."""

    def __post_init__(self) -> None:
        if not 0.01 <= self.time <= 600:
            raise ValueError(f"time must be 0.01-600 seconds, not {self.time}")
        if not 1 <= self.threads <= 64:
            raise ValueError(f"threads must be 1-64, not {self.threads}")
        for name, choices in _choices(type(self)).items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")

    def spec(self, name: str) -> str:
        """The player's spec: ``name(time=..., changed options)``."""
        return format_spec(
            name,
            {
                field.name: getattr(self, field.name)
                for field in dataclasses.fields(self)
                if field.name in self.SHOWN or getattr(self, field.name) != field.default
            },
        )


def _choices(options: type[SearchOptions]) -> dict[str, tuple[str, ...]]:
    """The words each ``Literal`` option of ``options`` may take."""
    hints = typing.get_type_hints(options)
    return {
        field.name: typing.get_args(hints[field.name])
        for field in dataclasses.fields(options)
        if typing.get_origin(hints[field.name]) is typing.Literal
    }


def options_signature(options: type[SearchOptions]) -> inspect.Signature:
    """The signature of a player that takes ``options`` as keywords: ``players.check_options``
    and the type checks of a spec read it."""
    return inspect.signature(options)


@dataclasses.dataclass(frozen=True, kw_only=True)
class IsmctsOptions(SearchOptions):
    """The IS-MCTS player's options."""

    exploration: float = 0.7
    """UCB's exploration constant."""
    eps: float = 0.1
    """The share of random cards in the policy's playouts."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.exploration >= 0:
            raise ValueError(f"exploration must be 0 or more, not {self.exploration}")


class IsmctsPlayer(Player):
    """Single-observer information-set MCTS with policy playouts."""

    def __init__(self, *args: Any, **options: Any) -> None:
        """A player with :class:`IsmctsOptions` (``time`` and ``seed`` may come first)."""
        self.options = IsmctsOptions(*args, **options)
        self.seed = random.getrandbits(48) if self.options.seed is None else self.options.seed
        self.rng = random.Random(self.seed)
        self.spec = self.options.spec("ismcts")
        self.last_search: dict[str, float] = {}
        self.cut_short = 0

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The compiled kernel functions its calls (or its cards) call (see ``ExpertPlayer``)."""
        if calling:
            return ("hand_strength", "sample_worlds", "world_calls", "simulate")
        return ("ismcts",)

    def _budget(self, limit: float | None) -> float:
        return self.options.time if limit is None else min(self.options.time, limit)

    # --- calls -----------------------------------------------------------------------------

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The call with the best expected score over policy playouts of sampled worlds."""
        started = clock.perf_counter()
        budget = self._budget(time)
        rules = observation.rules
        knowledge = Knowledge.from_observation(observation)
        candidates = candidate_calls(knowledge.hand, rules)
        per_world = len(candidates) * CALL_ROLLOUTS * 52 * kernel.SECONDS_PER_PLAYOUT_CARD
        per_world = per_world / self.options.threads + SECONDS_PER_WORLD_SAMPLED
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
        with kernel.threads_of(self.options.threads):
            best = simulated_call(
                worlds,
                world_calls,
                observation,
                candidates,
                CALL_ROLLOUTS,
                self.options.eps,
                self.rng,
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
        growth = Growth(
            iterations=iteration_count(knowledge, budget * 0.8),
            threads=self.options.threads,
            eps=self.options.eps,
            exploration=self.options.exploration,
            deadline=started + budget * 0.98 if self.options.deadline else None,
        )
        ranked, done, cut_short = grow_trees(observation, knowledge, growth, self.rng)
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


IsmctsPlayer.__signature__ = options_signature(IsmctsOptions)  # type: ignore[attr-defined]

NO_WORLDS = np.zeros((0, 4), dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class Growth:
    """How :func:`grow_trees` grows one decision's trees."""

    iterations: int
    """Iterations per tree."""
    threads: int
    """Trees, one per thread."""
    eps: float
    """The share of random cards in the policy's playouts."""
    exploration: float
    """UCB's exploration constant."""
    deadline: float | None = None
    """The ``perf_counter`` time no chunk of iterations may be expected to pass (None: none)."""


def grow_trees(
    observation: Observation,
    knowledge: Knowledge,
    growth: Growth,
    rng: random.Random,
    *,
    worlds: np.ndarray = NO_WORLDS,
    model: np.ndarray = kernel.NO_MODEL,
) -> tuple[list[tuple[Card, float, float]], int, bool]:
    """One decision's information-set trees (one per thread of ``growth``), each grown by its
    ``iterations`` in chunks, stopping early if the next chunk would pass its ``deadline``.

    Worlds are dealt fresh in every iteration, uniformly among those the rules allow, unless
    ``worlds`` are given: then each iteration draws one of them (the expert's ``search=tree``
    passes its worlds already weighted by what the calls and plays say). The playouts play the
    other seats by the model of play with weights ``model`` when given. Returns every legal
    card with its root visits and mean reward (points / 10), best first; the iterations run in
    all; and whether the clock cut the search short.
    """
    iterations, threads, deadline = growth.iterations, growth.threads, growth.deadline
    trees = threads
    grown = kernel.new_trees(trees, iterations + 2)
    rngs = np.array(
        [kernel.seed_state(rng.getrandbits(48))[0] for _ in range(trees)],
        dtype=np.uint64,
    )
    at = position(observation, knowledge)
    allowed = knowledge.allowed_array()
    sizes = knowledge.sizes_array()
    scoring = kernel.scoring_of(observation.rules)
    playouts = kernel.Playouts(growth.eps, model, kernel.others_modelled(model, observation.seat))
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
                grown,
                rngs,
                step,
                at,
                allowed,
                sizes,
                worlds,
                scoring,
                playouts,
                growth.exploration,
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
        node = grown.child[t, 0]
        while node >= 0:
            c = int(grown.card[t, node])
            root_visits[c] = root_visits.get(c, 0.0) + grown.visits[t, node]
            root_totals[c] = root_totals.get(c, 0.0) + grown.total[t, node]
            node = grown.sibling[t, node]
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
