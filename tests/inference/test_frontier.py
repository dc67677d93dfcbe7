"""The frontier engine (ships of any shape, any spacing) against brute force written apart from it.

The reference is ``tests/brute.py``: each ship's placements are its shape turned and shifted by
hand, a layout is placements that neither overlap nor break the spacing rule checked cell by cell,
and a layout is consistent when the referee (:class:`battleship.game.Game`) answers every shot of
the observation the same way. Nothing of the engine (its tables, halos or evidence) is used there.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battleship.errors import RulesError
from battleship.game import Observation, Outcome, Shot
from battleship.inference import Contradiction, evidence, frontier, posterior
from battleship.inference.posterior import choose_engine
from battleship.inference.search import count_by_search
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.stop import Stop, Stopped
from tests import brute

BENT = ("ell", "tee", "square", "ess")


@st.composite
def bent_rules(draw, max_side: int = 5) -> Rules:
    """Boards from 3x3 to ``max_side``, one to three ships with at least one polyomino (an L, a T, a
    square or an S) and lines of 1 to 3, every spacing and sink mode, with or without reflections."""
    rows, cols = draw(st.integers(3, max_side)), draw(st.integers(3, max_side))
    kinds = draw(st.lists(st.sampled_from(["line", "line", *BENT]), min_size=1, max_size=3))
    if not any(k in BENT for k in kinds):
        kinds[0] = draw(st.sampled_from(BENT))
    fleet = []
    for i, kind in enumerate(kinds):
        length = draw(st.integers(1, 3))
        cells = tuple((0, c) for c in range(length)) if kind == "line" else brute.SHAPES[kind]
        fleet.append(Ship(f"Ship {'ABC'[i]}", "ABC"[i], cells))
    try:
        rules = Rules(
            rows,
            cols,
            tuple(fleet),
            draw(st.sampled_from(list(Spacing))),
            draw(st.sampled_from(list(Sinks))),
            draw(st.booleans()),
            name="bent",
        )
    except RulesError:
        assume(False)
        raise
    return rules


@st.composite
def bent_games(draw):
    """Bent rules, every layout (by brute force), a hidden one and the referee's answers to a random
    prefix of shots at it: misses, hits and ships sunk."""
    rules = draw(bent_rules())
    every = brute.layouts(rules, cap=3000)
    assume(every)  # None: too many layouts to replay; []: the fleet does not fit
    hidden = every[draw(st.integers(0, len(every) - 1))]
    order = draw(st.permutations(range(rules.cells)))
    shots = brute.answers(rules, hidden, order[: draw(st.integers(0, rules.cells))])
    return rules, every, Observation(rules, shots)


def expected(rules: Rules, every: list, observation: Observation, prior: np.ndarray | None = None):
    """The consistent layouts' (weighted) count and, per placement of the engine's tables, theirs."""
    index = {(s, m): i for s, ms in enumerate(rules.placements) for i, m in enumerate(ms)}
    start = np.cumsum([0, *[len(ms) for ms in rules.placements]])
    total = 0 if prior is None else 0.0
    counts = np.zeros(start[-1], dtype=np.int64 if prior is None else np.float64)
    for masks in brute.consistent(rules, every, observation.shots):
        rows = [start[s] + index[s, m] for s, m in enumerate(masks)]
        w = 1 if prior is None else float(np.prod(prior[rows]))
        total += w
        counts[rows] += w
    return total, counts


@settings(max_examples=60, deadline=None)
@given(bent_games())
def test_the_frontier_matches_brute_force_replay(case):
    rules, every, observation = case
    total, counts = expected(rules, every, observation)
    ev = evidence(rules, observation)
    got_total, got_counts = frontier.count_by_frontier(rules, ev)
    assert got_total == total
    assert got_counts.tolist() == counts.tolist()
    assert frontier.count_by_frontier(rules, ev, marginals=False)[0] == total


@settings(max_examples=40, deadline=None)
@given(bent_games(), st.data())
def test_a_tampered_observation_is_counted_exactly_or_refused(case, data):
    rules, every, observation = case
    assume(observation.shots)
    i = data.draw(st.integers(0, len(observation.shots) - 1))
    outcome = data.draw(st.sampled_from(list(Outcome)))
    assume(not (rules.sinks is Sinks.REVEALED and outcome is Outcome.SUNK))  # would need revealed cells
    named = rules.sinks is Sinks.NAMED and outcome is Outcome.SUNK
    ship = data.draw(st.integers(0, len(rules.fleet) - 1)) if named else None
    shots = list(observation.shots)
    shots[i] = Shot(shots[i].cell, outcome, ship)
    changed = Observation(rules, tuple(shots))
    total, counts = expected(rules, every, changed)
    try:
        ev = evidence(rules, changed)
    except Contradiction:
        assert total == 0
        return
    got_total, got_counts = frontier.count_by_frontier(rules, ev)
    assert got_total == total
    assert got_counts.tolist() == counts.tolist()


@settings(max_examples=30, deadline=None)
@given(bent_games(), st.integers(0, 2**32), st.booleans())
def test_the_frontier_weighs_layouts_by_a_prior(case, seed, as_float):
    rules, every, observation = case
    n = sum(len(ms) for ms in rules.placements)
    rng = np.random.default_rng(seed)
    prior = rng.random(n) * 3 if as_float else rng.integers(0, 4, n).astype(np.int64)
    total, counts = expected(rules, every, observation, prior)
    got_total, got_counts = frontier.count_by_frontier(rules, evidence(rules, observation), weight=prior)
    assert got_total == pytest.approx(total, rel=1e-9)
    assert np.allclose(got_counts, counts, rtol=1e-9, atol=1e-9)
    if not as_float:
        assert got_total == round(total) and got_counts.dtype == np.int64


def square_fleet(rows: int, cols: int, spacing: Spacing, lengths: tuple[int, ...]) -> Rules:
    """Straight ships of ``lengths`` and a 2x2 square."""
    fleet = [Ship.line(f"Ship {i}", "ABCDE"[i], n) for i, n in enumerate(lengths)]
    return Rules(rows, cols, (*fleet, Ship("Square", "Q", brute.SHAPES["square"])), spacing, Sinks.NAMED)


@pytest.mark.parametrize("spacing", list(Spacing))
def test_a_larger_board_mid_game_agrees_with_the_search(spacing):
    rules = square_fleet(7, 8, spacing, (4, 3, 2))
    every = None  # too many layouts for brute force: the search engine is the reference here
    observation = Observation(
        rules, (Shot(27, Outcome.HIT), Shot(19, Outcome.MISS), Shot(26, Outcome.MISS), Shot(40, Outcome.MISS))
    )
    ev = evidence(rules, observation)
    assert every is None
    total, counts = frontier.count_by_frontier(rules, ev)
    want_total, want_counts = count_by_search(rules, ev)
    assert total == want_total > 0
    assert counts.tolist() == want_counts.tolist()


def test_posterior_picks_the_frontier_for_a_large_polyomino_fleet():
    rules = square_fleet(10, 10, Spacing.NO_CONTACT, tuple(s.size for s in preset("standard").fleet))
    assert choose_engine(rules, evidence(rules, Observation(rules))) == "frontier"
    small = square_fleet(5, 5, Spacing.NO_CONTACT, (2,))
    result = posterior(small, cached=False)
    assert result.engine == "search"  # few combinations: the search is faster than compiling a graph
    assert result.layouts == len(brute.layouts(small))


def test_a_stop_already_requested_stops_compiling_and_sweeping():
    rules = square_fleet(6, 7, Spacing.NO_EDGE, (3, 2))
    ev = evidence(rules, Observation(rules))
    stop = Stop()
    stop.request()
    with pytest.raises(Stopped):
        frontier.count_by_frontier(rules, ev, stop=stop)
    frontier.count_by_frontier(rules, ev)  # compiled now
    with pytest.raises(Stopped):
        frontier.count_by_frontier(rules, ev, stop=stop)
