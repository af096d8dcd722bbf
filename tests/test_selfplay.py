"""Self-play data: only what the deciding seat knew, the search's values, resumable shards that
round-trip, and one clear line for bad arguments."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from callbreak import cli
from callbreak.arena import arena_spec
from callbreak.cards import CardSet
from callbreak.env.table import CARD_BASE, CLAIM, action_of, encode, engine_action
from callbreak.errors import IllegalPlayError
from callbreak.game import Call, Deal, Match, Observation, Play
from callbreak.players.expert import ExpertPlayer
from callbreak.seating import derive_seed, make_player, play_match
from callbreak.selfplay import (
    ARRAYS,
    FORMAT,
    Recorder,
    SelfplayError,
    Shard,
    ShardResult,
    ShardTask,
    decision_row,
    iter_shards,
    load,
    make_plan,
    play_shard,
    read_shard,
    run,
    shard_path,
    shard_paths,
)

TINY = "expert(time=0.01, threads=1)"
ONE_DEAL = "strict(deals=1)"
FIELD = [TINY, "random", "advanced", "random"]
"""One expert among cheap players: its decisions carry values, the others keep the test fast."""


def _expert(seed: int) -> Recorder:
    return Recorder(ExpertPlayer(time=0.01, threads=1, seed=seed, deadline=False))


# --- only what the seat knew -------------------------------------------------------------------


def _other_hands_changed(deal: Deal, seat: int, seed: int) -> Deal:
    """The same deal to this moment, every action the same, with the unseen cards of the other
    seats exchanged between them within each suit (so every void shown stays true), in a way
    under which every card played was legal; the seat's own hand is untouched."""
    rng = random.Random(seed)
    rules, dealer = deal.rules, deal.dealer
    played = [0, 0, 0, 0]
    for trick in (*deal.tricks, deal.trick):
        for who, card in trick.plays():
            played[who] |= 1 << card
    others = [s for s in range(4) if s != seat]
    for _ in range(500):
        hands = [deal.held(s).mask | played[s] for s in range(4)]
        for suit in range(4):
            suit_mask = 0x1FFF << (13 * suit)
            cards = [c for s in others for c in deal.held(s) if (1 << c) & suit_mask]
            rng.shuffle(cards)
            for s in others:
                keep = deal.held(s).mask & suit_mask
                hands[s] &= ~keep
                count = bin(keep).count("1")
                for card in cards[:count]:
                    hands[s] |= 1 << card
                cards = cards[count:]
        if hands == [deal.held(s).mask | played[s] for s in range(4)]:
            continue
        other = Deal(tuple(CardSet(h) for h in hands), dealer, rules)
        try:
            for action in deal.actions:
                other.apply(action)
        except IllegalPlayError:
            continue
        return other
    raise AssertionError("no other deal found")


def _moment(seed: int, actions: int) -> tuple[Deal, int]:
    """A seeded deal after ``actions`` actions of random players (more until the seat to act
    has a choice), and that seat."""
    match = Match(ONE_DEAL, seed=seed)
    players = [make_player(f"random(seed={s})") for s in range(4)]
    done = 0
    while done < actions or len(match.observation(match.deal.turn or 0).legal_cards) == 1:
        done += 1
        seat = match.deal.turn
        assert seat is not None
        observation = match.observation(seat)
        if observation.legal_calls:
            match.call(players[seat].call(observation))
        else:
            match.apply(Play(players[seat].play(observation)))
    seat = match.deal.turn
    assert seat is not None
    return match.deal, seat


