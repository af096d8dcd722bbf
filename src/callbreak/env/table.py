"""The state every environment steps: one match as plain integers, and what each seat sees.

The checked engine (:class:`~callbreak.game.Match`) builds the reasons of every duty and the
trick objects on each card, which is right for a table or a record check and too slow for an
agent that takes millions of steps. A :class:`Table` keeps the same game as integer card masks:
every rule is the rules' own integer function (:mod:`callbreak.rules`: the legal cards
:func:`~callbreak.rules.legal_mask`, the trick's winner :func:`~callbreak.rules.trick_step`, a
deal's score, the next dealer, a thrown-in deal, an outright win and the match's end), the very
functions the engine wraps and the players' kernel compiles.
The environments apply the same actions to a real ``Match`` through :mod:`callbreak.seating`
whenever the match, its record or another seat's player is needed, and the tests replay every
step through the engine.

Each seat's observation is a flat float32 vector (:data:`LAYOUT`) kept up to date as actions
come in, so that observing costs a copy. :func:`encode` builds the same vector from the
engine's :class:`~callbreak.game.Observation`, which holds only what the seat may know; the
tests check that the two agree at every step.

Actions are one space for calls and cards: ``0``-``12`` call 1-13, ``13 + card`` plays the card
of that index (``suit * 13 + rank - 2``, spades first), and ``65`` claims a redeal for a hand
dealt no spade (under rules with ``spadeless_redeal``).

>>> from callbreak.rules import Rules
>>> table = Table(Rules.parse("strict"), deals=1)
>>> table.start(deal_hands(7, 0, 0, 2), dealer=2)
>>> table.turn, table.legal_actions()[:3], action_name(CARD_BASE + 12)
(3, [1, 2, 3], 'play AS')
"""

from __future__ import annotations

import numpy as np

from callbreak.cards import Card
from callbreak.errors import CallbreakError, IllegalCallError, IllegalPlayError
from callbreak.game import (
    Action,
    Call,
    ClaimRedeal,
    Play,
    Refusal,
    deal_from_seed,
    first_dealer_from_seed,
)

# The observation vector and the action numbers are the players' (the learned player reads
# the game through them too): this table keeps the same vector incrementally.
from callbreak.players.encoding import (
    CALLS,
    CALLS_AT,
    CARD_BASE,
    CLAIM,
    CLAIM_AT,
    DEAL,
    DEALER,
    HAND,
    LAYOUT,
    LEADER,
    NUM_ACTIONS,
    OBS_SIZE,
    PHASE,
    PLAYED,
    RULES_AT,
    TOTALS,
    TRICK,
    TURN,
    VOIDS,
    WON,
    action_of,
    encode,
    rule_features,
)
from callbreak.players.encoding import bits as _bits
from callbreak.rules import (
    Rules,
    calls_thrown_in,
    describe_legal,
    duties,
    legal_mask,
    match_over,
    may_claim_spadeless,
    next_dealer,
    outright_winners,
    places,
    score_deal,
    trick_step,
)

__all__ = [
    "CALLS",
    "CARD_BASE",
    "CLAIM",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "EnvError",
    "Table",
    "action_name",
    "action_of",
    "deal_hands",
    "encode",
    "engine_action",
    "first_dealer",
]

CALLING, PLAYING, OVER = 0, 1, 2


class EnvError(CallbreakError):
    """An environment used wrongly: bad arguments, the wrong agent, a step after the end."""


def _seat_indices(base: int, width: int) -> np.ndarray:
    """Flat indices ``[seat, k, viewer]`` of slot ``k`` of ``seat``'s block in every row."""
    out = np.empty((4, width, 4), dtype=np.int64)
    for seat in range(4):
        for k in range(width):
            for viewer in range(4):
                out[seat, k, viewer] = viewer * OBS_SIZE + base + ((seat - viewer) & 3) * width + k
    return out


# Where a card played by a seat is marked in the four rows: "played" and "trick" at once.
_PLAY_MARKS = np.concatenate([_seat_indices(PLAYED, 52), _seat_indices(TRICK, 52)], axis=2)
_CALL_SLOTS = _seat_indices(CALLS_AT, 14)
_WON_SLOTS = _seat_indices(WON, 14)
_VOID_SLOTS = _seat_indices(VOIDS, 4)
_TURN_SLOTS = _seat_indices(TURN, 1)[:, 0, :]
_LEADER_SLOTS = _seat_indices(LEADER, 1)[:, 0, :]


