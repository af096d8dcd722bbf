"""Game records: the JSON form of a match, read, written, and judged by replaying it.

Reading (:func:`loads`) checks only the shape: JSON, known keys, card texts, the rules. Judging
(:func:`check`) replays every call and card through the engine and reports the first action
the rules forbid, or the scores when there is none. The format is described in
``docs/record-format.md``.

>>> from callbreak.game import Match
>>> match = Match("classic", seed=1)
>>> record = Record.from_match(match)
>>> loads(dumps(record)) == record
True
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callbreak.cards import Card, parse_card
from callbreak.errors import (
    IllegalCallError,
    IllegalPlayError,
    InvalidCardError,
    InvalidRulesError,
    RecordError,
)
from callbreak.game import MIN_TOTAL_CALLS, SPADELESS, THROWN_IN_REASONS, Deal, Match, Phase
from callbreak.rules import Rules, format_tenths, match_over, next_dealer, places

__all__ = [
    "CheckResult",
    "DealRecord",
    "Record",
    "RuleBreak",
    "Takeover",
    "check",
    "dumps",
    "loads",
]

FORMAT = "callbreak-record"
VERSION = 1
MAX_RECORD_BYTES = 64_000_000  # a 1000-deal record is about 1 MB; anything far larger is not one

OTHER_FORMATS = {
    "callbreak-scoresheet": (
        "a scoresheet (the Scoresheet page's JSON download), not a game record: it holds each "
        "deal's calls and tricks but no cards, so there is no play to check"
    ),
    "callbreak-tokens": (
        "a history file (the History page's export, or callbreak adopt's), not a game record: it "
        "holds the keys to matches, not their play"
    ),
}
"""The app's other JSON files, each with what reading one as a game record says: what it is."""
_TOP_KEYS = {
    "format",
    "version",
    "rules",
    "players",
    "deals",
    "seed",
    "unfinished",
    "takeovers",
    "meta",
}
_TAKEOVER_KEYS = {"seat", "deal", "player"}
_DEAL_KEYS = {"dealer", "hands", "calls", "tricks", "thrown_in", "faults"}


@dataclasses.dataclass(frozen=True)
class DealRecord:
    """One deal as recorded: everything is indexed by seat, tricks list cards in play order."""

    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    calls: tuple[int | None, ...] = (None, None, None, None)
    tricks: tuple[tuple[Card, ...], ...] = ()
    thrown_in: str | None = None
    faults: tuple[Mapping[str, Any], ...] = ()
    """Notes from a host about remote players' faults; kept, not judged."""

    def deal_after_calls(self, rules: Rules) -> Deal:
        """The deal as dealt with its recorded calls made, in calling order (the dealer's next
        seat first, whatever seat that is: ``calls`` is by seat): for a played deal, ready for
        the first card of its tricks; a deal thrown in comes back thrown in, and the last deal
        of an unfinished record as far as its calls go. Calls the rules refuse raise the game's
        ``IllegalCallError``; ``check`` is the place that explains a broken record."""
        deal = Deal(self.hands, self.dealer, rules)
        while deal.phase is Phase.CALLING:
            seat = deal.turn
            assert seat is not None  # a deal in its calling always has a seat to call
            call = self.calls[seat]
            if call is None:
                if self.thrown_in == SPADELESS:
                    deal.claim_redeal()
                break
            deal.call(call)
        return deal


@dataclasses.dataclass(frozen=True)
class Takeover:
    """A seat played by someone else from a deal on: a person who took over a computer's
    seat at a table of strangers (the seat's score so far stays the seat's)."""

    seat: int
    deal: int
    """The deal's position in the record, from 1 (thrown-in deals counted): the first deal
    ``player`` played."""
    player: str