@pytest.mark.parametrize(("seed", "actions"), [(3, 3), (5, 9), (8, 22)])
def test_the_row_holds_only_what_the_seat_knew(seed: int, actions: int) -> None:
    deal, seat = _moment(seed, actions)
    other = _other_hands_changed(deal, seat, seed)
    assert [other.held(s).mask for s in range(4)] != [deal.held(s).mask for s in range(4)]
    rows = []
    for position in (deal, other):
        observation = position.observation(seat, (10, -20, 30, 0), 1)
        recorder = _expert(seed)
        if observation.legal_calls:
            action = action_of(Call(recorder.call(observation)))
        else:
            action = action_of(Play(recorder.play(observation)))
        row = decision_row(observation, action, recorder.last, 1)
        rows.append(row)
    one, two = rows
    assert one.keys() == two.keys()
    for name in one:
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)
    # The search weighed options (values are there), from the seat's Observation alone.
    assert np.isfinite(one["values"][one["legal"]]).any()


def test_the_recorder_is_given_the_observation_and_nothing_else() -> None:
    seen: list[object] = []

    class Spy(ExpertPlayer):
        def rank_cards(self, observation: Observation, *, time: float | None = None):  # type: ignore[no-untyped-def, override]
            seen.append(observation)
            return super().rank_cards(observation, time=time)

    deal, seat = _moment(5, 9)
    observation = deal.observation(seat)
    recorder = Recorder(Spy(time=0.01, seed=1, deadline=False))
    recorder.play(observation)
    assert seen == [observation] and isinstance(seen[0], Observation)


# --- the search's values ----------------------------------------------------------------------


def test_recording_changes_no_decision_and_keeps_every_value(tmp_path: Path) -> None:
    """A shard's matches are those the players play unrecorded, with the same seeds."""
    plan = make_plan(FIELD, rules=ONE_DEAL, matches=1, shard_matches=1, seed=4)
    result = play_shard(plan.tasks()[0])
    shard = _shard(result, tmp_path)
    specs = [arena_spec(spec, derive_seed(4, "selfplay", 0, s)) for s, spec in enumerate(FIELD)]
    played = play_match(Match(plan.rules, seed="selfplay/4/0"), specs).match
    actions = [action_of(a) for deal in played.deals for a in deal.actions]
    assert shard.arrays["action"].tolist() == actions
    a = shard.arrays
    for row in range(shard.rows):
        legal = a["legal"][row]
        assert legal[a["action"][row]], "the action taken is legal"
        valued = np.isfinite(a["values"][row])
        assert not (valued & ~legal).any(), "only legal options have values"
        expert = a["seat"][row] == 0
        if expert and legal.sum() > 1:
            assert valued.any() and (a["counts"][row][valued] > 0).all()
            best = int(a["action"][row])
            if best < CARD_BASE:  # a call: the best expected value, its distribution kept
                assert a["values"][row][best] == np.nanmax(a["values"][row])
                assert a["tricks"][row].sum() == pytest.approx(1.0, abs=1e-5)
            else:  # the tree's card: the most visited
                assert a["counts"][row][best] == a["counts"][row][valued].max()
        else:
            assert not valued.any()


# --- the file -------------------------------------------------------------------------------


def _shard(result: ShardResult, folder: Path) -> Shard:
    path = folder / f"shard-{result.index}.npz"
    path.write_bytes(result.data)
    return read_shard(path)


def test_the_format_round_trips(tmp_path: Path) -> None:
    plan = make_plan(["random"], rules="strict(deals=2)", matches=2, shard_matches=2, seed=9)
    summary = run(plan, tmp_path, workers=1)
    assert (summary.shards, summary.written, summary.kept) == (1, 1, 0)
    shard = read_shard(shard_path(tmp_path, 0))
    assert shard.meta["format"] == FORMAT and shard.meta["players"] == ["random"] * 4
    assert shard.rows == summary.decisions
    for name, (dtype, shape) in ARRAYS.items():
        assert shard.arrays[name].dtype == np.dtype(dtype)
        assert shard.arrays[name].shape == (shard.rows, *shape)
    # The observation is the environments' encoding of the seat's view, replayed here.
    a = shard.arrays
    for number in (0, 1):
        match = Match(plan.rules, seed=f"selfplay/9/{number}")
        rows = np.flatnonzero(a["match"] == number)
        for row in rows:
            seat = match.deal.turn
            assert seat == a["seat"][row]
            observation = match.observation(seat)
            np.testing.assert_array_equal(a["obs"][row], encode(observation, 2))

            match.apply(engine_action(int(a["action"][row])))
        assert match.is_over
        # The outcome by relative seat: tricks and scores of the deal, the match's totals.
        totals, places = match.totals(), match.places()
        for row in rows:
            seat = int(a["seat"][row])
            turn = [(seat + r) & 3 for r in range(4)]
            deal = match.deals[a["deal"][row]]
            assert a["deal_tricks"][row].tolist() == [deal.won[s] for s in turn]
            assert a["deal_scores"][row].tolist() == [deal.scores()[s] for s in turn]
            assert a["match_totals"][row].tolist() == [totals[s] for s in turn]
            assert a["match_places"][row].tolist() == [places[s] for s in turn]
    assert [s.rows for s in iter_shards(tmp_path)] == [shard.rows]


