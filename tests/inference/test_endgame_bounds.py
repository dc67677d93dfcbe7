"""The endgame solver's lower bounds against the plain minimax: never above a state's true value.

The solver drops a cell once its answers' lower bounds show it cannot beat the best, and stops a
state once its best reaches the state's own bound: a bound above the true value would return a wrong
optimum. Every state a plain minimax meets on tiny boards (every spacing and sink mode, one-ship
fleets and polyominoes included) is checked here, bound against value.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship.inference.endgame import MODES, Solver, _answer, _floor, _misses
from battleship.rules import Rules, Ship, Sinks, Spacing
from tests import brute
from tests.helpers import brute_force_layouts
from tests.inference.test_posterior import observed_games, replays


def bound(solver: Solver, layouts: list[tuple[int, ...]], shots: int) -> float:
    """The solver's lower bound (its ``_floor``) on the state these layouts leave after ``shots``."""
    rules = solver.rules
    rows, w, _ = solver.state(layouts, shots)
    nl = 1 if rules.sinks is Sinks.NONE else len(rules.fleet)
    return _floor(rows, w, nl, len(rules.fleet), MODES[rules.sinks])


class Enough(Exception):
    """More states than the caller wanted checked: every state met so far was checked."""


def every_state_checked(
    rules: Rules, layouts: list[tuple[int, ...]], shots: int, most: int | None = None
) -> tuple[float, int]:
    """The plain minimax value of the state (every cell some layout still holds tried, no cut), with
    every state it meets checked against the solver's bound; and how many states were checked.
    Past ``most`` states it raises :class:`Enough` (a plain minimax's states grow fast with the cells
    left, and a few Hypothesis draws would otherwise take minutes)."""
    solver = Solver(rules)
    seen: dict[tuple[frozenset[int], int], float] = {}

    def value(left: frozenset[int], shots: int) -> float:
        if (left, shots) in seen:
            return seen[left, shots]
        held = 0
        for i in left:
            held |= sum(layouts[i]) & ~shots
        if not held:
            return 0.0
        best = float("inf")
        for cell in range(rules.cells):
            if not held >> cell & 1:
                continue
            groups: dict[object, set[int]] = {}
            for i in left:
                groups.setdefault(_answer(rules, layouts[i], shots, cell), set()).add(i)
            after = shots | 1 << cell
            total = 1 + sum(len(g) / len(left) * value(frozenset(g), after) for g in groups.values())
            best = min(best, total)
        floor = bound(solver, [layouts[i] for i in left], shots)
        assert floor <= best + 1e-9, (floor, best, sorted(left), shots)
        seen[left, shots] = best
        if most is not None and len(seen) > most:
            raise Enough
        return best

    return value(frozenset(range(len(layouts))), shots), len(seen)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(observed_games(max_side=4, max_ships=3))
def test_the_bound_is_at_most_the_value_of_every_state_met(case):
    rules, observation = case
    layouts = [m for m in brute_force_layouts(rules) if replays(rules, m, observation)]
    if not 1 <= len(layouts) <= 9:
        return
    shots = sum(1 << s.cell for s in observation.shots)
    expected, _ = every_state_checked(rules, layouts, shots)
    assert Solver(rules, budget=10**6, symmetric=True).solve(layouts, shots)[0] == pytest.approx(expected)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(brute.tiny_rules(max_side=4, max_ships=3), st.integers(0, 2**16))
def test_the_bound_holds_for_polyominoes_from_the_empty_board(rules, seed):
    every = brute.layouts(rules, cap=9)
    if not every:
        return
    try:
        expected, checked = every_state_checked(rules, every, 0, most=20_000)
    except Enough:  # the states met were each checked against the bound; the whole value is not known
        return
    assert checked >= 1
    assert expected == pytest.approx(brute.optimum(rules, every))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 50), min_size=2, max_size=2), st.sampled_from([2, 3, 4]))
def test_two_sets_of_cells_without_announcements_are_bounded_exactly(weights, length):
    """Two sets of cells left, no announcements: the lighter one costs exactly one miss (fire where
    the heavier one differs), and the bound says so: cells left plus the lighter one's chance."""
    rules = Rules(3, 4, (Ship.line("Ship", "S", length),), Spacing.TOUCH, Sinks.NONE)
    masks = [(sum(1 << c for c in range(length)),), (sum(1 << (4 + c) for c in range(length)),)]
    layouts = [masks[0]] * weights[0] + [masks[1]] * weights[1]
    exact = length + min(weights) / sum(weights)
    assert bound(Solver(rules), layouts, 0) == pytest.approx(exact)
    assert Solver(rules, budget=10**6).solve(layouts, 0)[0] == pytest.approx(exact)


def test_the_misses_bound_counts_answer_sequences():
    """Five sets of three cells, equally likely, no announcements: one set may be found with no miss,
    three with one (C(3, 1) places for it), the last with two: (0 + 3 + 2) / 5 misses at least."""
    rules = Rules(3, 5, (Ship.line("Ship", "S", 3),), Spacing.TOUCH, Sinks.NONE)
    layouts = [(0b111 << c,) for c in range(3)] + [(0b111 << 5,), (0b111 << 10,)]
    rows, w, _ = Solver(rules).state(layouts, 0)
    assert _misses(rows, w, np.uint64(3)) == pytest.approx(5 / 5)  # a count of cells, as the solver gives it


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(brute.tiny_rules(max_side=4, max_ships=2), st.sampled_from([Sinks.NONE, None]))
def test_states_cut_short_never_change_the_optimum(rules, sinks):
    """Without announcements an answer is told past which its cell loses, and stops there (its memo
    entry a bound, not a value): boards of up to 40 layouts, where that happens often, against the
    plain minimax, with and without the board's symmetries (one solver for both orientations)."""
    if sinks is not None:
        rules = Rules(rules.rows, rules.cols, rules.fleet, rules.spacing, sinks, rules.reflections)
    every = brute.layouts(rules, cap=40)
    if not every:
        return
    expected = brute.optimum(rules, every)
    for symmetric in (False, True):
        solver = Solver(rules, budget=10**6, symmetric=symmetric)
        assert solver.solve(every, 0)[0] == pytest.approx(expected)
        assert solver.solve(every, 0)[0] == pytest.approx(expected)  # again, over its own memo
