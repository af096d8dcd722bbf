"""Computer players: specs, full matches under every profile, determinism, fairness, advice."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callbreak.cards import Card, CardSet
from callbreak.game import Match, Observation
from callbreak.players import Player, PlayerError
from callbreak.players.advisor import advise
from callbreak.players.calling import (
    HAND_SPREAD,
    best_call,
    call_table,
    candidate_calls,
    expected_tricks,
    normal_distribution,
    shifted,
    sure_tricks,
)
from callbreak.players.expert import ExpertPlayer
from callbreak.record import Record, check
from callbreak.rules import PROFILES, STRICT
from callbreak.seating import decide, make_player, play_match

FAST_LEVELS = ["random", "beginner", "intermediate", "advanced"]
WEAKNESSES = {
    "beginner": "casual(memory=trick, voids=false, optimism=1.5)",
    "intermediate": "casual(memory=honours, optimism=1.4)",
    "advanced": "casual(optimism=0.9)",
}
"""Each casual level as the casual player with its weaknesses (docs/strength.md)."""


# --- specs -----------------------------------------------------------------------------------


def test_specs_build_players() -> None:
    assert make_player("random").spec == "random"
    assert make_player("beginner(seed=2)").spec == "beginner(seed=2)"
    assert make_player(" Intermediate ( seed = 3 ) ").spec == "intermediate(seed=3)"
    expert = make_player("expert(time=0.5, seed=7)")
    assert isinstance(expert, ExpertPlayer) and expert.options.time == 0.5 and expert.seed == 7


def _options(player: Any) -> dict[str, object]:
    """Every option of an expert, with the seed it drew when it was given none."""
    return dataclasses.asdict(player.options) | {"seed": player.seed}


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ("expert", "expert(time=1.0)"),
        (
            "expert(rollouts=2, eps=0.3, solve_below=3)",
            "expert(time=1.0, rollouts=2, eps=0.3, solve_below=3)",
        ),
        (  # defaults given explicitly are left out; the constructor's order is kept
            "expert(call_spread=2, win_weight=4.0, seed=7, rollouts=8, time=0.5, threads=1)",
            "expert(time=0.5, seed=7, threads=1, call_spread=2)",
        ),
        (
            "expert(deadline=false, rival_weight=-0.25, eps=1e-05, seed=3)",
            "expert(time=1.0, seed=3, deadline=false, eps=1e-05, rival_weight=-0.25)",
        ),
    ],
)
def test_expert_spec_shows_every_option_and_rebuilds_the_same_player(spec: str, shown: str) -> None:
    player = make_player(spec)
    assert player.spec == shown
    again = make_player(player.spec)
    assert again.spec == player.spec
    if "seed" in shown:  # without one, each player draws its own seed
        assert _options(again) == _options(player)


@given(
    time=st.floats(0.01, 600),
    seed=st.integers(0, 2**48),
    threads=st.integers(1, 64),
    deadline=st.booleans(),
    rollouts=st.integers(1, 64),
    eps=st.floats(0, 1),
    solve_below=st.integers(0, 13),
    rival_weight=st.floats(-1e6, 1e6),
    win_weight=st.floats(-1e6, 1e6),
    call_spread=st.floats(1e-9, 1e6),
)
@settings(max_examples=50, deadline=None)
def test_any_expert_rebuilds_from_its_spec(**options: Any) -> None:
    player = ExpertPlayer(**options)
    assert _options(make_player(player.spec)) == _options(player)
    assert {name: _options(player)[name] for name in options} == options


@pytest.mark.parametrize("level", FAST_LEVELS)
def test_fast_levels_rebuild_from_their_spec(level: str) -> None:
    assert make_player(level).spec == level
    player = make_player(f"{level}(seed=11)")
    assert player.spec == f"{level}(seed=11)" and make_player(player.spec).spec == player.spec


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ("casual", "casual"),
        (
            "casual(seed=4, memory=honours, optimism=1.25)",
            "casual(seed=4, memory=honours, optimism=1.25)",
        ),
        ("casual(voids=false)", "casual(voids=false)"),
        ("casual(optimism=1)", "casual(optimism=1.0)"),
        ("casual(optimism=0, calls=count)", "casual(calls=count)"),
    ],
)
def test_the_casual_player_rebuilds_from_its_spec(spec: str, shown: str) -> None:
    player = make_player(spec)
    assert player.spec == shown and make_player(player.spec).spec == shown


@pytest.mark.parametrize("level", sorted(WEAKNESSES))
def test_each_casual_level_is_the_casual_player_with_its_weaknesses(level: str) -> None:
    def record(template: str) -> Record:
        match = Match("strict", seed=6)
        play_match(match, [make_player(template.format(s=s)) for s in range(4)])
        return Record.from_match(match)

    weak = WEAKNESSES[level].replace("casual(", "casual(seed={s}, ")
    assert record(weak).deals == record(level + "(seed={s})").deals
    # and the weaknesses cost: the sound casual player plays these deals differently
    assert record("casual(seed={s})").deals != record(level + "(seed={s})").deals


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("casual(memory=elephant)", "memory must be one of all, honours, trick"),
        ("casual(optimism=9)", "optimism must be -3 to 3 tricks"),
        ("advanced(optimism=0)", "unknown option 'optimism' for advanced"),
        ("grandmaster", "unknown player 'grandmaster'"),
        ("expert(speed=3)", "unknown option 'speed' for expert"),
        ("random(time=1)", "unknown option 'time' for random"),
        ("expert(time=0)", "time must be"),
        ("expert(time=fast)", "bad option"),
        ("expert(eps=abc)", "eps must be a number, not 'abc'"),  # else a numba traceback
        ("expert(call_shift=abc)", "call_shift must be a number"),
        ("expert(threads=1.5)", "threads must be a whole number"),
        ("expert(deadline=3)", "deadline must be true or false"),
        ("expert(rollouts=true)", "rollouts must be a whole number"),
        ("ismcts(exploration=wide)", "exploration must be a number"),
        ("advanced(seed=abc)", "seed must be a whole number"),
        ("expert(", "cannot read the player"),
        ("", "cannot read the player"),
    ],
)
def test_bad_specs_are_clear_errors(spec: str, words: str) -> None:
    with pytest.raises(PlayerError, match=words.replace("(", r"\(")):
        make_player(spec)


# --- whole matches ---------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("level", FAST_LEVELS)
def test_levels_play_whole_matches_legally(level: str, profile: str) -> None:
    match = Match(profile, seed=11)
    players = [make_player(f"{level}(seed={seat})") for seat in range(4)]
    play_match(match, players)  # seating.decide() refuses any illegal answer
    assert match.is_over
    assert check(Record.from_match(match)).valid


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_expert_plays_a_whole_match_legally(profile: str) -> None:
    match = Match(profile, seed=5)
    players = [make_player("expert(time=0.03, seed=1)")] + [
        make_player(f"intermediate(seed={seat})") for seat in range(3)
    ]
    play_match(match, players)
    assert match.is_over and check(Record.from_match(match)).valid


@pytest.mark.parametrize(
    "rules",
    [
        "classic(min_total_calls=10, spadeless_redeal=true, eight_wins=true)",
        "strict(exact_scoring=true, deals=2)",
        "bhoos(deals=2, free_following=true)",
    ],
)
def test_players_cope_with_options(rules: str) -> None:
    match = Match(rules, seed=3)
    players = [
        make_player("expert(time=0.03, seed=2)"),
        make_player("intermediate(seed=1)"),
        make_player("beginner(seed=1)"),
        make_player("random(seed=1)"),
    ]
    play_match(match, players)
    assert match.is_over and check(Record.from_match(match)).valid


# --- determinism -----------------------------------------------------------------------------


@pytest.mark.parametrize("level", FAST_LEVELS)
def test_same_seed_same_game(level: str) -> None:
    def run() -> list[int]:
        match = Match("classic", seed=8)
        play_match(match, [make_player(f"{level}(seed={s})") for s in range(4)])
        return match.totals()

    assert run() == run()


@pytest.mark.slow
def test_expert_is_deterministic_for_a_seed() -> None:
    match = Match("strict", seed=21)
    deal = match.deal
    for _ in range(4):
        match.call(3)
    for _ in range(5):
        match.play(deal.legal_cards().lowest())  # type: ignore[arg-type]
    seen = match.observation(deal.turn)  # type: ignore[arg-type]
    # Without a deadline the search size comes from the cost model alone, never the clock.
    first = ExpertPlayer(time=0.2, seed=4, deadline=False)
    second = ExpertPlayer(time=0.2, seed=4, deadline=False)
    ranked = first.rank_cards(seen)
    again = second.rank_cards(seen)
    assert ranked == again
    opening = Match("strict", seed=2)
    seen_call = opening.observation(opening.deal.turn)  # type: ignore[arg-type]
    calls = ExpertPlayer(time=0.2, seed=4, deadline=False).rank_calls(seen_call)
    calls_again = ExpertPlayer(time=0.2, seed=4, deadline=False).rank_calls(seen_call)
    assert [c for c, _, _ in calls] == [c for c, _, _ in calls_again]
    assert [v for _, v, _ in calls] == [v for _, v, _ in calls_again]


# --- fairness --------------------------------------------------------------------------------


class Spy(Player):
    """A player that records every card it could see in its observations."""

    def __init__(self) -> None:
        self.inner = make_player("intermediate(seed=1)")
        self.leaks: list[str] = []
        self.holdings: list[CardSet] = []  # the true hands, set by the test before each turn

    def _inspect(self, seen: Observation, holdings: list[CardSet]) -> None:
        public = seen.played | seen.hand
        for name in (f.name for f in dataclasses.fields(seen)):
            for card in _cards_in(getattr(seen, name)):
                if card not in public and name != "legal_cards":
                    self.leaks.append(f"{name}: {card}")
        assert seen.legal_cards.mask & ~seen.hand.mask == 0
        for seat, held in enumerate(holdings):
            if seat != seen.seat:
                assert not held.mask & seen.hand.mask

    def call(self, seen: Observation) -> int:
        self._inspect(seen, self.holdings)
        return self.inner.call(seen)

    def play(self, seen: Observation) -> Card:
        self._inspect(seen, self.holdings)
        return self.inner.play(seen)


def _cards_in(value: object) -> list[Card]:
    if isinstance(value, Card):
        return [value]
    if isinstance(value, CardSet):
        return list(value)
    if isinstance(value, (tuple, list)):
        return [card for item in value for card in _cards_in(item)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            card for f in dataclasses.fields(value) for card in _cards_in(getattr(value, f.name))
        ]
    return []


def test_a_player_sees_only_its_own_hand() -> None:
    match = Match("strict", seed=17)
    spy = Spy()
    players = [spy] + [make_player(f"intermediate(seed={s})") for s in range(3)]
    while not match.is_over:
        spy.holdings = [match.deal.held(s) for s in range(4)]
        seat = match.deal.turn
        assert seat is not None
        match.apply(decide(players[seat], match.observation(seat)).action)
    assert spy.leaks == []


# --- calling ---------------------------------------------------------------------------------


def test_sure_tricks_count_like_the_tips_for_beginners() -> None:
    hand = CardSet.parse("AS KS 8S 3S AH KH 6H 9D 7D 4D 2D KC 5C").mask
    # A♠ K♠, A♥, K♥ guarded, K♣ guarded, and the fourth spade
    assert sure_tricks(hand) == 6
    assert sure_tricks(CardSet.parse("KH 2S 3S 4S 5D 6D 7D 8D 9C TC JC QC 2H").mask) == 1


def test_expected_tricks_orders_hands_sensibly() -> None:
    strong = CardSet.parse("AS KS QS JS TS AH KH AD KD AC KC 2C 3C").mask
    weak = CardSet.parse("2S 3H 4H 5H 6H 7D 8D 9D 2C 3C 4C 5C 6C").mask
    assert expected_tricks(strong) > 9 > 1 > expected_tricks(weak)


def test_best_call_sits_below_the_mean() -> None:
    seen = Match("classic", seed=1).observation(0)
    distribution = normal_distribution(4.0, 1.0)
    call, table = best_call(distribution, dataclasses.replace(seen, deal_number=1))
    assert call < 4
    assert dict(table)[call] == max(value for _, value in table)
    assert [c for c, _ in call_table(distribution, STRICT)] == list(range(2, 14))


@pytest.mark.parametrize("profile", ["strict", "bhoos"])
def test_the_calls_a_search_weighs_hold_the_sound_call(profile: str) -> None:
    for seed in range(12):
        seen = Match(profile, seed=seed).observation(0)
        hand = seen.hand.mask
        candidates = candidate_calls(hand, seen.rules)
        sound = best_call(normal_distribution(expected_tricks(hand), HAND_SPREAD), seen)[0]
        assert sound in candidates


@given(
    st.lists(st.floats(0, 1), min_size=14, max_size=14).filter(lambda c: sum(c) > 0.1),
    st.floats(0, 3),
)
def test_a_shifted_distribution_keeps_its_total_and_moves_its_mean_up(
    chances: list[float], shift: float
) -> None:
    distribution = [c / sum(chances) for c in chances]
    moved = shifted(distribution, shift)
    mean = sum(t * p for t, p in enumerate(distribution))
    moved_mean = sum(t * p for t, p in enumerate(moved))
    assert sum(moved) == pytest.approx(1.0)
    assert moved_mean <= mean + shift + 1e-9
    if sum(distribution[10:]) == 0:  # nothing pushed past 13: the mean moves by the shift
        assert moved_mean == pytest.approx(mean + shift)
    assert shifted(distribution, 0.0) == pytest.approx(distribution)


def test_last_deal_trailing_player_risks_more_than_the_leader() -> None:
    base = Match("classic", seed=1).observation(0)
    last = dataclasses.replace(base, deal_number=5, calls=(None, 3, 3, 3))
    distribution = normal_distribution(4.0, 1.2)
    trailing = dataclasses.replace(last, totals=(30, 40, 20, 20))  # tenths: 1 point behind
    leading = dataclasses.replace(last, totals=(100, 50, 20, 20))
    early = dataclasses.replace(trailing, deal_number=2)
    calm = best_call(distribution, early)[0]
    assert best_call(distribution, trailing)[0] > calm
    assert best_call(distribution, leading)[0] <= calm


# --- the expert and its advice ---------------------------------------------------------------


def test_advice_ranks_calls_and_cards() -> None:
    match = Match("strict", seed=9)
    seat = match.deal.turn
    assert seat is not None
    advice = advise(match.observation(seat), time=0.1, seed=1)
    assert advice.kind == "call"
    values = [option.value for option in advice.options]
    assert values == sorted(values, reverse=True)  # type: ignore[type-var]
    assert abs(sum(advice.best.distribution) - 1) < 1e-9
    assert "expected" in advice.summary()
    for _ in range(4):
        match.call(2)
    seen = match.observation(match.deal.turn)  # type: ignore[arg-type]
    advice = advise(seen, time=0.1, seed=1)
    assert advice.kind == "play"
    assert {option.action for option in advice.options} == set(seen.legal_cards)
    card_values = [option.value for option in advice.options]
    assert card_values == sorted(card_values, reverse=True)  # type: ignore[type-var]
    assert advice.summary().startswith("play ")


def test_advice_when_nothing_to_decide() -> None:
    match = Match("strict", seed=9)
    idle = (match.deal.turn + 1) % 4  # type: ignore[operator]
    with pytest.raises(Exception, match="nothing to decide"):
        advise(match.observation(idle), time=0.05)