def test_a_claim_for_a_new_deal_is_a_decision_in_a_deal_thrown_in(tmp_path: Path) -> None:
    """Where a spadeless hand may ask for a new deal, the claim is a row like any other (its
    action CLAIM), in a deal marked thrown in, which scores nothing."""
    rules = "strict(deals=1, spadeless_redeal=true)"
    plan = make_plan(["advanced"], rules=rules, matches=1, shard_matches=1, seed=3)
    a = _shard(play_shard(plan.tasks()[0]), tmp_path).arrays
    claims = np.flatnonzero(a["action"] == CLAIM)
    assert len(claims) == 1 and a["legal"][claims[0], CLAIM]
    thrown = a["thrown_in"]
    assert thrown[claims[0]] and a["deal"][claims[0]] == 0 and not thrown[-1]
    assert (a["deal_scores"][thrown] == 0).all() and (a["deal_tricks"][thrown] == 0).all()
    assert (a["deal_tricks"][~thrown].sum(axis=1) == 13).all()


def test_a_corrupt_or_foreign_file_is_one_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(SelfplayError, match="cannot read the shard"):
        read_shard(broken)
    plan = make_plan(["random"], rules=ONE_DEAL, matches=1, shard_matches=1)
    data = play_shard(plan.tasks()[0]).data
    good = tmp_path / "good.npz"
    good.write_bytes(data)
    with np.load(good) as loaded:  # numpy's own writer, as another program would write
        members = {name: loaded[name] for name in loaded.files}
    meta = json.loads(str(members["meta"]))
    np.savez(
        tmp_path / "future.npz", **{**members, "meta": np.array(json.dumps({**meta, "format": 99}))}
    )
    with pytest.raises(SelfplayError, match="format 99"):
        read_shard(tmp_path / "future.npz")
    np.savez(tmp_path / "short.npz", **{k: v for k, v in members.items() if k != "values"})
    with pytest.raises(SelfplayError, match="'values'"):
        read_shard(tmp_path / "short.npz")


# --- resuming --------------------------------------------------------------------------------


def test_a_stopped_run_resumed_equals_one_uninterrupted_run(tmp_path: Path) -> None:
    plan = make_plan(FIELD, rules=ONE_DEAL, matches=3, shard_matches=1, seed=2)
    whole = run(plan, tmp_path / "whole", workers=1)
    assert (whole.written, whole.interrupted) == (3, False)

    def stop(_result: ShardResult, written: int) -> None:
        if written == 1:
            raise KeyboardInterrupt

    first = run(plan, tmp_path / "parts", workers=1, on_shard=stop)
    assert (first.written, first.interrupted) == (1, True)
    assert len(shard_paths(tmp_path / "parts")) == 1
    started: list[tuple[int, int]] = []
    rest = run(plan, tmp_path / "parts", workers=1, on_start=lambda *a: started.append(a))
    assert started == [(2, 1)] and (rest.written, rest.kept) == (2, 1)
    names = [path.name for path in shard_paths(tmp_path / "whole")]
    assert names == [path.name for path in shard_paths(tmp_path / "parts")]
    for name in names:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "parts" / name).read_bytes()
    # Nothing is left half written.
    assert not list((tmp_path / "parts").glob(".*partial"))


