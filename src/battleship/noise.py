"""Answers that lie: the referee's coins under ``[noise]`` rules.

Each answer to a shot is flipped with probability ``flip`` (``Rules.noise``), independently. The coin
for the ``k``-th shot at a cell of a game whose referee is seeded ``seed`` is a pure function of
``(seed, cell, k)``: two shooters playing the same game (the lab seeds game ``i``'s referee from the
run's stream ``i``) meet the same coins wherever they fire the same cell for the same time (common
random numbers, which narrow paired comparisons), and a game is the same wherever it is replayed
(its record keeps the seed: :attr:`battleship.game.Record.coins`).
"""

from __future__ import annotations

import numpy as np

from battleship.seeds import GOLDEN, MASK
from battleship.seeds import mix64 as _mix

REFEREE_SALT = 0x0C01_5F11_9A5D_E7E5  # the referee's coins apart from the layouts' and the shooters' streams
FIRST_GRID_SALT = 0x5EC0_17D6_41D5_0001  # a two-sided game's first grid: coins of its own


class Coins:
    """The referee's coins for one game: :meth:`uniform` of a cell's ``k``-th shot, in ``[0, 1)``."""

    def __init__(self, seed: int):
        self.seed = int(seed) & MASK
        self._base = _mix(self.seed ^ REFEREE_SALT)

    def uniform(self, cell: int, visit: int) -> float:
        """The uniform number deciding the answer to shot number ``visit`` (from 0) at ``cell``."""
        word = _mix(self._base + ((cell + 1) * 0x10000 + visit) * GOLDEN)
        return (word >> 11) * (1.0 / 9007199254740992.0)

    def flips(self, cell: int, visit: int, chance: float) -> bool:
        """True when the answer to shot number ``visit`` at ``cell`` is flipped (with ``chance``)."""
        return self.uniform(cell, visit) < chance

    def __repr__(self) -> str:
        return f"<Coins seed {self.seed}>"


def grid_seed(coins: int, grid: int) -> int:
    """The seed of the referee answering shots at player number ``grid`` (0 or 1) of a game whose record
    keeps ``coins``: the second player's grid (the target of a one-sided game) is answered by ``coins``
    itself, the first player's by coins of its own drawn from it. Were both grids answered by one set of
    coins, a player who sees the answers given about their own fleet (which they know) would learn
    which of their own answers lie, cell by cell."""
    if grid not in (0, 1):
        raise ValueError(f"grid is 0 or 1, not {grid!r}")
    return int(coins) & MASK if grid == 1 else _mix(int(coins) ^ FIRST_GRID_SALT)


def referee_seed(rng: np.random.Generator) -> int:
    """A referee's seed for a game whose shooter is reset with ``rng``: from the game's own stream word
    when ``rng`` is :func:`battleship.rng.game_rng`'s (the shooter's numbers untouched, every shooter of a
    run meeting the same coins), else drawn from ``rng``."""
    word = getattr(rng, "word", None)
    if word is None:
        word = int(rng.integers(0, 2**63))
    return _mix(int(word) ^ REFEREE_SALT)
