"""The rules of Call Break: named profiles, legality with reasons, trick winner, scoring.

Every rule that differs between the source documents is a field of :class:`Rules`; the named
profiles fix those fields, and a one-string form changes some of them:

>>> Rules.parse("classic(deals=10, min_total_calls=10)").deals
10
>>> str(Rules.parse("pagat"))
'pagat'
>>> format_tenths(score_deal(STRICT, call=3, tricks=5))
'3.2'

Legality is computed on plain integer card masks (see :mod:`callbreak.cards`) as a short list
of narrowing *duties*. Each duty keeps a subset of the cards the previous one allowed, so the
first duty that drops a card is the reason that card is illegal.

Every rule is written once, as a function of plain integers (:func:`duty_steps` and
:func:`legal_mask`, :func:`trick_step`, :func:`deal_score`, :func:`next_dealer`,
:func:`calls_thrown_in`, :func:`wins_outright`, :func:`match_over`). The engine
(:mod:`callbreak.game`), the record check, the scoresheet and the learning environments wrap
them with reasons and state; the compiled kernel (:mod:`callbreak.players.kernel`) compiles the
very same functions into its loops, so they stay plain arithmetic on ints (no objects, no
calls to anything but each other). The kernel's cache is keyed on this file's text too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from callbreak.cards import FULL_MASK, SPADE_MASK, Card, CardSet, Suit
from callbreak.errors import InvalidRulesError, SpecError
from callbreak.spec import format_spec, parse_spec

__all__ = [
    "BHOOS",
    "CLASSIC",
    "DUTY_TEXTS",
    "EIGHT",
    "ONLINE",
    "PAGAT",
    "PROFILES",
    "STRICT",
    "Duty",
    "Rules",
    "above",
    "calls_thrown_in",
    "deal_score",
    "duties",
    "duty_steps",
    "format_tenths",
    "legal_cards",
    "legal_mask",
    "made",
    "made_call",
    "match_over",
    "may_claim_spadeless",
    "next_dealer",
    "outright_winners",
    "places",
    "score_deal",
    "trick_state",
    "trick_step",
    "trick_winner",
    "wins_outright",
]


@dataclasses.dataclass(frozen=True)
class Rules:
    """One complete set of rules. Build it from a profile: ``Rules.parse("online")``."""

    profile: str = "strict"
    """The named profile these rules start from; it names them in records and menus."""
    min_call: int = 2
    max_call: int = 13
    no_spade_first_lead: bool = True
    """The first lead of a deal may be a spade only when the leader holds nothing else."""
    free_following: bool = False
    """Holding the led suit, any card of it may be played (no duty to beat)."""
    forced_low_spade: bool = True
    """Void in the led suit with only spades lower than the trick's: a spade must still go."""
    exact_scoring: bool = False
    """A call is made only with exactly the call or one more trick; no overtrick tenths."""
    bonus_call: int | None = None
    """Calls of at least this many tricks score ``bonus_score`` when made (None: no bonus)."""
    bonus_score: int = 13
    min_total_calls: int = 0
    """When the four calls total less, the deal is thrown in and redealt (0: never)."""
    spadeless_redeal: bool = False
    """A player dealt no spade may claim a new deal, in place of calling."""
    eight_wins: bool = False
    """A player who calls 8 or more and makes it wins the match at once."""
    deals: int | None = 5
    """Played deals per match; None for an open-ended match that stops when the table agrees."""
    clockwise: bool = False
    """Presentation only: the table is drawn and named clockwise. Play order never changes."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            _check_type(field.name, getattr(self, field.name))
        if self.profile not in _PROFILE_NAMES:
            raise InvalidRulesError(f"unknown profile {self.profile!r}: {_known_profiles()}")
        if not 1 <= self.min_call <= self.max_call <= 13:
            raise InvalidRulesError(
                f"calls must satisfy 1 <= min_call <= max_call <= 13, "
                f"not min_call={self.min_call}, max_call={self.max_call}"
            )
        if self.bonus_call is not None and not 1 <= self.bonus_call <= 13:
            raise InvalidRulesError(f"bonus_call must be 1-13 or none, not {self.bonus_call}")
        if not 0 <= self.bonus_score <= 1000:
            raise InvalidRulesError(f"bonus_score must be 0-1000, not {self.bonus_score}")
        if not 0 <= self.min_total_calls <= 52:
            raise InvalidRulesError(f"min_total_calls must be 0-52, not {self.min_total_calls}")
        if self.min_total_calls > 4 * self.max_call:
            raise InvalidRulesError(
                f"min_total_calls={self.min_total_calls} can never be reached "
                f"with max_call={self.max_call}"
            )
        if self.deals is not None and not 1 <= self.deals <= 1000:
            raise InvalidRulesError(f"deals must be 1-1000 or open, not {self.deals}")

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read a profile name, optionally with changed fields: ``classic(deals=10)``."""
        try:
            example = "'classic' or 'classic(deals=10, min_total_calls=10)'"
            name, changes = parse_spec(text, "rules", example)
        except SpecError as error:
            raise InvalidRulesError(str(error)) from None
        base = profile(name)
        return base.replace(**_with_companions(base, changes))

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> Rules:
        """Read the object form used in records: ``{"profile": "classic", "deals": 10}``."""
        if not isinstance(fields, Mapping):
            raise InvalidRulesError(f"rules fields must be an object, not {fields!r}")
        changes = dict(fields)
        base = profile(changes.pop("profile", "strict"))
        return base.replace(**_with_companions(base, changes))

    @classmethod
    def load(cls, value: str | Mapping[str, Any] | Rules) -> Rules:
        """Read rules in any accepted form: a Rules value, the one-string form, or fields."""
        if isinstance(value, Rules):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        return cls.from_fields(value)

    def replace(self, **changes: object) -> Rules:
        """A copy with exactly these fields changed; unknown fields are an error."""
        known = {field.name for field in dataclasses.fields(self)}
        for key in changes:
            if key not in known:
                raise InvalidRulesError(
                    f"unknown rules option {key!r}: options are {', '.join(sorted(known))}"
                )
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def changes(self) -> dict[str, object]:
        """The fields that differ from the named profile, as the one-string form needs them.

        When ``exact_scoring`` differs, its companions are always written out, so that reading
        the text back does not add the companions the text form brings (see ``parse``).
        """
        base = PROFILES[self.profile]
        exact_changed = self.exact_scoring != base.exact_scoring
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != getattr(base, field.name)
            or (exact_changed and field.name in _EXACT_COMPANIONS)
        }

    def __str__(self) -> str:
        return format_spec(self.profile, self.changes())

    @property
    def flags(self) -> int:
        """The legality switches packed into the int :func:`legal_mask` reads."""
        return (
            NO_SPADE_FIRST_LEAD * self.no_spade_first_lead
            | FREE_FOLLOWING * self.free_following
            | FORCED_LOW_SPADE * self.forced_low_spade
        )

    @property
    def scoring(self) -> tuple[int, int, int]:
        """The scoring switches as :func:`deal_score` reads them:
        ``(exact, bonus_call or 0, bonus_score)``."""
        return int(self.exact_scoring), self.bonus_call or 0, self.bonus_score

    def call_range(self) -> range:
        """The calls a player may make."""
        return range(self.min_call, self.max_call + 1)

    def summary(self) -> str:
        """One line on how these rules play, for menus and reports."""
        parts = [f"calls {self.min_call}-{self.max_call}"]
        if self.no_spade_first_lead:
            parts.append("no spade on the first lead")
        parts.append("free following" if self.free_following else "must beat")
        parts.append("must trump and overtrump")
        parts.append("a lower spade is forced" if self.forced_low_spade else "free discard")
        if self.exact_scoring:
            parts.append("made only with the call or one more")
        else:
            parts.append("0.1 per overtrick")
        if self.bonus_call is not None:
            parts.append(f"calls of {self.bonus_call}+ score {self.bonus_score}")
        if self.min_total_calls:
            parts.append(f"redeal when calls total under {self.min_total_calls}")
        if self.spadeless_redeal:
            parts.append("a spadeless hand may ask for a redeal")
        if self.eight_wins:
            parts.append("a made call of 8+ wins")
        parts.append(f"{self.deals} deals" if self.deals else "open-ended")
        return ", ".join(parts)