def action_name(action: int) -> str:
    """An action in words: 'call 3', 'play TH', 'claim redeal'."""
    if 0 <= action < CALLS:
        return f"call {action + 1}"
    if CARD_BASE <= action < CARD_BASE + 52:
        return f"play {Card(action - CARD_BASE)}"
    if action == CLAIM:
        return "claim redeal"
    return f"action {action!r} (actions are 0-{NUM_ACTIONS - 1})"


def engine_action(action: int) -> Action:
    """The engine's action for an action number."""
    if 0 <= action < CALLS:
        return Call(action + 1)
    if CARD_BASE <= action < CARD_BASE + 52:
        return Play(Card(action - CARD_BASE))
    if action == CLAIM:
        return ClaimRedeal()
    raise EnvError(f"no action {action!r}: actions are 0-{NUM_ACTIONS - 1}")


def first_dealer(seed: int | str) -> int:
    """The first dealer of a seeded match, as :class:`~callbreak.game.Match` draws it."""
    return first_dealer_from_seed(seed)


def deal_hands(seed: int | str, number: int, redeal: int, dealer: int) -> list[int]:
    """The four hands (masks) of a seeded match's deal, as :class:`~callbreak.game.Match`
    deals them."""
    return [hand.mask for hand in deal_from_seed(seed, number, dealer, redeal)]


