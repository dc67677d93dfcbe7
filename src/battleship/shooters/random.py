"""The random shooter: a uniformly random cell not yet fired at."""

from __future__ import annotations

import numpy as np

from battleship.game import Observation
from battleship.rules import Rules


class RandomShooter:
    """Fires at a uniformly random unknown cell. Plays every rules variant."""

    name = "random"

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Shuffle the order of fire for a new game."""
        self._order = rng.permutation(rules.cells)
        self._next = 0

    def next_shot(self, observation: Observation) -> int:
        """The next cell of the shuffled order that has not been fired at."""
        while observation.is_shot(int(self._order[self._next])):
            self._next += 1
        return int(self._order[self._next])
