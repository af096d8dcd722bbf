"""The processes of this test run's local Ray, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def descendants() -> dict[int, list[str]]:
    """Every process descending from this one, with its command line."""
    parents: dict[int, int] = {}
    commands: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            line = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(stat.rpartition(")")[2].split()[1])
        commands[pid] = [part.decode(errors="replace") for part in line if part]
    mine = os.getpid()

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == mine:
                return True
        return False

    return {pid: command for pid, command in commands.items() if descends(pid)}


def environment(pid: int) -> dict[str, str]:
    """The environment a process started with."""
    pairs = (Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")).split("\0")
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)
