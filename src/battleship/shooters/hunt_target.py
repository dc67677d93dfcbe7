"""The DataGenetics hunt/target shooter, with and without parity, as readable Shooters and a Numba kernel.

Hunt down a shuffled order; after a hit, queue the unvisited neighbours north, south, east, west,
and fire at queued cells until the queue is empty. DataGenetics calls it a stack, but its
walkthrough serves it first in, first out: after the first hit (turn 3) and a hit to its north
(turn 4), turn 5 fires south of the first hit, not at the new cell's neighbours. The parity variant
hunts only cells with ``(row + col) % 2 == colour`` until none is left (then the rest, which only
matters for fleets with one-cell ships).

Plays any rules (it needs no sink announcements: it stops when the referee says the game is over).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from battleship.cells import neighbours
from battleship.game import Observation, Outcome
from battleship.jit import njit
from battleship.rng import kernel_state, shuffled
from battleship.rules import Rules
from battleship.shooters.aim import certain_shots
from battleship.shooters.options import Named, Options


class HuntTargetShooter(Named):
    """Hunt down a shuffled order; after a hit queue the unvisited N, S, E, W cells (first in, first out)."""

    plays_noise = True  # it never fires at a cell again, and reads a hit as a hit

    name = "hunt-target"
    parity = False

    def __init__(self, options: Options | None = None, order: list[int] | None = None):
        self.options = options or Options()
        self.colour = self.options.colour
        self._given_order = order  # a fixed hunting order, for tests against the kernel

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Shuffle the hunting order (from the game's stream, as the kernel does) and empty the target queue."""
        self._rules = rules
        self._order = (
            self._given_order
            if self._given_order is not None
            else [
                int(c)
                for c in hunt_order(kernel_state(rng), rules.rows, rules.cols, self.parity, self.colour)
            ]
        )
        self._hunt = 0
        self._queue: deque[int] = deque()
        self._seen = 0

    def next_shot(self, observation: Observation) -> int:
        """Queue the neighbours of any new hit, then fire at the oldest queued cell or hunt."""
        shots = certain_shots(observation)  # under salvos answered whole, what is known cell by cell
        for shot in shots[self._seen :]:
            if shot.outcome is not Outcome.MISS:
                self._queue.extend(
                    n
                    for n in neighbours(shot.cell, self._rules.rows, self._rules.cols)
                    if not observation.is_shot(n)
                )
        self._seen = len(shots)
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


@njit(cache=True, nogil=True)
def hunt_order(state, rows, cols, parity, colour):
    """The shuffled hunting order: with ``parity``, cells of one colour first, the others after."""
    order = shuffled(state, rows * cols)
    if not parity:
        return order
    out = np.empty_like(order)
    k = 0
    for want in range(2):
        for cell in order:
            on_colour = (cell // cols + cell % cols) % 2 == colour
            if on_colour == (want == 0):
                out[k] = cell
                k += 1
    return out


@njit(cache=True, nogil=True)
def play_hunt_target(state, ship_at, total, rows, cols, parity, colour):
    """Shots a hunt/target shooter needs to hit every ship cell."""
    n = rows * cols
    order = hunt_order(state, rows, cols, parity, colour)
    visited = np.zeros(n, dtype=np.bool_)
    queue = np.empty(4 * n + 4, dtype=np.int64)
    head = tail = 0
    hunt = 0
    shots = hits = 0
    while hits < total:
        cell = -1
        while head < tail and cell < 0:
            candidate = queue[head]
            head += 1
            if not visited[candidate]:
                cell = candidate
        while cell < 0:
            if not visited[order[hunt]]:
                cell = order[hunt]
            hunt += 1
        visited[cell] = True
        shots += 1
        if ship_at[cell] >= 0:
            hits += 1
            r, c = cell // cols, cell % cols
            if r > 0 and not visited[cell - cols]:
                queue[tail] = cell - cols
                tail += 1
            if r < rows - 1 and not visited[cell + cols]:
                queue[tail] = cell + cols
                tail += 1
            if c < cols - 1 and not visited[cell + 1]:
                queue[tail] = cell + 1
                tail += 1
            if c > 0 and not visited[cell - 1]:
                queue[tail] = cell - 1
                tail += 1
    return shots
