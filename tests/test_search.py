"""The searching players beyond the expert's defaults: IS-MCTS, inference from plays, the call
model, time shared by difficulty and the all-seeing oracle. Legal play, determinism for a
seed, and no hidden card reaching a player (the oracle aside, which only the arena shows
them)."""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from callbreak.arena import compare
from callbreak.cards import CardSet
from callbreak.game import Match, Observation
from callbreak.players import LEVELS, MEASURING, PlayerError, kernel
from callbreak.players.calling import (
    call_bounds,
    call_lookup,
    first_place_chance,
    first_place_chance_ahead,
    model_distribution,
    normal_distribution,
)
from callbreak.players.expert import MODEL_TREE_COST, PLAYOUTS, ExpertPlayer, playout_models
from callbreak.players.inference import play_events, play_log_likelihoods
from callbreak.players.ismcts import Growth, IsmctsPlayer, grow_trees
from callbreak.players.knowledge import Knowledge
from callbreak.players.seer import SeerPlayer
from callbreak.players.timing import EXPECTED_PLAY_WEIGHT, decision_weight, share
from callbreak.record import Record, check
from callbreak.rules import PROFILES, Rules
from callbreak.seating import make_player, play_match
from tests.helpers import swap_hidden


def _midway(rules: str = "strict", seed: int = 21, tricks: int = 5) -> Match:
    """A match some tricks into its first deal, played by intermediates."""
    match = Match(rules, seed=seed)
    players = [make_player(f"intermediate(seed={s})") for s in range(4)]
    while len(match.deal.tricks) < tricks or match.deal.trick.cards:
        seat = match.deal.turn
        assert seat is not None
        seen = match.observation(seat)
        if seen.legal_calls:
            match.call(players[seat].call(seen))
        else:
            match.play(players[seat].play(seen))
    # one card into the trick, so that the position has a trick in progress
    seat = match.deal.turn
    assert seat is not None
    match.play(players[seat].play(match.observation(seat)))
    return match


def _seen(match: Match) -> Observation:
    seat = match.deal.turn
    assert seat is not None
    return match.observation(seat)


# --- IS-MCTS ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["strict", "bhoos", "pagat", "classic(free_following=true)"])
def test_ismcts_plays_a_whole_match_legally(rules: str) -> None:
    match = Match(rules, seed=4)
    players = [make_player("ismcts(time=0.02, seed=1)")] + [
        make_player(f"intermediate(seed={seat})") for seat in range(3)
    ]
    play_match(match, players)  # seating.decide() refuses any illegal answer
    assert match.is_over and check(Record.from_match(match)).valid


def test_ismcts_is_deterministic_for_a_seed_and_rebuilds_from_its_spec() -> None:
    seen = _seen(_midway())
    first = IsmctsPlayer(time=0.05, seed=3, deadline=False, threads=2)
    second = make_player(first.spec)
    assert first.spec == "ismcts(time=0.05, seed=3, deadline=false)"
    assert isinstance(second, IsmctsPlayer)
    ranked = first.rank_cards(seen)
    assert ranked == second.rank_cards(seen)
    assert {card for card, _, _ in ranked} == set(seen.legal_cards)
    assert sum(visits for _, visits, _ in ranked) > 0
    opening = Match("strict", seed=2)
    seen_call = _seen(opening)
    calls = [IsmctsPlayer(time=0.05, seed=4, deadline=False).call(seen_call) for _ in range(2)]
    assert calls[0] == calls[1] and calls[0] in seen_call.legal_calls


def test_the_tree_grows_over_the_worlds_it_is_given() -> None:
    """``search=tree`` hands its own weighted worlds to the IS-MCTS kernel: the trees must
    come out of those worlds, not of fresh uniform deals (two different single worlds, the
    same seed: different trees; the same world twice: the same tree)."""
    match = _midway(seed=5, tricks=3)
    seen = _seen(match)
    knowledge = Knowledge.from_observation(seen)
    player = ExpertPlayer(time=0.05, seed=1, deadline=False)
    worlds = player._worlds(seen, knowledge, 2)
    assert not np.array_equal(worlds[0], worlds[1])

    def grown(pool: np.ndarray) -> list[tuple[object, float, float]]:
        growth = Growth(iterations=3000, threads=1, eps=0.1, exploration=0.7)
        return grow_trees(seen, knowledge, growth, random.Random(4), worlds=pool)[0]

    one, other = grown(worlds[:1]), grown(worlds[1:])
    assert one != other
    assert grown(worlds[:1]) == one
    assert grown(np.repeat(worlds[:1], 5, axis=0)) == one  # any draw is that world
    # every world gives the seat its own hand
    assert all(int(w[seen.seat]) == knowledge.hand for w in worlds)


