"""Ratings per pool: OpenSkill's numbers, computers fixed, ties, left = last, once per match."""

from __future__ import annotations

import math

import pytest
from openskill.models import PlackettLuce

from callbreak.ratings import (
    BETA,
    COMPUTERS,
    DRIFT,
    MU,
    SIGMA,
    Book,
    Computer,
    Outcome,
    Person,
    PoolRating,
    RatingError,
    StaleUpdateError,
    apply,
    model,
    rate,
    settle,
)

PEOPLE = (Person("ann"), Person("bo"), Person("cy"), Person("di"))


def openskill(teams: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """OpenSkill itself, called directly with its documented defaults."""
    model = PlackettLuce(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300)
    rated = model.rate([[model.rating(mu=m, sigma=s)] for m, s in teams], ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


def by_hand(teams: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """Weng and Lin's Plackett-Luce update (their Algorithm 4, one player a team, OpenSkill's
    gamma = sigma / c and kappa 0.0001), written out from the paper to check OpenSkill's."""
    kappa = 0.0001
    variances = [s * s + DRIFT * DRIFT for _, s in teams]  # tau widens sigma first
    c = math.sqrt(sum(v + BETA * BETA for v in variances))
    strength = [math.exp(m / c) for m, _ in teams]
    below = [sum(strength[i] for i in range(4) if ranks[i] >= ranks[q]) for q in range(4)]
    tied = [sum(ranks[i] == ranks[q] for i in range(4)) for q in range(4)]
    out = []
    for i, (mu, _) in enumerate(teams):
        omega = delta = 0.0
        for q in range(4):
            if ranks[q] > ranks[i]:
                continue
            share = strength[i] / below[q]
            delta += share * (1 - share) / tied[q]
            omega += ((1 - share) if q == i else -share) / tied[q]
        gamma = math.sqrt(variances[i]) / c
        omega *= variances[i] / c
        delta *= gamma * variances[i] / c**2
        sigma = math.sqrt(variances[i] * max(1 - delta, kappa))
        out.append((mu + omega, sigma))
    return out


def flat(pairs: object) -> list[float]:
    """Means and deviations in one list (pytest.approx compares flat lists only)."""
    found: list[float] = []
    for item in pairs:  # type: ignore[attr-defined]
        found += [item.mu, item.sigma] if isinstance(item, PoolRating) else list(item)
    return found


def after(outcome: Outcome, book: Book | None = None) -> list[PoolRating]:
    book = book or Book(outcome.pool)
    update = rate(book.ratings, outcome)
    return [update.after[seat.profile] for seat in outcome.seats if isinstance(seat, Person)]


def test_the_parameters_are_openskills_defaults() -> None:
    defaults, ours = PlackettLuce(), model()
    for found in (ours, defaults):
        assert (found.mu, found.sigma, found.beta, found.tau) == (MU, SIGMA, BETA, DRIFT)
    assert model(drift=0.0).tau == 0.0  # the leagues' (their players do not change)


def test_four_new_people_get_openskills_numbers_and_the_papers() -> None:
    outcome = Outcome("m", "strict", PEOPLE, places=(2, 1, 4, 3))
    found = after(outcome)
    teams = [(MU, SIGMA)] * 4
    assert flat(found) == pytest.approx(flat(openskill(teams, [2, 1, 4, 3])), abs=1e-9)
    assert flat(found) == pytest.approx(flat(by_hand(teams, [2, 1, 4, 3])), abs=1e-9)
    # The figures themselves, so that a change of OpenSkill's numbers shows here.
    assert [round(r.mu, 3) for r in found] == [26.553, 27.795, 20.962, 24.689]


def test_people_with_ratings_get_openskills_numbers() -> None:
    held = {
        "ann": PoolRating(30.0, 4.0, matches=12),
        "bo": PoolRating(20.0, 6.5, matches=3),
        "cy": PoolRating(27.5, 2.0, matches=40),
    }
    outcome = Outcome("m", "strict", PEOPLE, places=(1, 2, 3, 4))
    update = rate(held, outcome)
    teams = [(30.0, 4.0), (20.0, 6.5), (27.5, 2.0), (MU, SIGMA)]
    expected = openskill(teams, [1, 2, 3, 4])
    found = flat(update.after.values())
    assert found == pytest.approx(flat(expected), abs=1e-9)
    assert found == pytest.approx(flat(by_hand(teams, [1, 2, 3, 4])), abs=1e-9)
    assert [r.matches for r in update.after.values()] == [13, 4, 41, 1]
    assert update.before["di"] == PoolRating()


def test_computers_count_at_their_fixed_rating_and_never_move() -> None:
    seats = (Person("ann"), Computer("expert"), Computer("beginner"), Person("bo"))
    outcome = Outcome("m", "bhoos", seats, places=(3, 1, 4, 2))
    update = rate({}, outcome)
    teams = [(MU, SIGMA), COMPUTERS["expert"], COMPUTERS["beginner"], (MU, SIGMA)]
    expected = openskill(teams, [3, 1, 4, 2])
    assert set(update.after) == {"ann", "bo"}
    assert (update.after["ann"].mu, update.after["ann"].sigma) == pytest.approx(expected[0])
    assert (update.after["bo"].mu, update.after["bo"].sigma) == pytest.approx(expected[3])
    # Losing to an expert costs less than losing to a beginner.
    beaten_by_beginner = rate({}, Outcome("n", "bhoos", seats, places=(4, 1, 3, 2)))
    assert beaten_by_beginner.after["ann"].mu < update.after["ann"].mu
    book = settle(Book("bhoos"), outcome)
    assert set(book.ratings) == {"ann", "bo"}


def test_the_fixed_ratings_follow_the_ladder() -> None:
    ladder = ["random", "beginner", "intermediate", "advanced", "learned", "expert"]
    assert list(COMPUTERS) == ladder
    assert [COMPUTERS[level][0] for level in ladder] == sorted(COMPUTERS[x][0] for x in ladder)


def test_equal_totals_are_a_tie() -> None:
    tied = after(Outcome("m", "strict", PEOPLE, places=(1, 2, 2, 4)))
    assert tied[1] == tied[2]
    expected = openskill([(MU, SIGMA)] * 4, [1, 2, 2, 4])
    assert flat(tied) == pytest.approx(flat(expected), abs=1e-9)
    assert flat(tied) == pytest.approx(flat(by_hand([(MU, SIGMA)] * 4, [1, 2, 2, 4])), abs=1e-9)
    # What the tie takes from the two, it gives to the others: the means still sum to 4 MU.
    assert sum(r.mu for r in tied) == pytest.approx(4 * MU)
    untied = after(Outcome("m", "strict", PEOPLE, places=(1, 2, 3, 4)))
    assert tied[1].mu != untied[1].mu and tied[2].sigma != untied[2].sigma
    everyone = after(Outcome("m", "strict", PEOPLE, places=(1, 1, 1, 1)))
    assert len({(r.mu, r.sigma) for r in everyone}) == 1
    assert everyone[0].mu == pytest.approx(MU)


def test_a_match_left_for_good_is_last_place() -> None:
    # Ann's seat finished first, but she left: she is rated as last, the others in order.
    left = rate({}, Outcome("m", "strict", PEOPLE, places=(1, 2, 3, 4), left=frozenset({0})))
    last = rate({}, Outcome("m", "strict", PEOPLE, places=(4, 1, 2, 3)))
    assert flat(left.after.values()) == flat(last.after.values())
    assert left.after["ann"].left == 1 and left.after["ann"].matches == 1
    assert left.after["bo"].left == 0
    # Two who left share the last place.
    both = rate({}, Outcome("m", "strict", PEOPLE, places=(1, 2, 3, 4), left=frozenset({0, 3})))
    assert both.after["ann"] == both.after["di"]
    assert both.after["ann"].mu < both.after["cy"].mu
    assert flat(both.after.values()) == pytest.approx(
        flat(openskill([(MU, SIGMA)] * 4, [5, 2, 3, 5])), abs=1e-9
    )


def test_a_rating_is_provisional_until_ten_matches() -> None:
    book = Book("strict")
    seats = (Person("ann"), Computer("advanced"), Computer("advanced"), Computer("advanced"))
    for number in range(1, 11):
        book = settle(book, Outcome(f"m{number}", "strict", seats, places=(1, 2, 3, 4)))
        assert book.rating("ann").matches == number
        assert book.rating("ann").provisional == (number < 10)
    assert Book("strict").rating("new").provisional


def test_an_update_applied_twice_is_applied_once() -> None:
    outcome = Outcome("m1", "strict", PEOPLE, places=(1, 2, 3, 4))
    book = Book("strict")
    # Two processes see the match end and rate it from the same book: the second is a no-op.
    first, second = rate(book.ratings, outcome), rate(book.ratings, outcome)
    assert first == second
    once = apply(book, first)
    assert apply(once, second) == once
    assert apply(apply(once, first), first) == once
    assert settle(once, outcome) == once
    assert once.rated == {"m1"} and once.rating("ann").matches == 1


def test_an_update_from_ratings_changed_since_is_refused() -> None:
    book = Book("strict")
    one = Outcome("m1", "strict", PEOPLE, places=(1, 2, 3, 4))
    two = Outcome("m2", "strict", PEOPLE, places=(4, 3, 2, 1))
    stale = rate(book.ratings, two)  # computed before m1 was rated
    book = apply(book, rate(book.ratings, one))
    with pytest.raises(StaleUpdateError, match="rate it again"):
        apply(book, stale)
    book = settle(book, two)
    assert book.rated == {"m1", "m2"} and book.rating("ann").matches == 2


def test_an_update_goes_only_in_its_own_pool() -> None:
    update = rate({}, Outcome("m1", "strict", PEOPLE, places=(1, 2, 3, 4)))
    with pytest.raises(RatingError, match="pool 'bhoos'"):
        apply(Book("bhoos"), update)


@pytest.mark.parametrize(
    ("seats", "places", "left", "words"),
    [
        (PEOPLE, (1, 2, 2, 3), frozenset(), "not places of a match"),
        (PEOPLE, (0, 1, 2, 3), frozenset(), "not places of a match"),
        (PEOPLE[:3], (1, 2, 3), frozenset(), "4 seats"),
        ((*PEOPLE[:3], Person("ann")), (1, 2, 3, 4), frozenset(), "one seat"),
        ((*PEOPLE[:3], Computer("ismcts")), (1, 2, 3, 4), frozenset(), "no fixed rating"),
        ((*PEOPLE[:3], Computer("expert")), (1, 2, 3, 4), frozenset({3}), "only a person's"),
        (PEOPLE, (1, 2, 3, 4), frozenset({4}), "only a person's"),
    ],
)
def test_an_outcome_that_cannot_be_rated_is_one_clear_error(
    seats: tuple[Person | Computer, ...], places: tuple[int, ...], left: frozenset[int], words: str
) -> None:
    with pytest.raises(RatingError, match=words):
        Outcome("m", "strict", seats, places, left)
