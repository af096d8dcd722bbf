"""The learning environments: their frameworks' own checks under every profile, masks and
observations against the engine, hidden information, records, rewards and bad input."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import callbreak.env.openspiel  # noqa: F401  (registers python_callbreak)
from callbreak import cli
from callbreak.cards import CardSet
from callbreak.env import CLAIM, EnvError, env, raw_env, single_agent
from callbreak.env.episode import Episode, episode_rules, place_rewards
from callbreak.env.gym import ILLEGAL_PENALTY
from callbreak.env.openspiel import _dealing_order
from callbreak.env.policy import register
from callbreak.env.table import (
    CARD_BASE,
    LAYOUT,
    OBS_SIZE,
    Table,
    action_of,
    deal_hands,
    encode,
)
from callbreak.errors import IllegalCallError, IllegalPlayError, InvalidRulesError
from callbreak.game import Match, Phase
from callbreak.players import PlayerError
from callbreak.players.encoding import OFFSET
from callbreak.record import check, dumps
from callbreak.rules import PROFILES
from callbreak.seating import play_match
from tests.helpers import swap_hidden

PROFILE_NAMES = sorted(PROFILES)
# Thrown-in deals, spadeless claims and eight-wins are options no profile has on.
EXTRA = "classic(min_total_calls=14, spadeless_redeal=true, eight_wins=true)"
ALL_RULES = [*PROFILE_NAMES, EXTRA]


def engine_legal(match: Match) -> list[int]:
    """The engine's legal actions for the seat to act, as action numbers."""
    return sorted(action_of(action) for action in match.deal.legal_actions())


def spadeless_seed(rules: str) -> int:
    """A match seed whose first deal gives the first caller no spade."""
    for seed in range(10_000):
        match = Match(rules, seed=seed)
        if not match.deal.hands[match.deal.turn].mask & 0x1FFF:  # type: ignore[index]
            return seed
    raise AssertionError("no spadeless first caller in 10,000 seeds")


# --- the frameworks' own checks --------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_RULES)
def test_pettingzoo_api_and_seed_tests(rules: str) -> None:
    api_test(env(rules=rules), num_cycles=400)
    seed_test(lambda: env(rules=rules), num_cycles=400)


@pytest.mark.parametrize("rules", ALL_RULES)
def test_gymnasium_check_env(rules: str) -> None:
    # check_env steps with actions sampled before a reset, from another position's mask: with
    # its defaults, and with ours.
    game = single_agent(seat=1, opponents="random", rules=rules, deals=1)
    check_env(game)
    game.close()
    for illegal in ("random", "penalty"):
        game = single_agent(seat=1, opponents="random", rules=rules, deals=1, illegal=illegal)
        check_env(game, skip_render_check=True)
        game.close()
    strict = single_agent(seat=1, opponents="random", rules=rules, deals=1, illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalCallError):
        strict.step(CARD_BASE)
    assert strict.action_masks()[strict.action_space.sample()]  # samples a legal action


def test_an_illegal_action_changes_nothing_and_costs_the_penalty() -> None:
    game = single_agent(seat=1, opponents="random", deals=1)
    observation, info = game.reset(seed=3)
    record = game.record()
    again, reward, over, cut, after = game.step(CARD_BASE)
    assert (reward, over, cut) == (ILLEGAL_PENALTY, False, False)
    assert after["illegal"] == "the calls are not all in yet"
    assert all((again[key] == observation[key]).all() for key in observation)
    assert game.record() == record
    _, _, _, _, legal = game.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "illegal" not in legal
    game.close()


@pytest.mark.parametrize("rules", PROFILE_NAMES)
def test_openspiel_random_simulation(rules: str) -> None:
    game = pyspiel.load_game(f"python_callbreak(rules={rules},deals=1)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_openspiel_random_simulation_over_deals_with_thrown_in_deals() -> None:
    name = "python_callbreak(rules=classic,deals=2,min_total_calls=20,spadeless_redeal=True)"
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    # Random calls under classic total about 28, so some deals are thrown in and dealt again.
    rng = random.Random(3)
    thrown = 0
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                thrown += state.table.thrown_in
        assert state.table.played == 2
    assert thrown > 0


def test_openspiel_bots_play_full_games_including_is_mcts() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_callbreak(rules=strict,deals=1)")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    searcher = ismcts.ISMCTSBot(
        game, evaluator, 2.0, 8, random_state=np.random.RandomState(0), max_world_samples=-1
    )
    bots = [searcher] + [pyspiel.make_uniform_random_bot(p, p) for p in range(1, 4)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 5)
    assert len(returns) == 4 and all(-13 <= r <= 13.5 for r in returns)