def _check_type(name: str, value: object) -> None:
    expected = _TYPES[name]
    # bool is an int in Python; a call range of True would be nonsense, so keep them apart.
    if (isinstance(value, bool) and bool not in expected) or not isinstance(value, expected):
        names = " or ".join("none" if t is type(None) else t.__name__ for t in expected)
        raise InvalidRulesError(f"rules option {name} must be {names}, not {value!r}")


_EXACT_COMPANIONS = ("min_call", "bonus_call", "bonus_score")


def _with_companions(base: Rules, changes: dict[str, object]) -> dict[str, object]:
    """Changes as a player means them: exact scoring comes with its companions.

    The sources describe exact scoring as one variant: made with the call or one more, lowest
    call 2, calls of 8 or more scoring 13. Switching it on in the text or field form brings
    those companions, and switching it off drops the bonus, unless the same change sets them.
    ``Rules.replace`` changes exactly the fields it is given.
    """
    exact = changes.get("exact_scoring")
    if exact is True and not base.exact_scoring:
        companions: dict[str, object] = {"bonus_call": 8, "bonus_score": 13}
        if base.min_call < 2:
            companions["min_call"] = 2
        return companions | changes
    if exact is False and base.exact_scoring:
        return {"bonus_call": None} | changes
    return changes


