"""The learned player: legal under every profile and option, deterministic for a seed, blind to
the other hands, refusing bad weights; its features and the suit renaming of training checked
against the engine; training on a tiny data set gives a model the player loads."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from callbreak import cli
from callbreak.env.table import Table, deal_hands
from callbreak.game import Match, Observation, Phase
from callbreak.players import PlayerError
from callbreak.players.encoding import CARD_BASE, NUM_ACTIONS, encode
from callbreak.players.expert import ExpertPlayer
from callbreak.players.learned import (
    FEATURES,
    FOLDER_VARIABLE,
    SHIPPED,
    LearnedPlayer,
    features,
    find_weights,
    load_model,
)
from callbreak.record import Record, check
from callbreak.rules import PROFILES, Rules, trick_state, trick_step
from callbreak.seating import decide, make_player, play_match
from callbreak.selfplay import make_plan, run
from tests.helpers import swap_hidden

# --- what the network reads --------------------------------------------------------------------


def _observations(seed: int, rules: str = "strict") -> list[Observation]:
    """The observation of every decision of a seeded match of advanced players."""
    match = Match(rules, seed=seed)
    players = [make_player(f"advanced(seed={s})") for s in range(4)]
    seen = []
    while not match.is_over:
        seat = match.deal.turn
        assert seat is not None
        seen.append(match.observation(seat))
        match.apply(decide(players[seat], seen[-1]).action)
    return seen


def _legal(observation: Observation) -> np.ndarray:
    legal = np.zeros(NUM_ACTIONS, dtype=bool)
    for value in observation.legal_calls:
        legal[value - 1] = True
    for card in observation.legal_cards:
        legal[CARD_BASE + int(card)] = True
    return legal


@pytest.mark.parametrize("seed", [1, 2])
def test_the_features_say_what_the_engine_says(seed: int) -> None:
    """The trick's winning card, the cards that beat it and the masters, as the rules say."""
    for observation in _observations(seed):
        vector = encode(observation, 5)
        x = features(vector[None, :], _legal(observation)[None, :])[0]
        assert x.shape == (FEATURES,)
        at = len(vector)
        out_there, above, masters, beats, winning = (
            x[at + 52 * k : at + 52 * (k + 1)] for k in range(5)
        )
        hand = observation.hand.mask
        gone = observation.played.mask
        expected_out = [float(not (hand | gone) >> c & 1) for c in range(52)]
        assert out_there.tolist() == expected_out
        for card in observation.hand:
            higher_out = [
                c
                for c in range(52)
                if c // 13 == int(card) // 13 and c > int(card) and expected_out[c]
            ]
            assert masters[int(card)] == (not higher_out)
            assert above[int(card)] == pytest.approx(len(higher_out) / 12)
        on_table = [int(card) for card in observation.trick.cards]
        if not on_table:
            assert not winning.any() and not beats.any()
            continue
        state = trick_state(on_table)
        assert np.flatnonzero(winning).tolist() == [on_table[state[3]]]
        for card in observation.hand:
            takes = trick_step(*state, int(card), 4)[3] == 4
            assert beats[int(card)] == takes, (card, on_table)


def test_renaming_hearts_diamonds_and_clubs_renames_the_observation() -> None:
    """The training's suit renaming of a vector is the vector of the renamed game."""
    from callbreak.train import suit_permutations

    rules = Rules.parse("strict")
    hands = deal_hands(9, 0, 0, 1)
    for obs_cols, action_cols in suit_permutations():
        card_of = {  # where each card goes under this renaming
            int(action_cols[CARD_BASE + moved]) - CARD_BASE: moved for moved in range(52)
        }
        renamed = [sum(1 << card_of[c] for c in range(52) if h >> c & 1) for h in hands]
        one, two = Table(rules, deals=1), Table(rules, deals=1)
        one.start(hands, dealer=1)
        two.start(renamed, dealer=1)
        while one.phase != 2 and one.turn is not None:
            seat = one.turn
            np.testing.assert_array_equal(one.observe(seat)[obs_cols], two.observe(seat))
            np.testing.assert_array_equal(one.mask()[action_cols], two.mask())
            action = one.legal_actions()[0]
            one.apply(action)
            moved = action if action < CARD_BASE else CARD_BASE + card_of[action - CARD_BASE]
            two.apply(moved)


