"""The daily challenge's commitment: the same deals for everyone, fixed before anyone plays.

A day (a UTC date) has one secret seed, made from the operator's secret and the day alone
(:func:`day_seed`, HMAC-SHA256), so that nothing needs storing and nobody without the secret
can tell a seed in advance. When the day opens the server publishes the seed's SHA-256
(:func:`commitment`); when it closes, the seed (:func:`published`). The day's match is
``Match(rules, seed=match_seed(day, seed))`` (:func:`new_match`): its deals follow from the
seed and the day, whoever plays them. After the day, anyone can check that a record's deals
are those deals (:func:`verify`, ``callbreak challenge verify DAY SEED RECORD``) and that
the seed is the one committed to (``printf %s SEED | sha256sum``). ``docs/public.md``.

>>> day = parse_day("2026-12-04")
>>> seed = day_seed(b"an operator's secret of 32 bytes!", day)
>>> len(seed), commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
(64, True)
>>> new_match(day, seed).deal.hands == new_match(day, seed).deal.hands
True
>>> published(b"an operator's secret of 32 bytes!", day, now=day_start(day)).seed is None
True
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import hmac
import re

from callbreak.errors import CallbreakError
from callbreak.game import Match
from callbreak.record import Record, check
from callbreak.rules import Rules

__all__ = [
    "RULES",
    "ChallengeError",
    "Published",
    "Verdict",
    "commitment",
    "day_seed",
    "day_start",
    "match_seed",
    "new_match",
    "parse_day",
    "parse_seed",
    "published",
    "verify",
]

RULES = "strict"
"""The challenge's rules unless the operator names others: five deals. A record carries its
rules, and :func:`verify` deals by them."""
MIN_SECRET_BYTES = 32
"""The operator's secret must be at least this long (256 bits), or seeds could be guessed."""
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_HEX = re.compile(r"[0-9a-f]{64}")


class ChallengeError(CallbreakError):
    """Input the challenge cannot use: a day, seed, commitment or secret not of its form, or a
    record that breaks the rules."""


def parse_day(text: str) -> datetime.date:
    """A day from its ``YYYY-MM-DD`` form (a UTC date)."""
    try:
        if not _DAY.fullmatch(text):
            raise ValueError(text)
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ChallengeError(f"{text!r} is not a day: write it as YYYY-MM-DD") from None


def parse_seed(text: str) -> str:
    """A day's seed as published: 64 hexadecimal digits (read in either case)."""
    seed = text.strip().lower()
    if not _HEX.fullmatch(seed):
        raise ChallengeError(f"{text!r} is not a day's seed: 64 hexadecimal digits")
    return seed


def day_seed(secret: bytes, day: datetime.date) -> str:
    """The day's seed: HMAC-SHA256 of the day (``YYYY-MM-DD``) under the operator's secret."""
    if len(secret) < MIN_SECRET_BYTES:
        raise ChallengeError(
            f"the challenge's secret has {len(secret)} bytes; it needs at least {MIN_SECRET_BYTES}"
        )
    return hmac.new(secret, day.isoformat().encode(), hashlib.sha256).hexdigest()


def commitment(seed: str) -> str:
    """What is published when the day opens: SHA-256 of the seed's text, in hexadecimal."""
    return hashlib.sha256(parse_seed(seed).encode()).hexdigest()


def match_seed(day: datetime.date, seed: str) -> str:
    """The seed of the day's match: the day is in it, so a seed cannot pass for another day's."""
    return f"challenge/{day.isoformat()}/{parse_seed(seed)}"


def new_match(day: datetime.date, seed: str, rules: str = RULES) -> Match:
    """The day's match, as everyone plays it: the same deals whoever holds the seats.

    Rules that can throw a deal in are refused: a deal thrown in is dealt again from the seed
    with other cards, so one person would play a deal that another, calling differently,
    never sees.
    """
    parsed = Rules.load(rules)
    if parsed.min_total_calls or parsed.spadeless_redeal:
        raise ChallengeError(
            f"the challenge cannot be played under {parsed}: those rules can throw a deal in "
            "and deal it again, and everyone must play the same deals"
        )
    return Match(parsed, seed=match_seed(day, seed))


