"""Self-play data: the expert against itself, every decision written with what its seat knew.

A run plays seeded matches between four seated players (by default four copies of the expert
at a budget suited to data) and writes, for every decision of every seat, one row: the seat's
observation (the environments' vector, :func:`callbreak.players.encoding.encode` of the seat's own
:class:`~callbreak.game.Observation`, nothing else), the legal actions, the value the search
gave each legal call or card and how much search stands behind it, the action taken, and the
outcome of the deal and of the match. The player deciding is shown that same ``Observation``
only, through :class:`callbreak.seating.Seating` like every host's players.

The matches are cut into *shards* of ``shard_matches`` matches, one ``.npz`` file each
(``docs/players.md`` lists every array). A shard is a function of the seed, the players, the
rules and its index alone: shards are played in any order, in local worker processes or as Ray
tasks (:mod:`callbreak.workers`, as the arena plays its sets), and a run stopped and started
again plays only the shards not yet written. Files are written whole (to a temporary name,
then renamed) and byte for byte the same for the same settings, so that a resumed run equals
an uninterrupted one.

>>> import tempfile
>>> plan = make_plan(["random"], rules="strict(deals=1)", matches=2, shard_matches=1, seed=3)
>>> with tempfile.TemporaryDirectory() as folder:
...     summary = run(plan, folder, workers=1)
...     shard = read_shard(shard_path(folder, 1))
>>> summary.written, shard.rows, shard.arrays["obs"].shape[1] == OBS_SIZE
(2, 56, True)
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from callbreak import __version__, npzfile
from callbreak.arena import ArenaError, arena_spec, check_rules
from callbreak.cards import Card
from callbreak.errors import CallbreakError
from callbreak.game import Match, Observation, Phase
from callbreak.players.base import Event, Player
from callbreak.players.encoding import CARD_BASE, CLAIM, NUM_ACTIONS, OBS_SIZE, action_of, encode
from callbreak.players.expert import ExpertPlayer
from callbreak.seating import OPEN_ENDED_DEALS, PlayerSpec, Seating, derive_seed
from callbreak.warmup import needs_kernel, warm_up
from callbreak.workers import WorkerError, open_runner

__all__ = [
    "ARRAYS",
    "DEFAULT_PLAYERS",
    "FORMAT",
    "KINDS",
    "OBS_SIZE",
    "Data",
    "Plan",
    "Recorder",
    "Searched",
    "SelfplayError",
    "Shard",
    "ShardResult",
    "ShardTask",
    "Summary",
    "decision_row",
    "iter_shards",
    "load",
    "make_plan",
    "play_shard",
    "read_shard",
    "run",
    "shard_path",
    "shard_paths",
]

FORMAT = 1
"""The version of the shard files' layout (``docs/players.md``); a reader refuses others."""
DEFAULT_PLAYERS = "expert(time=0.1, threads=1)"
"""A tenth of a core-second a decision: a tenth of the expert's default, for volume."""
DEFAULT_SHARD_MATCHES = 10
"""Matches per shard: about 2,800 decisions of five-deal matches, minutes of one core's work,
so that a stopped run loses little."""
DECISIONS_PER_DEAL = 56
"""Four calls and 52 cards: what ``decisions`` is turned into matches by."""
MAX_MATCHES = 100_000_000
MANIFEST = "selfplay.json"
"""The run's settings, beside its shards: a run into the same folder must share them."""
TRICK_SLOTS = 14

ARRAYS: dict[str, tuple[str, tuple[int, ...]]] = {
    "obs": ("float32", (OBS_SIZE,)),
    "legal": ("bool", (NUM_ACTIONS,)),
    "action": ("int16", ()),
    "values": ("float32", (NUM_ACTIONS,)),
    "counts": ("float32", (NUM_ACTIONS,)),
    "tricks": ("float32", (TRICK_SLOTS,)),
    "seat": ("int8", ()),
    "match": ("int32", ()),
    "deal": ("int16", ()),
    "thrown_in": ("bool", ()),
    "deal_tricks": ("int8", (4,)),
    "deal_scores": ("int16", (4,)),
    "match_totals": ("int32", (4,)),
    "match_places": ("int8", (4,)),
}
"""Every array of a shard: its dtype and the shape of one row (``docs/players.md`` says what
each holds). The four-wide outcomes are by relative seat, as the observation is: 0 is the seat
that decided, then the seats after it in play order."""


