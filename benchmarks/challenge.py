"""What one attempt of the daily challenge costs the server: its three experts' decisions.

    nice -n 10 env PYTHONPATH=src python benchmarks/challenge.py [--days 5] [--level SPEC]

Plays the matches of ``--days`` consecutive days (from a fixed secret), the person's seat
played by ``intermediate`` (a stand-in: a person's decisions cost the server nothing) and the
three others by the challenge's experts (``web.challenge.OPPONENTS`` unless ``--level``), and
prints per attempt the experts' decisions, the seconds they took (wall clock, as the seating
times each decision) and the process's CPU seconds for the whole match. The kernel is loaded
before the first attempt (``warmup``), so that no compile is counted.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import time

from callbreak import challenge
from callbreak.seating import play_match
from callbreak.warmup import warm_up
from callbreak.web.challenge import OPPONENTS

SECRET = b"benchmarks/challenge.py: a fixed secret, 32 bytes+"


def main() -> None:
    """Play the attempts and print their cost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--level", default=OPPONENTS)
    args = parser.parse_args()
    warm_up()
    first = datetime.date(2026, 12, 1)
    spent, cpus, counts = [], [], []
    print(f"experts: {args.level}")
    for offset in range(args.days):
        day = first + datetime.timedelta(days=offset)
        match = challenge.new_match(day, challenge.day_seed(SECRET, day))
        started = time.process_time()
        result = play_match(match, ["intermediate", args.level, args.level, args.level])
        cpu = time.process_time() - started
        decisions = sum(len(times) for times in result.times[1:])
        seconds = sum(sum(times) for times in result.times[1:])
        spent.append(seconds)
        cpus.append(cpu)
        counts.append(decisions)
        print(f"{day}: {decisions} expert decisions, {seconds:.1f} s of decisions, "
              f"{cpu:.1f} CPU s for the match")  # fmt: skip
    print(
        f"per attempt: {statistics.mean(counts):.0f} decisions, "
        f"{statistics.mean(spent):.1f} s of decisions (most {max(spent):.1f}), "
        f"{statistics.mean(cpus):.1f} CPU s (most {max(cpus):.1f})"
    )


if __name__ == "__main__":
    main()
