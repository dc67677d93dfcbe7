"""Open-board counts: both engines against brute force, identical ships, and 10x10 occupancy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.game import Observation, Outcome, Shot
from battleship.inference import count, fast_path, identical_factor, occupancy
from battleship.rules import Rules, Ship, preset, square
from tests.helpers import brute_force_layouts, small_rules


@settings(max_examples=40, deadline=None)
@given(small_rules(max_side=5, max_ships=3))
def test_both_engines_count_every_layout_and_cell(rules):
    layouts = brute_force_layouts(rules)
    expected = [0] * rules.cells
    for layout in layouts:
        for mask in layout:
            for cell in range(rules.cells):
                expected[cell] += mask >> cell & 1
    for engine in ("rows", "search") if fast_path(rules) else ("search",):
        total, per_cell = occupancy(rules, engine)
        assert total == len(layouts)
        assert per_cell.ravel().tolist() == expected


@pytest.mark.slow
# three ships at most: brute force over four one-cell ships of a 6x6 board is 1.7 million
# combinations in Python, minutes of make test (four-ship fleets are brute-forced in test_sampling)
@settings(max_examples=40, deadline=None)
@given(small_rules(max_side=6, max_ships=3), st.integers(0, 2**36 - 1))
def test_counts_avoiding_misses(rules, blocked):
    blocked &= rules.full
    shots = tuple(Shot(c, Outcome.MISS) for c in range(rules.cells) if blocked >> c & 1)
    avoiding = sum(1 for combo in brute_force_layouts(rules) if not any(m & blocked for m in combo))
    if avoiding == 0:
        return  # a contradiction: tested in test_posterior
    assert count(rules, Observation(rules, shots))[0] == avoiding


def test_identical_ships_counted_once_when_asked():
    r = Rules(5, 5, (Ship.line("A", "A", 3), Ship.line("B", "B", 2), Ship.line("C", "C", 2)))
    layouts = brute_force_layouts(r)
    unlabelled = {(combo[0], *sorted(combo[1:])) for combo in layouts}
    assert count(r)[0] // identical_factor(r) == len(unlabelled)
    assert identical_factor(square(6)) == 2 and identical_factor(Rules(4, 4, r.fleet[:1])) == 1


def test_uniform_matches_exact_occupancy_on_10x10():
    rules = preset("standard")
    total, per_cell = occupancy(rules)
    exact = (per_cell / total).ravel()
    assert round(exact[0], 4) == 0.0800 and round(exact[44], 4) == 0.2136  # corner, centre
    draws = 1_000_000
    cell_list = generators.tables(rules).cell_list
    cells = cell_list[generators.draw(rules, "uniform", 77, draws)].ravel()
    freq = np.bincount(cells[cells >= 0], minlength=rules.cells) / draws
    sigma = np.sqrt(exact * (1 - exact) / draws)
    assert np.all(np.abs(freq - exact) < 5 * sigma), np.abs(freq - exact) / sigma
