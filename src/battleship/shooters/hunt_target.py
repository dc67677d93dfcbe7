"""000's hunt/target shooter, with and without parity: the readable version of ``kernels``.

Plays any rules (it needs no sink announcements: it stops when the referee says the game is over).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from battleship.cells import neighbours
from battleship.game import Observation, Outcome
from battleship.rules import Rules


class HuntTargetShooter:
    """Hunt down a shuffled order; after a hit queue the unvisited N, S, E, W cells (first in, first out)."""

    name = "hunt-target"
    parity = False

    def __init__(self, colour: int = 0, order: list[int] | None = None):
        self.colour = colour
        self._given_order = order  # a fixed hunting order, for tests against the kernel

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Shuffle the hunting order and empty the target queue."""
        self._rules = rules
        order = (
            self._given_order
            if self._given_order is not None
            else [int(c) for c in rng.permutation(rules.cells)]
        )
        if self.parity and self._given_order is None:
            on = [c for c in order if (c // rules.cols + c % rules.cols) % 2 == self.colour]
            on_set = set(on)
            order = on + [c for c in order if c not in on_set]
        self._order = order
        self._hunt = 0
        self._queue: deque[int] = deque()
        self._seen = 0

    def next_shot(self, observation: Observation) -> int:
        """Queue the neighbours of any new hit, then fire at the oldest queued cell or hunt."""
        for shot in observation.shots[self._seen :]:
            if shot.outcome is not Outcome.MISS:
                self._queue.extend(
                    n
                    for n in neighbours(shot.cell, self._rules.rows, self._rules.cols)
                    if not observation.is_shot(n)
                )
        self._seen = len(observation.shots)
        while self._queue:
            cell = self._queue.popleft()
            if not observation.is_shot(cell):
                return cell
        while observation.is_shot(self._order[self._hunt]):
            self._hunt += 1
        return self._order[self._hunt]


class HuntTargetParityShooter(HuntTargetShooter):
    """Hunt/target that hunts only on one checkerboard colour while any such cell is unknown."""

    name = "hunt-target-parity"
    parity = True