@dataclasses.dataclass(frozen=True)
class Record:
    """A whole match as recorded."""

    rules: str | Mapping[str, Any]
    """The rules exactly as written in the record: a profile, the one-string form or fields."""
    players: tuple[str, ...]
    deals: tuple[DealRecord, ...]
    seed: int | str | None = None
    unfinished: bool = False
    """The match stopped before its end: a short last deal or too few deals are allowed."""
    meta: Mapping[str, Any] | None = None
    """Free-form information (date, place, event); kept, not judged."""
    takeovers: tuple[Takeover, ...] = ()
    """Seats played by someone else from a deal on; ``players`` names who played each seat
    first."""

    def players_in(self, deal: int) -> tuple[str, ...]:
        """Who played each seat in the deal at position ``deal`` (from 1)."""
        players = list(self.players)
        for takeover in self.takeovers:
            if takeover.deal <= deal:
                players[takeover.seat] = takeover.player
        return tuple(players)

    def parsed_rules(self) -> Rules:
        """The rules as a :class:`Rules` value."""
        return Rules.load(self.rules)

    @classmethod
    def from_match(
        cls,
        match: Match,
        faults: Mapping[int, Sequence[Mapping[str, Any]]] | None = None,
        takeovers: Sequence[Takeover] = (),
    ) -> Record:
        """The record of a match as far as it has been played, with a host's notes of remote
        players' ``faults`` by deal index and the seats taken over (those of deals dealt)."""
        faults = faults or {}
        deals = tuple(
            dataclasses.replace(_deal_record(deal), faults=tuple(faults.get(index, ())))
            for index, deal in enumerate(match.deals)
        )
        return cls(
            rules=str(match.rules),
            players=match.players,
            deals=deals,
            seed=match.seed,
            unfinished=not match.is_over,
            takeovers=tuple(t for t in takeovers if t.deal <= len(deals)),
        )


def _deal_record(deal: Deal) -> DealRecord:
    return DealRecord(
        dealer=deal.dealer,
        hands=tuple(tuple(hand) for hand in deal.hands),
        calls=tuple(deal.calls),
        tricks=tuple(trick.cards for trick in deal.tricks)
        + ((deal.trick.cards,) if deal.trick.cards else ()),
        thrown_in=deal.thrown_in,
    )


# --- reading --------------------------------------------------------------------------------


