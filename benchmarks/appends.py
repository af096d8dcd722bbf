"""The SQLite store's appends alone, on a file as the server keeps it (write-ahead log): 200
rooms, 25 actions each appended one at a time, then 25 more each in groups of 8 (one
transaction a group, as ``web.store.Appends`` takes them); wall and CPU time per append.

Run: ``python benchmarks/appends.py`` (the groups only where the store has ``append_group``).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from callbreak.web.model import PLAYING, Step, new_room
from callbreak.web.store import Store


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "db.sqlite")
        rooms = []
        for _ in range(200):
            room = new_room("strict", "Asha", ["random"] * 3)
            store.create(room)
            rooms.append(room)
        wall, cpu, count = time.perf_counter(), time.process_time(), 0
        for version in range(25):
            for room in rooms:
                assert store.append(room.id, room.rev, Step(version, "x", [], PLAYING, 1.5))
                count += 1
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"one at a time: {1e6 * wall / count:.1f} µs wall, {1e6 * cpu / count:.1f} µs CPU")
        group = getattr(store, "append_group", None)
        if group is None:
            return
        wall, cpu, count = time.perf_counter(), time.process_time(), 0
        for version in range(25, 50):
            for first in range(0, len(rooms), 8):
                taken = [
                    (r.id, r.rev, Step(version, "x", [], PLAYING, 1.5))
                    for r in rooms[first : first + 8]
                ]
                assert group(taken) == [True] * len(taken)
                count += len(taken)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"in groups of 8: {1e6 * wall / count:.1f} µs wall, {1e6 * cpu / count:.1f} µs CPU")
        store.close()


if __name__ == "__main__":
    main()
