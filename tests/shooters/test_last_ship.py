"""Density's exact look-ahead for the last ship (``lastship=W``): against real games and as a policy improvement."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battleship import generators, lab
from battleship.game import Game, Observation, play
from battleship.inference import count
from battleship.lab.limit import every_layout
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules, Ship, Sinks
from battleship.shooters import kernels, make
from battleship.shooters.density import _finish, last_ship, observed_status
from battleship.shooters.options import SPACING_CODES, Options
from battleship.tables import geometry, tables
from tests.helpers import small_rules


@settings(max_examples=40, deadline=None)
@given(
    small_rules(), st.integers(0, 2**32), st.sampled_from(["first", "random", "centre"]), st.integers(0, 1)
)
def test_the_kernel_plays_the_readable_shooters_games(rules, seed, tie, lattice):
    options = Options(skew=20, tie=tie, lattice=lattice, lastship=3)
    layouts = generators.draw(rules, "uniform", seed, 3)
    fast = lab.play_rows(rules, kernels.DENSITY, seed, layouts, options)
    slow = [
        len(play(make("density", options), generators.to_layout(rules, row), game_rng(seed, i)).shots)
        for i, row in enumerate(layouts)
    ]
    assert list(fast) == slow


@settings(max_examples=30, deadline=None)
@given(small_rules(max_side=5, max_ships=1), st.data())
def test_a_rollouts_shots_are_densitys_real_games_from_that_cell(rules, data):
    """Summed over the last ship's fitting placements, the rollout's shots are the referee's count of
    density's games that fire the candidate first and play on from the board as it stands."""
    placements = rules.placements[0]
    hidden = data.draw(st.sampled_from(placements))
    misses = [c for c in range(rules.cells) if not hidden >> c & 1]
    fired = data.draw(st.lists(st.sampled_from(misses), unique=True, max_size=min(3, len(misses) - 1)))
    board = Observation(rules, tuple(Game(Layout(rules, (hidden,))).fire(c) for c in fired))
    status, afloat = observed_status(rules, board)
    open_cells = [c for c in range(rules.cells) if status[c] == 0]
    assume(open_cells)
    first = data.draw(st.sampled_from(open_cells))
    t = tables(rules)
    margin = (SPACING_CODES[rules.spacing], True, rules.rows, rules.cols)
    params = Options(skew=20).vector(rules)
    state = np.zeros(1, dtype=np.uint64)
    expected = total = 0
    for p, mask in enumerate(placements):
        if any(mask >> c & 1 for c in fired) or any(
            status[c] == 4 and mask >> c & 1 for c in range(rules.cells)
        ):
            continue
        total += _finish(first, p, 0, status, afloat, params, geometry(t), state, margin)
        expected += _referee_count(rules, mask, fired, first)
    assert total == expected


def _referee_count(rules: Rules, mask: int, fired: list[int], first: int) -> int:
    """Shots after ``fired``: ``first``, then density (skew 20) until the one ship at ``mask`` sinks."""
    game = Game(Layout(rules, (mask,)))
    for c in fired:
        game.fire(c)
    shooter = make("density", Options(skew=20))
    shooter.reset(rules, np.random.default_rng(0))
    shots, cell = 0, first
    while not game.over:
        game.fire(cell)
        shots += 1
        if not game.over:
            cell = shooter.next_shot(game.observation)
    return shots


@settings(max_examples=30, deadline=None)
@given(small_rules(max_side=5, max_ships=3), st.sampled_from(["first", "centre"]), st.integers(0, 1))
def test_the_look_ahead_never_plays_worse_than_density_over_every_layout(rules, tie, lattice):
    """Policy improvement: exact where it acts, so over every layout (uniform) its mean is no higher."""
    assume(count(rules)[0] <= 1_500)
    layouts = every_layout(rules)
    base = lab.play_rows(rules, kernels.DENSITY, 0, layouts, Options(skew=20, tie=tie, lattice=lattice))
    ahead = lab.play_rows(
        rules, kernels.DENSITY, 0, layouts, Options(skew=20, tie=tie, lattice=lattice, lastship=4)
    )
    assert ahead.sum() <= base.sum()


def test_it_acts_only_when_one_ship_floats_and_the_sunk_ones_are_known():
    rules = Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2)), sinks=Sinks.NAMED)
    status = np.zeros(25, dtype=np.int8)
    afloat = np.array([True, True])
    assert last_ship(status, afloat, tables(rules).size) == -1
    afloat[0] = False
    assert last_ship(status, afloat, tables(rules).size) == -1  # the three sunk cells not yet known
    status[[0, 1, 2]] = 3
    assert last_ship(status, afloat, tables(rules).size) == 1