def loads(text: str | bytes) -> Record:
    """Read a record from JSON text; raises RecordError saying what is wrong and where."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RecordError(f"not JSON: {error}") from None
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except ValueError as error:  # such as an integer of thousands of digits
        raise RecordError(f"not readable JSON: {error}") from None
    return from_data(data)


def load(path: str) -> Record:
    """Read a record from a file."""
    try:
        with open(path, "rb") as file:
            text = file.read(MAX_RECORD_BYTES + 1)
    except OSError as error:
        raise RecordError(f"cannot read the file: {error.strerror or error}") from None
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"the file is larger than {MAX_RECORD_BYTES // 1_000_000} MB")
    return loads(text)


def from_data(data: object) -> Record:
    """Read a record from decoded JSON data."""
    top = _object(data, "the record")
    other = top.get("format")
    if isinstance(other, str) and other in OTHER_FORMATS:
        raise RecordError(f"this is {OTHER_FORMATS[other]}")
    _known_keys(top, _TOP_KEYS, "the record")
    if top.get("format") != FORMAT:
        raise RecordError(f'"format" must be "{FORMAT}", not {top.get("format")!r}')
    if type(top.get("version")) is not int or top.get("version") != VERSION:
        raise RecordError(f'"version" must be {VERSION}, not {top.get("version")!r}')
    rules = _required(top, "rules", "the record")
    if not isinstance(rules, (str, dict)):
        raise RecordError(f'"rules" must be a profile text or an object, not {rules!r}')
    try:
        Rules.load(rules)
    except InvalidRulesError as error:
        raise RecordError(f'"rules": {error}') from None
    players = _list(_required(top, "players", "the record"), '"players"')
    if len(players) != 4 or not all(isinstance(name, str) for name in players):
        raise RecordError(f'"players" must be 4 names, not {players!r}')
    seed = top.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        raise RecordError(f'"seed" must be a number or text, not {seed!r}')
    unfinished = top.get("unfinished", False)
    if not isinstance(unfinished, bool):
        raise RecordError(f'"unfinished" must be true or false, not {unfinished!r}')
    meta = top.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise RecordError(f'"meta" must be an object, not {meta!r}')
    raw_deals = _list(_required(top, "deals", "the record"), '"deals"')
    deals = tuple(_read_deal(raw, number) for number, raw in enumerate(raw_deals, 1))
    takeovers = _read_takeovers(top.get("takeovers", []), len(deals))
    return Record(rules, tuple(players), deals, seed, unfinished, meta, takeovers)


def _read_takeovers(raw: object, deals: int) -> tuple[Takeover, ...]:
    items = _list(raw, '"takeovers"')
    takeovers: list[Takeover] = []
    for number, item in enumerate(items, 1):
        where = f"takeover {number}"
        entry = _object(item, where)
        _known_keys(entry, _TAKEOVER_KEYS, where)
        seat, deal = _required(entry, "seat", where), _required(entry, "deal", where)
        player = _required(entry, "player", where)
        if type(seat) is not int or seat not in range(4):
            raise RecordError(f'{where}: "seat" must be a seat 0-3, not {seat!r}')
        if type(deal) is not int or not 2 <= deal <= max(deals, 1):
            raise RecordError(f'{where}: "deal" must be a deal of the record from 2, not {deal!r}')
        if not isinstance(player, str):
            raise RecordError(f'{where}: "player" must be a name, not {player!r}')
        if takeovers and (deal, seat) <= (takeovers[-1].deal, takeovers[-1].seat):
            raise RecordError(f"{where}: takeovers are listed by deal, then seat, each once")
        takeovers.append(Takeover(seat, deal, player))
    return tuple(takeovers)


def _read_deal(raw: object, number: int) -> DealRecord:
    where = f"deal {number}"
    deal = _object(raw, where)
    _known_keys(deal, _DEAL_KEYS, where)
    dealer = _required(deal, "dealer", where)
    if type(dealer) is not int or dealer not in range(4):
        raise RecordError(f'{where}: "dealer" must be a seat 0-3, not {dealer!r}')
    hands_raw = _list(_required(deal, "hands", where), f'{where}: "hands"')
    if len(hands_raw) != 4:
        raise RecordError(f'{where}: "hands" must list 4 hands, not {len(hands_raw)}')
    hands = tuple(
        _cards(hand, f'{where}: "hands" of seat {seat}') for seat, hand in enumerate(hands_raw)
    )
    calls_raw = _list(deal.get("calls", [None] * 4), f'{where}: "calls"')
    if len(calls_raw) != 4:
        raise RecordError(f'{where}: "calls" must have 4 entries, one per seat')
    for call in calls_raw:
        if call is not None and type(call) is not int:
            raise RecordError(f"{where}: a call must be a whole number or null, not {call!r}")
    tricks_raw = _list(deal.get("tricks", []), f'{where}: "tricks"')
    tricks = tuple(
        _cards(trick, f"{where}, trick {index}") for index, trick in enumerate(tricks_raw, 1)
    )
    thrown_in = deal.get("thrown_in")
    if thrown_in is not None and thrown_in not in THROWN_IN_REASONS:
        reasons = ", ".join(THROWN_IN_REASONS)
        raise RecordError(f'{where}: "thrown_in" must be one of {reasons}, not {thrown_in!r}')
    faults = _list(deal.get("faults", []), f'{where}: "faults"')
    if not all(isinstance(fault, dict) for fault in faults):
        raise RecordError(f'{where}: "faults" must be a list of objects')
    return DealRecord(dealer, hands, tuple(calls_raw), tricks, thrown_in, tuple(faults))


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{where} must be a JSON object, not {type(value).__name__}")
    return value


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list, not {value!r}")
    return value


def _required(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise RecordError(f'{where} has no "{key}"')
    return data[key]


def _known_keys(data: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise RecordError(
            f"{where} has unknown key {unknown[0]!r}: keys are {', '.join(sorted(known))}"
        )


def _cards(value: object, where: str) -> tuple[Card, ...]:
    items = _list(value, where)
    try:
        return tuple(parse_card(item) for item in items)
    except InvalidCardError as error:
        raise RecordError(f"{where}: {error}") from None


# --- writing --------------------------------------------------------------------------------


def to_data(record: Record) -> dict[str, Any]:
    """The record as plain JSON data, keys in the documented order."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": record.rules}
    data["players"] = list(record.players)
    if record.seed is not None:
        data["seed"] = record.seed
    if record.unfinished:
        data["unfinished"] = True
    if record.meta is not None:
        data["meta"] = record.meta
    if record.takeovers:
        data["takeovers"] = [dataclasses.asdict(takeover) for takeover in record.takeovers]
    data["deals"] = [_deal_data(deal) for deal in record.deals]
    return data


