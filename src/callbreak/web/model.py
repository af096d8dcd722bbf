"""What a browser match or a room is, as stored: seats, settings, actions, and the lobby's rules.

Both a match against the computer and a room of friends are one :class:`TableData`: four
seats (a person, a computer, or open for a person to join), the rules and seed, the actions
taken (stored codes, :mod:`~callbreak.web.actions`) with the faults noted on them (a remote
bot's late answer, a person's turn played by the cover), and the turn clock's deadline. The
lobby changes (join, seat a computer, move, start, leave) are plain functions on it, so that
every backend applies them the same way and tests need no server.

>>> data = new_room("strict", "Asha", ["expert", None, None], seed="7")
>>> data.seats[1].kind, data.status
('computer', 'lobby')
>>> seat, token = join(data, "Bikash")
>>> seat, data.seats[2].name, data.seat_of(token), len(token) >= 43
(2, 'Bikash', 2, True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import secrets
import time
from typing import Any

from callbreak.cards import Card
from callbreak.errors import SpecError
from callbreak.names import check_name
from callbreak.players import MENU, level_options
from callbreak.refusals import Refusal
from callbreak.rules import Duty, Rules
from callbreak.seating import PlayerSpec, is_remote
from callbreak.spec import parse_spec

__all__ = [
    "CODE_ALPHABET",
    "Seat",
    "StaleAction",
    "Step",
    "TableData",
    "claim",
    "duty_json",
    "fill",
    "hash_token",
    "holds",
    "join",
    "leave",
    "move",
    "new_match",
    "new_room",
    "open_seat",
    "read_settings",
    "start",
    "take_over",
]

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""Room codes: no 0/O and no 1/I/L, which people mistake for each other."""
CODE_LENGTH = 6
TOKEN_BYTES = 32

MATCH, ROOM = "match", "room"
OPEN, PERSON, COMPUTER = "open", "person", "computer"
LOBBY, PLAYING, FINISHED, STOPPED, DAMAGED = "lobby", "playing", "finished", "stopped", "damaged"
"""A stored table's status (damaged: it cannot be replayed, which only a bug of ours can do)."""
STATUSES = (LOBBY, PLAYING, FINISHED, STOPPED)
"""The statuses a table is stored with."""
DEFAULT_TURN_SECONDS = 30
#: Seconds between two computer cards at each speed; a finished trick stays up a little longer.
SPEEDS = {"slow": 1.6, "normal": 0.9, "fast": 0.35, "instant": 0.0}
DEFAULT_COVER = "learned"
"""The level that plays for a person away or out of time unless the room chose another: the
learned player, the strongest for its cost (a fraction of a millisecond a decision;
docs/strength.md, *The learned player*)."""
SUMMARY_SECONDS = 30.0
"""After a deal is scored, how long the computers wait for the people at the table to close its
summary (the ``seen`` message) before the next deal's first decision; a person's turn clock for
that decision gets these seconds on top."""
OFFERED: dict[str, tuple[float, float] | None] = {
    "time": (0.01, 2.0),
    "threads": (1, 2),
    "seed": None,
}
"""The options a computer seat of the menu (``players.MENU``) may have where anyone can seat one
(a room's seats and cover, a match's opponents), with their bounds: a search of at most 2 s a
decision on at most 2 threads, so that nobody can take a core from everyone else."""
COMPUTER_NAMES = ("Bikash", "Chandra", "Dipa", "Esha", "Gopal", "Hari")
"""The computer players' names as stored and in game records; a page words the name at index N
in its own language (its catalogue's ``name.computer.N``: ``name_keys``). Never reordered: the
stored names of old tables are their keys."""
UNNAMED = "You"
"""The name of a person who gave none, in game records and wherever the server words it; they
are stored without a name, and a page words them in its own language (``name.you``)."""
DEFAULT_NAMES = frozenset({"You", "तपाईं", "आप"})
"""The names pages stored for a person who gave none before they stopped wording them: read as
no name."""


