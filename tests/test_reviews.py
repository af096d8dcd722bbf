"""The browser's reviews (``callbreak.web.reviews`` and the endpoints over it): one job per
table and seat however often it is asked, a bound past which the answer is ``review_busy``,
progress, a review kept once made, and only the token's own seat of a finished table; the
real pool of processes reviews a real match, each decision at its moment of the replay."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from callbreak.game import Match
from callbreak.record import to_data
from callbreak.seating import play_match
from callbreak.web import reviews as reviews_module
from callbreak.web.app import create_app
from callbreak.web.client import Client, http
from callbreak.web.export import replay_data
from callbreak.web.reviews import Reviews, moments
from tests.helpers import FAST
from tests.helpers import running as serving
from tests.test_web import new_match, owner, play_to_the_end


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


REVIEW = {"seat": 0, "decisions": [], "summary": {"accuracy": 100.0, "costliest": []}}


class Held:
    """A stand-in for the review: it counts its runs, tells its progress, and ends only when
    let go (or fails when told to)."""

    def __init__(self) -> None:
        self.runs: list[tuple[int, float]] = []
        self.started = threading.Event()
        self.go = threading.Event()
        self.fail = False

    def __call__(self, data: dict[str, Any], seat: int, time: float, slot: int) -> dict[str, Any]:
        self.runs.append((seat, time))
        reviews_module.tell(slot, 3, 14)
        self.started.set()
        assert self.go.wait(30)
        if self.fail:
            raise RuntimeError("the review broke")
        return REVIEW | {"seat": seat}


@pytest.fixture
def held() -> Iterator[Held]:
    job = Held()
    yield job
    job.go.set()  # nothing left hanging for the next test


def threads(job: Held, processes: int = 1, queue: int = 1) -> Reviews:
    pool = concurrent.futures.ThreadPoolExecutor(processes)
    return Reviews(processes, queue, 0.05, pool=pool, job=job)


def wait_done(reviews: Reviews, key: tuple[str, int]) -> dict[str, Any]:
    for _ in range(3000):
        status = reviews.status(key)
        if status["state"] != "running" and status["state"] != "waiting":
            return status
        threading.Event().wait(0.01)
    raise AssertionError(f"{key} never ended")


# --- the pool --------------------------------------------------------------------------------


def test_two_requests_for_one_table_and_seat_run_one_review(held: Held) -> None:
    reviews = threads(held)
    first = reviews.start(("m1", 0), {}, 0)
    assert held.started.wait(10)
    again = reviews.start(("m1", 0), {}, 0)  # joins the running job
    assert first["state"] in ("waiting", "running") and again == {
        "state": "running",
        "done": 3,
        "total": 14,
    }
    assert reviews.jobs == 1
    held.go.set()
    assert wait_done(reviews, ("m1", 0)) == {"state": "done", "review": REVIEW}
    # Kept: asking again reads it, nothing runs again.
    assert reviews.start(("m1", 0), {}, 0)["state"] == "done"
    assert held.runs == [(0, 0.05)]


def test_past_the_bound_the_answer_is_busy(held: Held) -> None:
    reviews = threads(held, processes=1, queue=1)
    reviews.start(("m1", 0), {}, 0)
    assert held.started.wait(10)
    assert reviews.start(("m2", 0), {}, 0) == {
        "state": "waiting",
        "place": 1,
        "done": 0,
        "total": 0,
    }
    with pytest.raises(reviews_module.Refusal) as refused:
        reviews.start(("m3", 0), {}, 0)
    assert refused.value.code == "review_busy"
    assert reviews.start(("m2", 0), {}, 0)["state"] == "waiting"  # a join is no new job
    held.go.set()
    wait_done(reviews, ("m2", 0))
    assert reviews.start(("m3", 0), {}, 0)["state"] in ("waiting", "running", "done")
    assert wait_done(reviews, ("m3", 0))["state"] == "done"
    assert len(held.runs) == 3


def test_a_failed_review_is_said_once_then_made_again(held: Held) -> None:
    reviews = threads(held)
    held.fail = True
    reviews.start(("m1", 0), {}, 0)
    held.go.set()
    with pytest.raises(reviews_module.Refusal) as refused:
        wait_done(reviews, ("m1", 0))
    assert refused.value.code == "review_failed"
    assert reviews.status(("m1", 0)) == {"state": "none"}
    held.fail = False
    reviews.start(("m1", 0), {}, 0)
    assert wait_done(reviews, ("m1", 0))["state"] == "done"
    assert len(held.runs) == 2


def test_only_the_newest_reviews_are_kept(held: Held) -> None:
    held.go.set()
    reviews = Reviews(1, 0, 0.05, kept=2, pool=concurrent.futures.ThreadPoolExecutor(1), job=held)
    for name in ("a", "b", "c"):
        reviews.start((name, 0), {}, 0)
        wait_done(reviews, (name, 0))
    assert [reviews.status((name, 0))["state"] for name in "abc"] == ["none", "done", "done"]


class Handed(concurrent.futures.Executor):
    """A pool of one worker that, as a process pool does, calls a job running as soon as it is
    handed on to the worker's queue, long before the worker takes it up."""

    def __init__(self) -> None:
        self._queue: list[tuple[concurrent.futures.Future[Any], Any, tuple[Any, ...]]] = []
        self._ready = threading.Condition()
        threading.Thread(target=self._work, daemon=True).start()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        future.set_running_or_notify_cancel()
        with self._ready:
            self._queue.append((future, fn, args))
            self._ready.notify()
        return future

    def _work(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._queue)
                future, fn, args = self._queue.pop(0)
            try:
                future.set_result(fn(*args))
            except Exception as error:  # the review's failure, told through its future
                future.set_exception(error)