class Table:
    """One match as integers: the deal in progress, the scores, and each seat's observation.

    The owner deals: :meth:`start` takes the four hands whenever :attr:`needs_deal` is set
    (after a played or thrown-in deal, while the match goes on), so that an environment can
    deal from a seed and a game with chance nodes card by card.
    """

    def __init__(self, rules: Rules, deals: int) -> None:
        """A match of ``deals`` played deals under ``rules`` (its end is also the profile's:
        a made call of 8+ under ``eight_wins``)."""
        self.rules = rules
        self.deals = deals
        self.flags = rules.flags
        self.calls_allowed = list(range(rules.min_call - 1, rules.max_call))
        self.totals = [0, 0, 0, 0]
        self.played = 0
        """Played deals so far."""
        self.redeals = 0
        """Thrown-in deals since the last played deal."""
        self.dealer = 0
        self.next_dealer = 0
        self.needs_deal = True
        self.over = False
        self.winners: list[int] = []
        """Seats that won at once by a made call of 8+ (``eight_wins``)."""
        self.deal_scores: list[int] | None = None
        """Scores in tenths of the deal that the last action ended, else None."""
        self.thrown_in = False
        """Whether the last action threw the deal in."""
        self.obs = np.zeros((4, OBS_SIZE), dtype=np.float32)
        self._flat = self.obs.reshape(-1)
        self._rules_block = np.array(rule_features(rules), dtype=np.float32)
        self._reset_deal([0, 0, 0, 0], 0)
        self.phase = OVER

    # --- dealing ---------------------------------------------------------------------------

    def _reset_deal(self, hands: list[int], dealer: int) -> None:
        self.hands = list(hands)
        self.dealt = list(hands)
        self.dealer = dealer
        self.calls = [0, 0, 0, 0]
        self.ncalls = 0
        self.won = [0, 0, 0, 0]
        self.tricks = 0
        self.leader = (dealer + 1) & 3
        self.trick: list[int] = []
        self.led, self.high_led, self.high_spade, self.winner = -1, -1, -1, self.leader
        self.turn: int | None = self.leader
        self.phase = CALLING
        self._legal = -1
        """The legal cards of the seat to act once computed, else -1."""

    def start(self, hands: list[int], dealer: int) -> None:
        """Deal ``hands`` (four 13-card masks by seat) with ``dealer`` dealing."""
        if not self.needs_deal:
            raise EnvError("a deal is in progress")
        self._reset_deal(hands, dealer)
        self.needs_deal = False
        obs = self.obs
        obs[:] = 0
        number = self.played + 1
        deal_block = (number / self.deals, max(self.deals - number, 0) / self.deals)
        for viewer in range(4):
            row = obs[viewer]
            row[HAND : HAND + 52] = _bits(hands[viewer])
            for rel in range(4):
                seat = (viewer + rel) & 3
                row[CALLS_AT + 14 * rel] = 1
                row[WON + 14 * rel] = 1
                row[TOTALS + rel] = self.totals[seat] / 1000
            row[DEALER + ((dealer - viewer) & 3)] = 1
            row[DEAL : DEAL + 2] = deal_block
        obs[:, RULES_AT : RULES_AT + len(self._rules_block)] = self._rules_block
        obs[:, PHASE] = 1
        self._flat[_LEADER_SLOTS[self.leader]] = 1
        self._flat[_TURN_SLOTS[self.leader]] = 1
        self._mark_claim()

    def _mark_claim(self) -> None:
        turn = self.turn
        if turn is not None and self.may_claim():
            self.obs[turn, CLAIM_AT] = 1

    def may_claim(self) -> bool:
        """Whether the seat to act may claim a redeal for a hand dealt no spade."""
        return (
            self.phase == CALLING
            and self.turn is not None
            and may_claim_spadeless(self.dealt[self.turn], self.rules.spadeless_redeal)
        )

    # --- legality --------------------------------------------------------------------------

    def legal_cards(self) -> int:
        """The mask of cards the seat to act may play (0 outside play)."""
        if self._legal >= 0:
            return self._legal
        if self.phase != PLAYING or self.turn is None:
            return 0
        self._legal = legal_mask(
            self.hands[self.turn],
            self.led,
            self.high_led,
            self.high_spade,
            self.tricks == 0,
            self.flags,
        )
        return self._legal

    def legal_actions(self) -> list[int]:
        """The legal action numbers of the seat to act, in rising order."""
        if self.phase == CALLING:
            return [*self.calls_allowed, CLAIM] if self.may_claim() else list(self.calls_allowed)
        legal = self.legal_cards()
        out = []
        while legal:
            low = legal & -legal
            out.append(CARD_BASE + low.bit_length() - 1)
            legal ^= low
        return out

    def mask(self) -> np.ndarray:
        """The legal actions as a 0/1 int8 vector of length :data:`NUM_ACTIONS`."""
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase == CALLING:
            out[self.rules.min_call - 1 : self.rules.max_call] = 1
            if self.may_claim():
                out[CLAIM] = 1
        elif self.phase == PLAYING:
            out[CARD_BASE : CARD_BASE + 52] = _bits(self.legal_cards())
        return out

    def mask_of(self, seat: int) -> np.ndarray:
        """``seat``'s legal actions as a 0/1 vector: :meth:`mask` on its turn, else zeros."""
        return self.mask() if self.turn == seat else np.zeros(NUM_ACTIONS, dtype=np.int8)

    def problem(self, action: object) -> str | None:
        """Why ``action`` may not be taken now, in words; None when it may."""
        if self.phase == OVER or self.turn is None:
            return "the match is over"
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            return f"an action is a whole number 0-{NUM_ACTIONS - 1}, not {action!r}"
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"actions are 0-{NUM_ACTIONS - 1}"
        if self.phase == CALLING:
            if action == CLAIM:
                if not self.rules.spadeless_redeal:
                    return Refusal("no_redeal_rule").reason
                return None if self.may_claim() else Refusal("redeal_with_spades").reason
            if action >= CALLS:
                return Refusal("calls_pending").reason
            if action not in self.calls_allowed:
                return Refusal("call_range", self.rules.min_call, self.rules.max_call).reason
            return None
        if not CARD_BASE <= action < CARD_BASE + 52:
            return "calling is over: play a card"
        card = action - CARD_BASE
        hand = self.hands[self.turn]
        if not hand >> card & 1:
            return Refusal("not_held", card=card).reason
        for duty in duties(hand, self.trick, self.tricks == 0, self.rules):
            if not duty.allowed >> card & 1:
                return duty.reason
        return None

    def refuse(self, action: object) -> CallbreakError:
        """The error for an action the rules do not allow now (see :meth:`problem`)."""
        problem = self.problem(action) or "not allowed"
        if self.phase == OVER or self.turn is None:
            return EnvError(f"no action is possible: {problem}")
        if isinstance(action, int | np.integer) and not isinstance(action, bool):
            shown = action_name(int(action))
            if not shown.startswith("play"):
                shown = f"take {shown}"
        else:
            shown = f"take {action!r}"
        legal = tuple(self.legal_actions())
        if self.phase == CALLING:
            listed = ", ".join(f"{a} ({action_name(a)})" for a in legal)
            return IllegalCallError(
                f"seat {self.turn} cannot {shown}: {problem}; legal: {listed}",
                reason=problem,
                legal=legal,
            )
        cards = describe_legal(self.legal_cards())
        return IllegalPlayError(
            f"seat {self.turn} cannot {shown}: {problem}; legal: {cards} "
            f"(actions {', '.join(map(str, legal))})",
            reason=problem,
            legal=legal,
        )

    # --- acting ----------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Take ``action`` for the seat to act; IllegalCallError or IllegalPlayError (with the
        rule and the legal actions) when the rules do not allow it."""
        self.deal_scores = None
        self.thrown_in = False
        seat = self.turn
        legal = self.legal_cards()
        self._legal = -1
        if seat is None or isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise self.refuse(action)
        action = int(action)
        if self.phase == PLAYING:
            card = action - CARD_BASE
            if 0 <= card < 52 and legal >> card & 1:
                self._play(seat, card)
                return
        elif action in self.calls_allowed:
            self._call(seat, action + 1)
            return
        elif action == CLAIM and self.may_claim():
            self._throw_in()
            return
        self._legal = legal  # refused: nothing changed
        raise self.refuse(action)

    def _set_turn(self, seat: int | None) -> None:
        flat = self._flat
        if self.turn is not None:
            flat[_TURN_SLOTS[self.turn]] = 0
            self.obs[self.turn, CLAIM_AT] = 0
        self.turn = seat
        if seat is not None:
            flat[_TURN_SLOTS[seat]] = 1

    def _call(self, seat: int, value: int) -> None:
        self.calls[seat] = value
        self.ncalls += 1
        flat = self._flat
        slots = _CALL_SLOTS[seat]
        flat[slots[0]] = 0
        flat[slots[value]] = 1
        if self.ncalls < 4:
            self._set_turn((seat + 1) & 3)
            self._mark_claim()
            return
        if calls_thrown_in(sum(self.calls), self.rules.min_total_calls):
            self._throw_in()
            return
        self.phase = PLAYING
        self.obs[:, PHASE] = 0
        self.obs[:, PHASE + 1] = 1
        self._set_turn(self.leader)

    def _throw_in(self) -> None:
        self.thrown_in = True
        self.redeals += 1
        self._set_turn(None)
        self.phase = OVER
        self.next_dealer = next_dealer(self.dealer, True)
        self.needs_deal = True

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self.obs[seat, HAND + card] = 0
        flat = self._flat
        flat[_PLAY_MARKS[seat, card]] = 1
        led = self.led
        if led >= 0 and card // 13 != led:
            flat[_VOID_SLOTS[seat, led]] = 1
            if led != 0 and card >= 13:
                flat[_VOID_SLOTS[seat, 0]] = 1
        self.trick.append(card)
        self.led, self.high_led, self.high_spade, self.winner = trick_step(
            led, self.high_led, self.high_spade, self.winner, card, seat
        )
        if len(self.trick) < 4:
            self._set_turn((seat + 1) & 3)
            return
        winner = self.winner
        slots = _WON_SLOTS[winner]
        flat[slots[self.won[winner]]] = 0
        self.won[winner] += 1
        flat[slots[self.won[winner]]] = 1
        self.tricks += 1
        self.obs[:, TRICK : TRICK + 4 * 52] = 0
        flat[_LEADER_SLOTS[self.leader]] = 0
        flat[_LEADER_SLOTS[winner]] = 1
        self.leader = winner
        self.trick = []
        self.led, self.high_led, self.high_spade = -1, -1, -1
        if self.tricks < 13:
            self._set_turn(winner)
            return
        self._set_turn(None)
        self._end_deal()

    def _end_deal(self) -> None:
        rules = self.rules
        scores = [score_deal(rules, self.calls[s], self.won[s]) for s in range(4)]
        self.deal_scores = scores
        self.played += 1
        self.redeals = 0
        self.phase = OVER
        self.obs[:, PHASE : PHASE + 2] = 0
        self.winners = outright_winners(rules, self.calls, self.won)
        # The totals in each row stay those before this deal, as the engine's Observation has
        # them, until the next deal starts.
        self.totals = [total + score for total, score in zip(self.totals, scores, strict=True)]
        self.next_dealer = next_dealer(self.dealer, False)
        if match_over(self.played, self.deals, bool(self.winners)):
            self.over = True
        else:
            self.needs_deal = True

    # --- results ---------------------------------------------------------------------------

    def places(self) -> list[int]:
        """Places by total (equal totals share; made calls of 8+ under eight_wins first)."""
        return places(self.totals, self.winners)

    def observe(self, seat: int) -> np.ndarray:
        """A copy of ``seat``'s observation vector."""
        copy: np.ndarray = self.obs[seat].copy()
        return copy