# --- playing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_learned_player_plays_every_profile_legally(profile: str) -> None:
    match = Match(profile, seed=13)
    players = [make_player(f"learned(seed={seat})") for seat in range(2)] + [
        make_player("advanced(seed=1)"),
        make_player("random(seed=2)"),
    ]
    play_match(match, players)  # seating.decide() refuses any illegal answer
    assert match.is_over and check(Record.from_match(match)).valid


@pytest.mark.parametrize(
    "rules",
    [
        "classic(min_total_calls=10, spadeless_redeal=true, eight_wins=true)",
        "strict(exact_scoring=true, deals=2)",
        "bhoos(deals=2, free_following=true)",
        "pagat(deals=3, bonus_call=none)",
        "online(forced_low_spade=true, no_spade_first_lead=false, deals=2)",
    ],
)
def test_the_learned_player_copes_with_options(rules: str) -> None:
    for seed in range(3):
        match = Match(rules, seed=seed)
        players = [make_player(f"learned(temperature=1, seed={s})") for s in range(3)]
        play_match(match, [*players, make_player("random(seed=1)")])
        assert match.is_over and check(Record.from_match(match)).valid


def test_the_learned_player_is_deterministic_for_a_seed() -> None:
    def game(spec: str) -> list[object]:
        match = Match("bhoos", seed=4)
        play_match(match, [make_player(spec.format(seat=s)) for s in range(4)])
        return list(Record.from_match(match).deals)

    sampled = "learned(temperature=1, seed={seat})"
    assert game(sampled) == game(sampled)
    assert game("learned") == game("learned")
    # The draws do depend on the seed (otherwise the test above could not fail).
    assert game(sampled) != game("learned(temperature=1, seed={seat}1)")


def test_the_learned_player_sees_only_its_seat() -> None:
    """Other hidden cards in the same position: the same chances, the same decisions."""
    player = LearnedPlayer()
    compared = 0
    for seed in range(4):
        match = Match("strict", seed=seed)
        field = [make_player(f"advanced(seed={s})") for s in range(4)]
        while not match.is_over:
            seat = match.deal.turn
            assert seat is not None
            observation = match.observation(seat)
            hands = [match.deal.held(s) for s in range(4)]
            if match.deal.phase is Phase.PLAYING and len(match.deal.tricks) in (2, 6):
                before = (player.card_chances(observation), player.play(observation))
                swap_hidden(match.deal, seat)
                changed = match.observation(seat)
                assert [match.deal.held(s) for s in range(4)] != hands
                assert (player.card_chances(changed), player.play(changed)) == before
                compared += 1
            if observation.legal_calls:
                before_calls = (player.distribution(observation), player.call(observation))
                swap_hidden(match.deal, seat)
                changed = match.observation(seat)
                assert [match.deal.held(s) for s in range(4)] != hands
                assert (player.distribution(changed), player.call(changed)) == before_calls
                compared += 1
            match.apply(decide(field[seat], match.observation(seat)).action)
    assert compared > 20


def test_the_shipped_weights_are_small_and_say_what_they_learned() -> None:
    path = find_weights("default")
    assert path.parent == SHIPPED and path.stat().st_size < 2_000_000
    model = load_model(path)
    assert model.meta["trained_on"] and model.meta["holdout"]["card_agreement"] > 0.4


def test_the_expert_calls_by_the_learned_distribution_with_calls_learned() -> None:
    expert = make_player("expert(time=0.02, seed=1, deadline=false, calls=learned)")
    assert isinstance(expert, ExpertPlayer)
    for observation in _observations(3, "bhoos")[:8]:
        if not observation.legal_calls:
            continue
        ranked = expert.rank_calls(observation)
        chances = LearnedPlayer().distribution(observation)
        assert all(distribution == chances for _, _, distribution in ranked)
        assert expert.last_search["worlds"] == 0  # no simulation
        assert ranked[0][0] in observation.legal_calls
    assert expert.kernel_functions(True) == ("hand_strength",)


