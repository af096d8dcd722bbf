"""The seating layer: specs read once, derived seeds, the match-driving step, seats that change
hands between decisions, faults and times, and what each seat is shown."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from callbreak.bots.protocol import bid_body, player_ids
from callbreak.bots.server import create_app
from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Call, Match, Observation, Play
from callbreak.players import Event, Player, PlayerError
from callbreak.players.expert import ExpertPlayer
from callbreak.players.simple import AdvancedPlayer
from callbreak.record import check, dumps
from callbreak.seating import (
    PlayerSpec,
    Seating,
    decide,
    derive_seed,
    is_remote,
    make_player,
    play_match,
)
from tests.helpers import swap_hidden

# --- specs -----------------------------------------------------------------------------------


def test_a_spec_is_read_once_with_its_options() -> None:
    spec = PlayerSpec.parse(" Expert ( time = 0.5, seed = 3 ) ")
    assert (spec.name, dict(spec.options), spec.remote) == (
        "expert",
        {"time": 0.5, "seed": 3},
        False,
    )
    assert str(spec) == "expert(time=0.5, seed=3)"
    assert PlayerSpec.parse(spec) is spec
    remote = PlayerSpec.parse("http://127.0.0.1:7000")
    assert remote.remote and str(remote) == "http://127.0.0.1:7000"
    assert is_remote(" https://bots.example ") and not is_remote("expert")


def test_defaults_only_where_the_level_takes_them_and_the_spec_is_silent() -> None:
    assert str(PlayerSpec.parse("random").with_defaults(seed=4, deadline=False)) == "random(seed=4)"
    expert = PlayerSpec.parse("expert(seed=1)").with_defaults(seed=4, deadline=False)
    assert str(expert) == "expert(seed=1, deadline=false)"
    remote = PlayerSpec.parse("http://127.0.0.1:7000")
    assert remote.with_defaults(seed=4) == remote


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("wizard", "unknown player 'wizard'"),
        ("expert(speed=2)", "unknown option 'speed'"),
        ("expert(time=", "cannot read the player"),
        ("expert(time=1000)", "bad option in 'expert(time=1000)'"),
        ("http://", "http://HOST:PORT"),
    ],
)
def test_bad_specs_are_one_clear_error(text: str, words: str) -> None:
    with pytest.raises(PlayerError, match=words.replace("(", r"\(").replace(")", r"\)")):
        make_player(text, ready=False)


def test_seeds_are_derived_from_the_match_seed_and_the_seat() -> None:
    assert derive_seed("game", "computer", 1) == derive_seed("game", "computer", 1)
    assert len({derive_seed("game", "computer", seat) for seat in range(4)}) == 4
    records = []
    for _ in range(2):
        played = play_match(Match("strict", seed="same"), ["random"] * 4)
        records.append(dumps(played.record()))
    assert records[0] == records[1]
    other = play_match(Match("strict", seed="same"), ["random(seed=9)"] * 4)
    assert dumps(other.record()) != records[0]


# --- the step --------------------------------------------------------------------------------


class Follower(AdvancedPlayer):
    """An advanced player that writes down every event it is told of."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.events: list[Event] = []

    def inform(self, event: Event) -> None:
        self.events.append(event)


def test_every_seat_is_told_of_every_action_in_order() -> None:
    followers = [Follower() for _ in range(4)]
    played = play_match(Match("strict(deals=2)", seed=3), followers)
    kinds = [event.kind for event in followers[2].events]
    assert kinds[0] == "deal_start" and kinds[-2:] == ["deal_over", "match_over"]
    assert kinds.count("deal_start") == kinds.count("deal_over") == 2
    assert kinds.count("call") == 8 and kinds.count("play") == 104
    assert all(f.events == followers[0].events for f in followers)
    assert [len(times) for times in played.times] == [2 * 14] * 4
    assert all(seconds >= 0 for times in played.times for seconds in times)