class SelfplayError(CallbreakError):
    """Self-play settings that cannot work, or a shard file that cannot be read."""


# --- what one decision saw ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Searched:
    """What the player's search said of one decision's options, by action number."""

    values: dict[int, float] = dataclasses.field(default_factory=dict)
    """Expected value in points of each option the search weighed (empty: none weighed)."""
    counts: dict[int, float] = dataclasses.field(default_factory=dict)
    """How much search stands behind each value: the tree's root visits, or the worlds every
    option was weighed in (flat search, exact solves, call simulations)."""
    tricks: tuple[float, ...] = ()
    """For a call: the chance of taking 0-13 tricks that the call made rests on."""


class Recorder(Player):
    """A seated player whose decisions are kept with what its search said of every option.

    It decides exactly as the player does (the expert's call is the first of its
    ``rank_calls``, its card the first of its ``rank_cards`` or the only legal one), so the
    matches played are those the players play unrecorded; a level without per-option values
    decides as it would and leaves them empty. Like every player it is given only its seat's
    ``Observation``.
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.spec = player.spec
        self.last = Searched()
        """What the search said of the last decision."""

    def claim_redeal(self, observation: Observation) -> bool:
        """The player's own answer (the expert's is a rule of thumb: nothing to weigh)."""
        self.last = Searched()
        return self.player.claim_redeal(observation)

    def call(self, observation: Observation, *, time: float | None = None) -> int:
        """The player's call, its candidates' values kept."""
        limit = {} if time is None else {"time": time}
        player = self.player
        if isinstance(player, ExpertPlayer) and type(player).call is ExpertPlayer.call:
            ranked = player.rank_calls(observation, **limit)
            worlds = player.last_search.get("worlds", 0.0)
            self.last = Searched(
                {call - 1: value for call, value, _ in ranked},
                {call - 1: worlds for call, _, _ in ranked},
                tuple(float(p) for p in ranked[0][2]),
            )
            return ranked[0][0]
        self.last = Searched()
        return player.call(observation, **limit)

    def play(self, observation: Observation, *, time: float | None = None) -> Card:
        """The player's card, every legal card's value kept."""
        limit = {} if time is None else {"time": time}
        player = self.player
        legal = observation.legal_cards
        self.last = Searched()
        if isinstance(player, ExpertPlayer) and type(player).play is ExpertPlayer.play:
            if len(legal) == 1:
                return next(iter(legal))  # as the expert's play: no search, no seed drawn
            ranked = player.rank_cards(observation, **limit)
            worlds = player.last_search.get("worlds", 0.0)
            visits = player.last_visits
            self.last = Searched(
                {CARD_BASE + int(card): value for card, value in ranked},
                {CARD_BASE + int(card): visits.get(int(card), worlds) for card, _ in ranked},
            )
            return ranked[0][0]
        return player.play(observation, **limit)

    def inform(self, event: Event) -> None:
        """Passed on to the player."""
        self.player.inform(event)

    def kernel_functions(self, calling: bool) -> tuple[str, ...]:
        """The player's."""
        return self.player.kernel_functions(calling)

    def close(self) -> None:
        """Close the player."""
        self.player.close()


def decision_row(
    observation: Observation, action: int, searched: Searched, deals: int
) -> dict[str, np.ndarray]:
    """One decision's observation, legal actions, action and search, as a shard row (the
    outcome is added once the match is over)."""
    legal = np.zeros(NUM_ACTIONS, dtype=bool)
    for call in observation.legal_calls:
        legal[call - 1] = True
    if observation.may_claim_redeal:
        legal[CLAIM] = True
    for card in observation.legal_cards:
        legal[CARD_BASE + int(card)] = True
    values = np.full(NUM_ACTIONS, np.nan, dtype=np.float32)
    counts = np.zeros(NUM_ACTIONS, dtype=np.float32)
    for option, value in searched.values.items():
        values[option] = value
        counts[option] = searched.counts.get(option, 0.0)
    tricks = np.zeros(TRICK_SLOTS, dtype=np.float32)
    tricks[: len(searched.tricks)] = searched.tricks
    return {
        "obs": encode(observation, deals),
        "legal": legal,
        "action": np.array(action, np.int16),
        "values": values,
        "counts": counts,
        "tricks": tricks,
        "seat": np.array(observation.seat, np.int8),
    }