# --- the engine under it ---------------------------------------------------------------------


def random_episode(rules: str, seed: int, check_every_step: bool) -> Episode:
    """Play a whole seeded match with random legal actions, comparing masks and observations
    with the engine at every step when asked."""
    parsed, deals = episode_rules(rules, None)
    episode = Episode(parsed, deals, seed)
    rng = random.Random(seed)
    table = episode.table
    while not table.over:
        if check_every_step:
            match = episode.sync().match
            assert table.legal_actions() == engine_legal(match)
            assert np.flatnonzero(table.mask()).tolist() == engine_legal(match)
            for seat in range(4):
                expected = encode(match.observation(seat), deals)
                assert np.array_equal(table.obs[seat], expected), (seat, LAYOUT)
        legal = table.legal_actions()
        # Claim a redeal whenever it is allowed, so that claims are exercised.
        episode.act(CLAIM if CLAIM in legal else rng.choice(legal))
    return episode


@pytest.mark.parametrize("rules", ALL_RULES)
def test_masks_and_observations_equal_the_engines_at_every_step(rules: str) -> None:
    episode = random_episode(rules, seed=11, check_every_step=True)
    match = episode.sync().match
    assert match.is_over
    assert episode.table.totals == match.totals()
    for seat in range(4):
        assert np.array_equal(episode.table.obs[seat], encode(match.observation(seat), 5))


def test_spadeless_claim_redeals_with_the_same_dealer() -> None:
    rules = "classic(spadeless_redeal=true)"
    seed = spadeless_seed(rules)
    parsed, deals = episode_rules(rules, 1)
    episode = Episode(parsed, deals, seed)
    table = episode.table
    dealer = table.dealer
    assert table.may_claim() and CLAIM in table.legal_actions() and table.mask()[CLAIM] == 1
    assert table.obs[table.turn, OFFSET["claim"]] == 1  # type: ignore[index]
    episode.act(CLAIM)
    assert table.dealer == dealer and table.played == 0 and table.redeals == 1
    match = episode.sync().match
    assert match.deals[0].phase is Phase.THROWN_IN
    assert [hand.mask for hand in match.deal.hands] == table.dealt


def test_the_layout_adds_up() -> None:
    assert sum(size for _, size, _ in LAYOUT) == OBS_SIZE == 628


def test_a_claim_is_refused_where_the_rules_have_none() -> None:
    seed = spadeless_seed("classic")
    episode = Episode(*episode_rules("classic", 1), seed)
    assert CLAIM not in episode.table.legal_actions()
    with pytest.raises(IllegalCallError, match="no redeal for a spadeless hand"):
        episode.act(CLAIM)


# --- hidden information ----------------------------------------------------------------------


def replayed(rules: str, hands: list[int], dealer: int, actions: list[int]) -> Table | None:
    """A one-deal table dealt ``hands`` after ``actions``; None if one of them is illegal."""
    parsed, _ = episode_rules(rules, 1)
    table = Table(parsed, 1)
    table.start(list(hands), dealer)
    for action in actions:
        if table.problem(action) is not None:
            return None
        table.apply(action)
    return table


@pytest.mark.parametrize("rules", PROFILE_NAMES)
def test_observations_do_not_change_with_other_seats_hidden_cards(rules: str) -> None:
    compared = 0
    for seed in range(12):
        rng = random.Random(seed)
        match = Match(Episode(*episode_rules(rules, 1), seed).match.rules, seed=seed)
        stop = rng.randrange(4, 50)
        while len(match.deal.actions) < stop:
            legal = match.deal.legal_actions()
            match.apply(rng.choice(legal))
        deal = match.deal
        seat = deal.turn
        assert seat is not None
        actions = [action_of(action) for action in deal.actions]
        before = replayed(rules, [h.mask for h in deal.hands], deal.dealer, actions)
        view = deal.observation(seat)
        swap_hidden(deal, seat)
        after = replayed(rules, [h.mask for h in deal.hands], deal.dealer, actions)
        if after is None:
            continue  # the swap made a past play illegal: not a world the seat could be in
        assert before is not None
        assert deal.observation(seat) == view
        assert np.array_equal(before.obs[seat], after.obs[seat])
        assert np.array_equal(before.mask(), after.mask())
        assert np.array_equal(encode(view, 1), after.obs[seat])
        compared += 1
        # OpenSpiel: the same game dealt the other way, everything the seat sees is the same.
        game = pyspiel.load_game(f"python_callbreak(rules={rules},deals=1,dealer={deal.dealer})")
        states = []
        for hands in ([h.mask for h in deal.hands], before.dealt):
            state = game.new_initial_state()
            for card in _dealing_order(hands, deal.dealer, 52, random.Random(seed)):
                state.apply_action(card)
            for action in actions:
                state.apply_action(action)
            states.append(state)
        swapped, original = states
        assert swapped.history() != original.history()
        for method in (
            "observation_tensor",
            "information_state_tensor",
            "observation_string",
            "information_state_string",
        ):
            assert getattr(swapped, method)(seat) == getattr(original, method)(seat), method
    assert compared >= 6