def test_a_bigger_run_extends_a_smaller_and_another_run_is_refused(tmp_path: Path) -> None:
    small = make_plan(["random"], rules=ONE_DEAL, matches=1, shard_matches=1, seed=5)
    run(small, tmp_path, workers=1)
    big = make_plan(["random"], rules=ONE_DEAL, matches=3, shard_matches=1, seed=5)
    assert run(big, tmp_path, workers=1).kept == 1
    other = make_plan(["random"], rules=ONE_DEAL, matches=3, shard_matches=1, seed=6)
    with pytest.raises(SelfplayError, match=r"holds another run .*seed 5 there, 6 here"):
        run(other, tmp_path, workers=1)


def test_decisions_become_whole_shards_of_matches() -> None:
    plan = make_plan(["random"], rules="strict", decisions=1000, shard_matches=2)
    # 1000 decisions at 56 a deal, five deals a match: 4 matches, two shards.
    assert (plan.matches, plan.shards) == (4, 2)
    assert make_plan(["random"], matches=11, shard_matches=10).matches == 20


def test_an_open_ended_match_is_played_as_five_deals_as_the_arena_plays_it() -> None:
    # A shard task of open-ended rules (as a plan read back or built by hand may hold) once
    # divided by zero in the deal block of the observation (a match of 0 deals).
    open_ended = play_shard(ShardTask(0, ("random",) * 4, "pagat", 3, 0, 1))
    plan = make_plan(["random"], rules="pagat", matches=1, shard_matches=1, seed=3)
    assert plan.rules == "pagat(deals=5)"
    five = play_shard(ShardTask(0, plan.players, plan.rules, 3, 0, 1))
    assert open_ended.decisions == five.decisions > 0
    a, b = (read_shard_bytes(result.data) for result in (open_ended, five))
    for name in ("obs", "legal", "action", "deal", "match_totals"):
        assert np.array_equal(a[name], b[name]), name


