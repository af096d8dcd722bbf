"""The state of one table: the match as stored, rebuilt from its actions, the lobby, and what is
known of the table now (who is connected anywhere, who is thinking, which summaries were seen).

:meth:`TableState.act` is the one path of an action: it checks the action once (who may act,
on which version, then the engine's own legality) and takes it on the match, and returns the
:class:`Taken` step to store. Until :meth:`~TableState.commit` (stored) or
:meth:`~TableState.rebuild` (refused, or the store failed), the step is ``pending``: nothing
shows the table meanwhile (``web.hub``), so nobody sees an action the store may refuse. It does
no I/O: storing, sending and driving are the jobs of ``web.sync``, ``web.hub`` and
``web.driver``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from callbreak.bots.remote import NO_BOTS, BotAddresses
from callbreak.errors import IllegalCallError, IllegalPlayError
from callbreak.game import Call, ClaimRedeal, Match, Play
from callbreak.refusals import Refusal
from callbreak.seating import PlayerSpec, Seating
from callbreak.web.actions import Stop, TableAction, decode, encode, take
from callbreak.web.model import (
    FINISHED,
    LOBBY,
    PERSON,
    PLAYING,
    ROOM,
    STOPPED,
    SUMMARY_SECONDS,
    Seat,
    StaleAction,
    Step,
    TableData,
    duty_json,
)

__all__ = ["TableState", "Taken", "event_json", "next_deadline", "replay"]


@dataclasses.dataclass(frozen=True)
class Taken(Step):
    """An action taken on this copy's match, to be stored as the :class:`Step` it is: with
    the action itself, and the deal it was taken in."""

    action: TableAction
    deal: int
    """The index of the deal it was taken in (its faults go with that deal's record)."""
    seat: int | None
    """The seat that took it (None: the table's :class:`Stop`)."""


def event_json(version: int, seat: int | None, action: TableAction) -> dict[str, Any]:
    """What happened, as every seat and a spectator are told it: the action taken on
    ``version`` (the table's state before it) and by whom, in the shape of the socket message
    that asks for it (``{"action": "play", "card": "TH"}``); only what is public (a call, a
    card played face up, a redeal claim, the table's stop)."""
    event: dict[str, Any] = {"version": version, "seat": seat}
    if isinstance(action, Call):
        return event | {"action": "call", "value": action.value}
    if isinstance(action, Play):
        return event | {"action": "play", "card": str(action.card)}
    return event | {"action": "redeal" if isinstance(action, ClaimRedeal) else "stop"}


class TableState:
    """A stored match or room, its match rebuilt, and what is known of it now."""

    def __init__(self, data: TableData, bots: BotAddresses = NO_BOTS) -> None:
        self.bots = bots
        """The remote bots this process may call: a stored spec of another is never called."""
        self.present: set[int] = set()
        """Seats with a connection open in some process, as last heard."""
        self.thinking: int | None = None
        self.stood_in = False
        """Whether the stand-in decides for the thinking seat (its search is being prepared)."""
        self.seen: dict[int, int] = {}
        """How many scored deals each person's page has shown and had closed, for the seats
        whose page shows summaries (it sent ``seen``)."""
        self.rebuild(data)

    def rebuild(self, data: TableData) -> None:
        """Take ``data`` as the table: a fresh match and seating with its actions taken again
        (the one replay of stored actions); any pending step is dropped."""
        self.data = data
        # The players and occupants of the first deal: a seat taken over from a computer is
        # the computer's until the person's first deal (``_arrive``).
        self.match = Match(data.rules, seed=data.seed, players=tuple(data.names_in(0)))
        self.seating = Seating(
            self.match,
            [None if level is None else PlayerSpec.parse(level) for level in data.levels_in(0)],
            ready=False,
            substitute_failures=True,
            bots=self.bots,
        )
        self.faults_by_deal: dict[int, list[dict[str, Any]]] = {}
        self.pending: Taken | None = None
        self.event: dict[str, Any] | None = None
        """What the last stored action was (``event_json``): what led to this version."""
        self._take(data, 0)

    def extend(self, fresh: TableData) -> bool:
        """Take ``fresh``, the stored table, when it only adds actions to this one (taken
        here); otherwise rebuild from it. Whether anything changed."""
        if (fresh.version, fresh.rev) == (self.version, self.data.rev):
            return False
        mine = self.data.actions
        if fresh.actions[: len(mine)] != mine or fresh.seats != self.data.seats:
            self.rebuild(fresh)
            return True
        self._take(fresh, len(mine))
        self.data = fresh
        return True

    def _take(self, data: TableData, start: int) -> None:
        for index in range(start, len(data.actions)):
            deal = len(self.match.deals) - 1
            action = decode(data.actions[index])
            seat = None if isinstance(action, Stop) else self.match.deal.turn
            take(self.seating, action)
            self._arrive()
            self.event = event_json(index, seat, action)
            if data.faults.get(index):
                self.faults_by_deal.setdefault(deal, []).extend(data.faults[index])

    def _arrive(self) -> None:
        """A person who took over a computer's seat plays it from their first deal: the
        computer leaves the seating once that deal is dealt."""
        deal = self.deal_index
        for seat, info in enumerate(self.data.seats):
            if 0 < info.since <= deal and self.seating.occupant(seat) is not None:
                self.seating.sit(seat, None)

    # --- what the table is ---------------------------------------------------------------------

    @property
    def deal_index(self) -> int:
        """The index of the deal being played (thrown-in deals counted)."""
        return len(self.match.deals) - 1

    @property
    def seats(self) -> list[Seat]:
        """The seats as they are in the deal being played: a seat taken over from a computer
        is the computer's until the person's first deal (``Seat.held_in``)."""
        return self.data.seats_in(self.deal_index)

    @property
    def names(self) -> list[str]:
        """The seats' names in the deal being played."""
        return self.data.names_in(self.deal_index)

    def seat_of(self, token: object) -> int | None:
        """The seat ``token`` plays in the deal being played: None for a wrong token, or for
        a person who took over a computer's seat before their first deal (they watch until
        then, and see nothing of the seat's hand)."""
        seat = self.data.seat_of(token)
        if seat is None or self.data.seats[seat].since > self.deal_index:
            return None
        return seat

    def arriving(self, token: object) -> tuple[int, int] | None:
        """For a person who took over a computer's seat and whose first deal is still to
        come: the seat and that deal's index; None otherwise."""
        seat = self.data.seat_of(token)
        if seat is None:
            return None
        since = self.data.seats[seat].since
        return (seat, since) if since > self.deal_index else None

    @property
    def id(self) -> str:
        """The match id, or the room's code."""
        return self.data.id

    @property
    def version(self) -> int:
        """How many actions are stored: the state an action or a hint refers to."""
        return self.data.version

    @property
    def status(self) -> str:
        """'lobby', 'playing', 'finished' or 'stopped'."""
        return self.data.status

    @property
    def is_room(self) -> bool:
        """Whether people play each other here (a match is one person and three computers)."""
        return self.data.kind == ROOM

    @property
    def can_stop(self) -> bool:
        """Whether the table may end the match now: between deals of an open-ended match."""
        match = self.match
        return (
            self.status == PLAYING
            and match.rules.deals is None
            and not match.deal.actions
            and bool(match.played_deals())
            and not match.is_over
        )

    def covered(self) -> list[int]:
        """The people's seats the cover plays for now: left, or not connected anywhere while
        someone else is at the table (nobody waits for a table nobody is at)."""
        if not self.is_room or self.status != PLAYING:
            return []
        seats = self.seats
        people = [seat for seat, info in enumerate(seats) if info.kind == PERSON]
        here = [seat for seat in people if seat in self.present and not seats[seat].left]
        return [seat for seat in people if seats[seat].left or (seat not in self.present and here)]

    # --- the one path of an action -------------------------------------------------------------

    def act(
        self, seat: int, action: TableAction, version: object, faults: list[dict[str, Any]]
    ) -> Taken:
        """Check ``action`` of ``seat`` made on ``version`` and take it on the match: the step
        to store, pending until :meth:`commit` or :meth:`rebuild`. CallbreakError saying why
        it may not be taken, StaleAction when the table moved on since ``version``; nothing
        changed then."""
        if type(version) is not int:
            raise Refusal("version_needed")
        if version != self.version or self.pending is not None:
            raise StaleAction("stale", version=version, now=self.version)
        self._may(seat, action)
        deal = len(self.match.deals) - 1
        taker = None if isinstance(action, Stop) else self.match.deal.turn
        try:
            take(self.seating, action)
            self._arrive()
        except IllegalPlayError:
            assert isinstance(action, Play)
            # The duty as data, as the table's view sends it: the page words it.
            deal_now = self.match.deal
            duty = deal_now.forbidden().get(action.card)
            raise Refusal(
                "illegal_play",
                detail=deal_now.explain(action.card),
                duty=None if duty is None else duty_json(duty),
                played=str(action.card),
            ) from None
        except IllegalCallError as error:
            if not isinstance(action, Call):
                raise Refusal("no_redeal") from None
            rules = self.match.deal.rules
            raise Refusal(
                "illegal_call", detail=error.reason, low=rules.min_call, high=rules.max_call
            ) from None
        over = STOPPED if self.match.stopped else FINISHED
        status = over if self.match.is_over else PLAYING
        deadline = next_deadline(self.data, self.match, status)
        code = encode(action)
        self.pending = Taken(version, code, faults, status, deadline, action, deal, taker)
        return self.pending

    def _may(self, seat: int, action: TableAction) -> None:
        """Whether ``seat`` may act now, as the table decides it (the engine decides whether
        the action is legal)."""
        match = self.match
        if self.status == LOBBY:
            raise Refusal("not_started")
        if match.is_over:
            raise Refusal("match_over")
        if isinstance(action, Stop):
            if seat != 0:
                raise Refusal("stop_creator")
            if not self.can_stop:
                raise Refusal("stop_between")
            return
        turn = match.deal.turn
        if turn is None:
            raise Refusal("nothing_to_do")
        if turn != seat:
            raise Refusal("not_your_turn", name=self.names[turn], seat=turn)

    def commit(self, step: Taken) -> None:
        """The pending ``step`` is stored: the table is at its version."""
        assert step is self.pending
        data = self.data
        data.actions.append(step.code)
        if step.faults:
            data.faults[step.version] = list(step.faults)
            self.faults_by_deal.setdefault(step.deal, []).extend(step.faults)
        data.status, data.deadline = step.status, step.deadline
        self.event = event_json(step.version, step.seat, step.action)
        self.pending = None


def next_deadline(data: TableData, match: Match, status: str) -> float | None:
    """When the next decision's clock runs out: a person's turn under a turn clock."""
    seconds = data.turn_seconds
    if not seconds or match.is_over or status != PLAYING:
        return None
    seat = match.deal.turn
    if seat is None or data.seats[seat].held_in(len(match.deals) - 1).kind != PERSON:
        return None
    # The first decision after a scored deal: its summary is up first.
    after_summary = (
        len(match.deals) > 1 and not match.deal.actions and not match.deals[-2].thrown_in
    )
    return time.time() + seconds + (SUMMARY_SECONDS if after_summary else 0.0)


def replay(data: TableData) -> Match:
    """The match of a stored table, its actions taken again."""
    return TableState(data).match