# --- one shard ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ShardTask:
    """One shard to play: its index, matches ``first_match`` onwards, the four players."""

    index: int
    players: tuple[str, ...]
    rules: str
    seed: int
    first_match: int
    matches: int


@dataclasses.dataclass(frozen=True)
class ShardResult:
    """A played shard: its file's bytes and what it cost."""

    index: int
    data: bytes
    decisions: int
    searched: int
    """Decisions with more than one legal option (the rest cost nothing)."""
    seconds: float
    """Wall-clock seconds the shard took where it ran."""
    cpu_seconds: float
    """CPU seconds of the process that played it (one core's work at ``threads=1``)."""


def play_shard(task: ShardTask) -> ShardResult:
    """Play a shard's matches and return its file (the unit of work the runners run)."""
    started, cpu = time.perf_counter(), time.process_time()
    rows: list[dict[str, np.ndarray]] = []
    for number in range(task.first_match, task.first_match + task.matches):
        rows += _play_match(task, number)
    meta = {
        "format": FORMAT,
        "callbreak": __version__,
        "players": list(task.players),
        "rules": task.rules,
        "seed": task.seed,
        "shard": task.index,
        "first_match": task.first_match,
        "matches": task.matches,
    }
    arrays = {name: np.stack([row[name] for row in rows]) for name in ARRAYS}
    data = _npz_bytes(arrays, meta)
    searched = int((arrays["legal"].sum(axis=1) > 1).sum())
    return ShardResult(
        task.index,
        data,
        len(rows),
        searched,
        time.perf_counter() - started,
        time.process_time() - cpu,
    )


def _play_match(task: ShardTask, number: int) -> list[dict[str, np.ndarray]]:
    """Every decision of match ``number`` of the run, outcome included."""
    # an open-ended profile plays five deals, as the arena and make_plan play it (without an
    # end the match would never stop, and the observation's deal block counts deals)
    match = Match(check_rules(task.rules), seed=f"selfplay/{task.seed}/{number}")
    deals = match.rules.deals or OPEN_ENDED_DEALS
    recorders = [
        Recorder(arena_spec(spec, derive_seed(task.seed, "selfplay", number, seat)).build())
        for seat, spec in enumerate(task.players)
    ]
    seating = Seating(match, recorders)
    rows, dealt = [], []
    try:
        while not match.is_over:
            seat = match.deal.turn
            assert seat is not None
            observation = match.observation(seat)
            decision = seating.decide(observation)
            searched = recorders[seat].last
            rows.append(decision_row(observation, action_of(decision.action), searched, deals))
            dealt.append(len(match.deals) - 1)
            seating.apply(decision.action, decision)
    finally:
        for recorder in recorders:
            recorder.close()
    totals, places = match.totals(), match.places()
    for row, index in zip(rows, dealt, strict=True):
        deal = match.deals[index]
        played = deal.phase is Phase.OVER
        seat = int(row["seat"])
        turn = [(seat + rel) & 3 for rel in range(4)]  # relative seats, as the observation's
        row["match"] = np.array(number, np.int32)
        row["deal"] = np.array(index, np.int16)
        row["thrown_in"] = np.array(not played)
        row["deal_tricks"] = np.array([deal.won[s] if played else 0 for s in turn], np.int8)
        scores = deal.scores()  # zeros for a deal thrown in
        row["deal_scores"] = np.array([scores[s] for s in turn], np.int16)
        row["match_totals"] = np.array([totals[s] for s in turn], np.int32)
        row["match_places"] = np.array([places[s] for s in turn], np.int8)
    return rows


