"""The expert's review of one seat's decisions in a game record: what each call and card cost.

For every decision of the seat, the expert is shown that seat's :class:`Observation` at that
moment (its hand, the calls, the cards played, never another hand) and weighs every legal
call or card; the decision's *points lost* is the best option's expected score less the
chosen one's. Separately, and named so, the *hindsight* cost of each card: the all-seeing
oracle (exact solves near the end of a deal, playouts of the true deal before) values every
legal card with the four hands known. ``docs/review.md`` defines every figure, the accuracy
among them, and gives their noise.

The record's own actions are replayed on the engine's deals after :func:`record.check` has
judged them; nothing the expert says is ever applied, so no match is driven here. The expert
and the oracle are built from their specs by :mod:`callbreak.seating`, each seeded from the
review's seed and the decision, so that a review is the same for the same seed.

>>> from callbreak.game import Match
>>> from callbreak.seating import play_match
>>> record = play_match(Match("strict(deals=1)", seed=3), ["random"] * 4).record()
>>> result = review(record, 0, time=0.01, hindsight=False)
>>> len(result.decisions), 0 <= result.summary.accuracy <= 100
(14, True)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from callbreak.cards import Card
from callbreak.errors import CallbreakError, RecordError
from callbreak.game import SPADELESS, Call, Deal, Observation, Phase, Play, deal_from_seed
from callbreak.players.calling import call_table, model_distribution
from callbreak.record import Record, check
from callbreak.rules import Rules, calls_thrown_in
from callbreak.seating import derive_seed, make_player

__all__ = [
    "DEFAULT_TIME",
    "Decision",
    "Option",
    "Review",
    "Summary",
    "accuracy",
    "review",
]

DEFAULT_TIME = 0.3
"""Seconds of search per decision (``--time``): a 5-deal match's 70 decisions of one seat in
well under a minute on one core (docs/benchmarks.md)."""
MIN_TIME, MAX_TIME = 0.01, 600.0
"""The expert's own bounds on its time per decision."""
COSTLIEST = 3
NEW_DEALS = 400
"""Deals drawn to value a deal dealt again (a call that throws its deal in): see docs/review.md."""

Progress = Callable[[int, int], None]
"""Called with (decisions reviewed, decisions in all) after each decision."""


@dataclasses.dataclass(frozen=True)
class Option:
    """One legal call or card with its expected score for the deal, in points."""

    action: str
    """A call as its number ('3'), a card as the record writes it ('TH')."""
    value: float

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "value": round(self.value, 3)}


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision of the reviewed seat, with what it cost."""

    deal: int
    """The deal's place in the record, from 1 (thrown-in deals counted, as the record lists
    them)."""
    trick: int | None
    """The trick the card went to, from 1; None for a call."""
    kind: Literal["call", "play"]
    made: str
    best: str
    """The option with the best expected score with what the seat knew."""
    lost: float
    """Expected points lost by ``made`` against ``best`` with what the seat knew (0 or more)."""
    options: tuple[Option, ...]
    """Every legal option with its expected score, best first."""
    distribution: tuple[float, ...] = ()
    """For a call: the chance of taking 0, 1, ... 13 tricks (what the call rests on)."""
    hindsight_best: str | None = None
    """With all four hands known: the best card (None for calls and without hindsight)."""
    hindsight_lost: float | None = None
    """With all four hands known: the points the card played cost against that best card."""
    stand_in: str | None = None
    """The record's fault when the host decided here for the seat (``away``, ``timeout``,
    ``failed`` ...): the decision is reviewed as the one made, and marked so."""

    @property
    def forced(self) -> bool:
        """Only one legal option: nothing to choose, nothing lost."""
        return len(self.options) == 1

    @property
    def at_stake(self) -> float:
        """What the decision could cost: the best option's value less the worst's (0 when
        forced, or when every option has the same value)."""
        values = [option.value for option in self.options]
        return max(values) - min(values)

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "trick": self.trick,
            "kind": self.kind,
            "made": self.made,
            "best": self.best,
            "forced": self.forced,
            "lost": round(self.lost, 3),
            "at_stake": round(self.at_stake, 3),
            "options": [option.to_json() for option in self.options],
            "distribution": [round(p, 4) for p in self.distribution],
            "hindsight_best": self.hindsight_best,
            "hindsight_lost": (
                None if self.hindsight_lost is None else round(self.hindsight_lost, 3)
            ),
            "stand_in": self.stand_in,
        }


@dataclasses.dataclass(frozen=True)
class Summary:
    """Points lost and accuracy over some decisions (one deal, or the match)."""

    calls_lost: float
    cards_lost: float
    hindsight_lost: float | None
    """The cards' hindsight cost summed; None when hindsight was not reviewed."""
    accuracy: float
    decisions: int
    costliest: tuple[int, ...]
    """Indexes in :attr:`Review.decisions` of the (up to three) costliest, costliest first."""

    @property
    def lost(self) -> float:
        return self.calls_lost + self.cards_lost

    def to_json(self) -> dict[str, Any]:
        return {
            "calls_lost": round(self.calls_lost, 3),
            "cards_lost": round(self.cards_lost, 3),
            "lost": round(self.lost, 3),
            "hindsight_lost": (
                None if self.hindsight_lost is None else round(self.hindsight_lost, 3)
            ),
            "accuracy": round(self.accuracy, 1),
            "decisions": self.decisions,
            "costliest": list(self.costliest),
        }