_PROFILE_NAMES = ("strict", "classic", "online", "pagat", "bhoos")
# The type each option takes; every option not listed is a yes/no switch.
_TYPES: dict[str, tuple[type, ...]] = {
    "profile": (str,),
    "min_call": (int,),
    "max_call": (int,),
    "bonus_call": (int, type(None)),
    "bonus_score": (int,),
    "min_total_calls": (int,),
    "deals": (int, type(None)),
}
for _field in dataclasses.fields(Rules):
    _TYPES.setdefault(_field.name, (bool,))


STRICT = Rules()
CLASSIC = Rules(profile="classic", min_call=1, no_spade_first_lead=False, forced_low_spade=False)
ONLINE = Rules(profile="online", min_call=1, forced_low_spade=False)
PAGAT = Rules(
    profile="pagat",
    no_spade_first_lead=False,
    free_following=True,
    forced_low_spade=False,
    exact_scoring=True,
    bonus_call=8,
    bonus_score=13,
    deals=None,
)
BHOOS = Rules(
    profile="bhoos", min_call=1, max_call=8, no_spade_first_lead=False, forced_low_spade=False
)

PROFILES: dict[str, Rules] = {
    rules.profile: rules for rules in (STRICT, CLASSIC, ONLINE, PAGAT, BHOOS)
}


def profile(name: str) -> Rules:
    """The named profile; unknown names are an error listing the known ones."""
    try:
        return PROFILES[name.strip().lower()]
    except (KeyError, AttributeError):
        raise InvalidRulesError(f"unknown profile {name!r}: {_known_profiles()}") from None


def _known_profiles() -> str:
    return "profiles are " + ", ".join(_PROFILE_NAMES)


# --- legality -------------------------------------------------------------------------------


DUTY_TEXTS: dict[str, str] = {
    "hold": "you may play only a card you hold",
    "no_spade_lead": "lead a non-spade to the first trick unless you hold only spades",
    "follow": "must follow suit, since {suit} were led",
    "beat_spade_lead": "must beat the {card} when spades are led",
    "beat": "must beat the {card} while {suit} are not trumped",
    "trump": "must trump, holding no {suit}",
    "overtrump": "must overtrump the {card}, holding no {suit} but a higher spade",
    "low_spade": "must still play a spade, holding no {suit} (no free discard while you hold a "
    "spade)",
}
"""Each duty's words in English, with the card to beat and the led suit as blanks. Front ends
in other languages word the same ``kind``, ``card`` and ``suit`` themselves."""