def test_the_expert_plays_the_learned_cards_with_cards_learned() -> None:
    """``expert(cards=learned)``: the expert's calls, the learned player's cards."""
    expert = make_player("expert(time=0.02, seed=1, deadline=false, cards=learned)")
    learned = LearnedPlayer()
    assert isinstance(expert, ExpertPlayer) and expert.kernel_functions(False) == ()
    cards = [seen for seen in _observations(5, "strict") if len(seen.legal_cards) > 1]
    assert cards and all(expert.play(seen) == learned.play(seen) for seen in cards)
    match = Match("bhoos(deals=2)", seed=3)
    field = [make_player(f"advanced(seed={s})") for s in range(3)]
    play_match(match, [expert, *field])
    assert match.is_over and check(Record.from_match(match)).valid


# --- bad weights -------------------------------------------------------------------------------


def _weights(folder: Path, name: str, data: bytes) -> None:
    (folder / f"{name}.npz").write_bytes(data)


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("absent", None, "are missing: no absent.npz"),
        ("garbage", b"not a zip file at all", "cannot be read"),
        ("truncated", "half", "cannot be read"),
        ("shapes", "shapes", "are corrupt: w1"),
        ("nan", "nan", "are corrupt: w2"),
        ("future", "format", "of format 2, not 1"),
    ],
)
def test_bad_weights_are_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: object, words: str
) -> None:
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path))
    good = find_weights("default").read_bytes()
    if data == "half":
        _weights(tmp_path, name, good[: len(good) // 2])
    elif data in ("shapes", "nan", "format"):
        with np.load(find_weights("default")) as loaded:
            members = {key: loaded[key] for key in loaded.files}
        if data == "shapes":
            members["w1"] = members["w1"][:-1]
        elif data == "nan":
            members["w2"] = members["w2"].copy()
            members["w2"][0, 0] = np.nan
        else:
            meta = json.loads(str(members["meta"]))
            members["meta"] = np.array(json.dumps({**meta, "format": 2}))
        np.savez(tmp_path / f"{name}.npz", **members)
    elif isinstance(data, bytes):
        _weights(tmp_path, name, data)
    with pytest.raises(PlayerError, match=words) as raised:
        make_player(f"learned(weights={name})")
    assert "\n" not in str(raised.value)
    with pytest.raises(PlayerError, match="weights must be a name"):
        LearnedPlayer(weights="../x")


# --- training ----------------------------------------------------------------------------------


def test_training_on_a_tiny_data_set_gives_a_model_the_player_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    plan = make_plan(["random"], rules="bhoos(deals=1)", matches=4, shard_matches=2, seed=5)
    assert run(plan, data, workers=1).written == 2
    out = tmp_path / "weights" / "tiny.npz"
    argv = ["train", str(data), "--out", str(out), "--epochs", "2", "--hidden", "16"]
    assert cli.main([*argv, "--holdout", "0"]) == 0
    said = capsys.readouterr().out
    assert f"wrote {out}" in said and "card_agreement" in said
    with zipfile.ZipFile(out) as archive:
        assert {"w1.npy", "wp.npy", "wt.npy", "meta.npy"} <= set(archive.namelist())
    monkeypatch.setenv(FOLDER_VARIABLE, str(out.parent))
    model = load_model(find_weights("tiny"))
    assert model.meta["hidden"] == 16 and model.meta["trained_on"][0]["rules"].startswith("bhoos")
    match = Match("bhoos(deals=1)", seed=2)
    play_match(match, [make_player(f"learned(weights=tiny, seed={s})") for s in range(4)])
    assert match.is_over and check(Record.from_match(match)).valid


def test_train_refuses_what_it_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["train", str(tmp_path / "none"), "--out", str(tmp_path / "w.npz")]) == 2
    assert "no self-play run" in capsys.readouterr().err
    assert cli.main(["train", str(tmp_path), "--out", str(tmp_path / "w.txt")]) == 2
    assert "must name an .npz" in capsys.readouterr().err
