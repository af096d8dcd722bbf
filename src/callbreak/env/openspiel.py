"""Call Break as an OpenSpiel game, registered as ``python_callbreak`` when this module loads.

>>> import pyspiel
>>> import callbreak.env.openspiel
>>> game = pyspiel.load_game("python_callbreak(rules=classic,deals=1)")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 52)

Parameters: ``rules`` (a profile name), ``deals`` (played deals in a game; 0, the default, is
the profile's number, five for an open-ended profile), ``dealer`` (the first dealer, 3 by
default so that player 0 calls first), and the options no profile has on:
``min_total_calls``, ``spadeless_redeal`` and ``eight_wins``
(``python_callbreak(rules=classic,deals=1,spadeless_redeal=True)``). Each
deal starts with 52 chance nodes, one card each, dealt one at a time from the dealer's next
seat; a thrown-in deal is dealt again by chance. Rewards come at the end of each deal, in
points; returns are the match totals in points.

The observation tensor is the environments' observation vector (``docs/env.md``); the
information-state tensor adds the deal's tricks in order, and the information-state string
is the player's own history in words (its dealt hands and every public action of the game).
``resample_from_infostate`` deals the hidden cards again consistently with everything the rules
revealed (the players' knowledge and world sampler), so OpenSpiel's Python IS-MCTS
(``open_spiel.python.algorithms.ismcts``) can search it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

# pyspiel ships no type information (see pyproject's mypy overrides): its classes are Any to
# mypy, so the subclasses below are checked while their bases are not.
import pyspiel

from callbreak.cards import Card, CardSet
from callbreak.env.episode import episode_rules
from callbreak.env.table import (
    CALLING,
    CARD_BASE,
    NUM_ACTIONS,
    OBS_SIZE,
    PLAYING,
    EnvError,
    Table,
    action_name,
)
from callbreak.game import Observation, Phase, Trick
from callbreak.players import kernel
from callbreak.players.knowledge import Knowledge
from callbreak.rules import Rules, format_tenths, score_deal

__all__ = ["HISTORY_SIZE", "INFO_STATE_SIZE", "NAME", "CallbreakGame", "CallbreakState"]

NAME = "python_callbreak"
HISTORY_SIZE = 13 * 4 * 52
"""The information-state tensor's trick history: trick x relative seat x card."""
INFO_STATE_SIZE = OBS_SIZE + HISTORY_SIZE
THROW_IN_ALLOWANCE = 20
"""Thrown-in deals per played deal counted in the game's maximum length (which OpenSpiel
needs as a number; the rules themselves set no limit)."""

_PARAMETERS = {
    "rules": "strict",
    "deals": 0,
    "dealer": 3,
    "min_total_calls": 0,
    "spadeless_redeal": False,
    "eight_wins": False,
}
_OPTIONS = ("min_total_calls", "spadeless_redeal", "eight_wins")
"""Rule options that are parameters of their own: OpenSpiel's game strings cannot carry the
one-string form's parentheses, and every profile leaves these off."""


def _game_type() -> Any:
    return pyspiel.GameType(
        short_name=NAME,
        long_name="Python Call Break",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=4,
        min_num_players=4,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMETERS,
    )


_GAME_TYPE = _game_type()


class CallbreakGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """The game: one match of ``deals`` deals under ``rules``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given: dict[str, Any] = dict(_PARAMETERS) | dict(params or {})
        unknown = set(given) - set(_PARAMETERS)
        if unknown:
            raise EnvError(f"unknown parameters {sorted(unknown)}: known are {list(_PARAMETERS)}")
        profile = str(given["rules"])
        if not profile.isidentifier():
            raise EnvError(
                f"rules={profile!r}: give a profile name and set min_total_calls, "
                "spadeless_redeal or eight_wins as parameters of their own"
            )
        changes = {key: given[key] for key in _OPTIONS if given[key] != _PARAMETERS[key]}
        rules = Rules.parse(profile).replace(**changes)
        self.rules, self.deals = episode_rules(rules, int(given["deals"]) or None)
        self.first_dealer = int(given["dealer"])
        if self.first_dealer not in range(4):
            raise EnvError(f"dealer must be 0-3, not {self.first_dealer}")
        per_deal = [
            score_deal(self.rules, call, tricks) / 10
            for call in self.rules.call_range()
            for tricks in range(14)
        ]
        redeals = (
            THROW_IN_ALLOWANCE if self.rules.min_total_calls or self.rules.spadeless_redeal else 0
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=52,
            num_players=4,
            min_utility=min(per_deal) * self.deals,
            max_utility=max(per_deal) * self.deals,
            utility_sum=None,
            max_game_length=self.deals * (1 + redeals) * (52 + 4 + 52),
        )
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> CallbreakState:
        """The state before the first card is dealt."""
        return CallbreakState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> CallbreakObserver:
        """The observer: perfect recall gives the information state, else the observation."""
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return CallbreakObserver(perfect_recall)


class CallbreakState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """A state of the match: dealing (chance), calling or playing."""

    def __init__(self, game: CallbreakGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.table = Table(game.rules, game.deals)
        self.table.next_dealer = game.first_dealer
        self.dealing: list[int] = []
        """The cards of the deal being dealt, in dealing order."""
        self.deals: list[list[int]] = []
        """Every deal's dealt hands (masks by seat), thrown-in deals included."""
        self.plays: list[tuple[int, int]] = []
        """The current deal's cards as (seat, card), in order."""
        self.public: list[str] = []
        """Every action of the game in words, deal headers included (all public)."""
        self.last_rewards = [0.0, 0.0, 0.0, 0.0]

    # --- the game tree ----------------------------------------------------------------------

    def current_player(self) -> int:
        """The player to act, CHANCE while dealing, TERMINAL at the end."""
        table = self.table
        if table.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if table.needs_deal:
            return int(pyspiel.PlayerId.CHANCE)
        assert table.turn is not None
        return table.turn

    def _legal_actions(self, player: int) -> list[int]:
        return self.table.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not dealt yet, equally likely."""
        dealt = set(self.dealing)
        left = [card for card in range(52) if card not in dealt]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        table = self.table
        if table.needs_deal:
            # A deal's rewards stay through the next deal's chance nodes, up to the next
            # decision: OpenSpiel (its tests, rl_environment) reads rewards at decision nodes.
            if not 0 <= action < 52 or action in self.dealing:
                raise EnvError(f"chance outcome {action} is not a card left to deal")
            self.dealing.append(action)
            if len(self.dealing) == 52:
                dealer = table.next_dealer
                hands = [0, 0, 0, 0]
                for position, card in enumerate(self.dealing):
                    hands[(dealer + 1 + position) & 3] |= 1 << card
                table.start(hands, dealer)
                self.deals.append(hands)
                self.dealing = []
                self.plays = []
                self.public.append(f"deal {table.played + 1}, dealer {dealer}")
            return
        seat = table.turn
        assert seat is not None
        table.apply(action)
        self.last_rewards = [0.0, 0.0, 0.0, 0.0]
        if CARD_BASE <= action < CARD_BASE + 52:
            self.plays.append((seat, action - CARD_BASE))
        self.public.append(f"{seat}:{action_name(action)}")
        if table.deal_scores is not None:
            self.last_rewards = [score / 10 for score in table.deal_scores]
        if table.thrown_in:
            self.public.append("thrown in")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {Card(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return self.table.over

    def rewards(self) -> list[float]:
        """The deal's scores in points from the action that ended it up to the next decision
        (through the next deal's chance nodes), else zeros."""
        return list(self.last_rewards)

    def returns(self) -> list[float]:
        """The match totals so far, in points."""
        return [total / 10 for total in self.table.totals]

    def __str__(self) -> str:
        table = self.table
        if table.needs_deal and not table.over:
            return f"dealing: {len(self.dealing)} cards dealt"
        lines = [
            f"deal {table.played + (0 if table.over else 1)}, dealer {table.dealer}, totals "
            + " ".join(format_tenths(total) for total in table.totals)
        ]
        for seat in range(4):
            lines.append(
                f"{seat}: call {table.calls[seat] or '-'} won {table.won[seat]} "
                f"holds {CardSet(table.hands[seat])}"
            )
        lines.append("trick: " + " ".join(str(Card(card)) for card in table.trick))
        return "\n".join(lines)

    # --- hidden information -----------------------------------------------------------------

    def observation_of(self, player: int) -> Observation:
        """The engine's Observation of ``player`` in the deal in progress."""
        table = self.table
        tricks: list[Trick] = []
        cards: list[Card] = []
        leader = (table.dealer + 1) & 3
        for seat, card in self.plays:
            if not cards:
                leader = seat
            cards.append(Card(card))
            if len(cards) == 4:
                tricks.append(Trick(leader, tuple(cards)))
                cards = []
        trick = Trick(table.leader, tuple(cards))
        phase = Phase.CALLING if table.phase == CALLING else Phase.PLAYING
        return Observation(
            seat=player,
            rules=self.rules,
            deal_number=table.played + 1,
            dealer=table.dealer,
            hand=CardSet(table.hands[player]),
            calls=tuple(call or None for call in table.calls),
            tricks=tuple(tricks),
            trick=trick,
            won=tuple(table.won),
            totals=tuple(table.totals),
            phase=phase,
            turn=table.turn,
            legal_calls=(),
            legal_cards=CardSet(),
        )

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> CallbreakState:
        """A state ``player_id`` cannot tell from this one: the other seats' unplayed cards
        dealt again within what the rules revealed (the deal in progress only; earlier deals
        were played out in the open or thrown in before play)."""
        rng = random.Random(int(probability_sampler() * 2**53))
        table = self.table
        if table.over:
            return self.clone()  # type: ignore[no-any-return]
        if table.needs_deal and not self.dealing:
            return self.clone()  # type: ignore[no-any-return]  # between deals: nothing hidden
        hands = self._sampled_hands(player_id, rng)
        history = self.full_history()
        # Replay everything before the current deal's last dealing, then deal the new hands.
        start = _last_deal_start(history, len(self.dealing))
        state: CallbreakState = self.get_game().new_initial_state()
        for item in history[:start]:
            state.apply_action(item.action)
        dealer = table.next_dealer if table.needs_deal else table.dealer
        order = _dealing_order(hands, dealer, len(self.dealing) if table.needs_deal else 52, rng)
        for card in order:
            state.apply_action(card)
        for item in history[start + len(order) :]:
            state.apply_action(item.action)
        return state

    def _sampled_hands(self, player: int, rng: random.Random) -> list[int]:
        """The deal's dealt hands with the other seats' hidden cards sampled again."""
        table = self.table
        if table.needs_deal:  # dealing: what the other seats were dealt so far is hidden
            dealer = table.next_dealer
            hands = [0, 0, 0, 0]
            for position, card in enumerate(self.dealing):
                hands[(dealer + 1 + position) & 3] |= 1 << card
            others = [s for s in range(4) if s != player]
            pool = [card for s in others for card in CardSet(hands[s])]
            rng.shuffle(pool)
            out = list(hands)
            for s in others:
                size = hands[s].bit_count()
                out[s] = sum(1 << card for card in pool[:size])
                pool = pool[size:]
            return out
        knowledge = Knowledge.from_observation(self.observation_of(player))
        allowed = knowledge.allowed_array()
        sizes = knowledge.sizes_array()
        worlds = kernel.sample_worlds(
            1, player, knowledge.hand, knowledge.unseen, allowed, sizes, rng.getrandbits(62)
        )
        found = worlds[0, 0] >= 0  # else no consistent world was found: keep the true one
        held = [int(worlds[0, s]) for s in range(4)] if found else list(table.hands)
        return [held[s] | knowledge.played_by[s] for s in range(4)]


def _last_deal_start(history: list[Any], dealt: int) -> int:
    """Where the last dealing begins in ``history``: its first chance action."""
    chance = 0
    for index in range(len(history) - 1, -1, -1):
        if history[index].player == pyspiel.PlayerId.CHANCE:
            chance += 1
            # Dealing is 52 chance actions in a row; the last run of them is the current deal.
            if index == 0 or history[index - 1].player != pyspiel.PlayerId.CHANCE:
                return index
    return len(history) - dealt


def _dealing_order(hands: list[int], dealer: int, count: int, rng: random.Random) -> list[int]:
    """The first ``count`` chance outcomes that deal ``hands`` one card at a time."""
    cards = [list(CardSet(hand)) for hand in hands]
    for own in cards:
        rng.shuffle(own)
    order = []
    for position in range(count):
        order.append(int(cards[(dealer + 1 + position) & 3].pop()))
    return order


class CallbreakObserver:
    """Observations for OpenSpiel: the observation vector, or the information state (the
    observation vector and the deal's tricks in order)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        size = INFO_STATE_SIZE if perfect_recall else OBS_SIZE
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if perfect_recall:
            self.dict["history"] = self.tensor[OBS_SIZE:].reshape(13, 4, 52)

    def set_from(self, state: CallbreakState, player: int) -> None:
        """Fill the tensor with what ``player`` may know in ``state``."""
        table = state.table
        self.tensor[:] = 0
        if table.needs_deal and not table.over:
            # Dealing: only the cards dealt to this player so far.
            dealer = table.next_dealer
            for position, card in enumerate(state.dealing):
                if (dealer + 1 + position) & 3 == player:
                    self.tensor[card] = 1
        else:
            self.tensor[:OBS_SIZE] = table.obs[player]
        if self.perfect_recall and not table.needs_deal:
            history = self.dict["history"]
            for index, (seat, card) in enumerate(state.plays):
                history[index // 4, (seat - player) & 3, card] = 1

    def string_from(self, state: CallbreakState, player: int) -> str:
        """The observation or information state in words."""
        table = state.table
        if self.perfect_recall:
            parts = []
            deal = 0
            for event in state.public:
                if event.startswith("deal "):
                    parts.append(f"{event}, hand {CardSet(state.deals[deal][player])}")
                    deal += 1
                else:
                    parts.append(event)
            if state.dealing:
                dealer = table.next_dealer
                mine = [
                    card
                    for position, card in enumerate(state.dealing)
                    if (dealer + 1 + position) & 3 == player
                ]
                parts.append(f"dealing, dealt {CardSet(mine)}")
            return f"player {player}; " + "; ".join(parts)
        if table.needs_deal and not table.over:
            return f"player {player} dealing"
        calls = " ".join(str(call or "-") for call in table.calls)
        won = " ".join(map(str, table.won))
        trick = " ".join(
            f"{(table.leader + i) & 3}:{Card(card)}" for i, card in enumerate(table.trick)
        )
        phase = "playing" if table.phase == PLAYING else "calling" if not table.over else "over"
        return (
            f"player {player} {phase}, deal {table.played + (0 if table.over else 1)}, "
            f"dealer {table.dealer}, hand {CardSet(table.hands[player])}, calls {calls}, "
            f"won {won}, trick {trick or '-'}, turn {table.turn}, totals "
            + " ".join(format_tenths(total) for total in table.totals)
        )


pyspiel.register_game(_GAME_TYPE, CallbreakGame)
