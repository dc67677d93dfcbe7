"""The endgame solver against a plain minimax over every cell, and the shooter that uses it."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game
from battleship.inference import evidence, posterior, select_by_search
from battleship.inference.endgame import Solver, _answer
from battleship.lab import limit
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.stop import OutOfTime, Stop
from battleship.tables import tables
from tests import brute
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


# the suite's costliest property (46 s of CPU at 40 examples); each run draws new boards
@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(observed_games(max_side=4, max_ships=2))
def test_the_solver_finds_the_plain_minimax_value(case):
    rules, observation = case
    layouts = [m for m in brute_force_layouts(rules) if replays(rules, m, observation)]
    if len(layouts) > 8 or sum(sum(m) for m in layouts[:1]) == 0:
        return
    shots = sum(1 << s.cell for s in observation.shots)
    expected = plain_value(rules, layouts, shots)
    for symmetric in (False, True):
        solved = Solver(rules, budget=10**6, symmetric=symmetric).solve(layouts, shots)
        assert solved is not None
        value, cell = solved
        assert value == pytest.approx(expected)
        if value > 0:  # a cell still worth firing at, whose answers keep the optimum
            assert not shots >> cell & 1
            assert 1 + after_firing(rules, layouts, shots, cell) == pytest.approx(expected)


def after_firing(rules, layouts, shots, cell):
    """Expected shots left after firing at ``cell``, each answer's layouts solved on their own."""
    groups = {}
    for ships in layouts:
        groups.setdefault(_answer(rules, ships, shots, cell), []).append(ships)
    after = shots | 1 << cell
    return sum(
        len(g) / len(layouts) * Solver(rules, budget=10**6).solve(g, after)[0] for g in groups.values()
    )


@pytest.mark.parametrize(("spacing", "sinks", "layouts", "optimum"), [
    (Spacing.TOUCH, Sinks.NONE, 264, 9.3485),
    (Spacing.NO_CONTACT, Sinks.NAMED, 104, 8.1538),
    (Spacing.NO_CONTACT, Sinks.NONE, 104, 8.4423),
])  # fmt: skip
def test_the_empty_4x4_board_matches_an_independent_solver(spacing, sinks, layouts, optimum):
    """Ships of 3 and 2: the optimum issue 14 reports from a solver written apart from this one."""
    rules = Rules(4, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), spacing, sinks)
    found = limit.optimum(rules)
    assert found.layouts == layouts
    assert found.shots == pytest.approx(optimum, abs=5e-5)


def test_optimal_with_a_large_endgame_plays_the_optimum_on_every_layout():
    """The value the solver promises is what its moves realise, layout by layout."""
    rules = Rules(
        3, 3, (Ship.line("Two", "T", 2), Ship.line("Other two", "W", 2)), Spacing.TOUCH, Sinks.NAMED
    )
    result = limit.limit(rules, ["optimal:exact=10000", "optimal"], seed=3)
    assert result.means["optimal:exact=10000"] == pytest.approx(result.optimum.shots)
    assert result.means["optimal"] >= result.optimum.shots - 1e-9


def test_the_limit_refuses_boards_too_large_to_solve():
    with pytest.raises(BattleshipError, match="small boards"):
        limit.optimum(preset("square-6"))


def test_the_optimum_stops_at_its_deadline_saying_how_far_it_got():
    """5x5 with ships of 3 and 2 touching takes far longer than the half second given."""
    rules = Rules(5, 5, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.TOUCH, Sinks.REVEALED)
    with pytest.raises(OutOfTime, match=r"solved [\d,]+ states in \d+ s \(956 layouts\) without finishing"):
        limit.optimum(rules, stop=Stop(0.5))


def test_the_solver_gives_up_past_its_budget():
    rules = preset("standard")
    layouts = [tuple(g.masks) for g in generators.generate(rules, "uniform", 1, 60)]
    assert Solver(rules, budget=5).solve(layouts, 0) is None


def test_optimal_with_an_endgame_fires_the_solvers_cell_once_few_layouts_remain():
    rules = preset("square-6")
    game = Game(generators.generate(rules, "uniform", 4, 1)[0])
    shooter = make("optimal:exact=12")
    shooter.reset(rules, np.random.default_rng(0))
    used = 0
    while not game.over:
        result = posterior(rules, game.observation)
        cell = shooter.next_shot(game.observation)
        if result.layouts <= 12:
            masks = tables(rules).masks
            rows = select_by_search(rules, evidence(rules, game.observation), np.arange(result.layouts))
            shots = sum(1 << s.cell for s in game.observation.shots)
            solved = Solver(rules, symmetric=True).solve([tuple(masks[p] for p in r) for r in rows], shots)
            if solved is not None:  # else the shooter plays greedy, as without the option
                assert cell == solved[1]
                used += 1
        game.fire(cell)
    assert used > 0


@pytest.mark.parametrize("sinks", list(Sinks))
def test_a_sure_hit_is_not_always_best_fired_first(sinks):
    """A square and an S tetromino on 3x4: firing the sure hit at once costs 1/12 of a shot when the
    sinkings are named or anonymous (it turns a later "hit" into "sunk" without saying whose)."""
    fleet = (
        Ship("Square", "Q", ((0, 0), (0, 1), (1, 0), (1, 1))),
        Ship("Ess", "S", ((0, 1), (0, 2), (1, 0), (1, 1))),
    )
    rules = Rules(3, 4, fleet, Spacing.TOUCH, sinks, reflections=True)
    every = brute.layouts(rules)
    expected = brute.optimum(rules, every)
    assert expected == pytest.approx(9.583333 if sinks is Sinks.NONE else 9.25, abs=1e-6)
    assert limit.optimum(rules).shots == pytest.approx(expected, abs=1e-12)
    for symmetric in (False, True):
        assert Solver(rules, budget=10**6, symmetric=symmetric).solve(every, 0)[0] == pytest.approx(expected)
