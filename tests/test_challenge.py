"""The daily challenge's commitment: a day's seed, its hash, the day's deals, verify."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from callbreak import challenge, cli
from callbreak.challenge import ChallengeError, Verdict
from callbreak.game import Match
from callbreak.record import Record, check, dumps, from_data, to_data
from callbreak.seating import play_match

SECRET = b"the operator's secret, 32 bytes."
DAY = datetime.date(2026, 12, 4)
SEED = challenge.day_seed(SECRET, DAY)
NEXT_DAY = DAY + datetime.timedelta(days=1)


def played(players: list[str], rules: str = challenge.RULES) -> Record:
    """A record of the day's match played by ``players``."""
    return play_match(challenge.new_match(DAY, SEED, rules), players).record()


@pytest.fixture(scope="module")
def record() -> Record:
    return played(["random"] * 4)


def altered(record: Record, change: Any) -> Record:
    """The record with ``change`` made to its JSON data."""
    data = to_data(record)
    change(data)
    return from_data(json.loads(json.dumps(data)))


def test_a_days_seed_is_the_hmac_of_the_day_under_the_secret() -> None:
    assert hmac.new(SECRET, b"2026-12-04", hashlib.sha256).hexdigest() == SEED
    assert challenge.day_seed(SECRET, NEXT_DAY) != SEED
    assert challenge.day_seed(SECRET[::-1], DAY) != SEED
    with pytest.raises(ChallengeError, match="at least 32"):
        challenge.day_seed(b"short", DAY)


def test_two_people_get_the_same_deals_on_the_same_day(record: Record) -> None:
    other = played(["beginner", "random", "beginner", "random"])
    assert [d.hands for d in record.deals] == [d.hands for d in other.deals]
    assert [d.dealer for d in record.deals] == [d.dealer for d in other.deals]
    assert len(record.deals) == 5
    # Another day's match is dealt other cards.
    tomorrow = challenge.new_match(NEXT_DAY, challenge.day_seed(SECRET, NEXT_DAY))
    assert tomorrow.deal.hands != challenge.new_match(DAY, SEED).deal.hands


@pytest.mark.parametrize("rules", ["strict(min_total_calls=30)", "classic(spadeless_redeal=true)"])
def test_the_challenge_is_never_played_under_rules_that_throw_deals_in(rules: str) -> None:
    # A deal thrown in is dealt again with other cards: people who called differently would
    # not play the same deals.
    with pytest.raises(ChallengeError, match="throw a deal in"):
        challenge.new_match(DAY, SEED, rules)


def test_verify_places_the_deals_after_a_thrown_in_deal() -> None:
    # verify deals as the record's rules do, thrown-in deals and their redeals included.
    match = Match("strict(min_total_calls=30)", seed=challenge.match_seed(DAY, SEED))
    thrown = play_match(match, ["random"] * 4).record()
    assert any(d.thrown_in for d in thrown.deals)
    rules = "strict(min_total_calls=30)"
    assert challenge.verify(DAY, SEED, thrown, rules=rules).ok
    last = len(thrown.deals) - 1

    def swap_in_the_last_deal(data: dict[str, Any]) -> None:
        hands = data["deals"][last]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    changed = altered(thrown, swap_in_the_last_deal)
    assert challenge.verify(DAY, SEED, changed, rules=rules).deal == last + 1


@pytest.mark.parametrize(
    "other", ["strict(min_total_calls=10)", "strict(clockwise=true)", "online", "pagat"]
)
def test_a_true_record_relabelled_with_other_rules_is_not_the_days(
    record: Record, other: str
) -> None:
    # Under rules that throw deals in, one person could be dealt cards nobody else saw and
    # still show the seed's first deals: the day's rules are part of what is verified.
    def relabel(data: dict[str, Any]) -> None:
        data["rules"] = other

    relabelled = altered(record, relabel)
    verdict = challenge.verify(DAY, SEED, relabelled)
    assert not verdict.ok and "challenge is played under" in verdict.message


def test_the_published_hash_matches_the_seed_revealed_at_the_close() -> None:
    opened = challenge.day_start(DAY)
    at_open = challenge.published(SECRET, DAY, opened)
    late = challenge.published(SECRET, DAY, opened + datetime.timedelta(hours=23, minutes=59))
    closed = challenge.published(SECRET, DAY, challenge.day_start(NEXT_DAY))
    assert at_open.seed is None and late.seed is None
    assert at_open.commitment == late.commitment == closed.commitment
    assert closed.seed == SEED
    # What a stranger runs: printf %s SEED | sha256sum
    assert hashlib.sha256(closed.seed.encode()).hexdigest() == at_open.commitment
    with pytest.raises(ChallengeError, match="not opened yet"):
        challenge.published(SECRET, NEXT_DAY, opened)