class Duty(NamedTuple):
    """One rule that narrows the cards a player may play, and the cards it leaves."""

    allowed: int
    """The mask of cards this duty still allows (a subset of the previous duty's)."""
    kind: str
    """Which duty: a key of ``DUTY_TEXTS``."""
    card: int = -1
    """The card to beat or overtrump (-1 for none)."""
    suit: int = -1
    """The suit led (-1 for none)."""

    @property
    def reason(self) -> str:
        """The duty in words: 'must beat the 10♥ while hearts are not trumped'."""
        card = Card(self.card).pretty() if self.card >= 0 else ""
        suit = Suit(self.suit).plural if self.suit >= 0 else ""
        return DUTY_TEXTS[self.kind].format(card=card, suit=suit)


# The legality switches of a profile, packed into one int (``Rules.flags``).
NO_SPADE_FIRST_LEAD = 1
FREE_FOLLOWING = 2
FORCED_LOW_SPADE = 4

# The duties as the integers :func:`duty_steps` returns: an index into DUTY_KINDS. HOLD, the
# hand itself, stands for a step that narrows nothing.
DUTY_KINDS = tuple(DUTY_TEXTS)
HOLD, NO_SPADE_LEAD, FOLLOW, BEAT_SPADE_LEAD, BEAT, TRUMP, OVERTRUMP, LOW_SPADE = range(8)

_NON_SPADES = FULL_MASK & ~SPADE_MASK


