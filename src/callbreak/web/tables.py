"""Live matches in the browser: one person, three computer players, one table each.

A :class:`Table` owns a match, its computer players and the sockets of the person's browser
tabs. It takes the person's calls and cards, lets the computer players act at a pace a person
can follow, saves every action, and sends each browser the person's own view of the table and
nothing else: the person's hand, the calls, the cards on the table and the scores.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import traceback
import urllib.parse
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from callbreak.cards import Card, parse_card
from callbreak.errors import CallbreakError, InvalidCardError
from callbreak.game import Action, Call, ClaimRedeal, Match, Phase, Play, Trick
from callbreak.players import Event, Player, PlayerError, decide, is_remote, make_player
from callbreak.record import Record, to_data
from callbreak.rules import Rules, format_tenths
from callbreak.spec import format_spec, parse_spec
from callbreak.web.store import Store

__all__ = ["SPEEDS", "Table", "Tables", "encode_action"]

#: Seconds between two computer cards at each speed; a finished trick stays up a little longer.
SPEEDS = {"slow": 1.6, "normal": 0.9, "fast": 0.35, "instant": 0.0}
TRICK_PAUSE = 1.6
MAX_MESSAGE_BYTES = 4_000
COMPUTER_NAMES = ("Bikash", "Chandra", "Dipa", "Esha", "Gopal", "Hari")


def encode_action(action: Action | str) -> str:
    """An action as stored: 'c3' (call), 'pTH' (card), 'r' (redeal claim) or 's' (stop)."""
    if isinstance(action, Call):
        return f"c{action.value}"
    if isinstance(action, Play):
        return f"p{action.card}"
    if isinstance(action, ClaimRedeal):
        return "r"
    return action


def _apply_code(match: Match, code: str) -> None:
    if code == "s":
        match.stop()
    elif code == "r":
        match.claim_redeal()
    elif code.startswith("c"):
        match.call(int(code[1:]))
    else:
        match.play(parse_card(code[1:]))


def _seed_for(match_seed: str, seat: int) -> int:
    digest = hashlib.sha256(f"{match_seed}/computer/{seat}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def _computer(level: str, match_seed: str, seat: int) -> Player:
    """A computer player for ``seat``, seeded from the match unless its spec has a seed.

    A remote bot is not contacted here: if it does not answer, each of its turns gets the
    host's substitute and a fault, and the match goes on.
    """
    if is_remote(level):
        from callbreak.bots.remote import RemotePlayer

        return RemotePlayer(level)
    name, options = parse_spec(level, "player")
    options.setdefault("seed", _seed_for(match_seed, seat))
    return make_player(format_spec(name.lower(), options))


def match_from_row(row: dict[str, Any]) -> Match:
    """A stored match rebuilt by replaying its actions."""
    match = Match(Rules.parse(row["rules"]), seed=row["seed"], players=tuple(row["names"]))
    for code in row["actions"]:
        _apply_code(match, code)
    return match


class Table:
    """A match being played in the browser."""

    def __init__(self, row: dict[str, Any], store: Store) -> None:
        self.id: str = row["id"]
        self.store = store
        self.rules = Rules.parse(row["rules"])
        self.seed: str = row["seed"]
        self.names: list[str] = row["names"]
        self.levels: list[str | None] = row["levels"]
        self.human: int = row["human"]
        self.settings: dict[str, Any] = dict(row["settings"])
        self.actions: list[str] = list(row["actions"])
        self.match = match_from_row(row)
        self._players: list[Player | None] | None = None
        self._announced = -1
        self.sockets: set[WebSocket] = set()
        self.thinking: int | None = None
        self.hint_running = False
        self._runner: asyncio.Task[None] | None = None

    @property
    def players(self) -> list[Player | None]:
        """The computer players (None for the person's seat), made when first needed: listing
        matches must not contact remote bots."""
        if self._players is None:
            self._players = [
                None if level is None else _computer(level, self.seed, seat)
                for seat, level in enumerate(self.levels)
            ]
        return self._players

    def computer(self, seat: int) -> Player:
        """The computer player of ``seat`` (made on first use; remote bots are contacted)."""
        player = self.players[seat]
        assert player is not None, "the person's seat has no computer player"
        return player

    # --- what the person sees ------------------------------------------------------------------

    @property
    def status(self) -> str:
        """'playing', 'finished' or 'stopped'."""
        if not self.match.is_over:
            return "playing"
        return "stopped" if self.match.stopped else "finished"

    def view(self) -> dict[str, Any]:
        """The person's view of the table: only what their seat may see."""
        match, seat = self.match, self.human
        deal = match.deal
        seen = match.observation(seat)
        my_turn = deal.turn == seat and not match.is_over
        hand = sorted(seen.hand, key=_display_order)
        reasons: dict[str, str] = {}
        if my_turn and deal.phase is Phase.PLAYING:
            for card in hand:
                why = deal.explain(card)
                if why:
                    reasons[str(card)] = why
        played = match.played_deals()
        totals_before = match.totals_before(len(match.deals) - 1)
        last_trick = deal.tricks[-1] if deal.tricks else None
        if last_trick is None and len(match.deals) > 1:
            # Until the new deal's first card, the last trick of the deal before is still up.
            previous = match.deals[-2]
            last_trick = previous.tricks[-1] if previous.tricks else None
        results = []
        for number, finished in enumerate(played, 1):
            results.append(
                {
                    "number": number,
                    "calls": list(finished.calls),
                    "won": list(finished.won),
                    "scores": [format_tenths(s) for s in finished.scores()],
                }
            )
        return {
            "match": self.id,
            "rules": {
                "text": str(self.rules),
                "profile": self.rules.profile,
                "summary": self.rules.summary(),
                "clockwise": self.rules.clockwise,
                "deals": self.rules.deals,
                "calls": [self.rules.min_call, self.rules.max_call],
            },
            "seat": seat,
            "names": self.names,
            "levels": [_level_name(level) for level in self.levels],
            "deal_number": match.deal_number,
            "dealer": deal.dealer,
            "phase": deal.phase.value,
            "turn": None if match.is_over else deal.turn,
            "hand": [str(card) for card in hand],
            "legal": [str(card) for card in seen.legal_cards] if my_turn else [],
            "reasons": reasons,
            "legal_calls": list(seen.legal_calls) if my_turn else [],
            "may_claim_redeal": bool(my_turn and seen.may_claim_redeal),
            "calls": list(deal.calls),
            "won": list(deal.won),
            "trick": _trick_json(deal.trick),
            "last_trick": None if last_trick is None else _trick_json(last_trick),
            "tricks_played": len(deal.tricks),
            "totals": [format_tenths(t) for t in match.totals()],
            "totals_before": [format_tenths(t) for t in totals_before],
            "results": results,
            "thrown_in": [d.thrown_in for d in match.deals if d.thrown_in],
            "match_over": match.is_over,
            "status": self.status,
            "places": match.places() if match.is_over else None,
            "can_stop": self.rules.deals is None
            and not deal.actions
            and bool(played)
            and not match.is_over,
            "thinking": self.thinking,
            "settings": self.settings,
            "version": len(self.actions),
        }

    def _fresh_deal(self) -> bool:
        """Whether no card of the current deal is played yet, after an earlier deal."""
        return len(self.match.deals) > 1 and not self.match.deal.tricks

    def _announce_deal(self) -> None:
        """Tell the players that follow the game (remote bots file faults by deal)."""
        index = len(self.match.deals) - 1
        if index != self._announced:
            self._announced = index
            for player in self._players or ():
                inform = getattr(player, "inform", None)
                if inform is not None:
                    inform(Event("deal_start", None, None, index))

    async def _tell(self, text: str, kind: str = "error") -> None:
        message = json.dumps({"type": kind, "message": text})
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.send_text(message)

    async def broadcast(self) -> None:
        """Send the view to every connected tab of the person."""
        message = json.dumps({"type": "state", "state": self.view()})
        for socket in list(self.sockets):
            with contextlib.suppress(Exception):
                await socket.send_text(message)

    # --- actions -------------------------------------------------------------------------------

    def _apply(self, action: Action | str) -> None:
        code = encode_action(action)
        _apply_code(self.match, code)
        self.actions.append(code)
        self.store.save_match(self.id, self.actions, self.status, self.settings)

    async def handle(self, socket: WebSocket, text: str) -> None:
        """One message from the person's browser."""
        try:
            if len(text) > MAX_MESSAGE_BYTES:
                raise CallbreakError("the message is too long")
            try:
                message = json.loads(text)
            except (ValueError, RecursionError):
                raise CallbreakError("the message is not JSON") from None
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise CallbreakError('a message is a JSON object with a "type"')
            await self._handle(socket, message)
        except CallbreakError as error:
            await self._send(socket, {"type": "error", "message": str(error)})
        except Exception as error:  # a bug of ours: say so, keep the socket and the match
            traceback.print_exception(error)
            await self._send(socket, {"type": "error", "message": f"internal error: {error}"})

    async def _send(self, socket: WebSocket, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await socket.send_text(json.dumps(message))

    async def _handle(self, socket: WebSocket, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "settings":
            self._update_settings(message)
            self.store.save_match(self.id, self.actions, self.status, self.settings)
            await self.broadcast()
            self.wake()
            return
        if kind == "hint":
            await self._hint(socket)
            return
        if kind == "sync":
            await socket.send_text(json.dumps({"type": "state", "state": self.view()}))
            return
        if kind not in ("call", "play", "redeal", "stop"):
            raise CallbreakError(f"unknown message type {kind!r}")
        if self.match.is_over:
            raise CallbreakError("the match is over")
        if "seat" in message and message["seat"] != self.human:
            raise CallbreakError(f"you play seat {self.human}, not seat {message['seat']!r}")
        if kind == "stop":
            if not self.view()["can_stop"]:
                raise CallbreakError(
                    "the match can be ended only between deals of an open-ended match"
                )
            self._apply("s")
            await self.broadcast()
            return
        if self.match.deal.turn != self.human:
            who = self.match.deal.turn
            raise CallbreakError(
                f"it is {self.names[who]}'s turn, not yours"
                if who is not None
                else "nothing to do now"
            )
        action = _read_action(kind, message)
        deal = self.match.deal
        if isinstance(action, Play):
            problem = deal.explain(action.card)
        elif isinstance(action, Call):
            problem = deal.call_problem(action.value)
        else:
            problem = None if deal.may_claim_redeal() else "you may not claim a redeal now"
        if problem:
            raise CallbreakError(problem)
        self._apply(action)
        await self.broadcast()
        self.wake()

    def _update_settings(self, message: dict[str, Any]) -> None:
        speed = message.get("speed", self.settings.get("speed", "normal"))
        if not isinstance(speed, str) or speed not in SPEEDS:
            raise CallbreakError(f"speed must be one of {', '.join(SPEEDS)}, not {speed!r}")
        auto = message.get("auto_forced", self.settings.get("auto_forced", False))
        if not isinstance(auto, bool):
            raise CallbreakError("auto_forced must be true or false")
        self.settings = {"speed": speed, "auto_forced": auto}

    async def _hint(self, socket: WebSocket) -> None:
        if self.match.is_over or self.match.deal.turn != self.human:
            raise CallbreakError("a hint is for your own turn")
        if self.hint_running:
            raise CallbreakError("a hint is already being worked out")
        from callbreak.players.advisor import advise

        observation = self.match.observation(self.human)
        version = len(self.actions)
        self.hint_running = True
        try:
            advice = await run_in_threadpool(advise, observation, time=0.5, seed=len(self.actions))
        finally:
            self.hint_running = False
        options = [
            {
                "action": option.action if isinstance(option.action, int) else str(option.action),
                "value": None if option.value is None else round(option.value, 2),
                "tricks": None
                if option.expected_tricks is None
                else round(option.expected_tricks, 2),
            }
            for option in advice.options
        ]
        # The version says which decision the hint is for: by the time it arrives the person
        # may have moved on.
        message = {"type": "hint", "kind": advice.kind, "summary": advice.summary()}
        await self._send(socket, message | {"options": options, "version": version})

    # --- the computer players ------------------------------------------------------------------

    def wake(self) -> None:
        """Let the computer players (and the forced-card autoplay) act if it is their turn."""
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run())
            self._runner.add_done_callback(_report_failure)

    async def _run(self) -> None:
        # Every await lets the person act in between, so after each one the runner checks the
        # table is where it was before acting on it.
        while not self.match.is_over:
            deal = self.match.deal
            seat = deal.turn
            assert seat is not None
            delay = SPEEDS[self.settings.get("speed", "normal")]
            if not deal.trick.cards and (deal.tricks or self._fresh_deal()):
                delay *= TRICK_PAUSE  # let the finished trick be seen
            if self.levels[seat] is None:  # the person's seat
                legal = deal.legal_cards()
                if not (self.settings.get("auto_forced") and len(legal) == 1):
                    return  # wait for the person
                await asyncio.sleep(delay)
                if self.match.deal is deal and deal.turn == seat and deal.legal_cards() == legal:
                    self._apply(Play(next(iter(legal))))
                    await self.broadcast()
                continue
            version = len(self.actions)
            try:
                player = await run_in_threadpool(self.computer, seat)
            except Exception as problem:  # a spec that cannot be built: nothing can move on
                await self._tell(f"cannot seat {self.names[seat]}: {problem}")
                return
            if len(self.actions) != version:
                continue
            self._announce_deal()
            self.thinking = seat
            await self.broadcast()
            started = asyncio.get_running_loop().time()
            observation = self.match.observation(seat)
            faults_before = len(getattr(player, "faults", ()))
            try:
                action = await run_in_threadpool(decide, player, observation)
            except Exception as problem:  # the player failed: play a legal substitute
                if not isinstance(problem, PlayerError):
                    traceback.print_exception(problem)
                action = _fallback(observation.legal_calls, observation.legal_cards)
                await self._tell(
                    f"{self.names[seat]} failed ({problem}); a legal move was made for it"
                )
            for fault in list(getattr(player, "faults", ()))[faults_before:]:
                instead = (
                    f"a call of {fault.substitute} was made"
                    if fault.action == "call"
                    else f"the {parse_card(fault.substitute).pretty()} was played"
                )
                text = f"{self.names[seat]}'s bot: {fault.fault} ({fault.detail}); {instead} for it"
                await self._tell(text, kind="notice")
            elapsed = asyncio.get_running_loop().time() - started
            if delay > elapsed:
                await asyncio.sleep(delay - elapsed)
            self.thinking = None
            if len(self.actions) != version or self.match.is_over:
                continue  # the match moved on meanwhile (the person ended it)
            self._apply(action)
            await self.broadcast()

    # --- records -------------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game record: the whole match once over; before that only the completed deals,
        so that nobody can read the hidden hands of the deal in play."""
        faults: dict[int, list[dict[str, Any]]] = {}
        for player in self._players or ():
            for fault in getattr(player, "faults", ()):
                faults.setdefault(fault.deal, []).append(fault.to_json())
        record = Record.from_match(self.match, faults)
        if not self.match.is_over:
            # The seed would rebuild every hand, those of the deals still to come included: it
            # is written only once the match is over.
            complete = [deal for deal in record.deals if deal.thrown_in or len(deal.tricks) == 13]
            record = type(record)(
                rules=record.rules,
                players=record.players,
                deals=tuple(complete),
                unfinished=True,
            )
        return to_data(record)


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        traceback.print_exception(task.exception())


def _fallback(legal_calls: tuple[int, ...], legal_cards: Any) -> Action:
    if legal_calls:
        return Call(legal_calls[0])
    return Play(min(legal_cards))


def _read_action(kind: str, message: dict[str, Any]) -> Action:
    if kind == "call":
        value = message.get("value")
        if type(value) is not int:
            raise CallbreakError('a call message needs a whole number "value"')
        return Call(value)
    if kind == "redeal":
        return ClaimRedeal()
    text = message.get("card")
    if not isinstance(text, str):
        raise CallbreakError('a play message needs a "card" such as "TH"')
    try:
        return Play(parse_card(text))
    except InvalidCardError as error:
        raise CallbreakError(str(error)) from None


def _display_order(card: Card) -> tuple[int, int]:
    # Spades, hearts, clubs, diamonds: black and red alternate, highest first.
    return ((0, 1, 3, 2)[card.suit], -card.rank)


def _trick_json(trick: Trick) -> dict[str, Any]:
    return {
        "leader": trick.leader,
        "cards": [str(card) for card in trick.cards],
        "winner": trick.winner,
    }


def _level_name(level: str | None) -> str | None:
    if level is None:
        return None
    if is_remote(level):
        return "remote bot"
    return level.split("(")[0].strip().lower()


class Tables:
    """The live tables of a server, loaded from the store on first use."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.live: dict[str, Table] = {}

    def get(self, match_id: str) -> Table | None:
        """The table of a stored match (rebuilt from its actions), or None."""
        table = self.live.get(match_id)
        if table is None:
            row = self.store.match(match_id)
            if row is None:
                return None
            table = Table(row, self.store)
            self.live[match_id] = table
        return table

    def create(
        self,
        rules: Rules,
        name: str,
        opponents: list[str],
        seed: str | None,
        settings: dict[str, Any],
    ) -> Table:
        """Start a match for a person in seat 0 against three computer players.

        The computer players are built first, so that a spec that cannot work is refused
        (CallbreakError) before anything is stored.
        """
        match_id = secrets.token_urlsafe(9)
        seed = seed if seed is not None else str(secrets.randbits(48))
        computers = [_computer(spec, seed, seat) for seat, spec in enumerate(opponents, 1)]
        names = [name] + [COMPUTER_NAMES[i] for i in range(3)]
        levels: list[str | None] = [None, *opponents]
        self.store.add_match(match_id, str(rules), seed, names, levels, 0, settings)
        table = self.get(match_id)
        assert table is not None
        table._players = [None, *computers]
        return table

    async def connect(self, socket: WebSocket, match_id: str) -> None:
        """Serve one browser tab of a match until it goes away."""
        origin = socket.headers.get("origin")
        if origin and urllib.parse.urlsplit(origin).netloc != socket.headers.get("host"):
            await socket.close(code=4403)  # another site's page may not play here
            return
        await socket.accept()
        table = self.get(match_id)
        if table is None:
            await socket.send_text(json.dumps({"type": "error", "message": "no such match"}))
            await socket.close(code=4404)
            return
        table.sockets.add(socket)
        try:
            await socket.send_text(json.dumps({"type": "state", "state": table.view()}))
            table.wake()
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    try:
                        text = (message.get("bytes") or b"").decode()
                    except UnicodeDecodeError:
                        text = "\x00"  # not JSON: answered with an error like any bad text
                await table.handle(socket, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            table.sockets.discard(socket)