def test_verify_accepts_a_true_record(record: Record) -> None:
    verdict = challenge.verify(DAY, SEED, record, challenge.commitment(SEED))
    assert verdict == Verdict(True, "all 5 deals are the deals of 2026-12-04's seed")
    assert challenge.verify(DAY, SEED.upper(), record).ok
    # An unfinished record (a match left in its third deal) is still that seed's deals.
    match = challenge.new_match(DAY, SEED)
    for deal in check(record).deals[:2]:
        for action in deal.actions:
            match.apply(action)
    match.apply(check(record).deals[2].actions[0])
    unfinished = Record.from_match(match)
    assert unfinished.unfinished and len(unfinished.deals) == 3
    assert challenge.verify(DAY, SEED, unfinished) == Verdict(
        True, "all 3 deals are the deals of 2026-12-04's seed"
    )
    # A record left in its first deal: one deal, said in the singular ("all 1 deal are" was).
    match = challenge.new_match(DAY, SEED)
    match.apply(check(record).deals[0].actions[0])
    assert challenge.verify(DAY, SEED, Record.from_match(match)) == Verdict(
        True, "its 1 deal is the deal of 2026-12-04's seed"
    )


def swap_a_card(data: dict[str, Any]) -> None:
    hands = data["deals"][2]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


@pytest.mark.parametrize(
    ("change", "deal"),
    [
        (swap_a_card, 3),
        (lambda data: data["deals"][0].update(dealer=(data["deals"][0]["dealer"] + 1) % 4), 1),
    ],
)
def test_verify_refuses_an_altered_record(record: Record, change: Any, deal: int) -> None:
    verdict = challenge.verify(DAY, SEED, altered(record, change))
    assert not verdict.ok and verdict.deal == deal
    assert f"deal {deal}" in verdict.message


def test_verify_refuses_another_day_another_seed_and_another_commitment(record: Record) -> None:
    verdict = challenge.verify(NEXT_DAY, SEED, record)
    assert not verdict.ok and verdict.deal == 1 and "2026-12-05's seed" in verdict.message
    other_seed = challenge.day_seed(SECRET, NEXT_DAY)
    assert challenge.verify(DAY, other_seed, record).deal == 1
    wrong = challenge.commitment(other_seed)
    verdict = challenge.verify(DAY, SEED, record, wrong)
    assert not verdict.ok and wrong in verdict.message


def test_a_record_that_breaks_a_rule_on_true_deals_is_bad_input(record: Record) -> None:
    def illegal_call(data: dict[str, Any]) -> None:
        data["deals"][1]["calls"][0] = 14

    with pytest.raises(ChallengeError, match="breaks a rule in deal 2"):
        challenge.verify(DAY, SEED, altered(record, illegal_call))


def test_nothing_published_before_the_close_depends_on_the_deals() -> None:
    # The commitment is a hash of the seed: the same whatever cards are dealt from it later,
    # and before the close it is all there is.
    shown = challenge.published(SECRET, DAY, challenge.day_start(DAY))
    assert shown == challenge.Published(DAY, challenge.commitment(SEED), None)
    assert SEED not in json.dumps(shown.__dict__, default=str)


@pytest.fixture
def files(tmp_path: Path, record: Record) -> dict[str, str]:
    true = tmp_path / "true.json"
    true.write_text(dumps(record))
    swapped = tmp_path / "swapped.json"
    swapped.write_text(dumps(altered(record, swap_a_card)))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    return {"true": str(true), "swapped": str(swapped), "broken": str(broken)}


def test_cli_verify_exits_0_for_a_true_record(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    commitment = challenge.commitment(SEED)
    status = cli.main(["challenge", "verify", "2026-12-04", SEED, files["true"]])
    assert status == 0
    assert (
        cli.main(
            ["challenge", "verify", "2026-12-04", SEED, files["true"], "--commitment", commitment]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{files['true']}: all 5 deals are the deals of 2026-12-04's seed"] * 2


def test_cli_verify_exits_1_for_an_altered_record_or_another_day(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["challenge", "verify", "2026-12-04", SEED, files["swapped"]]) == 1
    assert cli.main(["challenge", "verify", "2026-12-05", SEED, files["true"]]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "deal 3" in out[0] and "2026-12-05" in out[1]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["2026-13-01", SEED, "true"], "'2026-13-01' is not a day"),
        (["4 Dec 2026", SEED, "true"], "is not a day"),
        (["2026-12-04", "abc", "true"], "'abc' is not a day's seed"),
        (["2026-12-04", SEED + "0", "true"], "is not a day's seed"),
        (["2026-12-04", SEED, "broken"], "not JSON"),
        (["2026-12-04", SEED, "missing"], "cannot read the file"),
        (["2026-12-04", SEED, "true", "--commitment", "xyz"], "'xyz' is not a commitment"),
    ],
)
def test_cli_verify_bad_input_is_one_line_and_exit_2(
    files: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    words: str,
) -> None:
    named = {**files, "missing": str(tmp_path / "missing.json")}
    args = [named.get(arg, arg) for arg in args]
    assert cli.main(["challenge", "verify", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_cli_verify_without_a_record_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["challenge", "verify", "2026-12-04", SEED])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "RECORD" in err and len(err.strip().splitlines()) == 1


def test_a_record_without_deals_proves_nothing(record: Record) -> None:
    empty = altered(record, lambda data: data.update(deals=[], unfinished=True))
    with pytest.raises(ChallengeError, match="no deal"):
        challenge.verify(DAY, SEED, empty)