def _fourth_caller(seed: int) -> Match:
    """A match whose fourth seat is to call, three calls heard."""
    match = Match("strict", seed=seed)
    for _ in range(3):
        match.call(3)
    return match


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    [
        "expert(time=0.03, seed=1, deadline=false)",  # the default: the tree, plays inference
        "expert(time=0.03, seed=1, deadline=false, inference=calls, search=flat)",
        "expert(time=0.03, seed=1, deadline=false, call_likelihood=sound)",
        "expert(time=0.03, seed=1, deadline=false, playouts=model)",
        "expert(time=0.03, seed=1, deadline=false, search=flat, playouts=model)",
        "ismcts(time=0.03, seed=1, deadline=false)",
    ],
)
def test_a_search_player_sees_nothing_of_other_hands(spec: str) -> None:
    """Mid-deal, near the end (where the tree hands over to the exact solves), at the first
    call and at the fourth (calls heard): the same decision after the other seats' hidden
    cards change."""
    for match in (_midway(seed=7, tricks=4), _midway(seed=5, tricks=9)):
        seen = _seen(match)
        before = make_player(spec).rank_cards(seen)  # type: ignore[attr-defined]
        swap_hidden(match.deal, seen.seat)
        assert _seen(match) == seen
        assert make_player(spec).rank_cards(_seen(match)) == before  # type: ignore[attr-defined]
    for match in (Match("strict", seed=8), _fourth_caller(seed=8)):
        seen = _seen(match)
        call_before = make_player(spec).call(seen)  # type: ignore[attr-defined]
        swap_hidden(match.deal, seen.seat)
        assert _seen(match) == seen
        assert make_player(spec).call(_seen(match)) == call_before  # type: ignore[attr-defined]


def test_the_tree_hands_the_last_cards_to_the_exact_solves() -> None:
    """With ``solve_below`` cards or fewer the tree-searching expert decides as the flat one
    does (the same solves, the same ranking for the same seed); ``solve_below=0`` keeps the
    tree."""
    seen = _seen(_midway(seed=5, tricks=9))
    assert len(seen.hand) == 4 and len(seen.legal_cards) > 1
    base = "expert(time=0.03, seed=1, deadline=false"
    tree, flat = make_player(f"{base}, search=tree)"), make_player(f"{base}, search=flat)")
    assert tree.rank_cards(seen) == flat.rank_cards(seen)  # type: ignore[attr-defined]
    assert tree.last_search["solves"] > 0  # type: ignore[attr-defined]
    for solve_below, solved in ((4, True), (3, False), (0, False)):
        player = make_player(f"{base}, search=tree, solve_below={solve_below})")
        player.rank_cards(seen)  # type: ignore[attr-defined]
        assert ("solves" in player.last_search) is solved  # type: ignore[attr-defined]
        assert ("iterations" in player.last_search) is not solved  # type: ignore[attr-defined]


def test_deal_world_keeps_every_constraint() -> None:
    seen = _seen(_midway(seed=9, tricks=6))
    knowledge = Knowledge.from_observation(seen)
    allowed = knowledge.allowed_array()
    sizes = knowledge.sizes_array()
    cards, starts = kernel.prepare_deals(seen.seat, knowledge.unseen, allowed)
    hands = np.empty(4, dtype=np.int64)
    rng = kernel.seed_state(7)
    for _ in range(200):
        hand = knowledge.hand
        assert kernel.deal_world(seen.seat, hand, cards, starts, allowed, sizes, rng, hands)
        assert hands[seen.seat] == knowledge.hand
        together = 0
        for seat in range(4):
            assert bin(int(hands[seat])).count("1") == sizes[seat]
            if seat != seen.seat:
                assert int(hands[seat]) & ~allowed[seat] == 0
            assert together & int(hands[seat]) == 0
            together |= int(hands[seat])
        assert together == knowledge.unseen | knowledge.hand


# --- inference from plays --------------------------------------------------------------------