@dataclasses.dataclass(frozen=True)
class Review:
    """The review of one seat of one record."""

    seat: int
    player: str
    time: float
    seed: int
    decisions: tuple[Decision, ...]
    deals: Mapping[int, Summary]
    """A summary for each deal the seat decided in, by the deal's number in the record."""
    summary: Summary
    """The whole match."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "time": self.time,
            "seed": self.seed,
            "decisions": [decision.to_json() for decision in self.decisions],
            "deals": {str(number): s.to_json() for number, s in self.deals.items()},
            "summary": self.summary.to_json(),
        }


def accuracy(lost: Sequence[float], at_stake: Sequence[float]) -> float:
    """0-100: the share of the points at stake that the decisions kept,
    100·(1 - Σ lost / Σ at stake); 100 when nothing was at stake. docs/review.md says why.

    Each decision counts by what was at stake in it (the spread of its options' values), so a
    card whose every option scores the same (after a call that is broken whatever happens)
    counts for nothing, and a call counts with its whole spread.

    >>> accuracy([0.0, 0.0], [2.0, 1.0]), accuracy([1.0, 0.0], [3.0, 1.0]), accuracy([], [])
    (100.0, 75.0, 100.0)
    """
    stakes = sum(at_stake)
    if stakes <= 0:
        return 100.0
    kept = stakes - sum(min(points, stake) for points, stake in zip(lost, at_stake, strict=True))
    return 100 * kept / stakes


def _summary(decisions: Sequence[Decision], indexes: Sequence[int], hindsight: bool) -> Summary:
    mine = [decisions[i] for i in indexes]
    by_cost = sorted(
        (i for i in indexes if decisions[i].lost > 0), key=lambda i: -decisions[i].lost
    )
    return Summary(
        calls_lost=sum(d.lost for d in mine if d.kind == "call"),
        cards_lost=sum(d.lost for d in mine if d.kind == "play"),
        hindsight_lost=(
            sum(d.hindsight_lost or 0.0 for d in mine if d.kind == "play") if hindsight else None
        ),
        accuracy=accuracy([d.lost for d in mine], [d.at_stake for d in mine]),
        decisions=len(mine),
        costliest=tuple(by_cost[:COSTLIEST]),
    )


def review(
    record: Record,
    seat: int,
    *,
    time: float = DEFAULT_TIME,
    seed: int = 0,
    hindsight: bool = True,
    progress: Progress | None = None,
) -> Review:
    """Review every call and card of ``seat`` in ``record`` (any record ``check`` finds
    valid); RecordError for one it does not, CallbreakError for a seat out of range.

    ``time`` is the expert's search per decision in seconds; ``progress(done, total)`` is
    called after each decision. Without ``hindsight`` the oracle is not asked (faster).
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise CallbreakError(f"seats are 0-3, not {seat!r}")
    if not MIN_TIME <= time <= MAX_TIME:
        raise CallbreakError(f"the time per decision must be {MIN_TIME}-{MAX_TIME} s, not {time}")
    checked = check(record)
    if checked.error is not None:
        raise RecordError(
            f"the record is not valid: deal {checked.error.deal}: {checked.error.message}"
        )
    moments = list(_moments(checked.deals, record, seat))
    total = len(moments)
    decisions: list[Decision] = []
    for number, (deal_index, observation, action, hands, stand_in, leads) in enumerate(moments):
        key = derive_seed(seed, "review", seat, number)  # one seed per decision reviewed
        if isinstance(action, Call):
            decision = _review_call(observation, action, deal_index + 1, time, key, leads)
        else:
            decision = _review_card(observation, action, deal_index + 1, time, key)
            if hindsight and not decision.forced:
                decision = _hindsight(decision, observation, hands, action, key)
            elif hindsight:
                decision = dataclasses.replace(
                    decision, hindsight_best=decision.made, hindsight_lost=0.0
                )
        decisions.append(dataclasses.replace(decision, stand_in=stand_in))
        if progress is not None:
            progress(number + 1, total)
    by_deal: dict[int, list[int]] = {}
    for index, decision in enumerate(decisions):
        by_deal.setdefault(decision.deal, []).append(index)
    return Review(
        seat=seat,
        player=record.players[seat],
        time=time,
        seed=seed,
        decisions=tuple(decisions),
        deals={number: _summary(decisions, idx, hindsight) for number, idx in by_deal.items()},
        summary=_summary(decisions, range(len(decisions)), hindsight),
    )


@dataclasses.dataclass(frozen=True)
class _Leads:
    """What a call of the seat leads to, the other seats' actions in the deal taken as they
    were made: a throw-in (and a new deal) or play."""

    claimed: bool = False
    """A seat dealt no spade claimed a new deal after this call: every call leads to it."""
    others: int | None = None
    """The other three seats' calls summed, when all four calls were made: with
    ``min_total_calls``, a call that brings the total under it throws the deal in."""

    def thrown_in(self, call: int, rules: Rules) -> bool:
        """Whether calling ``call`` here throws the deal in."""
        if self.claimed:
            return True
        return self.others is not None and calls_thrown_in(
            self.others + call, rules.min_total_calls
        )


Moment = tuple[int, Observation, Call | Play, tuple[int, ...], str | None, _Leads]


def _moments(deals: Sequence[Deal], record: Record, seat: int) -> Iterator[Moment]:
    """Each call and card of ``seat``: (deal index, its observation, the action, the four
    hands then as masks, the record's fault if the host made it, what a call leads to). A
    claim for a new deal is not reviewed: the expert has no figure for it."""
    totals = [0, 0, 0, 0]
    played = 0
    for index, judged in enumerate(deals):
        faults = [
            fault
            for fault in record.deals[index].faults
            if fault.get("seat") == seat and fault.get("substitute") is not None
        ]
        deal = Deal(judged.hands, judged.dealer, judged.rules)
        calls = [judged.calls[s] for s in range(4) if s != seat]
        leads = _Leads(
            claimed=judged.thrown_in == SPADELESS,
            others=None if None in calls else sum(c for c in calls if c is not None),
        )
        for action in judged.actions:
            if deal.turn == seat and isinstance(action, Call | Play):
                observation = deal.observation(seat, tuple(totals), played + 1)
                hands = tuple(deal.held(s).mask for s in range(4))
                yield index, observation, action, hands, _stand_in(faults, action), leads
            deal.apply(action)
        if judged.phase is Phase.OVER:
            played += 1
            totals = [t + s for t, s in zip(totals, judged.scores(), strict=True)]


def _stand_in(faults: list[Mapping[str, Any]], action: Call | Play) -> str | None:
    """The first unused fault of the seat that played this action, taken from ``faults``."""
    kind, text = (
        ("call", str(action.value)) if isinstance(action, Call) else ("play", str(action.card))
    )
    for position, fault in enumerate(faults):
        if fault.get("action") == kind and str(fault.get("substitute")) == text:
            del faults[position]
            return str(fault.get("fault"))
    return None


def _expert(time: float, seed: int) -> Any:
    # The flat search weighs every option in the same worlds, so that their values compare
    # (as players.advisor says); without a deadline the worlds searched depend on the budget
    # only, never on the machine's load, so a review is the same for the same seed.
    return make_player(f"expert(time={time}, seed={seed}, search=flat, deadline=false)")


def _review_call(
    observation: Observation, action: Call, deal: int, time: float, seed: int, leads: _Leads
) -> Decision:
    legal = observation.legal_calls
    if len(legal) == 1:
        only = Option(str(legal[0]), 0.0)
        return Decision(deal, None, "call", str(action.value), only.action, 0.0, (only,))
    rules = observation.rules
    thrown = {call for call in legal if leads.thrown_in(call, rules)}
    values: dict[int, float] = {}
    distribution: tuple[float, ...] = ()
    if thrown:
        # A call that throws the deal in scores nothing and leads to a new deal: it is worth
        # what a new deal is worth to the seat, whichever of those calls it is.
        again = _new_deal_value(rules, (observation.seat - observation.dealer - 1) % 4 + 1)
        values = dict.fromkeys(thrown, again)
    if len(thrown) < len(legal):
        ranked = _expert(time, seed).rank_calls(observation)
        distribution = tuple(float(p) for p in ranked[0][2])
        # Every legal call that leads to play is valued on the same distribution, the one the
        # expert's call rests on, in points only (the expert's own ranking also weighs the
        # chance of finishing first).
        played = dict(call_table(distribution, rules))
        values |= {call: played[call] for call in legal if call not in thrown}
    options = sorted(
        (Option(str(call), values[call]) for call in legal), key=lambda o: (-o.value, int(o.action))
    )
    lost = max(0.0, options[0].value - values[action.value])
    best = str(action.value) if lost < 1e-9 else options[0].action
    return Decision(deal, None, "call", str(action.value), best, lost, tuple(options), distribution)


@functools.lru_cache(maxsize=64)
def _new_deal_value(rules: Rules, place: int) -> float:
    """What a new deal is worth to the seat ``place`` seats after the dealer (1 calls first):
    the mean, over NEW_DEALS deals dealt from a fixed seed, of the best call's expected score
    on the call model's trick distribution (``players.calling.model_distribution``, fitted on
    the expert's own results), the seats before it making the model's best call too. The same
    for every record: a fixed reference, not a search (docs/review.md)."""
    dealer, total = 0, 0.0
    for number in range(NEW_DEALS):
        hands = deal_from_seed(f"review/new deal/{rules}", number, dealer)
        deal = Deal(hands, dealer, rules)
        calls: list[int | None] = [None] * 4
        value = 0.0
        for ahead in range(1, place + 1):
            seat = (dealer + ahead) % 4
            seen = dataclasses.replace(deal.observation(seat), calls=tuple(calls))
            table = call_table(model_distribution(hands[seat].mask, seen), rules)
            calls[seat], value = max(table, key=lambda item: (round(item[1], 9), -item[0]))
        total += value
    return total / NEW_DEALS


def _trick_number(observation: Observation) -> int:
    return len(observation.tricks) + 1


def _review_card(
    observation: Observation, action: Play, deal: int, time: float, seed: int
) -> Decision:
    legal = observation.legal_cards
    trick = _trick_number(observation)
    if len(legal) == 1:
        only = Option(str(action.card), 0.0)
        return Decision(deal, trick, "play", only.action, only.action, 0.0, (only,))
    ranked = _expert(time, seed).rank_cards(observation)
    options = tuple(Option(str(card), float(value)) for card, value in ranked)
    values = {Card(card): float(value) for card, value in ranked}
    lost = max(0.0, options[0].value - values[action.card])
    # Cards the search treats as one (touching cards) share a value: the card played is then
    # as good as the best, and named so.
    best = str(action.card) if lost < 1e-9 else options[0].action
    return Decision(deal, trick, "play", str(action.card), best, lost, options)


def _hindsight(
    decision: Decision, observation: Observation, hands: tuple[int, ...], action: Play, seed: int
) -> Decision:
    oracle = make_player(f"oracle(seed={seed})")
    # The oracle is for measuring only: it is shown the hands exactly as an arena's seating
    # shows them, and only here, after the match, for the hindsight line.
    oracle.see(hands)
    ranked = oracle.rank_cards(observation)  # type: ignore[attr-defined]
    values = {Card(card): float(value) for card, value in ranked}
    best = ranked[0][0]
    lost = max(0.0, values[best] - values[action.card])
    return dataclasses.replace(
        decision,
        hindsight_best=str(action.card) if lost < 1e-9 else str(best),
        hindsight_lost=lost,
    )