def test_a_queued_review_says_waiting_and_its_place_then_its_progress(held: Held) -> None:
    """Issue 39: a review queued behind another read ``running``, 0 of 0, for minutes."""
    reviews = Reviews(1, 2, 0.05, pool=Handed(), job=held)
    reviews.start(("m1", 0), {}, 0)
    assert held.started.wait(10)
    assert reviews.start(("m2", 0), {}, 0) == {
        "state": "waiting",
        "place": 1,
        "done": 0,
        "total": 0,
    }
    assert reviews.start(("m3", 0), {}, 0)["place"] == 2
    assert reviews.status(("m1", 0)) == {"state": "running", "done": 3, "total": 14}
    held.started.clear()
    held.go.set()
    assert wait_done(reviews, ("m1", 0))["state"] == "done"
    assert wait_done(reviews, ("m3", 0))["state"] == "done"
    assert len(held.runs) == 3


def test_a_job_says_it_runs_from_before_its_first_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real job tells its slot 0 of N before the search is loaded: from then the page shows
    the decisions, not "starting" (issue 42, item 9)."""
    record = play_match(Match("strict(deals=1)", seed=3), ["random"] * 4).record()
    told: list[tuple[int, int, int]] = []
    monkeypatch.setattr(
        reviews_module, "tell", lambda *slot_done_total: told.append(slot_done_total)
    )
    monkeypatch.setattr(reviews_module, "review", _no_review)
    with pytest.raises(RuntimeError):
        reviews_module.run(to_data(record), 2, 0.05, 5)
    assert told == [(5, 0, 14)]


def _no_review(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("the search is not wanted here")


def test_a_review_past_its_bound_is_refused_with_the_bound() -> None:
    """A review takes at most DECISIONS of the seat's decisions: a longer match is refused at
    once, nothing started, with how many it has and the bound."""
    record = play_match(Match("strict(deals=11)", seed=5), ["random"] * 4).record()
    data = to_data(record)
    for seat in range(4):
        assert reviews_module.decisions(data, seat) == len(moments(data, seat)) == 11 * 14
    job = Held()
    reviews = Reviews(1, 1, 0.05, pool=concurrent.futures.ThreadPoolExecutor(1), job=job)
    with pytest.raises(reviews_module.Refusal) as refused:
        reviews.start(("long", 1), data, 1)
    assert refused.value.code == "review_long" and refused.value.status == 400
    assert refused.value.arguments == {"decisions": 154, "max": 150, "deals": 10}
    assert reviews.jobs == 0 and job.runs == [] and reviews.status(("long", 1)) == {"state": "none"}
    # Ten deals are within it.
    short = to_data(play_match(Match("strict(deals=10)", seed=5), ["random"] * 4).record())
    assert reviews_module.decisions(short, 1) == 140
    job.go.set()
    assert reviews.start(("short", 1), short, 1)["state"] in ("waiting", "running", "done")
    assert wait_done(reviews, ("short", 1))["state"] == "done"


# --- where each decision is in the replay ----------------------------------------------------


def test_each_decision_is_at_its_moment_of_the_replay() -> None:
    record = play_match(Match("strict(deals=2)", seed=11), ["random"] * 4).record()
    data = to_data(record)
    shown = replay_data(data, [None] * 4)
    for seat in range(4):
        at = moments(data, seat)
        assert len(at) == 2 * 14
        for moment in at:
            assert moment is not None
            deal = shown["record"]["deals"][moment["deal"] - 1]
            if moment["step"] == 0:  # a call: before the first card
                continue
            # The card shown last at that step is the seat's own.
            plays, leader = [], (deal["dealer"] + 1) % 4
            for number, trick in enumerate(deal["tricks"]):
                plays += [(card, (leader + i) % 4) for i, card in enumerate(trick)]
                leader = shown["winners"][moment["deal"] - 1][number]
            assert plays[moment["step"] - 1][1] == seat


# --- the endpoints ---------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path, held: Held) -> TestClient:
    app = create_app(tmp_path / "db.sqlite", limits=FAST, ping_seconds=3600, reviews=threads(held))
    return TestClient(app)


def test_a_match_is_reviewed_for_its_token_once_it_is_over(client: TestClient, held: Held) -> None:
    match_id, token = new_match(client, rules="strict(deals=1)")
    path = f"/api/matches/{match_id}/review"
    # In play: refused, however it is asked, and nothing runs.
    for method in ("GET", "POST"):
        answer = client.request(method, path, headers=owner(token))
        assert answer.status_code == 409 and answer.json()["code"] == "review_playing"
    play_to_the_end(client, match_id, token)
    # Another's token, none, an unknown id: the same answers as the record's.
    for headers, where in (
        (owner("x" * 43), path),
        (owner(token), "/api/matches/nosuchmatch/review"),
    ):
        answer = client.post(where, headers=headers)
        assert answer.status_code == 404 and answer.json()["code"] == "no_such_match"
    assert client.post(path).json()["code"] == "token_needed"
    assert client.get(path, headers=owner(token)).json() == {"state": "none"}
    started = client.post(path, headers=owner(token))
    assert started.status_code == 200 and started.json()["state"] in ("waiting", "running")
    assert held.started.wait(10)
    assert client.post(path, headers=owner(token)).json() == {
        "state": "running",
        "done": 3,
        "total": 14,
    }
    held.go.set()
    for _ in range(3000):
        answer = client.get(path, headers=owner(token))
        if answer.json()["state"] == "done":
            break
        threading.Event().wait(0.01)
    assert answer.json() == {"state": "done", "review": REVIEW}
    assert held.runs == [(0, 0.05)]


def test_past_the_bound_a_match_is_refused_busy(client: TestClient, held: Held) -> None:
    made = [new_match(client, rules="strict(deals=1)") for _ in range(3)]
    for match_id, token in made:
        play_to_the_end(client, match_id, token)
    answers = [
        client.post(f"/api/matches/{match_id}/review", headers=owner(token))
        for match_id, token in made
    ]
    assert [a.status_code for a in answers] == [200, 200, 503]
    assert answers[2].json()["code"] == "review_busy"


def test_a_match_past_the_review_bound_is_refused_by_code(tmp_path: Path, held: Held) -> None:
    reviews = Reviews(
        1, 1, 0.05, longest=13, pool=concurrent.futures.ThreadPoolExecutor(1), job=held
    )
    app = create_app(tmp_path / "db.sqlite", limits=FAST, ping_seconds=3600, reviews=reviews)
    with TestClient(app) as client:
        match_id, token = new_match(client, rules="strict(deals=1)")
        play_to_the_end(client, match_id, token)
        answer = client.post(f"/api/matches/{match_id}/review", headers=owner(token))
        assert answer.status_code == 400 and answer.json()["code"] == "review_long"
        assert answer.json()["args"] == {"decisions": 14, "max": 13, "deals": 0}
        assert held.runs == []


# --- rooms, and the real pool ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_room_is_reviewed_for_the_seat_its_token_holds_by_the_real_pool(
    tmp_path: Path,
) -> None:
    """The real thing: a finished room reviewed in a worker process (a small budget), for the
    seat the token holds; only that seat's decisions, each where the replay shows it; in play
    refused; a token that holds no seat refused."""
    reviews = Reviews(1, 0, 0.01)
    app = create_app(tmp_path / "db.sqlite", limits=FAST, reviews=reviews)
    try:
        with serving(app) as base:
            status, made = http(
                "POST",
                f"{base}/api/rooms",
                {
                    "name": "Asha",
                    "rules": "strict(deals=1)",
                    "seats": ["random", "random", "random"],
                    "turn_seconds": 0,
                    "speed": "instant",
                },
            )
            code, token = made["room"], made["token"]
            http("POST", f"{base}/api/rooms/{code}/start", token=token)
            path = f"{base}/api/rooms/{code}/review"
            status, answer = http("POST", path, token=token)
            assert (status, answer["code"]) == (409, "review_playing")
            asha = await Client.open(base, code, token)

            def over(message: dict[str, Any]) -> bool:
                return message["type"] == "state" and message["state"]["match_over"]

            await asha.play_until(over)
            await asha.close()
            status, answer = http("POST", path, token="x" * 43)
            assert (status, answer["code"]) == (401, "not_seated")
            status, answer = http("POST", path, token=token)
            assert status == 200 and answer["state"] in ("waiting", "running", "done"), answer
            for _ in range(1200):
                status, answer = http("GET", path, token=token)
                if answer["state"] == "done":
                    break
                assert answer["state"] in ("waiting", "running")
                if answer["state"] == "running" and answer["total"]:
                    assert 0 <= answer["done"] <= answer["total"] == 14
                threading.Event().wait(0.1)
            review = answer["review"]
            assert review["seat"] == 0 and len(review["decisions"]) == 14
            _, replay = http("GET", f"{base}/api/rooms/{code}/replay")
            deal = replay["record"]["deals"][0]
            assert review["decisions"][0]["kind"] == "call"
            assert review["decisions"][0]["made"] == str(deal["calls"][0])
            assert review["decisions"][0]["at"] == {"deal": 1, "step": 0}
            seat_cards = {card for trick in deal["tricks"] for card in trick} & set(
                deal["hands"][0]
            )
            assert {d["made"] for d in review["decisions"][1:]} == seat_cards
            assert all(d["hindsight_lost"] is not None for d in review["decisions"][1:])
            # Asked again: the kept review, no second job.
            status, again = http("POST", path, token=token)
            assert again == answer and reviews.jobs == 0
    finally:
        reviews.close()


def test_the_servers_budget_is_the_commands() -> None:
    from callbreak.review import DEFAULT_TIME
    from callbreak.web.limits import Limits

    assert Limits().review_time == DEFAULT_TIME  # the browser's figures are `callbreak review`'s


def test_closing_stops_a_running_review_at_once(tmp_path: Path) -> None:
    """A shutdown does not wait for a review: its worker process is stopped."""
    record = play_match(Match("strict(deals=1)", seed=8), ["random"] * 4).record()
    reviews = Reviews(1, 0, 60.0)  # a minute a decision: it would run for a quarter of an hour
    reviews.start(("m", 0), to_data(record), 0)
    pool = reviews._pool
    assert isinstance(pool, concurrent.futures.ProcessPoolExecutor)
    for _ in range(600):
        if reviews.status(("m", 0))["state"] == "running":
            break
        threading.Event().wait(0.1)
    pids = [worker.pid for worker in pool._processes.values()]  # type: ignore[attr-defined]
    assert pids
    reviews.close()
    # Gone, or a zombie the pool's own thread has still to reap (which it may do before a
    # join of ours could: the process table says it, not Process.is_alive).
    for _ in range(100):
        if all(not running(pid) for pid in pids):
            break
        threading.Event().wait(0.1)
    assert not any(running(pid) for pid in pids)


def running(pid: int) -> bool:
    """The process ``pid`` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status