def test_play_events_hold_each_seats_hand_at_the_time() -> None:
    match = _midway(seed=3, tricks=4)
    seen = _seen(match)
    events, won = play_events(seen, everyone=True)
    assert len(events) == 17 and won.shape == (17, 4)
    played = [card for trick in [*seen.tricks, seen.trick] for card in trick.cards]
    assert [int(card) for card in events[:, 11]] == played
    for row in events:
        seat, card, later = int(row[0]), int(row[11]), int(row[12])
        assert later >> card & 1
        # its hand then: what it holds now and what it played from then on
        assert later & match.deal.held(seat).mask == 0
    others, _ = play_events(seen)
    assert seen.seat not in set(int(s) for s in others[:, 0])


def test_the_true_world_is_likelier_than_most_under_the_model_of_play() -> None:
    match = _midway(seed=11, tricks=7)
    seen = _seen(match)
    knowledge = Knowledge.from_observation(seen)
    allowed = knowledge.allowed_array()
    sizes = knowledge.sizes_array()
    pool = kernel.sample_worlds(400, seen.seat, knowledge.hand, knowledge.unseen, allowed, sizes, 1)
    truth = np.array([[match.deal.held(s).mask for s in range(4)]], dtype=np.int64)
    pool_values = play_log_likelihoods(pool, seen)
    true_value = play_log_likelihoods(truth, seen)[0]
    # intermediates play the policy: the model of play should rate their real hands highly
    assert (pool_values < true_value).mean() > 0.8


@pytest.mark.parametrize("search", ["flat", "tree"])
def test_inference_uses_only_what_the_seat_may_know(search: str) -> None:
    match = _midway(seed=13, tricks=6)
    seen = _seen(match)
    player = ExpertPlayer(time=0.05, seed=2, deadline=False, inference="plays", search=search)
    knowledge = Knowledge.from_observation(seen)
    events, won = play_events(seen)
    worlds = player._worlds(seen, knowledge, 64)
    ranked = ExpertPlayer(
        time=0.05, seed=2, deadline=False, inference="plays", search=search
    ).rank_cards(seen)
    swap_hidden(match.deal, seen.seat)
    changed = _seen(match)
    assert changed == seen
    again, again_won = play_events(changed)
    assert np.array_equal(events, again) and np.array_equal(won, again_won)
    fresh = ExpertPlayer(time=0.05, seed=2, deadline=False, inference="plays", search=search)
    assert np.array_equal(fresh._worlds(changed, Knowledge.from_observation(changed), 64), worlds)
    replay = ExpertPlayer(time=0.05, seed=2, deadline=False, inference="plays", search=search)
    assert replay.rank_cards(changed) == ranked


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_sound_calls_ranges_cover_every_hand_once(profile: str) -> None:
    rules = Rules.load(profile)
    lookup, (low, high) = call_lookup(rules), call_bounds(rules)
    for index, call in enumerate(lookup):  # the lookup's own call holds each strength
        assert low[call] <= index / 20 < high[call]
    made = sorted(set(lookup.tolist()))
    assert made[0] == min(rules.call_range())  # the lowest call: every weaker hand
    assert low[made[0]] == -np.inf and high[made[-1]] == np.inf
    for lower, upper in itertools.pairwise(made):
        assert high[lower] == low[upper]  # no gap and no overlap between calls
    for call in range(made[-1] + 1, 14):  # a bolder call than any sound one: the strongest
        assert (low[call], high[call]) == (low[made[-1]], np.inf)
    assert np.all(np.diff(lookup) >= 0)  # the ranges rest on the lookup never falling


def test_a_call_of_the_lowest_says_only_that_the_hand_is_weak() -> None:
    """Under ``bhoos`` a sound caller calls 1 with any hand up to a strength of about two, so a
    call of 1 weighs a very weak hand as much as a middling one; the reading of a call as the
    hand's strength (``call_likelihood=gap``) marks the very weak hand down."""
    weakest = CardSet.parse("2H 3H 4H 5H 6H 2D 3D 4D 5D 2C 3C 4C 5C").mask
    middling = CardSet.parse("4S 3S AH 8H 5H 9D 6D 2D 9C 7C 4C 3C 2C").mask
    strong = CardSet.parse("AS KS QS JS 9S AH KH AD KD AC 5C 4C 3C").mask
    strengths = [float(kernel.hand_strength(hand)) for hand in (weakest, middling, strong)]
    low, high = call_bounds(Rules.load("bhoos"))
    assert strengths[0] < 1.0 < strengths[1] < high[1] - 0.5 and strengths[2] > high[2]
    # only seat 1's hand is read: the other seats' are left empty
    worlds = np.array([[0, hand, 0, 0] for hand in (weakest, middling, strong)], dtype=np.int64)
    calls = np.array([-1, 1, -1, -1], dtype=np.int64)
    played = np.zeros(4, dtype=np.int64)
    sound = kernel.sound_call_weights(worlds, calls, played, 0, 0.5, low, high)
    assert sound[1] > 0.9 * sound[0]  # nearly full weight for both
    assert sound[2] < sound[1] / 10
    gap = kernel.call_weights(worlds, calls, played, 0, 1.5)
    assert gap[0] < gap[1]
    # a seat yet to call weighs nothing
    nobody = kernel.sound_call_weights(worlds, np.full(4, -1), played, 0, 0.5, low, high)
    assert np.all(nobody == 1.0)