def _npz_bytes(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> bytes:
    """An ``.npz`` (what ``numpy.load`` reads) that is the same bytes for the same arrays:
    numpy's own writer stamps every member with the time it was written."""
    buffer = io.BytesIO()
    members = {**arrays, "meta": np.array(json.dumps(meta, sort_keys=True))}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in members.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return buffer.getvalue()


# --- reading -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Shard:
    """A shard file read back: its arrays (``ARRAYS``) and its settings."""

    arrays: dict[str, np.ndarray]
    meta: dict[str, Any]

    @property
    def rows(self) -> int:
        """Its decisions."""
        return len(self.arrays["action"])


def read_shard(path: str | os.PathLike[str]) -> Shard:
    """A shard file; SelfplayError for one that is missing, corrupt or of another format."""
    try:
        members, meta = npzfile.read(path)
    except npzfile.NpzError as error:
        raise SelfplayError(f"cannot read the shard {path}: {error}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise SelfplayError(f"{path} is a shard of format {found}, not {FORMAT}")
    rows = len(members.get("action", ()))
    for name, (dtype, shape) in ARRAYS.items():
        array = members.get(name)
        if array is None or array.dtype != np.dtype(dtype) or array.shape != (rows, *shape):
            raise SelfplayError(f"{path}: the array {name!r} is missing or of the wrong shape")
    return Shard(members, meta)


def shard_path(folder: str | os.PathLike[str], index: int) -> Path:
    """Where shard ``index`` of a run is written."""
    return Path(folder) / f"shard-{index:06d}.npz"


def shard_paths(folder: str | os.PathLike[str]) -> list[Path]:
    """The shard files of a run, in order."""
    return sorted(Path(folder).glob("shard-[0-9][0-9][0-9][0-9][0-9][0-9].npz"))


# --- a run -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Plan:
    """A run's settings, checked: four players, the rules, the seed, the matches in shards."""

    players: tuple[str, ...]
    rules: str
    seed: int
    matches: int
    """A whole number of shards' matches."""
    shard_matches: int

    @property
    def shards(self) -> int:
        """How many shards the run has."""
        return self.matches // self.shard_matches

    def tasks(self) -> list[ShardTask]:
        """Every shard of the run."""
        size = self.shard_matches
        return [
            ShardTask(i, self.players, self.rules, self.seed, i * size, size)
            for i in range(self.shards)
        ]

    def settings(self) -> dict[str, Any]:
        """What a shard's data depends on: a folder's shards must all share it."""
        return {
            "format": FORMAT,
            "players": list(self.players),
            "rules": self.rules,
            "seed": self.seed,
            "shard_matches": self.shard_matches,
        }


def make_plan(
    players: Sequence[str] = (DEFAULT_PLAYERS,),
    *,
    rules: str = "strict",
    seed: int = 1,
    matches: int | None = None,
    decisions: int | None = None,
    shard_matches: int = DEFAULT_SHARD_MATCHES,
) -> Plan:
    """The checked settings of a run; SelfplayError says what is wrong in one line.

    ``players`` is one spec or four (one per seat); players that see every hand (the oracle)
    and remote bots are refused, since the data must hold only what a seat of ours knew.
    ``matches`` (default 100), or ``decisions`` (about: 56 a deal), is rounded up to whole
    shards of ``shard_matches``, so that a bigger run with the same settings extends a smaller.
    """
    if isinstance(players, str):
        players = [players]
    if len(players) not in (1, 4):
        raise SelfplayError(f"give one player spec or four (one per seat), not {len(players)}")
    seated = tuple(_check_player(spec) for spec in players)
    seated = seated * 4 if len(seated) == 1 else seated
    try:
        parsed = check_rules(rules)
    except ArenaError as error:
        raise SelfplayError(str(error)) from None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise SelfplayError(f"the seed is a whole number 0 or more, not {seed!r}")
    if not 1 <= shard_matches <= 100_000:
        raise SelfplayError(f"a shard holds 1 to 100000 matches, not {shard_matches}")
    if matches is not None and decisions is not None:
        raise SelfplayError("give the matches or the decisions, not both")
    if decisions is not None:
        if not 1 <= decisions <= MAX_MATCHES:
            raise SelfplayError(f"decisions must be 1 to {MAX_MATCHES}, not {decisions}")
        matches = math.ceil(decisions / (DECISIONS_PER_DEAL * (parsed.deals or 1)))
    matches = 100 if matches is None else matches
    if not 1 <= matches <= MAX_MATCHES:
        raise SelfplayError(f"matches must be 1 to {MAX_MATCHES}, not {matches}")
    whole = math.ceil(matches / shard_matches) * shard_matches
    return Plan(seated, str(parsed), seed, whole, shard_matches)


def _check_player(spec: str) -> str:
    """The spec as the run writes it; SelfplayError for one that cannot be seated here."""
    try:
        parsed = PlayerSpec.parse(spec)
        if parsed.remote:
            raise SelfplayError(f"player {spec!r}: self-play seats our own levels, not remote bots")
        player = arena_spec(parsed, 0).build(ready=False)
        player.close()
    except SelfplayError:
        raise
    except CallbreakError as error:
        raise SelfplayError(f"player {spec!r}: {error}") from None
    if player.omniscient:
        raise SelfplayError(
            f"player {spec!r} sees every hand: self-play data holds only what a seat knew"
        )
    return str(parsed)


@dataclasses.dataclass(frozen=True)
class Summary:
    """What a run did."""

    shards: int
    """Shards of the plan."""
    kept: int
    """Shards found written already (by an earlier run), not played again."""
    written: int
    """Shards played and written by this run."""
    decisions: int
    """Decisions in the shards this run wrote."""
    searched: int
    seconds: float
    """Wall-clock seconds of this run."""
    cpu_seconds: float
    """CPU seconds its shards took where they ran."""
    interrupted: bool = False
    error: str | None = None


OnShard = Callable[[ShardResult, int], None]
"""Called with each shard written and the count written so far by the run."""


def run(
    plan: Plan,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    ray: str | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_shard: OnShard | None = None,
) -> Summary:
    """Play the plan's shards not yet in ``out`` and write each as it finishes.

    ``workers`` local processes (default: one per core; one plays in this process), or Ray
    tasks with ``ray`` (an address, or ``"local"``), as the arena runs its sets.
    ``on_start(to_play, kept)`` is called once the folder has been read. Ctrl-C
    (KeyboardInterrupt) stops the run with the shards written kept; a run started again with
    the same settings plays the rest. SelfplayError when ``out`` holds another run's shards or
    cannot be written.
    """
    folder = Path(out)
    _claim(folder, plan)
    tasks = [task for task in plan.tasks() if not shard_path(folder, task.index).exists()]
    kept = plan.shards - len(tasks)
    if on_start is not None:
        on_start(len(tasks), kept)
    started = time.perf_counter()
    written = decisions = searched = 0
    cpu = 0.0
    interrupted, failure = False, None
    setup = warm_up if needs_kernel(plan.players) else None
    try:
        # Nothing left to play: no worker processes started, no Ray joined.
        with open_runner(workers=workers if tasks else 1, ray=ray if tasks else None) as runner:
            for _, result in runner.run(play_shard, tasks, setup=setup):
                try:
                    _write(shard_path(folder, result.index), result.data)
                except OSError as error:  # a full disk: what was written stays good
                    raise SelfplayError(f"cannot write a shard into {folder}: {error}") from None
                written += 1
                decisions += result.decisions
                searched += result.searched
                cpu += result.cpu_seconds
                if on_shard is not None:
                    on_shard(result, written)
    except KeyboardInterrupt:
        interrupted = True
    except WorkerError as error:
        if not written:
            raise SelfplayError(str(error)) from None  # Ray missing or out of reach
        interrupted, failure = True, str(error)
    except CallbreakError as error:  # a player failed: the shards written are kept
        interrupted, failure = True, str(error)
    seconds = time.perf_counter() - started
    return Summary(
        plan.shards, kept, written, decisions, searched, seconds, cpu, interrupted, failure
    )


def _claim(folder: Path, plan: Plan) -> None:
    """Make ``folder`` this run's: created if need be, its manifest written; SelfplayError if
    it is a file or holds a run with other settings."""
    manifest = folder / MANIFEST
    try:
        folder.mkdir(parents=True, exist_ok=True)
        before = 0
        if manifest.exists():
            found = json.loads(manifest.read_text())
            theirs = {key: found.get(key) for key in plan.settings()}
            if theirs != plan.settings():
                differs = ", ".join(
                    f"{key} {theirs[key]!r} there, {value!r} here"
                    for key, value in plan.settings().items()
                    if theirs[key] != value
                )
                raise SelfplayError(f"{folder} holds another run ({differs}): give another --out")
            before = int(found.get("matches", 0))
        elif shard_paths(folder):
            raise SelfplayError(f"{folder} holds shards without {MANIFEST}: give another --out")
        if plan.matches > before:  # a bigger run extends the smaller: the manifest says so
            text = json.dumps({**plan.settings(), "matches": plan.matches}, indent=1) + "\n"
            _write(manifest, text.encode())
    except SelfplayError:
        raise
    except OSError as error:
        raise SelfplayError(f"cannot use the folder {folder}: {error}") from None
    except ValueError as error:  # the manifest is not JSON
        raise SelfplayError(f"{manifest} cannot be read: {error}") from None


def _write(path: Path, data: bytes) -> None:
    """Write a file whole: a stopped run leaves either the file or nothing."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def iter_shards(folder: str | os.PathLike[str]) -> Iterator[Shard]:
    """Every shard of a run's folder, in order, one at a time (a big run does not fit in
    memory at once: a million decisions' observations are 2.5 GB)."""
    for path in shard_paths(folder):
        yield read_shard(path)


Kind = Literal["all", "calls", "cards"]
KINDS = get_args(Kind)


@dataclasses.dataclass(frozen=True)
class Data:
    """A run's decisions read back into one set of arrays (``ARRAYS``, rows in shard order)."""

    arrays: dict[str, np.ndarray]
    settings: dict[str, Any]
    """The run's settings (``Plan.settings`` and its matches), from its manifest."""
    shards: int
    """Shards read."""
    missing: tuple[int, ...]
    """Shards of the run not written (yet): a run stopped early, or one still going."""

    @property
    def rows(self) -> int:
        """The decisions kept."""
        return len(self.arrays["action"])


def load(folder: str | os.PathLike[str], *, kind: Kind = "all", choices_only: bool = False) -> Data:
    """A run's shards in one set of arrays, only the decisions of ``kind`` (``calls``: the
    calling turns, a claim for a new deal among them; ``cards``) and, with ``choices_only``,
    only those with more than one legal action. SelfplayError for a folder without a run, a
    shard of another run, or a shard that cannot be read."""
    if kind not in KINDS:
        raise SelfplayError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    manifest = Path(folder) / MANIFEST
    try:
        settings = json.loads(manifest.read_text())
    except (OSError, ValueError) as error:
        raise SelfplayError(f"no self-play run in {folder}: {error}") from None
    if not isinstance(settings, dict) or settings.get("format") != FORMAT:
        raise SelfplayError(f"{manifest} is not a self-play run of format {FORMAT}")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in ARRAYS}
    found: set[int] = set()
    for path in shard_paths(folder):
        shard = read_shard(path)
        meta = shard.meta
        theirs = (meta.get("players"), meta.get("rules"), meta.get("seed"), meta.get("matches"))
        ours = (settings["players"], settings["rules"], settings["seed"], settings["shard_matches"])
        if theirs != ours:
            raise SelfplayError(f"{path} is a shard of another run than {manifest}")
        found.add(int(meta["shard"]))
        keep = _kept(shard.arrays["legal"], kind, choices_only)
        for name in ARRAYS:
            parts[name].append(shard.arrays[name][keep])
    expected = int(settings.get("matches", 0)) // int(settings["shard_matches"])
    arrays = {
        name: np.concatenate(chunks)
        if chunks
        else np.zeros((0, *ARRAYS[name][1]), dtype=ARRAYS[name][0])
        for name, chunks in parts.items()
    }
    missing = tuple(sorted(set(range(expected)) - found))
    return Data(arrays, settings, len(found), missing)


def _kept(legal: np.ndarray, kind: Kind, choices_only: bool) -> np.ndarray:
    """Which rows of a shard to keep (by their legal actions: a calling turn's are calls)."""
    calling = legal[:, :CARD_BASE].any(axis=1) | legal[:, CLAIM]
    keep: np.ndarray = np.ones(len(legal), dtype=bool)
    if kind == "calls":
        keep &= calling
    elif kind == "cards":
        keep &= ~calling
    if choices_only:
        keep &= legal.sum(axis=1) > 1
    return keep