class StaleAction(Refusal):
    """An action made on a state of the table that has moved on since."""


@dataclasses.dataclass
class Seat:
    """One seat: a person (with a name and the hash of their token), a computer, or open."""

    kind: str
    name: str | None = None
    level: str | None = None
    """The computer's player spec."""
    token: str | None = None
    """The hash of the seat token (the token itself is never stored)."""
    left: bool = False
    """The person left for good: the cover plays the seat until it is given to someone."""
    since: int = 0
    """The deal (its index in the match, from 0, thrown-in deals counted) from which the
    person plays the seat: a computer's seat a person took over (public play) is the
    computer's before it, ``before`` its name and ``level`` its spec."""
    before: str | None = None
    """The name of the computer whose seat a person took over."""

    def to_json(self) -> dict[str, Any]:
        """The seat as stored (a seat nobody took over without the fields of a takeover)."""
        stored = dataclasses.asdict(self)
        if not self.since:
            del stored["since"], stored["before"]
        return stored

    def held_in(self, deal: int) -> Seat:
        """The seat as it was in the deal of index ``deal``: a seat taken over is its computer's
        before the person's first deal."""
        if deal >= self.since:
            return self
        return Seat(COMPUTER, self.before, self.level)


@dataclasses.dataclass(frozen=True)
class Step:
    """An action as the store keeps it: appended on ``version`` of the match (the number of
    actions before it), its code (``web.actions``), the faults noted on it, and the table's
    status and clock's next deadline once it is taken."""

    version: int
    code: str
    faults: list[dict[str, Any]]
    status: str
    deadline: float | None