def day_start(day: datetime.date) -> datetime.datetime:
    """When the day opens: its midnight, UTC."""
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)


@dataclasses.dataclass(frozen=True)
class Published:
    """What the server shows of a day: the commitment from its start, the seed after its end."""

    day: datetime.date
    commitment: str
    seed: str | None
    """None until the day has closed."""


def published(secret: bytes, day: datetime.date, now: datetime.datetime) -> Published:
    """What may be shown of ``day`` at ``now`` (an aware time): refused before the day opens."""
    if now < day_start(day):
        raise ChallengeError(f"the challenge of {day.isoformat()} has not opened yet")
    seed = day_seed(secret, day)
    closed = now >= day_start(day + datetime.timedelta(days=1))
    return Published(day, commitment(seed), seed if closed else None)


@dataclasses.dataclass(frozen=True)
class Verdict:
    """Whether a record's deals are a day's seed's deals, and in words why (or why not)."""

    ok: bool
    message: str
    deal: int | None = None
    """The first deal (from 1, thrown-in deals counted) that is not the seed's."""


def verify(
    day: datetime.date,
    seed: str,
    record: Record,
    committed: str | None = None,
    rules: str = RULES,
) -> Verdict:
    """Whether ``record``'s deals are the deals of ``day`` dealt from ``seed`` under the day's
    ``rules`` (and the seed's hash is ``committed``, the commitment published, when given).

    A record played under other rules is not the day's: rules that throw a deal in would deal
    that person cards nobody else saw, and another profile is another game.

    Every recorded deal, a thrown-in one included, is compared with the deal the day's match
    deals at that point, dealer and hands, the record's actions replayed in that match between
    deals. A record that breaks the rules raises :class:`ChallengeError` (its deals after the
    break cannot be placed), unless a deal before the break is already not the seed's.
    """
    seed = parse_seed(seed)
    if committed is not None:
        wanted = committed.strip().lower()
        if not _HEX.fullmatch(wanted):
            raise ChallengeError(f"{committed!r} is not a commitment: 64 hexadecimal digits")
        if commitment(seed) != wanted:
            return Verdict(False, f"the seed's SHA-256 is {commitment(seed)}, not {wanted}")
    if not record.deals:
        raise ChallengeError("the record has no deal: there is nothing to compare")
    checked = check(record)
    broken = checked.error
    wanted_rules = Rules.load(rules)
    if checked.rules != wanted_rules:
        message = (
            f"the record is played under {checked.rules}; {day.isoformat()}'s challenge is "
            f"played under {wanted_rules}"
        )
        return Verdict(False, message)
    match = Match(checked.rules, seed=match_seed(day, seed))
    for index, recorded in enumerate(record.deals):
        number = index + 1
        if broken is not None and broken.deal < number:
            break
        if match.is_over:
            break  # the record plays on after the match's end: check said so (broken)
        dealt = match.deal
        if dealt.dealer != recorded.dealer:
            message = (
                f"deal {number} is dealt by seat {recorded.dealer}; {day.isoformat()}'s seed "
                f"has seat {dealt.dealer} deal it"
            )
            return Verdict(False, message, number)
        for seat, hand in enumerate(recorded.hands):
            if set(hand) != set(dealt.hands[seat]):
                message = (
                    f"deal {number}: seat {seat}'s hand is not the one {day.isoformat()}'s "
                    "seed deals"
                )
                return Verdict(False, message, number)
        if broken is not None and broken.deal == number:
            break
        for action in checked.deals[index].actions:
            match.apply(action)
    if broken is not None:
        raise ChallengeError(f"the record breaks a rule in deal {broken.deal}: {broken.message}")
    played = len(record.deals)
    if played == 1:
        return Verdict(True, f"its 1 deal is the deal of {day.isoformat()}'s seed")
    return Verdict(True, f"all {played} deals are the deals of {day.isoformat()}'s seed")
