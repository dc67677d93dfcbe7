import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators, rowcount
from battleship.count import count_by_enumeration, enumerate_layouts
from battleship.rules import Rules, Ship, preset


@st.composite
def touching_fleets(draw):
    rows, cols = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    fleet = tuple(Ship.line(f"S{i}", "ABCD"[i], n) for i, n in enumerate(lengths))
    try:
        return Rules(rows, cols, fleet)
    except ValueError:
        return Rules(rows, cols, (Ship.line("A", "A", 1),))


@settings(max_examples=60, deadline=None)
@given(touching_fleets(), st.integers(0, 2**36 - 1))
def test_row_counter_matches_enumeration(rules, blocked):
    blocked &= rules.full
    total, _ = enumerate_layouts(rules)
    assert rowcount.count(rules) == total == count_by_enumeration(rules)
    avoiding = sum(
        1
        for combo in itertools.product(*rules.placements)
        if not any(m & blocked for m in combo) and _disjoint(combo)
    )
    assert rowcount.count(rules, blocked) == avoiding


def _disjoint(masks):
    seen = 0
    for m in masks:
        if m & seen:
            return False
        seen |= m
    return True


def test_open_standard_board_has_the_published_count():
    # 30,093,975,536: the figure of 001 and 002 (labelled ships: the two 3-ships are distinct)
    assert rowcount.count(preset("standard")) == 30_093_975_536


def test_uniform_matches_exact_occupancy_on_10x10():
    rules = preset("standard")
    total, per_cell = rowcount.occupancy(rules)
    exact = (per_cell / total).ravel()
    assert round(exact[0], 4) == 0.0800 and round(exact[44], 4) == 0.2136  # corner, centre
    draws = 1_000_000
    cell_list = generators.tables(rules).cell_list
    cells = cell_list[generators.draw(rules, "uniform", 77, draws)].ravel()
    freq = np.bincount(cells[cells >= 0], minlength=rules.cells) / draws
    sigma = np.sqrt(exact * (1 - exact) / draws)
    assert np.all(np.abs(freq - exact) < 5 * sigma), np.abs(freq - exact) / sigma