@dataclasses.dataclass
class TableData:
    """A match or a room as stored."""

    id: str
    kind: str
    rules: str
    seed: str
    seats: list[Seat]
    settings: dict[str, Any]
    """speed, auto_forced, turn_seconds, cover."""
    status: str = PLAYING
    actions: list[str] = dataclasses.field(default_factory=list)
    faults: dict[int, list[dict[str, Any]]] = dataclasses.field(default_factory=dict)
    """Faults noted on the action at each index (a record's ``faults`` entries)."""
    deadline: float | None = None
    """When the person to act runs out of time (seconds since the epoch), or None."""
    rev: int = 0
    """Bumped by every lobby change, so that backends can refuse a change made on old data."""
    created: float = dataclasses.field(default_factory=time.time)
    updated: float = dataclasses.field(default_factory=time.time)

    @property
    def version(self) -> int:
        """How many actions the match has taken: the state an action is made on."""
        return len(self.actions)

    def seats_in(self, deal: int) -> list[Seat]:
        """The seats as they were in the deal of index ``deal`` (``Seat.held_in``)."""
        return [seat.held_in(deal) for seat in self.seats]

    @property
    def names(self) -> list[str]:
        """The seats' names as records give them: 'Open seat' for a seat waiting for a person,
        ``UNNAMED`` for a person who gave no name."""
        return self.names_in(None)

    def names_in(self, deal: int | None) -> list[str]:
        """:attr:`names` as they were in the deal of index ``deal`` (None: as the seats are now)."""
        seats = self.seats if deal is None else self.seats_in(deal)
        return [seat.name or (UNNAMED if seat.kind == PERSON else "Open seat") for seat in seats]

    @property
    def name_keys(self) -> list[str | None]:
        """For each seat, the word a page shows in its own language instead of the name: 'you'
        for a person who gave no name, 'computer.N' for a computer (``COMPUTER_NAMES[N]``);
        None where the name is shown as it is (a name a person gave, an open seat)."""
        return self.name_keys_in(None)

    def name_keys_in(self, deal: int | None) -> list[str | None]:
        """:attr:`name_keys` as they were in the deal of index ``deal`` (None: now)."""
        seats = self.seats if deal is None else self.seats_in(deal)
        return [self._name_key(seat, index) for index, seat in enumerate(seats)]

    def _name_key(self, seat: Seat, index: int) -> str | None:
        if seat.kind == COMPUTER and seat.name in COMPUTER_NAMES:
            return f"computer.{COMPUTER_NAMES.index(seat.name)}"
        if seat.kind == PERSON and not seat.name:
            return "you"
        # A match's person whose page stored its word for "you" (before names were left to
        # the page); in a room a name is always given, and shown as it was.
        if seat.kind == PERSON and self.kind == MATCH and index == 0 and seat.name in DEFAULT_NAMES:
            return "you"
        return None

    @property
    def levels(self) -> list[str | None]:
        """Each computer seat's spec; None for a person's or an open seat."""
        return self.levels_in(None)

    def levels_in(self, deal: int | None) -> list[str | None]:
        """:attr:`levels` as they were in the deal of index ``deal`` (None: now)."""
        seats = self.seats if deal is None else self.seats_in(deal)
        return [seat.level if seat.kind == COMPUTER else None for seat in seats]

    @property
    def public(self) -> dict[str, Any] | None:
        """A pool's table: its pool, each seat's profile and avatar (``settings["public"]``,
        set by ``web.pools``); None for a room of friends or a match."""
        public = self.settings.get("public")
        return public if isinstance(public, dict) else None

    def takeovers(self) -> list[tuple[int, int, str]]:
        """The seats a person took over from a computer: each seat, the index of the person's
        first deal and their name, in the order of the deals."""
        found = [
            (seat, info.since, self.names[seat])
            for seat, info in enumerate(self.seats)
            if info.since
        ]
        return sorted(found, key=lambda item: (item[1], item[0]))

    @property
    def turn_seconds(self) -> int:
        """The turn clock per decision; 0 for none."""
        return int(self.settings.get("turn_seconds") or 0)

    def to_json(self) -> dict[str, Any]:
        """Everything but the actions and their faults, as stored beside them."""
        return {
            "id": self.id,
            "kind": self.kind,
            "rules": self.rules,
            "seed": self.seed,
            "seats": [seat.to_json() for seat in self.seats],
            "settings": self.settings,
            "status": self.status,
            "deadline": self.deadline,
            "rev": self.rev,
            "created": self.created,
            "updated": self.updated,
        }

    @classmethod
    def from_json(
        cls,
        data: dict[str, Any],
        actions: list[str],
        faults: dict[int, list[dict[str, Any]]],
    ) -> TableData:
        """Read what :meth:`to_json` wrote, with the actions and their faults."""
        seats = [Seat(**seat) for seat in data["seats"]]
        fields = {key: data[key] for key in data if key != "seats"}
        return cls(**fields, seats=seats, actions=list(actions), faults=dict(faults))

    def seat_of(self, token: object) -> int | None:
        """The seat whose token this is, or None (a wrong token, or none)."""
        for index, seat in enumerate(self.seats):
            if holds(seat.token, token):
                return index
        return None


def new_token() -> str:
    """A seat token: 256 random bits as URL-safe text."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """What the store keeps of a token: a stolen store gives no seat away."""
    return hashlib.sha256(token.encode()).hexdigest()


def holds(stored: str | None, token: object) -> bool:
    """Whether ``token`` is the token whose hash is ``stored`` (None: nobody holds it),
    compared in constant time."""
    if stored is None or not token or not isinstance(token, str):
        return False
    return secrets.compare_digest(stored, hash_token(token))


def new_code() -> str:
    """A room code people can read out: six characters without look-alikes."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def check_level(level: object) -> str:
    """A computer seat's spec as anyone may ask for one: a level of the menu with only the
    options of ``OFFERED`` within their bounds, or a remote bot's address (which the server
    must also allow: ``BotAddresses``)."""
    if not isinstance(level, str) or not level.strip() or len(level) > 200:
        raise Refusal("level_spec")
    if is_remote(level):
        return str(PlayerSpec.parse(level))
    try:
        name, options = parse_spec(level, "player", "'expert' or 'expert(time=0.5)'")
    except SpecError as error:
        raise Refusal("bad_spec", detail=str(error)) from None
    name = name.lower()
    if name not in MENU:
        raise Refusal("unknown_level", level=name, levels=list(MENU))
    taken = [key for key in OFFERED if key in level_options(name)]
    for key, value in options.items():
        if key not in taken:
            offered = [(k, OFFERED[k]) for k in taken]
            raise Refusal("level_option", level=name, option=key, options=offered)
        bounds = OFFERED[key]
        if bounds is None:
            continue
        low, high = bounds
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Refusal("option_not_number", option=key, low=low, high=high, value=value)
        if not low <= value <= high:
            raise Refusal("option_range", option=key, low=low, high=high, value=value)
    return str(PlayerSpec.parse(level))