# --- the expert's options ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "twice"),
    [
        ("inference=rules, calls=blend", False),
        ("calls=model, situation=every", False),
        ("spend=deal, inference=plays, calls=model", True),
        ("search=flat", True),
        ("search=flat, inference=calls, spend=deal", False),
        ("playouts=model", True),
        ("search=flat, playouts=model", False),
        ("calls=learned", True),
    ],
)
def test_expert_options_play_legally_and_repeat(options: str, twice: bool) -> None:
    def run() -> list[int]:
        match = Match("bhoos(deals=1)", seed=6)
        players = [make_player(f"expert(time=0.02, seed=1, deadline=false, {options})")] + [
            make_player(f"intermediate(seed={seat})") for seat in range(3)
        ]
        play_match(match, players)
        assert check(Record.from_match(match)).valid
        return match.totals()

    first = run()
    if twice:
        assert run() == first


def test_the_default_expert_and_options_show_in_the_spec() -> None:
    assert make_player("expert(time=0.5, seed=1)").spec == "expert(time=0.5, seed=1)"
    # The default is the tree over worlds weighted by calls and plays (docs/strength.md).
    default = make_player("expert")
    assert isinstance(default, ExpertPlayer)
    assert (
        default.options.search,
        default.options.inference,
        default.options.play_temperature,
    ) == ("tree", "plays", 2)
    assert default.options.solve_below == 5
    spec = "expert(time=0.5, inference=calls, calls=model, situation=every, spend=deal)"
    assert make_player(spec).spec == spec
    flat = "expert(time=0.1, inference=calls, play_temperature=0.5, search=flat)"
    assert make_player(flat).spec == flat
    with pytest.raises(PlayerError, match="inference must be one of rules, calls, plays"):
        make_player("expert(inference=cards)")
    with pytest.raises(PlayerError, match="spend must be"):
        make_player("expert(spend=all)")
    with pytest.raises(PlayerError, match="search must be one of flat, tree"):
        make_player("expert(search=deep)")
    with pytest.raises(PlayerError, match="call_likelihood must be one of gap, sound"):
        make_player("expert(call_likelihood=exact)")
    with pytest.raises(PlayerError, match="call_spread must be above 0"):
        make_player("expert(call_spread=0)")
    with pytest.raises(PlayerError, match="playouts must be one of policy, model, calls, cards"):
        make_player("expert(playouts=people)")
    with pytest.raises(PlayerError, match="playouts=calls needs call simulations"):
        make_player("expert(calls=model, playouts=calls)")
    assert make_player("expert(time=0.1, search=tree)").spec == "expert(time=0.1)"


def test_call_model_and_the_match_situation() -> None:
    seen = _seen(Match("strict", seed=2))
    distribution = model_distribution(seen.hand.mask, seen)
    assert abs(sum(distribution) - 1) < 1e-9 and len(distribution) == 14
    last = dataclasses.replace(seen, deal_number=5, calls=(None, 3, 3, 3))
    spread = normal_distribution(4.0, 1.2)
    # with no deal left it is the exact chance of finishing first
    assert first_place_chance_ahead(spread, 4, last) == first_place_chance(spread, 4, last)
    rival = (seen.seat + 1) % 4
    calls = tuple(None if s == seen.seat else 3 for s in range(4))
    trailing = tuple(80 if s == rival else 0 for s in range(4))
    leading = tuple(80 if s == seen.seat else 0 for s in range(4))
    behind = dataclasses.replace(seen, deal_number=3, calls=calls, totals=trailing)
    ahead = dataclasses.replace(behind, totals=leading)
    assert first_place_chance_ahead(spread, 4, behind) < first_place_chance_ahead(spread, 4, ahead)
    early = dataclasses.replace(behind, deal_number=1)
    # more deals to come: a deficit matters less
    assert first_place_chance_ahead(spread, 4, early) > first_place_chance_ahead(spread, 4, behind)


