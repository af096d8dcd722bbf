"""Training the learned player on self-play data (``callbreak train``; the ``train`` extra).

The data is one or more runs of :mod:`callbreak.selfplay` (the expert against itself, every
decision with what its seat knew and what the search said of each option). The network is
:mod:`callbreak.players.learned`'s: two hidden layers over :func:`~callbreak.players.learned.
features`, a cards head and a calls head. It is fitted here with PyTorch and written as plain
arrays (an ``.npz`` the player reads in numpy), so that playing needs neither PyTorch nor this
module.

What each head learns:

- **cards**, at every card decision with a choice: the search's preference, not only its
  choice. Where the search's counts differ (the tree's root visits) the target is half the
  visits' shares and half a softmax of the values (``value_temperature`` points); where every
  option was weighed equally often (flat search, exact solves at the end of a deal) it is the
  softmax of the values; a level without values (``advanced``) gives its choice.
- **calls**, at every call: the tricks the seat really took in that deal (one-hot), and as much
  again the distribution of tricks the search's simulation gave (its ``tricks``). The same head
  at card decisions learns the tricks the seat will end the deal with, at a small weight
  (``aux_weight``): it shares the trunk and costs nothing at play.

Hearts, diamonds and clubs play alike, so every batch is shown with those three suits permuted
at random (six times the data for nothing). Matches whose number is ``holdout`` modulo 10 are
kept out of training and measured: the share of card decisions where the network's first card
is the search's, and of calls where its call is the search's, reported in the written file.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from callbreak import __version__
from callbreak.errors import CallbreakError
from callbreak.players.calling import call_table
from callbreak.players.encoding import (
    CARD_BASE,
    CLAIM,
    HAND,
    NUM_ACTIONS,
    OBS_SIZE,
    PLAYED,
    TRICK,
    VOIDS,
)
from callbreak.players.learned import FEATURES, FORMAT, TRICK_SLOTS, features, load_model
from callbreak.rules import Rules
from callbreak.selfplay import SelfplayError, load

__all__ = ["Options", "Rows", "TrainError", "Trained", "read_runs", "suit_permutations", "train"]


class TrainError(CallbreakError):
    """Training that cannot start: no data, bad settings, an output that cannot be written."""


@dataclasses.dataclass(frozen=True)
class Options:
    """How to train."""

    hidden: int = 256
    epochs: int = 8
    batch: int = 512
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_temperature: float = 0.25
    """Points: how sharply the values' softmax prefers the best card."""
    call_weight: float = 4.0
    """The calls' share of the loss against a card's (calls are one decision in fourteen)."""
    aux_weight: float = 0.1
    """The tricks a seat ends with, learned at card decisions by the calls head."""
    holdout: int = 9
    """Matches whose number is this modulo 10 are measured, not trained on (-1: none)."""
    seed: int = 1
    threads: int = 1


