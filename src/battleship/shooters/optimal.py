"""001's "optimal strategy", done exactly: fire at the unknown cell most likely to hold a ship.

The probabilities come from :func:`battleship.posterior.posterior` (every layout consistent with
the shots, sink announcements included). Options: ``tie`` (first, random, centre), 001's parity
``boost`` (percent, default 0), 002's ``skew`` (percent). Plays every rules variant the engine
plays; under spacing rules and polyomino fleets the engine's search is slow on open boards.
"""

from __future__ import annotations

import numpy as np

from battleship.choice import UNKNOWN, choose, pattern_factor, skew_factor, smallest_afloat
from battleship.density import observed_status
from battleship.game import Observation
from battleship.options import TIES, Options
from battleship.posterior import posterior
from battleship.rules import Rules
from battleship.tables import tables


class OptimalShooter:
    """Greedy on exact hit probabilities (see the module docstring)."""

    name = "optimal"

    def __init__(self, options: Options | None = None):
        self.options = options or Options()

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules and seed the tie-break stream."""
        self._rules = rules
        self._state = np.array([rng.integers(0, 2**63)], dtype=np.uint64)

    def scores(self, observation: Observation) -> np.ndarray:
        """Per cell, the number of consistent layouts with a ship there."""
        return posterior(self._rules, observation).cell_layouts.ravel()

    def next_shot(self, observation: Observation) -> int:
        """The unknown cell of most consistent layouts, boosted or skewed as asked."""
        rules, options = self._rules, self.options
        score = self.scores(observation)
        status, afloat = observed_status(rules, observation)
        size = tables(rules).size
        if options.boost:
            factor = pattern_factor(
                status, rules.rows, rules.cols, smallest_afloat(afloat, size), options.boost
            )
        elif options.skew:
            factor = skew_factor(status, afloat, size, rules.rows, rules.cols, options.skew)
        else:
            factor = np.empty(0, dtype=np.int64)
        cell = choose(
            score, factor, status == UNKNOWN, rules.rows, rules.cols, TIES[options.tie], self._state
        )
        return int(cell)
