"""The endgame solver against a plain minimax over every cell, and the shooter that uses it."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings

from battleship import generators
from battleship.game import Game
from battleship.inference import evidence, posterior, select_by_search
from battleship.inference.endgame import Solver, _answer
from battleship.rules import preset
from battleship.shooters import make
from battleship.tables import tables
from tests.helpers import brute_force_layouts
from tests.inference.test_posterior import observed_games, replays


def plain_value(rules, layouts, shots):
    """Fewest expected shots left: every unshot cell tried, no shortcut, no cut."""

    @cache
    def value(left: frozenset, shots: int) -> float:
        if not any(sum(layouts[i]) & ~shots for i in left):
            return 0.0
        best = float("inf")
        for cell in range(rules.cells):
            if shots >> cell & 1:
                continue
            groups = {}
            for i in left:
                groups.setdefault(_answer(rules, layouts[i], shots, cell), set()).add(i)
            after = shots | 1 << cell
            best = min(
                best, 1 + sum(len(g) / len(left) * value(frozenset(g), after) for g in groups.values())
            )
        return best

    return value(frozenset(range(len(layouts))), shots)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(observed_games(max_side=4, max_ships=2))
def test_the_solver_finds_the_plain_minimax_value(case):
    rules, observation = case
    layouts = [m for m in brute_force_layouts(rules) if replays(rules, m, observation)]
    if len(layouts) > 8 or sum(sum(m) for m in layouts[:1]) == 0:
        return
    shots = sum(1 << s.cell for s in observation.shots)
    solved = Solver(rules, budget=10**6).solve(layouts, shots)
    assert solved is not None
    value, cell = solved
    assert value == pytest.approx(plain_value(rules, layouts, shots))
    if value > 0:
        assert not shots >> cell & 1


def test_the_solver_gives_up_past_its_budget():
    rules = preset("standard")
    layouts = [tuple(g.masks) for g in generators.generate(rules, "uniform", 1, 60)]
    assert Solver(rules, budget=5).solve(layouts, 0) is None


def test_optimal_with_an_endgame_fires_the_solvers_cell_once_few_layouts_remain():
    rules = preset("square-6")
    game = Game(generators.generate(rules, "uniform", 4, 1)[0])
    shooter = make("optimal:endgame=12")
    shooter.reset(rules, np.random.default_rng(0))
    used = 0
    while not game.over:
        result = posterior(rules, game.observation)
        cell = shooter.next_shot(game.observation)
        if result.layouts <= 12:
            masks = tables(rules).masks
            rows = select_by_search(rules, evidence(rules, game.observation), np.arange(result.layouts))
            shots = sum(1 << s.cell for s in game.observation.shots)
            solved = Solver(rules).solve([tuple(masks[p] for p in r) for r in rows], shots)
            if solved is not None:  # else the shooter plays greedy, as without the option
                assert cell == solved[1]
                used += 1
        game.fire(cell)
    assert used > 0