def test_openspiel_resample_keeps_the_information_state() -> None:
    game = pyspiel.load_game("python_callbreak(rules=strict,deals=2)")
    rng = random.Random(5)
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for step in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            if step % 7 == 0:
                player = state.current_player()
                other = state.resample_from_infostate(player, sampler)
                assert other.information_state_string(player) == (
                    state.information_state_string(player)
                )
                assert other.information_state_tensor(player) == (
                    state.information_state_tensor(player)
                )
                assert other.legal_actions() == state.legal_actions()
                changed += other.table.hands != state.table.hands
            state.apply_action(rng.choice(state.legal_actions()))
    assert changed > 0


def test_the_single_agent_observation_is_the_engines_view() -> None:
    game = single_agent(seat=2, opponents=["random", "beginner", "random"], deals=2)
    observation, info = game.reset(seed=4)
    rng = random.Random(4)
    done = False
    while not done:
        match = game.episode.sync().match
        assert np.array_equal(observation["observation"], encode(match.observation(2), 2))
        assert np.flatnonzero(info["action_mask"]).tolist() == engine_legal(match)
        action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        observation, _reward, done, _truncated, info = game.step(action)
    game.close()


# --- records and rewards ---------------------------------------------------------------------


@pytest.mark.parametrize("rules", [*ALL_RULES, "strict(deals=2)"])
def test_a_match_through_the_env_checks_with_the_same_totals(rules: str, tmp_path: Path) -> None:
    table = raw_env(rules=rules)
    table.reset(seed=21)
    rng = random.Random(21)
    earned = dict.fromkeys(table.possible_agents, 0.0)
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        earned[agent] += reward
        if terminated or truncated:
            table.step(None)
        else:
            table.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    record = table.record()
    result = check(record)
    assert result.valid and result.finished
    assert result.totals == table.episode.table.totals
    assert [round(earned[a] * 10) for a in table.possible_agents] == result.totals
    path = tmp_path / "match.json"
    path.write_text(dumps(record))
    assert cli.main(["check", str(path)]) == 0


def test_open_ended_matches_stop_after_the_episodes_deals() -> None:
    assert episode_rules("pagat", None)[1] == 5
    rules, deals = episode_rules("pagat", 2)
    assert rules.deals is None and deals == 2
    assert str(episode_rules("strict", 3)[0]) == "strict(deals=3)"
    episode = random_episode("pagat", 3, check_every_step=False)
    match = episode.sync().match
    assert match.stopped and len(match.played_deals()) == 5


def test_match_rewards_by_place() -> None:
    assert place_rewards([1, 2, 3, 4]) == [1.0, 1 / 3, -1 / 3, -1.0]
    assert place_rewards([1, 1, 1, 1]) == [0.0] * 4
    table = raw_env(rules="strict", deals=1, reward="match")
    table.reset(seed=2)
    rng = random.Random(2)
    finals = {}
    for agent in table.agent_iter():
        observation, reward, terminated, _, _ = table.last()
        if terminated:
            finals[agent] = reward
            table.step(None)
        else:
            assert reward == 0
            table.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    places = table.episode.table.places()
    assert [finals[a] for a in table.possible_agents] == place_rewards(places)


def test_deal_rewards_are_each_seats_points() -> None:
    game = single_agent(seat=0, opponents="random", deals=1)
    game.reset(seed=9)
    total, done = 0.0, False
    rng = random.Random(9)
    while not done:
        mask = game.action_masks()
        _, reward, done, _, info = game.step(rng.choice(np.flatnonzero(mask).tolist()))
        total += reward
    assert total * 10 == pytest.approx(game.episode.table.totals[0])
    assert info["places"] == game.episode.table.places()


def test_render_shows_the_table() -> None:
    table = env(render_mode="ansi")
    table.reset(seed=1)
    text = table.render()
    assert isinstance(text, str) and "seat_0" in text and "calling" in text
    assert env().render() is None


# --- bad input -------------------------------------------------------------------------------


