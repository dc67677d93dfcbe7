"""Shots per game streamed to a text file, resumable after a kill."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from battleship.errors import BattleshipError

CHUNK = 20_000


class ShotsFile:
    """Shots per game streamed to a text file (one a line) with its run's parameters beside it.

    A run killed part-way keeps every chunk written; ``resume`` checks that the parameters match,
    drops a partly written chunk and says where to carry on.
    """

    def __init__(self, path: Path, params: dict, chunk: int = CHUNK):
        self.path = path
        self.chunk = chunk
        self.meta = path.with_name(path.name + ".run.json")
        self.params = params

    def start(self, resume: bool, cells: int) -> tuple[int, np.ndarray]:
        """Open for writing; returns (games already done, their histogram)."""
        histogram = np.zeros(cells + 1, dtype=np.int64)
        if not resume:
            if self.path.exists():
                raise BattleshipError(f"{self.path} exists: pass --resume to carry on with it, or remove it")
            self.meta.write_text(json.dumps(self.params, indent=2) + "\n")
            self.path.write_text("")
            return 0, histogram
        if not self.path.exists() or not self.meta.exists():
            raise BattleshipError(f"nothing to resume: {self.path} or {self.meta.name} is missing")
        saved = json.loads(self.meta.read_text())
        if saved != self.params:
            changed = sorted(k for k in set(saved) | set(self.params) if saved.get(k) != self.params.get(k))
            raise BattleshipError(f"{self.path} was written by a different run ({', '.join(changed)} differ)")
        # read line by line (a 10^8-game file is too big to hold as text): tally each chunk apart and
        # keep it only once complete, then cut the file after the last complete chunk
        done, keep_bytes, offset = 0, 0, 0
        chunk = np.zeros(cells + 1, dtype=np.int64)
        in_chunk = 0
        with self.path.open("rb") as handle:
            for line in handle:
                if not line.endswith(b"\n"):
                    break  # a line cut short by the kill
                offset += len(line)
                chunk[int(line)] += 1
                in_chunk += 1
                if in_chunk == self.chunk:
                    histogram += chunk
                    chunk[:] = 0
                    done, keep_bytes, in_chunk = done + self.chunk, offset, 0
        with self.path.open("r+b") as handle:
            handle.truncate(keep_bytes)
        return done, histogram

    def append(self, shots: np.ndarray) -> None:
        """Add one chunk, flushed to disk before the next is counted."""
        with self.path.open("a") as handle:
            handle.write("".join(f"{v}\n" for v in shots.tolist()))
            handle.flush()
            os.fsync(handle.fileno())
