"""C. Liam Brown's Probability mode: hit frequencies over exact uniform samples of the consistent layouts.

Each shot draws ``samples`` layouts (or draws for ``budget`` milliseconds, as C. Liam Brown's calculator does) with
:func:`battleship.inference.sampling.draw`, exact and uniform, and fires at the unknown cell most of them put a
ship on; ``skew`` (C. Liam Brown's calculator uses 20), ``boost`` and ``tie`` work as in ``optimal``. With enough samples it
plays as ``optimal`` does; with few it is a noisy copy, which is what C. Liam Brown's time budget gives.
"""

from __future__ import annotations

import time

import numpy as np

from battleship.game import Observation
from battleship.inference.sampling import draw, hit_counts
from battleship.rng import seed_words
from battleship.rules import Rules
from battleship.shooters.optimal import OptimalShooter
from battleship.tables import tables


class MonteCarloShooter(OptimalShooter):
    """Greedy on sampled hit frequencies (see the module docstring)."""

    name = "montecarlo"
    plays_noise = False  # its exact uniform samples read every answer as true

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules; seed the tie-break and the sampler."""
        super().reset(rules, rng)
        self._seed = int(rng.integers(0, 2**63))

    def endgame_shot(self, observation: Observation, total: float) -> int | None:
        """Never: samples are not a list of every layout left."""
        return None

    def weights(self, observation: Observation) -> tuple[np.ndarray, np.ndarray, float]:
        """Per cell and per placement, how many samples use it; and the number of samples."""
        rules, options = self._rules, self.options
        seed = seed_words(self._seed * 1_000_003 + observation.fired)
        if options.budget:
            start, batches = time.perf_counter(), list[np.ndarray]()
            while not batches or time.perf_counter() - start < options.budget / 1000:
                batches.append(draw(rules, observation, 64, seed=seed + len(batches)))
            rows = np.concatenate(batches)
        else:
            rows = draw(rules, observation, options.samples, seed=seed)
        placements = np.bincount(rows.ravel(), minlength=len(tables(rules).ship_of))
        return hit_counts(rules, rows), placements, float(len(rows))