def check_turn_seconds(value: object) -> int:
    """The turn clock: 0 (none) or 5-600 seconds."""
    if value is None or value is False:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refusal("turn_seconds_type")
    # Only a float can be infinite (or NaN); math.isfinite of a whole number past a float's
    # range raises instead, so such a number is left to the range check.
    if isinstance(value, float) and not math.isfinite(value):
        raise Refusal("turn_seconds_type")
    seconds = int(value)
    if seconds != 0 and not 5 <= seconds <= 600:
        raise Refusal("turn_seconds_range")
    return seconds


def read_settings(message: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """The speed and forced-card settings after a ``settings`` message (others stay)."""
    speed = message.get("speed", current.get("speed", "normal"))
    if not isinstance(speed, str) or speed not in SPEEDS:
        raise Refusal("speed", speed=speed, speeds=list(SPEEDS))
    auto = message.get("auto_forced", current.get("auto_forced", False))
    if not isinstance(auto, bool):
        raise Refusal("auto_forced")
    return {"speed": speed, "auto_forced": auto}


def new_room(
    rules: str,
    name: object,
    seats: list[str | None],
    *,
    seed: str | None = None,
    turn_seconds: object = DEFAULT_TURN_SECONDS,
    cover: object = DEFAULT_COVER,
    speed: object = "normal",
) -> TableData:
    """A room in its lobby, the creator in seat 0 (their token is made by :func:`claim`)."""
    if len(seats) != 3:
        raise Refusal("seats_list")
    others = [Seat(OPEN) if level is None else _computer(level, i) for i, level in enumerate(seats)]
    data = TableData(
        id=new_code(),
        kind=ROOM,
        rules=str(Rules.parse(rules)),
        seed=seed if seed is not None else str(secrets.randbits(48)),
        seats=[Seat(PERSON, check_name(name)), *others],
        settings={
            **read_settings({"speed": speed}, {}),
            "turn_seconds": check_turn_seconds(turn_seconds),
            "cover": check_level(cover),
        },
        status=LOBBY,
    )
    return data


def new_match(
    rules: str,
    name: str | None,
    opponents: list[str],
    seed: str | None,
    settings: dict[str, Any],
) -> TableData:
    """A match against three computers, started: the person in seat 0 (whose token is made
    by :func:`claim`, the match's only key) has no clock; ``name`` None when they gave none."""
    return TableData(
        id=secrets.token_urlsafe(16),
        kind=MATCH,
        rules=str(Rules.parse(rules)),
        seed=seed if seed is not None else str(secrets.randbits(48)),
        seats=[
            Seat(PERSON, name or None),
            *(_computer(spec, i) for i, spec in enumerate(opponents)),
        ],
        settings={**settings, "turn_seconds": 0, "cover": None},
        status=PLAYING,
    )


def _computer(level: object, index: int) -> Seat:
    return Seat(COMPUTER, COMPUTER_NAMES[index], check_level(level))


def claim(data: TableData, seat: int) -> str:
    """Give ``seat`` a new token (the old one stops working) and return it."""
    token = new_token()
    data.seats[seat].token = hash_token(token)
    return token


# --- the lobby ---------------------------------------------------------------------------------


def join(data: TableData, name: object) -> tuple[int, str]:
    """Seat a new person in the first open seat; returns the seat and its token."""
    clean = check_name(name)
    if data.status in (FINISHED, STOPPED):
        raise Refusal("room_over")
    for index, seat in enumerate(data.seats):
        if seat.kind == OPEN:
            data.seats[index] = Seat(PERSON, clean)
            return index, claim(data, index)
    raise Refusal("no_open_seat")


def fill(data: TableData, seat: int, level: object) -> None:
    """Seat a computer where a seat is open or its person left."""
    target = _seat(data, seat)
    if seat == 0:
        raise Refusal("creator_seat")
    if not (target.kind == OPEN or (target.kind == PERSON and target.left)):
        raise Refusal("seat_taken", seat=seat)
    data.seats[seat] = _computer(level, seat - 1)


def open_seat(data: TableData, seat: int) -> None:
    """Open a computer's seat, or a seat its person left, for a new person to join."""
    target = _seat(data, seat)
    if seat == 0:
        raise Refusal("creator_seat")
    if not (target.kind == COMPUTER or (target.kind == PERSON and target.left)):
        raise Refusal("seat_has_person", seat=seat)
    data.seats[seat] = Seat(OPEN)


def move(data: TableData, first: object, second: object) -> None:
    """Swap two seats, before the match starts."""
    if data.status != LOBBY:
        raise Refusal("moved_after_start")
    a, b = _index(first), _index(second)
    if 0 in (a, b):
        # Seat 0 is the creator's: moved, the creator's token would lose the room to another.
        raise Refusal("creator_seat_move")
    data.seats[a], data.seats[b] = data.seats[b], data.seats[a]


def start(data: TableData) -> None:
    """Start the match once every seat is a person or a computer."""
    if data.status != LOBBY:
        raise Refusal("started")
    waiting = [index for index, seat in enumerate(data.seats) if seat.kind == OPEN]
    if waiting:
        raise Refusal("seat_open", seat=waiting[0])
    data.status = PLAYING


def leave(data: TableData, seat: int, deal: int = 0) -> None:
    """The person in ``seat`` leaves for good; in the lobby the seat opens again. A person
    who took over a computer's seat (:func:`take_over`) and leaves before their first deal
    (``deal`` is the index of the deal being played) gives it back to the computer, and a
    public table's seat to no profile."""
    target = _seat(data, seat)
    if target.kind != PERSON:
        raise Refusal("person_only")
    if data.status == LOBBY and seat != 0:
        data.seats[seat] = Seat(OPEN)
    elif target.since > deal:
        data.seats[seat] = target.held_in(deal)
        if data.public is not None:
            data.public["profiles"][seat] = None
            if data.public.get("avatars"):
                data.public["avatars"][seat] = None
    else:
        target.left = True
        target.token = None


def take_over(data: TableData, seat: int, name: object, since: int) -> str:
    """A person takes the computer's seat ``seat`` from the deal of index ``since`` (public
    play: a deal not yet begun, which the caller finds); until then the computer plays it, and
    the person's token holds no seat. The seat's score so far stays the seat's. Its token."""
    clean = check_name(name)
    target = _seat(data, seat)
    if data.status != PLAYING:
        raise Refusal("room_over")
    if target.kind != COMPUTER:
        raise Refusal("seat_has_person", seat=seat)
    data.seats[seat] = Seat(PERSON, clean, target.level, since=since, before=target.name)
    return claim(data, seat)


def _seat(data: TableData, seat: object) -> Seat:
    return data.seats[_index(seat)]


def _index(seat: object) -> int:
    if type(seat) is not int or not 0 <= seat <= 3:
        raise Refusal("bad_seat", seat=seat)
    return seat


def duty_json(duty: Duty) -> dict[str, str | None]:
    """The duty that forbids a card, as data for a page to word: its kind, the card to beat
    and the suit led."""
    return {
        "duty": duty.kind,
        "card": str(Card(duty.card)) if duty.card >= 0 else None,
        "suit": "SHDC"[duty.suit] if duty.suit >= 0 else None,
    }