# --- time ------------------------------------------------------------------------------------


def test_a_rounds_budget_goes_where_decisions_are_hard() -> None:
    match = Match("bhoos", seed=1)
    seen = _seen(match)
    assert decision_weight(seen) > max(EXPECTED_PLAY_WEIGHT)
    call_share = share(seen, 1.5)
    assert 1.5 / 14 < call_share < 1.5 / 2
    for _ in range(4):
        match.call(2)
    first_card = _seen(match)
    assert share(first_card, 1.0, choices=1) == 0.0  # a forced card costs nothing
    # a decision never takes more than is left, and a hard one more than an even split
    assert share(first_card, 1.0, choices=4) < 1.0
    assert share(first_card, 1.0, choices=4) > 1.0 / 13


@pytest.mark.slow
def test_spending_by_the_deal_never_exceeds_the_deals_budget() -> None:
    match = Match("strict(deals=1)", seed=3)
    expert = ExpertPlayer(time=0.05, seed=1, deadline=False, spend="deal")
    allotted: list[tuple[float, float]] = []
    original = expert._allot

    def tracked(observation: Observation, choices: int) -> float:
        value = original(observation, choices)
        allotted.append((value, expert._bank))
        return value

    expert._allot = tracked  # type: ignore[method-assign]
    players = [expert] + [make_player(f"intermediate(seed={s})") for s in range(3)]
    play_match(match, players)
    assert len(allotted) > 5
    # each decision gets at most what is left (a floor of 10 ms aside), and the deal's total
    # charged stays within 14 times the budget per decision
    assert all(value <= max(bank, 0.01) + 1e-9 for value, bank in allotted)
    assert expert._bank >= -0.01 * len(allotted)


# --- the oracle ------------------------------------------------------------------------------


def test_the_oracle_is_for_measuring_only() -> None:
    assert "oracle" in MEASURING and "oracle" not in LEVELS
    match = Match("strict", seed=1)
    with pytest.raises(PlayerError, match="sees every hand"):
        play_match(match, ["oracle(seed=1)", "random", "random", "random"])
    result = compare("oracle(rollouts=16)", "random", rules="strict(deals=1)", sets=1, workers=1)
    assert result.sets == 1 and result.mean_diff > 0


def test_the_playouts_option_says_where_the_others_play_by_the_model() -> None:
    modelled = {
        option: tuple(bool(len(model)) for model in playout_models(option)) for option in PLAYOUTS
    }
    # (in the call simulations, in the card searches)
    assert modelled == {
        "policy": (False, False),
        "model": (True, True),
        "calls": (True, False),
        "cards": (False, True),
    }


@pytest.mark.slow
def test_model_playouts_size_the_searches_they_slow() -> None:
    """The model costs more per card, so the searches that play the others by it are sized
    down by its cost factors, and only those."""

    def sizes(playouts: str) -> tuple[float, float]:
        base = f"expert(time=0.05, seed=1, deadline=false, playouts={playouts})"
        calling = make_player(base)
        calling.rank_calls(_seen(Match("strict", seed=8)))  # type: ignore[attr-defined]
        playing = make_player(base)
        playing.rank_cards(_seen(_midway(seed=7, tricks=4)))  # type: ignore[attr-defined]
        return (
            calling.last_search["worlds"],  # type: ignore[attr-defined]
            playing.last_search["iterations"],  # type: ignore[attr-defined]
        )

    policy, calls, cards = sizes("policy"), sizes("calls"), sizes("cards")
    assert calls[0] < policy[0] == cards[0]
    assert cards[1] < policy[1] == calls[1]
    assert cards[1] == pytest.approx(policy[1] / MODEL_TREE_COST, rel=0.05)


@pytest.mark.slow
def test_the_oracle_can_play_the_others_by_the_model_of_play() -> None:
    spec = "oracle(rollouts=16, playouts=model)"
    assert make_player(spec).spec == spec
    with pytest.raises(PlayerError, match="playouts must be one of policy, model, calls, cards"):
        make_player("oracle(playouts=people)")
    assert compare(spec, "random", rules="strict(deals=1)", sets=1, workers=1).mean_diff > 0
    # The same card searches in the one true world give other values with the model.
    match = _midway(seed=7, tricks=4)
    hands = tuple(match.deal.held(s).mask for s in range(4))

    def values(playouts: str) -> list[tuple[object, float]]:
        oracle = make_player(f"oracle(seed=5, rollouts=64, playouts={playouts})")
        oracle.see(hands)  # type: ignore[attr-defined]
        return sorted(oracle.rank_cards(_seen(match)))  # type: ignore[attr-defined]

    assert values("model") != values("policy")