def _deal_data(deal: DealRecord) -> dict[str, Any]:
    data: dict[str, Any] = {
        "dealer": deal.dealer,
        "hands": [[str(card) for card in hand] for hand in deal.hands],
        "calls": list(deal.calls),
    }
    if deal.thrown_in is not None:
        data["thrown_in"] = deal.thrown_in
    if deal.tricks or deal.thrown_in is None:
        data["tricks"] = [[str(card) for card in trick] for trick in deal.tricks]
    if deal.faults:
        data["faults"] = list(deal.faults)
    return data


def dumps(record: Record) -> str:
    """The record as JSON text: one line per hand and per trick, ending in a newline."""
    return _format(to_data(record), 0) + "\n"


def _format(value: Any, depth: int) -> str:
    # Lists of scalars (a hand, a trick, the calls) stay on one line; everything else nests.
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value and depth < 3:
        items = [f"{inner}{json.dumps(k)}: {_format(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        items = [inner + _format(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


# --- judging --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RuleBreak:
    """The first action in a record that the rules forbid."""

    deal: int
    """The deal's position in the record, from 1 (thrown-in deals count)."""
    trick: int | None
    """The trick, from 1; None for breaks outside play (calls, hands, dealer)."""
    seat: int | None
    message: str
    card: Card | None = None
    call: int | None = None
    legal: tuple[Card | int, ...] = ()
    about_call: bool = False
    """The break is in the calling (a call, a missing call, a redeal claim): the JSON object
    then has "call" instead of "card"."""

    @property
    def is_call(self) -> bool:
        """Whether the break is in the calling, so that ``legal`` lists calls, not cards."""
        return self.about_call or self.call is not None

    def legal_texts(self, pretty: bool = False) -> list[str]:
        """``legal`` as texts: calls as numbers, cards canonical (``AS``) or ``pretty`` (A♠)."""
        if self.is_call:
            return [str(item) for item in self.legal]
        return [Card(item).pretty() if pretty else str(Card(item)) for item in self.legal]

    def to_json(self) -> dict[str, Any]:
        """The JSON object `callbreak check --json` prints for this break."""
        data: dict[str, Any] = {"deal": self.deal, "trick": self.trick, "seat": self.seat}
        if self.is_call:
            data["call"] = self.call
        else:
            data["card"] = None if self.card is None else str(self.card)
        data["message"] = self.message
        data["legal"] = list(self.legal) if self.is_call else self.legal_texts()
        return data


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """The verdict on a record: its scores, or the first rule it breaks."""

    record: Record
    rules: Rules
    deals: tuple[Deal, ...]
    """The deals as replayed, up to the break (a broken deal is left where it broke)."""
    error: RuleBreak | None = None
    finished: bool = True
    """Whether the match was played to its end (False for a record marked unfinished)."""

    @property
    def valid(self) -> bool:
        """Whether the record breaks no rule."""
        return self.error is None

    @property
    def deal_scores(self) -> list[list[int]]:
        """Scores in tenths, by seat, of each played deal in order (thrown-in deals have none)."""
        return [deal.scores() for deal in self.deals if deal.phase is Phase.OVER]

    @property
    def totals(self) -> list[int]:
        """Total scores in tenths by seat."""
        return [sum(scores) for scores in zip(*self.deal_scores, strict=True)] or [0, 0, 0, 0]

    @property
    def places(self) -> list[int]:
        """Places by seat; equal totals share; made calls of 8+ under eight_wins share first."""
        played = [deal for deal in self.deals if deal.phase is Phase.OVER]
        return places(self.totals, played[-1].eight_winners() if played else ())

    def to_json(self) -> dict[str, Any]:
        """The JSON object `callbreak check --json` prints."""
        if self.error is not None:
            return {"valid": False, "error": self.error.to_json()}
        data: dict[str, Any] = {
            "valid": True,
            "totals": [format_tenths(t) for t in self.totals],
            "places": self.places,
            "deal_scores": [[format_tenths(t) for t in row] for row in self.deal_scores],
        }
        if not self.finished:
            data["unfinished"] = True
        return data


class _Break(Exception):
    def __init__(self, rule_break: RuleBreak) -> None:
        self.rule_break = rule_break


def check(record: Record) -> CheckResult:
    """Replay ``record`` under its rules; report the first rule broken, or the scores."""
    rules = record.parsed_rules()
    deals: list[Deal] = []
    try:
        finished = _replay(record, rules, deals)
    except _Break as stop:
        return CheckResult(record, rules, tuple(deals), stop.rule_break)
    return CheckResult(record, rules, tuple(deals), finished=finished)


Fail = Callable[..., _Break]


def _failer(number: int) -> Fail:
    """A maker of rule breaks in deal ``number``; trick and seat default to None."""

    def fail(message: str, **where: Any) -> _Break:
        fields: dict[str, Any] = {"trick": None, "seat": None} | where
        return _Break(RuleBreak(deal=number, message=message, **fields))

    return fail


def _replay(record: Record, rules: Rules, deals: list[Deal]) -> bool:
    """Replay every deal into ``deals``; raise _Break at the first break; say if finished."""
    played = 0
    for index, deal_record in enumerate(record.deals):
        number = index + 1
        last = index == len(record.deals) - 1

        fail = _failer(number)

        if deals:
            previous = deals[-1]
            if previous.phase is Phase.OVER and match_over(
                played, rules.deals or 0, bool(previous.eight_winners())
            ):
                raise fail(f"the match was over after deal {index}, yet deal {number} follows")
            expected = next_dealer(previous.dealer, bool(previous.thrown_in))
            if deal_record.dealer != expected:
                why = (
                    "the same dealer deals again after a thrown-in deal"
                    if previous.thrown_in
                    else "the deal passes to the next seat"
                )
                raise fail(
                    f"deal {number} is dealt by seat {deal_record.dealer}, "
                    f"but {why}: seat {expected}",
                    seat=deal_record.dealer,
                )
        _check_hands(deal_record, fail)
        deal = Deal(deal_record.hands, deal_record.dealer, rules)
        deals.append(deal)
        _replay_calls(deal, deal_record, last and record.unfinished, fail)
        _replay_tricks(deal, deal_record, last and record.unfinished, fail)
        if deal.phase is Phase.OVER:
            played += 1

    if rules.deals is None:  # open-ended: the table may stop after any complete deal
        finished = played >= 1 and deals[-1].is_over
    else:
        finished = match_over(played, rules.deals, bool(deals and deals[-1].eight_winners()))
    if not finished and not record.unfinished:
        wanted = "at least one deal" if rules.deals is None else f"{rules.deals} deals"
        message = (
            f"the match stops after {played} played deal{'' if played == 1 else 's'}, "
            f'but it lasts {wanted} (mark a match stopped early with "unfinished": true)'
        )
        raise _failer(len(record.deals) + 1)(message)
    return finished


def _check_hands(deal_record: DealRecord, fail: Fail) -> None:
    dealt_to: dict[Card, int] = {}
    for seat, hand in enumerate(deal_record.hands):
        for card in hand:
            if card in dealt_to:
                first = dealt_to[card]
                owners = f"seat {seat}" if first == seat else f"seats {first} and {seat}"
                message = f"the {card.pretty()} is dealt twice, to {owners}"
                raise fail(f"the hands are not 52 distinct cards: {message}", seat=seat, card=card)
            dealt_to[card] = seat
    for seat, hand in enumerate(deal_record.hands):
        if len(hand) != 13:
            message = f"seat {seat} is dealt {len(hand)} cards, not 13"
            raise fail(f"the hands are not 52 distinct cards: {message}", seat=seat)


def _replay_calls(deal: Deal, deal_record: DealRecord, may_stop: bool, fail: Fail) -> None:
    for offset in range(4):
        seat = (deal.dealer + 1 + offset) % 4
        value = deal_record.calls[seat]
        if value is None:
            if deal_record.thrown_in == SPADELESS:
                try:
                    deal.claim_redeal()
                except IllegalCallError as error:
                    message = f"seat {seat} claims a redeal, but {error.reason}"
                    raise fail(message, seat=seat, about_call=True, legal=error.legal) from None
            elif not may_stop:
                legal = tuple(deal.legal_calls())
                raise fail(f"seat {seat} has no call", seat=seat, about_call=True, legal=legal)
            later = [(deal.dealer + 1 + k) % 4 for k in range(offset + 1, 4)]
            for other in later:
                if deal_record.calls[other] is not None:
                    raise fail(
                        f"seat {other} has a call, but seat {seat} before it did not call",
                        seat=other,
                        call=deal_record.calls[other],
                    )
            break
        try:
            deal.call(value)
        except IllegalCallError as error:
            raise fail(error.reason, seat=seat, call=value, legal=error.legal) from None
    thrown_in = deal.thrown_in
    if deal_record.thrown_in == SPADELESS and thrown_in != SPADELESS:
        raise fail("the deal is marked thrown in for a spadeless hand, but every seat called")
    if deal_record.thrown_in == MIN_TOTAL_CALLS and thrown_in != MIN_TOTAL_CALLS:
        total = sum(deal.called())
        raise fail(
            f"the deal is marked thrown in for low calls, but the calls total {total}"
            + (
                f", not under {deal.rules.min_total_calls}"
                if deal.rules.min_total_calls
                else ", and these rules never throw a deal in for that"
            )
        )
    if thrown_in == MIN_TOTAL_CALLS and deal_record.thrown_in != MIN_TOTAL_CALLS:
        raise fail(
            f"the calls total {sum(deal.called())}, under {deal.rules.min_total_calls}: "
            f"the deal must be thrown in and dealt again"
        )
    if thrown_in and deal_record.tricks:
        raise fail(f"the deal was thrown in ({thrown_in}), yet tricks were played", trick=1)


def _replay_tricks(deal: Deal, deal_record: DealRecord, may_stop: bool, fail: Fail) -> None:
    if deal.thrown_in:
        return
    tricks = deal_record.tricks
    if tricks and deal.phase is Phase.CALLING:
        raise fail("tricks were played before every seat called", trick=1)
    for number, cards in enumerate(tricks, 1):
        if number > 13:
            raise fail(f"a deal has 13 tricks, but this one lists {len(tricks)}", trick=number)
        for position, card in enumerate(cards):
            if position == 4:
                message = f"trick {number} lists {len(cards)} cards, not 4"
                raise fail(message, trick=number, card=card)
            seat = deal.turn
            try:
                deal.play(card)
            except IllegalPlayError as error:
                raise fail(
                    error.reason, trick=number, seat=seat, card=card, legal=error.legal
                ) from None
        if len(cards) < 4 and not (may_stop and number == len(tricks)):
            message = f"trick {number} lists {len(cards)} cards: seat {deal.turn} has not played"
            raise fail(message, trick=number, seat=deal.turn)
    if deal.phase is not Phase.OVER and not may_stop:
        complete = len(deal.tricks)
        raise fail(f"the deal stops after {complete} tricks; a deal has 13", trick=complete + 1)
