"""The arena's wall time with local workers and with a local Ray, on the same sets and seed.

Run: ``python benchmarks/cluster.py [--sets N] [--seed S] [--a SPEC] [--b SPEC]``. It runs
``callbreak arena A B`` four times as a person would, each a fresh process: ``--workers 1``,
``--workers 2``, ``--ray --workers 1`` and ``--ray --workers 2`` (a local Ray with one or two
CPUs, started and stopped by the run, which the wall time includes), then prints each run's
wall time, sets per minute, and whether its report's figures equal the first run's (they must:
the same seed gives the same result wherever the sets run). Needs ``callbreak[cluster]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The figures that must not depend on where the sets ran (decision times do).
FIGURES = ("sets", "mean_diff", "ci95", "a_first_share", "a_calls_made", "b_calls_made")
RUNS = {
    "local, 1 worker": ["--workers", "1"],
    "local, 2 workers": ["--workers", "2"],
    "Ray, 1 worker": ["--ray", "--workers", "1"],
    "Ray, 2 workers": ["--ray", "--workers", "2"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--a", default="expert(time=0.01)")
    parser.add_argument("--b", default="intermediate")
    parser.add_argument("--rules", default="strict")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    reference = None
    try:
        for name, options in RUNS.items():
            report = folder / f"{name.replace(' ', '_').replace(',', '')}.json"
            command = [
                *(sys.executable, "-m", "callbreak", "arena", args.a, args.b),
                *("--rules", args.rules, "--sets", str(args.sets), "--seed", str(args.seed)),
                *("--json", str(report), *options),
            ]
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            seconds = time.perf_counter() - started
            data = json.loads(report.read_text())
            figures = {key: data[key] for key in FIGURES}
            reference = reference or figures
            same = "same result" if figures == reference else f"DIFFERENT: {figures}"
            print(
                f"{name}: {seconds:.1f} s, {args.sets / seconds * 60:.2f} sets/min, "
                f"mean diff {data['mean_diff']:+.2f}, {same}",
                flush=True,
            )
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
