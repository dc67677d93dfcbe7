"""A Python class bot for the arena: hunt on a checkerboard, then target round the hits.

Run it:  battleship arena examples/bots/parity_hunter.py:ParityHunter density:skew=20 --games 200

The arena starts it in a process of its own (``python -m battleship.lab.arena.host``), builds it with
no arguments and uses the Shooter protocol: ``reset(rules, rng)`` before each game (``rng`` is seeded
by the arena, so runs repeat), then ``next_shot(observation)`` for each shot. ``place`` is optional:
it hides the fleet in head-to-head matches (``--matches``).
"""

from __future__ import annotations

import numpy as np

import battleship as bs


class ParityHunter:
    """DataGenetics' hunt/target with parity: random cells of one colour until a hit, then its neighbours."""

    name = "parity-hunter"

    def reset(self, rules: bs.Rules, rng: np.random.Generator) -> None:
        self.rules, self.rng = rules, rng

    def next_shot(self, observation: bs.Observation) -> int:
        rows, cols = self.rules.rows, self.rules.cols
        unknown = observation.unknown_mask
        # hits not yet known to belong to a sunk ship (only revealed rules show a sunk ship's cells)
        open_hits = observation.hit_mask & ~observation.revealed_mask
        targets = [n for cell in _cells(open_hits) for n in _neighbours(cell, rows, cols) if unknown >> n & 1]
        if targets:
            return int(self.rng.choice(targets))
        free = list(_cells(unknown))
        parity = [c for c in free if (c // cols + c % cols) % 2 == 0]
        return int(self.rng.choice(parity or free))

    def place(self, rules: bs.Rules, rng: np.random.Generator) -> bs.Layout:
        """A fleet hidden ship by ship at random places that keep the rules' spacing (restarting on a dead end)."""
        while True:
            masks, blocked = [], 0
            for placements in rules.placements:
                free = [m for m in placements if not m & blocked]
                if not free:
                    break
                masks.append(free[int(rng.integers(len(free)))])
                blocked |= rules.halo(masks[-1])
            else:
                return bs.Layout(rules, tuple(masks))


def _cells(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _neighbours(cell: int, rows: int, cols: int) -> list[int]:
    r, c = divmod(cell, cols)
    steps = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
    return [y * cols + x for y, x in steps if 0 <= y < rows and 0 <= x < cols]
