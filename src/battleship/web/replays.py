"""Games kept replayed in memory, so that a move reads its game's row and finds the game ready to play.

A stored game is its layouts and its moves in the paper's notation (:mod:`battleship.web.records`):
rebuilding it reads that text and replays every move, the most expensive part of a request when
every request did it. Each process keeps the games it served last, replayed, and trusts one only
while its row still holds as many moves and as long a record: a move made by another process (or a
game resigned, or a fleet placed) shows in the row, and the game is replayed afresh. Only committed
games are kept, so a kept game is always one the store held.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from battleship.web.records import Replay, replay

KEPT = 2048  # games kept replayed in each process (a game of a hundred moves: about 30 KB)


class Replays:
    """The games a process served last, replayed (least recently used first out)."""

    def __init__(self, size: int = KEPT):
        self.size = size
        self._games: OrderedDict[str, tuple[tuple[int, int], Replay]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0  # for the tests and the load benchmark

    def get(self, row: dict[str, Any]) -> Replay:
        """The game of ``row`` replayed. Shared: play on a :meth:`Replay.copy` of it, never on it."""
        version = (row["moves"], len(row["record"]))
        with self._lock:
            found = self._games.get(row["id"])
            if found is not None and found[0] == version:
                self._games.move_to_end(row["id"])
                self.hits += 1
                return found[1]
            self.misses += 1
        game = replay(row)
        self.keep(row["id"], game)
        return game

    def keep(self, game_id: str, game: Replay) -> None:
        """Keep ``game`` (as committed: the store holds it) for the next request on it."""
        with self._lock:
            self._games[game_id] = ((len(game.moves), len(game.record)), game)
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game (it is over: its replay is asked for rarely, and rebuilt then)."""
        with self._lock:
            self._games.pop(game_id, None)
