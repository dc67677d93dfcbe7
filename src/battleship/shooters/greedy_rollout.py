"""Rollouts over exact greedy play: of greedy's best cells, the one after which greedy finishes soonest.

Bertsekas' rollout: for each of the ``width`` cells greedy ranks highest (skewed as asked), play
exact greedy (``optimal``) on from that cell and count the shots. Once at most ``endgame`` layouts
remain, this is counted over every one of them (:class:`GreedyTree`, as ``twoply:endgame=N``);
before that, over up to ``rollouts`` layouts drawn exactly and uniformly from the posterior by
rejection within a fixed number of draws (:func:`battleship.inference.sampling.draw_by_rejection`:
a bounded time a shot, and the same rows for the same seed); where the hits make consistent draws
too rare to get ``MIN_ROWS`` of them, greedy's cell is fired. Every candidate is played on the *same* drawn layouts
(common random numbers), so the per-layout differences to greedy's own cell are what is compared,
and a candidate replaces greedy's cell only when its mean difference is below zero by two standard
errors of those differences: the significance gate the density rollout needed (a few dozen noisy
rollouts cannot separate near-equal cells, and picking the best-looking one is a winner's curse).

Options: ``width`` (candidate cells, default 6), ``rollouts`` (layouts drawn a shot, default 48),
``endgame`` (layouts up to which the rollout is exact; 0: never), ``skew`` and ``tie`` (greedy's
ranking of the candidates, as in ``twoply``). Reproducible: the draws are seeded from the game's
stream. Uniform layouts only (no ``prior``): the draws are uniform.
"""

from __future__ import annotations

import math

import numpy as np

from battleship.game import Observation
from battleship.inference.greedytree import GreedyTree
from battleship.inference.sampling import draw_by_rejection
from battleship.shooters.aim import one_shot_only
from battleship.shooters.twoply import TwoPlyShooter, open_counts

GATE = 2.0  # standard errors of the paired differences a candidate must win by
TRIES = 400_000  # rejection draws a shot at most (a few tens of milliseconds)
MIN_ROWS = 16  # fewer drawn layouts than this tell too little: greedy's cell is fired


def gated_best(costs: list[np.ndarray]) -> int:
    """The index of the candidate to fire: the one of lowest mean cost among those whose paired
    difference to the first (greedy's cell) is below zero by ``GATE`` standard errors; else 0."""
    base, best, best_mean = costs[0], 0, 0.0
    n = len(base)
    for i, cost in enumerate(costs[1:], start=1):
        diff = (cost - base).astype(np.float64)
        mean = float(diff.mean())
        spread = float(diff.std(ddof=1)) if n > 1 else 0.0
        if spread == 0.0 or mean >= best_mean:
            continue  # no difference measured, or no better than the best so far
        if mean + GATE * spread / math.sqrt(n) < 0:
            best, best_mean = i, mean
    return best


class GreedyRolloutShooter(TwoPlyShooter):
    """Rollouts of exact greedy play from greedy's best cells, gated (see the module docstring)."""

    name = "greedy-rollout"
    refusal = one_shot_only("greedy-rollout", "its look-ahead plays greedy on one shot at a time")

    def next_shot(self, observation: Observation) -> int:
        """Greedy's cell, unless a candidate's rollouts beat it significantly (or exactly, late on)."""
        rules, options = self._rules, self.options
        result, counts = open_counts(rules, observation, None)
        cells = self.candidates(observation, counts)
        if len(cells) == 1:
            return cells[0]
        if options.endgame and result.layouts <= options.endgame:
            return self.rest_of_game(observation, result, cells)
        seed = int(self._rng.integers(2**62))
        rows = draw_by_rejection(rules, observation, options.rollouts, seed, TRIES)
        if len(rows) < MIN_ROWS:
            return cells[0]
        tree = GreedyTree(rules, rows)
        shot = np.zeros(rules.cells, dtype=np.bool_)
        shot[[s.cell for s in observation.shots]] = True
        every = np.arange(len(rows))
        costs = [tree.costs(every, shot, c) for c in cells]
        return cells[gated_best(costs)]