def test_a_seat_changes_hands_between_decisions() -> None:
    match = Match("strict", seed=5)
    seating = Seating(match, [None, "random", "random", "random"])
    while seating.turn != 0:
        seating.step()
    with pytest.raises(CallbreakError, match="a person's"):
        seating.decide()
    seating.apply(Call(2))  # the person calls
    stand_in = AdvancedPlayer(seed=2)
    assert seating.sit(0, stand_in) is None
    stand_in_turns = sum(seating.step().seat == 0 for _ in range(20))  # the person is away
    assert stand_in_turns > 0
    assert seating.sit(0, None) is stand_in  # and the seat goes back to the person
    while seating.turn != 0:
        seating.step()
    with pytest.raises(CallbreakError, match="a person's"):
        seating.decide()
    # Only computer decisions are timed: the person's call is not among seat 0's times.
    assert len(seating.result().times[0]) == stand_in_turns


class Broken(Player):
    spec = "broken"

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        raise RuntimeError("out of order")

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        return Card.AS  # held or not, legal or not


def test_a_failing_player_stops_the_match_unless_the_host_substitutes() -> None:
    with pytest.raises(RuntimeError, match="out of order"):
        play_match(Match("strict(deals=1)", seed=1), [Broken(), "random", "random", "random"])
    match = Match("strict(deals=1)", seed=1)
    seating = Seating(match, [Broken(), "random", "random", "random"], substitute_failures=True)
    played = seating.play()
    assert match.is_over and check(played.record()).valid
    faults = played.faults[0]
    assert {f.fault for f in faults} == {"failed"} and {f.seat for f in faults} == {0}
    assert faults[0].action == "call" and faults[0].substitute == "2"
    assert len(faults) >= 2 and played.fault_counts()[0] == len(faults)
    assert played.record().deals[0].faults[0]["detail"] == "out of order"


class Timed(AdvancedPlayer):
    """Remembers the limits it was given."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.limits: list[float | None] = []

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        self.limits.append(time)
        return super().call(observation)


@pytest.mark.slow
def test_a_limit_reaches_the_player_through_the_interface() -> None:
    match = Match("strict", seed=2)
    player = Timed()
    seen = match.observation(match.deal.turn)  # type: ignore[arg-type]
    decide(player, seen)
    decide(player, seen, time=0.2)
    assert player.limits == [None, 0.2]
    expert = ExpertPlayer(time=1.0, seed=1, deadline=False)
    # No wall-clock assert: on a busy machine a search may take longer than its cost model.
    expert.call(seen, time=0.05)
    assert expert.options.time == 1.0  # the limit holds for this decision only
    quick = expert.last_search["worlds"]
    expert.call(seen)
    assert expert.last_search["worlds"] > quick  # the cost model sized the search to the limit


def test_the_bot_server_limits_the_expert_per_request_not_by_changing_it() -> None:
    app = create_app("expert(time=1.0, seed=3)")
    match = Match("bhoos", seed=1)
    seat = match.deal.turn
    assert seat is not None
    seen = match.observation(seat)
    body = bid_body(seen, player_ids(), 100)  # 100 ms left for the round
    with TestClient(app) as client:
        answer = client.post("/bid", json=body)
    assert answer.status_code == 200 and answer.json()["value"] in seen.legal_calls


# --- fairness --------------------------------------------------------------------------------


class Recorder(AdvancedPlayer):
    def __init__(self) -> None:
        super().__init__(seed=1)
        self.seen: list[str] = []

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        self.seen.append(repr(observation))
        return super().play(observation)


def test_a_seated_player_sees_nothing_of_the_other_seats_hidden_cards() -> None:
    match = Match("strict", seed=8)
    recorder = Recorder()
    seating = Seating(match, [recorder, "intermediate", "intermediate", "intermediate"])
    while not (match.deal.turn == 0 and len(match.deal.tricks) == 4):
        seating.step()
    before = repr(match.observation(0))
    swap_hidden(match.deal, 0)
    decision = seating.decide()
    assert recorder.seen[-1] == before
    assert isinstance(decision.action, Play)
