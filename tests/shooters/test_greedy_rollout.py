"""Rollouts over exact greedy play: per-layout costs against real games, the gate, the protocol."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings

from battleship import generators
from battleship.game import play
from battleship.inference import count
from battleship.inference.greedytree import GreedyTree
from battleship.lab.limit import every_layout
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.shooters.check import check_shooter
from battleship.shooters.greedy_rollout import gated_best
from battleship.shooters.options import Options
from tests.helpers import brute_force_layouts, small_rules


@settings(max_examples=25, deadline=None)
@given(small_rules(max_side=4, max_ships=3))
def test_each_layouts_cost_is_the_length_of_greedys_game_on_it(rules):
    """Fired from greedy's own first cell, the tree's per-layout shots are optimal's game lengths."""
    assume(count(rules)[0] <= 300)  # counted before listing: every_layout refuses past 5,000
    rows = every_layout(rules)  # a one-ship fleet: its placements
    tree = GreedyTree(rules, rows)
    shot = np.zeros(rules.cells, dtype=np.bool_)
    games = [
        play(make("optimal"), Layout(rules, lay), np.random.default_rng(0))
        for lay in brute_force_layouts(rules)
    ]
    first = games[0].shots[0].cell
    costs = tree.costs(np.arange(len(rows)), shot, first)
    assert sorted(costs.tolist()) == sorted(len(g.shots) for g in games)
    assert costs.sum() == tree.after(np.arange(len(rows)), shot, first)


def test_the_gate_leaves_greedys_cell_unless_a_candidate_wins_clearly():
    base = np.array([10, 12, 11, 13, 9, 10, 12, 11] * 4)
    assert gated_best([base, base.copy()]) == 0  # no difference
    noisy = base + np.array([-3, 2, -2, 2, -3, 1, -2, 1] * 4)  # a little lower on average, noisily
    assert gated_best([base, noisy]) == 0
    better = base - 1
    better[0] += 1  # one layout equal, the rest a shot quicker
    assert gated_best([base, noisy, better]) == 2
    assert gated_best([base, better, better - 1 + (np.arange(32) % 2)]) == 2  # the lower mean of two


def test_with_every_layout_listed_it_plays_greedys_exact_rest_of_game():
    rules = Rules(4, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.TOUCH, Sinks.NAMED)
    for lay in brute_force_layouts(rules)[::9]:
        ours = play(make("greedy-rollout:endgame=5000"), Layout(rules, lay), np.random.default_rng(1))
        exact = play(make("twoply:plies=1,endgame=5000"), Layout(rules, lay), np.random.default_rng(1))
        assert [s.cell for s in ours.shots] == [s.cell for s in exact.shots]


def test_greedy_rollout_keeps_the_protocol_and_repeats_its_games():
    rules = [
        preset("square-6"),
        Rules(
            6, 6, (Ship.line("Ship A", "A", 3), Ship.line("Ship B", "B", 2)), Spacing.NO_CONTACT, Sinks.NONE
        ),
    ]
    check_shooter("greedy-rollout", rules, Options(width=3, skew=20, rollouts=32), games=2)
    layout = generators.generate(rules[0], "uniform", 5, 1)[0]
    one = play(make("greedy-rollout:rollouts=24"), layout, np.random.default_rng(3))
    two = play(make("greedy-rollout:rollouts=24"), layout, np.random.default_rng(3))
    assert [s.cell for s in one.shots] == [s.cell for s in two.shots]