def read_shard_bytes(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        return {name: arrays[name] for name in arrays.files}


WITHOUT_EXTRAS = """
import sys
from importlib.abc import MetaPathFinder

class NoExtras(MetaPathFinder):  # the base install: none of the rl, train or cluster extras
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pettingzoo", "gymnasium", "pyspiel", "torch", "ray"):
            raise ImportError(f"no {name} in the base install")
        return None

sys.meta_path.insert(0, NoExtras())
from callbreak.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_selfplay_runs_on_the_base_install(tmp_path: Path) -> None:
    # the encoding and the action numbers are the players' (players.encoding), not the
    # environments': self-play needs numpy, not the rl extra
    out = tmp_path / "run"
    command = ["random", "--rules", ONE_DEAL, "--matches", "1", "--shard-size", "1"]
    command += ["--workers", "1", "--out", str(out)]
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, "selfplay", *command],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert read_shard(shard_path(out, 0)).rows == 56


@pytest.mark.slow
def test_two_workers_write_what_one_writes(tmp_path: Path) -> None:
    plan = make_plan(["random"], rules=ONE_DEAL, matches=4, shard_matches=1, seed=7)
    run(plan, tmp_path / "one", workers=1)
    run(plan, tmp_path / "two", workers=2)
    for path in shard_paths(tmp_path / "one"):
        assert path.read_bytes() == (tmp_path / "two" / path.name).read_bytes()


def test_ray_writes_what_local_workers_write(local_ray: str, tmp_path: Path) -> None:
    plan = make_plan(["random"], rules=ONE_DEAL, matches=2, shard_matches=1, seed=8)
    run(plan, tmp_path / "local", workers=1)
    run(plan, tmp_path / "ray", ray="local")
    for path in shard_paths(tmp_path / "local"):
        assert path.read_bytes() == (tmp_path / "ray" / path.name).read_bytes()


# --- the command -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["oracle"], "sees every hand"),
        (["http://127.0.0.1:7000"], "remote bots"),
        (["expert(tim=1)"], "unknown option 'tim'"),
        (["random", "random"], "one player spec or four"),
        (["--matches", "0"], "matches must be"),
        (["--decisions", "-5"], "decisions must be"),
        (["--shard-size", "0"], "a shard holds"),
        (["--rules", "nosuch"], "unknown profile"),
        (["--workers", "0"], "--workers must be"),
        (["--ray", "no where"], "not a Ray address"),
        (["--matches", "2", "--decisions", "3"], "not allowed with"),
        (["--matches", "two"], "invalid int value"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    arguments: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(["selfplay", *arguments, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_an_empty_out_is_refused_not_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _exit_code(["selfplay", "random", "--rules", ONE_DEAL, "--out", ""]) == 2
    err = capsys.readouterr().err
    assert "--out needs a folder" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_and_refuses_a_folder_of_another_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["selfplay", "random", "--rules", ONE_DEAL, "--out", str(tmp_path)]
    assert _exit_code([*base, "--matches", "2", "--shard-size", "1"]) == 0
    assert "2 shards written" in capsys.readouterr().out
    assert len(shard_paths(tmp_path)) == 2
    assert _exit_code([*base, "--seed", "9"]) == 2
    err = capsys.readouterr().err
    # One line and nothing after it (the progress bar, stopped, wrote an empty line after it).
    assert "holds another run" in err and len(err.splitlines()) == 1


def _exit_code(argv: list[str]) -> int:
    """The command's exit status, whether it returns it or argparse exits with it."""
    try:
        return cli.main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


# --- reading a run back ------------------------------------------------------------------------


def test_a_run_loads_by_kind_of_decision_and_names_its_missing_shards(tmp_path: Path) -> None:
    plan = make_plan(["random"], rules=ONE_DEAL, matches=3, shard_matches=1, seed=11)
    run(plan, tmp_path / "run", workers=1)
    every = load(tmp_path / "run")
    assert (every.rows, every.shards, every.missing) == (3 * 56, 3, ())
    calls, cards = load(tmp_path / "run", kind="calls"), load(tmp_path / "run", kind="cards")
    assert (calls.rows, cards.rows) == (3 * 4, 3 * 52)
    assert (calls.arrays["action"] < CARD_BASE).all() and (
        cards.arrays["action"] >= CARD_BASE
    ).all()
    chosen = load(tmp_path / "run", kind="cards", choices_only=True)
    assert 0 < chosen.rows < cards.rows and (chosen.arrays["legal"].sum(axis=1) > 1).all()
    shard_path(tmp_path / "run", 1).unlink()
    assert load(tmp_path / "run").missing == (1,)
    # A shard of another run slipped into the folder is refused, as is a folder of no run.
    other = make_plan(["random"], rules=ONE_DEAL, matches=2, shard_matches=1, seed=12)
    run(other, tmp_path / "other", workers=1)
    shard_path(tmp_path / "run", 1).write_bytes(shard_path(tmp_path / "other", 1).read_bytes())
    with pytest.raises(SelfplayError, match="another run"):
        load(tmp_path / "run")
    with pytest.raises(SelfplayError, match="no self-play run"):
        load(tmp_path / "nothing")


def test_a_finished_run_started_again_plays_nothing(tmp_path: Path) -> None:
    plan = make_plan(["random"], rules=ONE_DEAL, matches=1, shard_matches=1, seed=13)
    run(plan, tmp_path, workers=1)
    before = shard_path(tmp_path, 0).stat().st_mtime_ns
    again = run(plan, tmp_path, workers=4, ray="nowhere:1")  # neither is started for nothing
    assert (again.kept, again.written, again.decisions) == (1, 0, 0)
    assert shard_path(tmp_path, 0).stat().st_mtime_ns == before