@dataclasses.dataclass
class Rows:
    """Decisions read from self-play runs, with each head's target and weight."""

    obs: np.ndarray
    """float16, N x OBS_SIZE (the observations are zeros and ones and a few fractions)."""
    legal: np.ndarray
    policy: np.ndarray
    """float32, N x 52: the cards head's target (zeros at calls and forced cards)."""
    policy_weight: np.ndarray
    tricks: np.ndarray
    """float32, N x 14: the calls head's target."""
    tricks_weight: np.ndarray
    action: np.ndarray
    calling: np.ndarray
    holdout: np.ndarray
    rules: np.ndarray
    """Index into ``rule_names`` of each row's rules."""
    card_values: np.ndarray
    """float16, N x 52: the search's value of each card (NaN where it weighed none)."""
    rule_names: list[str]
    sources: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Each run read: its settings and the shards read (for the weights file's record)."""

    def __len__(self) -> int:
        return len(self.action)

    def subset(self, keep: np.ndarray) -> Rows:
        """The rows where ``keep``."""
        fields = {
            field.name: getattr(self, field.name)[keep]
            for field in dataclasses.fields(self)
            if field.name not in ("rule_names", "sources")
        }
        return Rows(**fields, rule_names=self.rule_names, sources=self.sources)


def _policy_targets(
    legal: np.ndarray,
    action: np.ndarray,
    values: np.ndarray,
    counts: np.ndarray,
    temperature: float,
) -> np.ndarray:
    """The cards head's target of each card row (see the module's docstring)."""
    cards_legal = legal[:, CARD_BASE : CARD_BASE + 52]
    value = values[:, CARD_BASE : CARD_BASE + 52].astype(np.float64)
    count = counts[:, CARD_BASE : CARD_BASE + 52].astype(np.float64)
    weighed = ~np.isnan(value) & cards_legal
    safe = np.where(weighed, value, -np.inf)
    top = np.max(np.where(weighed, value, -np.inf), axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    soft = np.where(weighed, np.exp((safe - top) / temperature), 0)
    soft_sum = soft.sum(axis=1, keepdims=True)
    soft = np.divide(soft, soft_sum, out=np.zeros_like(soft), where=soft_sum > 0)
    visits = np.where(weighed, count, 0)
    visit_sum = visits.sum(axis=1, keepdims=True)
    shares = np.divide(visits, visit_sum, out=np.zeros_like(visits), where=visit_sum > 0)
    spread = np.where(weighed, count, -np.inf).max(axis=1) - np.where(weighed, count, np.inf).min(
        axis=1
    )
    tree = (spread > 0)[:, None]
    target = np.where(tree, 0.5 * shares + 0.5 * soft, soft)
    chosen = np.zeros_like(target)
    card_rows = np.flatnonzero((action >= CARD_BASE) & (action < CARD_BASE + 52))
    chosen[card_rows, action[card_rows] - CARD_BASE] = 1
    searched = weighed.sum(axis=1) >= 2
    out: np.ndarray = np.where(searched[:, None], target, chosen).astype(np.float32)
    return out


def read_runs(
    folders: Sequence[str | os.PathLike[str]],
    options: Options,
    outcomes: Sequence[str | os.PathLike[str]] = (),
) -> Rows:
    """Every decision of the self-play runs in ``folders`` with its targets, and the calls of
    the runs in ``outcomes`` for the calls head alone (the tricks hands took: a run of the
    learned player itself teaches it what its own play makes of a hand, and nothing of its cards);
    TrainError for a folder without a run or a shard that cannot be read."""
    parts: dict[str, list[np.ndarray]] = {}
    rule_names: list[str] = []
    sources: list[dict[str, Any]] = []

    def add(name: str, array: np.ndarray) -> None:
        parts.setdefault(name, []).append(array)

    for folder, taught in [(f, True) for f in folders] + [(f, False) for f in outcomes]:
        try:
            # every shard of the run, checked to be of it; of an outcomes run only the calls,
            # all its calls head learns from (its cards would teach the tricks a seat ends with
            # under its own play, which the search's runs teach already)
            data = load(folder, kind="all" if taught else "calls")
        except SelfplayError as error:
            raise TrainError(str(error)) from None
        planned = int(data.settings.get("matches", 0)) // int(data.settings["shard_matches"])
        read = _ranges(sorted(set(range(planned)) - set(data.missing)))
        sources.append({**data.settings, "taught": "all" if taught else "calls", "shards": read})
        rules_text = data.settings["rules"]
        if rules_text not in rule_names:
            rule_names.append(rules_text)
        a = data.arrays
        legal, action = a["legal"], a["action"].astype(np.int64)
        calling = legal[:, :CARD_BASE].any(axis=1) | legal[:, CLAIM]
        choice = legal.sum(axis=1) > 1
        policy = _policy_targets(legal, action, a["values"], a["counts"], options.value_temperature)
        policy_weight = (~calling & choice & taught).astype(np.float32)
        played = ~a["thrown_in"]
        taken = np.zeros((len(action), TRICK_SLOTS), dtype=np.float32)
        rows = np.flatnonzero(played)
        taken[rows, a["deal_tricks"][rows, 0].astype(np.int64)] = 1
        searched = a["tricks"].sum(axis=1) > 0.5
        both = played & searched
        tricks = np.where(both[:, None], 0.5 * taken + 0.5 * a["tricks"], taken)
        tricks = np.where((searched & ~played)[:, None], a["tricks"], tricks)
        has_target = played | searched
        tricks_weight = np.where(
            calling & ~legal[:, CLAIM], options.call_weight, options.aux_weight
        )
        tricks_weight = (tricks_weight * has_target).astype(np.float32)
        add("obs", a["obs"].astype(np.float16))
        add("legal", legal)
        add("policy", policy)
        add("policy_weight", policy_weight)
        add("tricks", tricks.astype(np.float32))
        add("tricks_weight", tricks_weight)
        add("action", action)
        add("calling", calling)
        add("holdout", (a["match"] % 10) == options.holdout)
        add("rules", np.full(len(action), rule_names.index(rules_text), dtype=np.int16))
        add("card_values", a["values"][:, CARD_BASE : CARD_BASE + 52].astype(np.float16))
    if not parts:
        raise TrainError("no decisions in the data given")
    joined = {name: np.concatenate(chunks) for name, chunks in parts.items()}
    return Rows(**joined, rule_names=rule_names, sources=sources)


def _ranges(indices: Sequence[int]) -> str:
    """Shard indices as ranges: ``0-25, 27``."""
    parts: list[str] = []
    for _, group in itertools.groupby(enumerate(indices), lambda pair: pair[1] - pair[0]):
        run = [index for _, index in group]
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(parts)


# --- hearts, diamonds and clubs play alike ------------------------------------------------------


def suit_permutations() -> list[tuple[np.ndarray, np.ndarray]]:
    """For each order of hearts, diamonds and clubs, the column permutation of an observation
    vector and of an action vector that deals the same game with those suits renamed."""
    blocks = [HAND, *(PLAYED + 52 * seat for seat in range(4)), *(TRICK + 52 * s for s in range(4))]
    out = []
    for order in itertools.permutations((1, 2, 3)):
        suits = (0, *order)
        obs = np.arange(OBS_SIZE)
        actions = np.arange(NUM_ACTIONS)
        for card in range(52):
            moved = suits[card // 13] * 13 + card % 13
            for block in blocks:
                obs[block + moved] = block + card
            actions[CARD_BASE + moved] = CARD_BASE + card
        for seat in range(4):
            for suit in range(4):
                obs[VOIDS + 4 * seat + suits[suit]] = VOIDS + 4 * seat + suit
        out.append((obs, actions))
    return out


# --- the network in PyTorch --------------------------------------------------------------------


class Network(torch.nn.Module):
    """:class:`callbreak.players.learned.Model` in PyTorch, for training."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.layer1 = torch.nn.Linear(FEATURES, hidden)
        self.layer2 = torch.nn.Linear(hidden, hidden)
        self.cards = torch.nn.Linear(hidden, 52)
        self.tricks = torch.nn.Linear(hidden, TRICK_SLOTS)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The cards' and the tricks' logits."""
        h = torch.relu(self.layer2(torch.relu(self.layer1(x))))
        out: tuple[torch.Tensor, torch.Tensor] = (self.cards(h), self.tricks(h))
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as the numpy model's arrays."""
        pairs = {"1": self.layer1, "2": self.layer2, "p": self.cards, "t": self.tricks}
        out = {}
        for key, layer in pairs.items():
            out[f"w{key}"] = layer.weight.detach().numpy().T.copy()
            out[f"b{key}"] = layer.bias.detach().numpy().copy()
        return out


def _batch(
    rows: Rows, index: np.ndarray, permutation: tuple[np.ndarray, np.ndarray]
) -> tuple[torch.Tensor, ...]:
    """One batch of rows, its suits renamed by ``permutation``, as tensors."""
    obs_cols, action_cols = permutation
    obs = rows.obs[index][:, obs_cols].astype(np.float32)
    legal = rows.legal[index][:, action_cols]
    card_cols = action_cols[CARD_BASE : CARD_BASE + 52] - CARD_BASE
    x = features(obs, legal)
    return (
        torch.from_numpy(x),
        torch.from_numpy(legal[:, CARD_BASE : CARD_BASE + 52].copy()),
        torch.from_numpy(rows.policy[index][:, card_cols].copy()),
        torch.from_numpy(rows.policy_weight[index]),
        torch.from_numpy(rows.tricks[index]),
        torch.from_numpy(rows.tricks_weight[index]),
    )


def _loss(network: Network, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    x, legal, policy, policy_weight, tricks, tricks_weight = batch
    card_logits, trick_logits = network(x)
    masked = card_logits.masked_fill(~legal, -1e9)
    card_loss = -(policy * torch.log_softmax(masked, dim=1)).sum(dim=1)
    trick_loss = -(tricks * torch.log_softmax(trick_logits, dim=1)).sum(dim=1)
    total = (card_loss * policy_weight).sum() + (trick_loss * tricks_weight).sum()
    return total / max(float(policy_weight.sum() + tricks_weight.sum()), 1.0)


# --- measuring --------------------------------------------------------------------------------


def measure(path: str | os.PathLike[str], rows: Rows) -> dict[str, float]:
    """How the written model (read back as the player reads it, in numpy) agrees with the
    search on ``rows``: its first card against the search's, and what its card loses in the
    search's own values against the best (``card_regret``, points a decision; the search's
    own card loses ``search_regret``, its most visited card not always its best valued); its
    call against the search's, and the calls head's mean trick count."""
    model = load_model(path)
    out: dict[str, float] = {}
    cards = np.flatnonzero(rows.policy_weight > 0)
    if len(cards):
        agree = 0
        regret, search_regret, weighed = 0.0, 0.0, 0
        for start in range(0, len(cards), 4096):
            index = cards[start : start + 4096]
            x = features(rows.obs[index].astype(np.float32), rows.legal[index])
            logits = model.card_logits(x)
            legal = rows.legal[index][:, CARD_BASE : CARD_BASE + 52]
            first = np.argmax(np.where(legal, logits, -np.inf), axis=1)
            agree += int((first + CARD_BASE == rows.action[index]).sum())
            values = rows.card_values[index].astype(np.float64)
            mine = values[np.arange(len(index)), first]
            theirs = values[np.arange(len(index)), np.clip(rows.action[index] - CARD_BASE, 0, 51)]
            valued = np.isfinite(mine) & np.isfinite(theirs) & (np.isfinite(values).sum(1) > 1)
            best = np.nanmax(np.where(np.isfinite(values), values, -np.inf), axis=1)
            regret += float((best - mine)[valued].sum())
            search_regret += float((best - theirs)[valued].sum())
            weighed += int(valued.sum())
        out["cards"] = len(cards)
        out["card_agreement"] = agree / len(cards)
        if weighed:
            out["card_regret"] = regret / weighed
            out["search_regret"] = search_regret / weighed
    calls = np.flatnonzero(rows.calling & (rows.action < CARD_BASE))
    if len(calls):
        x = features(rows.obs[calls].astype(np.float32), rows.legal[calls])
        chances = model.trick_chances(x)
        same = 0
        for row, chance in zip(calls, chances, strict=True):
            rules = Rules.parse(rows.rule_names[rows.rules[row]])
            table = [
                (c, v) for c, v in call_table(chance.tolist(), rules) if rows.legal[row, c - 1]
            ]
            best = max(table, key=lambda item: (round(item[1], 9), -item[0]))[0]
            same += int(best - 1 == rows.action[row])
        out["calls"] = len(calls)
        out["call_agreement"] = same / len(calls)
        mean = chances @ np.arange(TRICK_SLOTS)
        out["call_mean_tricks"] = float(mean.mean())
    return out


# --- training ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Trained:
    """What a training run wrote and measured."""

    path: Path
    rows: int
    seconds: float
    measured: dict[str, float]
    losses: list[float]


OnEpoch = Callable[[int, float], None]
"""Called after each epoch with its number (from 1) and its mean loss."""


def train(
    folders: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    options: Options = Options(),
    on_epoch: OnEpoch | None = None,
    outcomes: Sequence[str | os.PathLike[str]] = (),
) -> Trained:
    """Train on the runs in ``folders`` (and the calls head on the outcomes of the runs in
    ``outcomes`` too, see :func:`read_runs`) and write the weights to ``out`` (an ``.npz``)."""
    if options.hidden < 1 or options.epochs < 1 or options.batch < 1 or options.threads < 1:
        raise TrainError("hidden, epochs, batch and threads must be 1 or more")
    started = time.perf_counter()
    torch.manual_seed(options.seed)
    torch.set_num_threads(options.threads)
    rows = read_runs(folders, options, outcomes)
    training = rows.subset(~rows.holdout) if options.holdout >= 0 else rows
    held = rows.subset(rows.holdout if options.holdout >= 0 else np.zeros(len(rows), bool))
    useful = np.flatnonzero((training.policy_weight > 0) | (training.tricks_weight > 0))
    if not len(useful):
        raise TrainError("no decision to learn from: every one was forced or thrown in")
    network = Network(options.hidden)
    optimiser = torch.optim.AdamW(
        network.parameters(), lr=options.learning_rate, weight_decay=options.weight_decay
    )
    steps = options.epochs * math.ceil(len(useful) / options.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=options.learning_rate, total_steps=steps, pct_start=0.1
    )
    permutations = suit_permutations()
    rng = np.random.default_rng(options.seed)
    losses = []
    for epoch in range(1, options.epochs + 1):
        order = rng.permutation(useful)
        total, batches = 0.0, 0
        for start in range(0, len(order), options.batch):
            index = np.sort(order[start : start + options.batch])
            batch = _batch(training, index, permutations[int(rng.integers(len(permutations)))])
            loss = _loss(network, batch)
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
            batches += 1
        losses.append(total / max(batches, 1))
        if on_epoch is not None:
            on_epoch(epoch, losses[-1])
    meta: dict[str, Any] = {
        "format": FORMAT,
        "callbreak": __version__,
        "torch": torch.__version__,
        "hidden": options.hidden,
        "options": dataclasses.asdict(options),
        "trained_on": [source for source in rows.sources if source["taught"] == "all"],
        "outcomes_of": [source for source in rows.sources if source["taught"] == "calls"],
        "rows": len(training),
        "losses": [round(loss, 5) for loss in losses],
    }
    path = Path(out)
    _write(path, network.arrays(), meta)
    measured = measure(path, held) if len(held) else {}
    meta["holdout"] = {key: round(value, 5) for key, value in measured.items()}
    _write(path, network.arrays(), meta)
    return Trained(path, len(training), time.perf_counter() - started, measured, losses)


def _write(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """The weights as float16 arrays (half the size; the player reads them as float32)."""
    members: dict[str, Any] = {key: value.astype(np.float16) for key, value in arrays.items()}
    members["meta"] = np.array(json.dumps(meta, sort_keys=True))
    partial = path.with_name(f".{path.name}.partial.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(partial, **members)
        os.replace(partial, path)
    except OSError as error:
        raise TrainError(f"cannot write {path}: {error}") from None
