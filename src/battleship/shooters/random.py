"""The random shooter: a uniformly random cell not yet fired at, as a readable Shooter and a Numba kernel."""

from __future__ import annotations

import numpy as np

from battleship.game import Observation
from battleship.jit import njit
from battleship.rng import kernel_state, shuffled
from battleship.rules import Rules
from battleship.shooters.options import Named, Options


class RandomShooter(Named):
    """Fires at a uniformly random unknown cell. Plays every rules variant."""

    plays_noise = True  # it never fires at a cell again, and reads a hit as a hit

    name = "random"

    def __init__(self, options: Options | None = None):
        self.options = options or Options()

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Shuffle the order of fire for a new game (from the game's stream, as the kernel does)."""
        self._order = shuffled(kernel_state(rng), rules.cells)
        self._next = 0

    def next_shot(self, observation: Observation) -> int:
        """The next cell of the shuffled order that has not been fired at."""
        while observation.is_shot(int(self._order[self._next])):
            self._next += 1
        return int(self._order[self._next])


@njit(cache=True, nogil=True)
def play_random(state, ship_at, total, rows, cols):
    """Shots a random shooter needs to hit every ship cell."""
    order = shuffled(state, rows * cols)
    shots = hits = 0
    while hits < total:
        if ship_at[order[shots]] >= 0:
            hits += 1
        shots += 1
    return shots