def above(card: int) -> int:
    """The mask of cards of the same suit ranked above ``card``."""
    return (0x1FFF << (13 * (card // 13))) & ~((2 << card) - 1)


def duty_steps(
    hand: int, led: int, high_led: int, high_spade: int, first: bool, flags: int
) -> tuple[int, int, int, int]:
    """The duties binding ``hand`` in a trick of state ``(led, high_led, high_spade)`` (see
    :func:`trick_step`), ``first`` in the deal's first trick, under legality ``flags``.

    Returns ``(kind, allowed, kind2, allowed2)``: at most two duties narrow the hand, each
    keeping a subset of what the one before allowed; a step that does not apply is ``HOLD``
    with the previous mask, so ``allowed2`` is always the legal cards. This is the one place
    legality is written: :func:`duties` words it, the kernel compiles it.
    """
    if led < 0:
        if first and flags & NO_SPADE_FIRST_LEAD and hand & _NON_SPADES:
            return NO_SPADE_LEAD, hand & _NON_SPADES, HOLD, hand & _NON_SPADES
        return HOLD, hand, HOLD, hand
    # Within one suit's mask, the cards above ``card`` are the bits above its own.
    follow = hand & (0x1FFF << (13 * led))
    if follow:
        if flags & FREE_FOLLOWING:
            return FOLLOW, follow, HOLD, follow
        if led == 0:
            higher = follow & ~((2 << high_spade) - 1)
            kind = BEAT_SPADE_LEAD
        elif high_spade < 0:
            higher = follow & ~((2 << high_led) - 1)
            kind = BEAT
        else:
            return FOLLOW, follow, HOLD, follow  # trumped: no card of the led suit can win
        if higher:
            return FOLLOW, follow, kind, higher
        return FOLLOW, follow, HOLD, follow
    spades = hand & SPADE_MASK
    if not spades:
        return HOLD, hand, HOLD, hand
    if high_spade < 0:
        return TRUMP, spades, HOLD, spades
    higher = spades & ~((2 << high_spade) - 1)
    if higher:
        return OVERTRUMP, higher, HOLD, higher
    if flags & FORCED_LOW_SPADE:
        return LOW_SPADE, spades, HOLD, spades
    return HOLD, hand, HOLD, hand


def legal_mask(hand: int, led: int, high_led: int, high_spade: int, first: bool, flags: int) -> int:
    """The mask of cards ``hand`` may play (the last step of :func:`duty_steps`)."""
    return duty_steps(hand, led, high_led, high_spade, first, flags)[3]


def duties(hand: int, trick: Sequence[int], first_trick: bool, rules: Rules) -> list[Duty]:
    """The duties that bind a player holding ``hand`` when ``trick`` has been played so far.

    The first entry allows the whole hand; each later entry narrows the previous one. The
    legal cards are the last entry's ``allowed``; an illegal card is forbidden by the first
    entry that no longer allows it.
    """
    led, high_led, high_spade, _ = trick_state(trick)
    kind, allowed, kind2, allowed2 = duty_steps(
        hand, led, high_led, high_spade, first_trick, rules.flags
    )
    steps = [Duty(hand, "hold")]
    for step, mask in ((kind, allowed), (kind2, allowed2)):
        if step == HOLD:
            continue
        card = high_led if step == BEAT else high_spade
        steps.append(
            Duty(
                mask,
                DUTY_KINDS[step],
                card if step in (BEAT, BEAT_SPADE_LEAD, OVERTRUMP, LOW_SPADE) else -1,
                -1 if step == NO_SPADE_LEAD else led,
            )
        )
    return steps


def legal_cards(hand: int, trick: Sequence[int], first_trick: bool, rules: Rules) -> int:
    """The mask of cards ``hand`` may play to ``trick`` (see :func:`duties`)."""
    led, high_led, high_spade, _ = trick_state(trick)
    return legal_mask(hand, led, high_led, high_spade, first_trick, rules.flags)


def describe_legal(mask: int) -> str:
    """The legal cards in words: 'J♥ or K♥', in rising order as a player would list them."""
    cards = sorted(CardSet(mask), key=lambda c: (c.suit, c.rank))
    texts = [card.pretty() for card in cards]
    if len(texts) <= 1:
        return "".join(texts) or "nothing"
    return ", ".join(texts[:-1]) + " or " + texts[-1]


def trick_step(
    led: int, high_led: int, high_spade: int, winner: int, card: int, seat: int
) -> tuple[int, int, int, int]:
    """The trick's state after ``seat`` plays ``card``: ``(led, high_led, high_spade, winner)``.

    ``led`` is the led suit, ``high_led`` the highest card of the led suit, ``high_spade`` the
    highest spade (-1 for none) and ``winner`` the seat taking the trick so far. Before the
    lead the state is ``(-1, -1, -1, leader)``. Once a spade is in, ``high_led`` stops
    following the led suit: nothing reads it then.

    This is the one place a trick's winner is worked out. The compiled kernel compiles this very
    function into its loops (see :mod:`callbreak.players.kernel`), so it must stay plain
    arithmetic on ints.

    >>> state = (-1, -1, -1, 2)  # seat 2 to lead
    >>> for seat, card in [(2, Card.TH), (3, Card.AH), (0, Card._3S), (1, Card.KH)]:
    ...     state = trick_step(*state, card, seat)
    >>> state[3]  # the 3♠ trumps the A♥
    0
    """
    if led < 0:
        led, high_led, winner = card // 13, card, seat
        if card < 13:
            high_spade = card
    elif card < 13:
        if card > high_spade:
            high_spade, winner = card, seat
    elif high_spade < 0 and card // 13 == led and card > high_led:
        high_led, winner = card, seat
    return led, high_led, high_spade, winner


def trick_winner(trick: Sequence[int]) -> int:
    """The position (0-3) in ``trick`` of the card that wins it.

    >>> trick_winner([Card.TH, Card.AH, Card._3S, Card.KH])
    2
    """
    return trick_state(trick)[3]


def trick_state(trick: Sequence[int], leader: int = 0) -> tuple[int, int, int, int]:
    """``(led, high_led, high_spade, winner)`` after the cards of ``trick`` led by ``leader``
    (see :func:`trick_step`)."""
    led, high_led, high_spade, winner = -1, -1, -1, leader
    for position, card in enumerate(trick):
        seat = (leader + position) & 3
        led, high_led, high_spade, winner = trick_step(
            led, high_led, high_spade, winner, card, seat
        )
    return led, high_led, high_spade, winner


# --- scoring --------------------------------------------------------------------------------


def made_call(call: int, tricks: int, exact: int) -> bool:
    """Whether taking ``tricks`` makes ``call``: at least the call, and under exact scoring
    at most one more."""
    return tricks >= call and (not exact or tricks <= call + 1)


def deal_score(call: int, tricks: int, exact: int, bonus_call: int, bonus_score: int) -> int:
    """One player's deal score in tenths under the scoring switches of ``Rules.scoring``
    (``bonus_call`` 0 for no bonus)."""
    if not made_call(call, tricks, exact):
        return -10 * call
    value = 10 * call
    if bonus_call > 0 and call >= bonus_call:
        value = 10 * bonus_score
    if not exact:
        value += tricks - call
    return value


def made(rules: Rules, call: int, tricks: int) -> bool:
    """Whether taking ``tricks`` makes ``call`` under ``rules`` (see :func:`made_call`)."""
    return made_call(call, tricks, rules.exact_scoring)


def score_deal(rules: Rules, call: int, tricks: int) -> int:
    """The score of one player's deal, in integer tenths of a point.

    >>> [score_deal(STRICT, 3, t) for t in (3, 5, 2)]
    [30, 32, -30]
    >>> [score_deal(PAGAT, 9, t) for t in (9, 10, 11)]
    [130, 130, -90]
    """
    return deal_score(call, tricks, *rules.scoring)


# --- the match --------------------------------------------------------------------------------

EIGHT = 8
"""Under ``eight_wins``, a made call of at least this many tricks wins the match at once."""


def calls_thrown_in(total_calls: int, min_total_calls: int) -> bool:
    """Whether four calls totalling ``total_calls`` throw the deal in (``min_total_calls``)."""
    return total_calls < min_total_calls


def may_claim_spadeless(dealt: int, spadeless_redeal: bool) -> bool:
    """Whether a player dealt the hand ``dealt`` may claim a new deal instead of calling."""
    return spadeless_redeal and not dealt & SPADE_MASK


def next_dealer(dealer: int, thrown_in: bool) -> int:
    """Who deals after ``dealer``: the same seat again after a thrown-in deal, else the next."""
    return dealer if thrown_in else (dealer + 1) % 4


def wins_outright(call: int, tricks: int, eight_wins: bool, exact: int) -> bool:
    """Whether a player who called ``call`` and took ``tricks`` wins the match at once."""
    return eight_wins and call >= EIGHT and made_call(call, tricks, exact)


def outright_winners(rules: Rules, calls: Sequence[int | None], won: Sequence[int]) -> list[int]:
    """The seats of a played deal that win the match at once (see :func:`wins_outright`)."""
    return [
        seat
        for seat, (call, tricks) in enumerate(zip(calls, won, strict=True))
        if call is not None and wins_outright(call, tricks, rules.eight_wins, rules.exact_scoring)
    ]


def match_over(played: int, deals: int, won_outright: bool) -> bool:
    """Whether a match is over after ``played`` played deals: it lasts ``deals`` of them (0 for
    an open-ended match, which the table stops) unless a player won outright in the last one."""
    return won_outright or (deals > 0 and played >= deals)


def format_tenths(tenths: int) -> str:
    """Integer tenths as points with one decimal: 32 → '3.2', -40 → '-4.0', -5 → '-0.5'."""
    sign = "-" if tenths < 0 else ""
    whole, tenth = divmod(abs(tenths), 10)
    return f"{sign}{whole}.{tenth}"


def places(totals: Sequence[int], winners: Sequence[int] = ()) -> list[int]:
    """Finishing places by total: exactly equal totals share a place.

    ``winners`` are seats that won outright (a made call of 8+ under ``eight_wins``): they
    share first place, and everyone else is placed after them by total.

    >>> places([91, 70, 70, 30])
    [1, 2, 2, 4]
    >>> places([91, 70, 70, 30], winners=[3])
    [2, 3, 3, 1]
    """
    keys = [(seat in winners, 0 if seat in winners else total) for seat, total in enumerate(totals)]
    return [1 + sum(other > key for other in keys) for key in keys]