def test_an_action_outside_the_mask_is_one_clear_error() -> None:
    table = env(rules="strict")
    table.reset(seed=1)
    with pytest.raises(IllegalCallError, match=r"cannot take call 1: calls run from 2 to 13"):
        table.step(0)
    with pytest.raises(IllegalCallError, match="the calls are not all in yet"):
        table.step(CARD_BASE)
    for _ in range(4):
        table.step(2)
    hand = CardSet(table.episode.table.hands[table.episode.table.turn])
    mask = table.observe(table.agent_selection)["action_mask"]
    illegal = [CARD_BASE + card for card in range(52) if not mask[CARD_BASE + card]]
    not_held = next(a for a in illegal if (a - CARD_BASE) not in hand)
    with pytest.raises(IllegalPlayError, match="you do not hold"):
        table.step(not_held)
    with pytest.raises(IllegalPlayError, match="legal:"):
        table.step(1)
    for bad in (70, -1, 2.5, "AS", None, True):
        with pytest.raises(IllegalPlayError, match=f"cannot take {bad!r}: an action is|actions"):
            table.step(bad)


def test_wrong_use_is_one_clear_error() -> None:
    fresh = env()
    with pytest.raises(EnvError, match="reset"):
        fresh.step(3)
    with pytest.raises(EnvError, match="reset"):
        fresh.observe("seat_0")
    table = env(deals=1)
    table.reset(seed=1)
    with pytest.raises(EnvError, match="no agent 'seat_4'"):
        table.observe("seat_4")
    with pytest.raises(InvalidRulesError):
        env(rules="chess")
    with pytest.raises(EnvError, match="deals"):
        env(deals=0)
    with pytest.raises(EnvError, match="reward"):
        env(reward="tricks")
    with pytest.raises(EnvError, match="render_mode"):
        env(render_mode="human")
    with pytest.raises(EnvError, match="seat"):
        single_agent(seat=4)
    with pytest.raises(EnvError, match="grandmaster"):
        single_agent(opponents="grandmaster")
    with pytest.raises(EnvError, match="three"):
        single_agent(opponents=["random", "random"])
    game = single_agent(opponents="random", deals=1)
    with pytest.raises(EnvError, match="reset"):
        game.step(0)
    with pytest.raises(EnvError, match="profile name"):
        pyspiel.load_game("python_callbreak", {"rules": "classic(deals=1)"})
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("python_callbreak(colour=red)")


def test_a_finished_episode_refuses_more_steps() -> None:
    game = single_agent(opponents="random", deals=1)
    observation, _ = game.reset(seed=3)
    done = False
    while not done:
        observation, _, done, _, _ = game.step(int(np.argmax(observation["action_mask"])))
    with pytest.raises(EnvError, match="over"):
        game.step(0)
    table = raw_env(deals=1)
    table.reset(seed=3)
    for _ in table.agent_iter():
        observation, _, terminated, _, _ = table.last()
        table.step(None if terminated else int(np.argmax(observation["action_mask"])))
    with pytest.raises(EnvError, match="over"):
        table.step(0)


# --- the learned policy as a player ----------------------------------------------------------


def test_the_shipped_policy_plays_matches_as_a_player(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak.players import LEVELS

    monkeypatch.setattr("callbreak.players.LEVELS", dict(LEVELS))
    register()
    result = play_match(Match("classic", seed=2), ["policy", "random", "random", "random"])
    assert result.match.is_over
    from callbreak.seating import make_player

    assert make_player("policy(greedy=false, seed=3)").spec == "policy(greedy=false, seed=3)"
    with pytest.raises(PlayerError, match="no policy 'nothing'"):
        make_player("policy(weights=nothing)")


def test_deals_come_from_the_match_seed() -> None:
    match = Match("strict", seed=77)
    deal = match.deal
    assert deal_hands(77, 0, 0, deal.dealer) == [hand.mask for hand in deal.hands]


def test_the_examples_of_docs_env_md_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from callbreak.players import LEVELS

    monkeypatch.setattr("callbreak.players.LEVELS", dict(LEVELS))  # one example registers
    text = (Path(__file__).parent.parent / "docs" / "env.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block.replace(", 50,", ", 5,"), "docs/env.md", "exec"), namespace)


def test_a_remote_bot_can_hold_the_other_seats() -> None:
    from callbreak.bots.server import create_app
    from tests.helpers import running

    with running(create_app("random(seed=1)")) as address:
        game = single_agent(seat=0, opponents=address, rules="bhoos", deals=1)
        observation, _ = game.reset(seed=6)
        done = False
        while not done:
            action = int(np.argmax(observation["action_mask"]))
            observation, _, done, _, _ = game.step(action)
        assert check(game.record()).valid
        game.close()
