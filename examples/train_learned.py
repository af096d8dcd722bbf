"""Train the learned player again, from nothing: the one command behind its shipped weights.

Run: ``python examples/train_learned.py --data DIR --out FILE.npz [--workers N]`` (needs
``callbreak[train]``). With the defaults it makes the shipped ``players/weights/learned.npz``
again, byte for byte in its arrays (self-play and training are both deterministic for their
seeds); every step is resumable, so a run stopped and started again goes on where it was:

1. the expert against itself, ``expert(time=0.02, threads=1)``, seed 41, in shards of 5
   matches, under ``strict`` and ``bhoos`` (``callbreak selfplay``, into ``DIR/expert-RULES``);
2. a first model on the first shards of those runs (``--first``), as ``DIR/models/v1.npz``;
3. the first model against itself, 1,500 matches per profile, seed 5, whose calls teach the
   calls head what a hand takes under the learned player's own play (``DIR/outcomes-RULES``);
4. the model on the shards of step 1 (``--expert``) and the calls of step 3, written to
   ``--out``.

``--expert strict=25,bhoos=25`` and ``--first strict=22,bhoos=21`` are the shards behind the
shipped weights (docs/players.md, *The learned player*); bigger numbers make more data. The
self-play of step 1 is what costs: about 60 decisions a core-second, 280 a match.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from callbreak import selfplay
from callbreak.train import Options, train

TEACHER = "expert(time=0.02, threads=1)"
RULES = ("strict", "bhoos")


def shards(text: str) -> dict[str, int]:
    """``strict=25,bhoos=25`` as a mapping."""
    out = {}
    for part in text.split(","):
        rules, _, count = part.partition("=")
        out[rules.strip()] = int(count)
    if set(out) != set(RULES):
        raise argparse.ArgumentTypeError(f"give a count for each of {', '.join(RULES)}")
    return out


def play(
    players: str, rules: str, seed: int, matches: int, size: int, out: Path, workers: int
) -> None:
    """A self-play run (resumed if begun), saying what it did."""
    plan = selfplay.make_plan(
        [players], rules=rules, seed=seed, matches=matches, shard_matches=size
    )
    summary = selfplay.run(plan, out, workers=workers)
    print(f"{out}: {summary.written} shards written, {summary.kept} kept", flush=True)
    if summary.interrupted or summary.error:
        sys.exit(f"stopped: {summary.error or 'interrupted'}")


def first_shards(run: Path, count: int, out: Path) -> None:
    """A run of the first ``count`` shards of ``run`` (copies: the same bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run / selfplay.MANIFEST, out / selfplay.MANIFEST)
    for index in range(count):
        source = selfplay.shard_path(run, index)
        if not selfplay.shard_path(out, index).exists():
            shutil.copy(source, selfplay.shard_path(out, index))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of the runs and models")
    parser.add_argument("--out", type=Path, required=True, help="the weights file to write")
    parser.add_argument("--expert", type=shards, default=shards("strict=25,bhoos=25"))
    parser.add_argument("--first", type=shards, default=shards("strict=22,bhoos=21"))
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    data: Path = args.data
    for rules in RULES:
        run = data / f"expert-{rules}"
        play(TEACHER, rules, 41, args.expert[rules] * 5, 5, run, args.workers)
        # exactly the shards named (a run made bigger by hand holds more)
        first_shards(run, args.first[rules], data / f"first-{rules}")
        first_shards(run, args.expert[rules], data / f"all-{rules}")
    models = data / "models"
    first = models / "v1.npz"
    if not first.exists():
        done = train([data / f"first-{rules}" for rules in RULES], first, Options())
        print(f"{first}: held out {done.measured}", flush=True)
    os.environ["CALLBREAK_WEIGHTS"] = str(models)  # the learned players below, and their workers
    for rules in RULES:
        play("learned(weights=v1)", rules, 5, 1500, 100, data / f"outcomes-{rules}", args.workers)
    done = train(
        [data / f"all-{rules}" for rules in RULES],
        args.out,
        Options(),
        outcomes=[data / f"outcomes-{rules}" for rules in RULES],
    )
    print(f"{args.out}: {done.rows:,} decisions, held out {done.measured}", flush=True)


if __name__ == "__main__":
    main()