@pytest.mark.slow
def test_the_seer_is_the_expert_with_a_share_of_its_worlds_the_true_deal() -> None:
    assert "seer" in MEASURING and "seer" not in LEVELS
    spec = "seer(time=0.05, seed=4, deadline=false, playouts=model, truth=0.5)"
    assert make_player(spec).spec == spec
    for bad, words in [("seer(truth=1.5)", "truth must be a share"), ("seer(ply=2)", "ply")]:
        with pytest.raises(PlayerError, match=words):
            make_player(bad)
    with pytest.raises(PlayerError, match="sees every hand"):
        play_match(Match("strict", seed=1), ["seer(time=0.02)", "random", "random", "random"])
    match = _midway(seed=7, tricks=4)
    hands = tuple(match.deal.held(s).mask for s in range(4))
    seen = _seen(match)
    knowledge = Knowledge.from_observation(seen)

    def seer(truth: float, truth_in: str = "all") -> SeerPlayer:
        player = make_player(
            f"seer(time=0.05, seed=4, deadline=false, truth={truth}, truth_in={truth_in})"
        )
        assert isinstance(player, SeerPlayer)
        player.see(hands)
        return player

    def expert() -> ExpertPlayer:
        return ExpertPlayer(time=0.05, seed=4, deadline=False)

    # With no true worlds it is the expert: the same cards and calls for a seed; shown the
    # true deal for its calls only (or its cards only), it is the expert for the other half.
    dealt = Match("strict", seed=8)
    dealt_hands = tuple(dealt.deal.held(s).mask for s in range(4))

    def calls(player: SeerPlayer | ExpertPlayer) -> list[tuple[int, float, list[float]]]:
        if isinstance(player, SeerPlayer):
            player.see(dealt_hands)
        return player.rank_calls(_seen(dealt))

    assert (
        seer(0).rank_cards(seen) == expert().rank_cards(seen) == seer(1, "calls").rank_cards(seen)
    )
    assert calls(seer(0)) == calls(expert()) == calls(seer(1, "cards"))
    assert calls(seer(1, "calls")) != calls(expert())
    with pytest.raises(PlayerError, match="truth_in must be one of all, calls, cards"):
        make_player("seer(truth_in=hands)")
    # A share of its worlds, and no more, is the true deal; the rest are the expert's.
    true_deal = np.array(hands, dtype=np.int64)
    for truth, least in [(1.0, 200), (0.5, 100), (0.0, 0)]:
        worlds = seer(truth)._worlds(seen, knowledge, 200)
        true_rows = int((worlds == true_deal).all(axis=1).sum())
        assert least <= true_rows <= (least if truth == 1 else least + 5)
        assert (worlds[:, seen.seat] == seen.hand.mask).all()
    assert seer(0).rank_cards(seen) != seer(1).rank_cards(seen) == seer(1, "cards").rank_cards(seen)
    assert compare(spec, "random", rules="strict(deals=1)", sets=1, workers=1).mean_diff > 0


class _FakeClock:
    """A clock that moves only when the fake search works: 5 ms per world, a machine far
    slower than the cost model assumed (as under heavy load)."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


def test_a_search_on_a_slow_machine_stops_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from callbreak.players import expert

    fake = _FakeClock()
    monkeypatch.setattr(expert, "clock", fake)
    sizes: list[int] = []

    def work(chunk: np.ndarray, seed: int, start: int) -> np.ndarray:
        sizes.append(len(chunk))
        fake.now += 0.005 * len(chunk)
        return np.zeros(len(chunk))

    worlds = np.zeros((1_000, 4), dtype=np.int64)
    player = ExpertPlayer(time=0.2, seed=1)
    started = fake.now
    player._run(work, worlds, started, 0.2)
    # The first chunk was small enough to look at the clock in time; the search then stopped
    # before a chunk that would overrun. (A sixteenth of the worlds first, as before, took
    # 0.315 s of a 0.2 s budget.)
    assert fake.now - started <= 0.2
    assert sizes[0] == expert.MIN_CHUNK and player.cut_short == 1
    # Without a deadline the chunks are the sixteenths they always were: the same decisions.
    sizes.clear()
    ExpertPlayer(time=0.2, seed=1, deadline=False)._run(work, worlds, fake.now, 0.2)
    assert sizes == [63] * 15 + [55]
