"""The sweep engine against brute force: every spacing and sink mode, priors, tampering, sampling, stopping."""

from __future__ import annotations

import math
from collections import Counter
from math import comb, factorial

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.errors import RulesError
from battleship.game import Game, Observation, Outcome, Shot
from battleship.inference import Contradiction, count, evidence, posterior
from battleship.inference import graph as graph_module
from battleship.inference.search import count_by_search
from battleship.inference.sweep import (
    classes,
    count_by_sweep,
    estimate,
    sample_by_sweep,
    shape_of,
)
from battleship.rng import stream
from battleship.rules import Rules, Ship, Sinks, Spacing
from battleship.stop import OutOfTime, Stop, Stopped
from battleship.tables import tables
from tests.helpers import LETTERS, brute_force_layouts, chi2_upper
from tests.inference.test_posterior import brute_posterior, brute_weighted, observed_games, replays


@st.composite
def twin_rules(draw, max_side: int = 5, max_ships: int = 4) -> Rules:
    """Small rules whose fleets often repeat a length (ships of one class), one-cell ships included."""
    rows = draw(st.integers(2, max_side))
    cols = draw(st.integers(2, max_side))
    lengths = draw(st.lists(st.sampled_from([1, 1, 2, 2, 3]), min_size=1, max_size=max_ships))
    fleet = tuple(Ship.line(f"Ship {LETTERS[i]}", LETTERS[i], n) for i, n in enumerate(lengths))
    try:
        rules = Rules(
            rows, cols, fleet, draw(st.sampled_from(list(Spacing))), draw(st.sampled_from(list(Sinks)))
        )
    except RulesError:
        assume(False)
        raise
    assume(math.prod(len(p) for p in rules.placements) <= 60_000)  # brute force stays quick
    return rules


@st.composite
def twin_games(draw):
    """A twin fleet, a hidden layout and the referee's answers to a random prefix of shots."""
    rules = draw(twin_rules())
    seed = draw(st.integers(0, 2**32))
    game = Game(generators.generate(rules, "uniform", seed, 1)[0])
    for cell in np.random.default_rng(seed).permutation(rules.cells)[: draw(st.integers(0, rules.cells))]:
        if game.over:
            break
        game.fire(int(cell))
    return rules, game.observation


def check_against_brute_force(rules: Rules, observation: Observation) -> None:
    """The sweep's total and every placement's count equal replaying every layout."""
    expected_total, expected_counts = brute_posterior(rules, observation)
    try:
        ev = evidence(rules, observation)
    except Contradiction:
        assert expected_total == 0
        return
    total, counts = count_by_sweep(rules, ev)
    assert total == expected_total
    assert (counts == expected_counts).all()
    assert count_by_sweep(rules, ev, marginals=False)[0] == expected_total


@settings(max_examples=150, deadline=None)
@given(observed_games(max_side=5, max_ships=3))
def test_the_sweep_matches_brute_force_replay(case):
    check_against_brute_force(*case)


@settings(max_examples=120, deadline=None)
@given(twin_games())
def test_the_sweep_matches_brute_force_with_ships_of_one_length(case):
    check_against_brute_force(*case)


@settings(max_examples=60, deadline=None)
@given(observed_games(max_side=4, max_ships=3), st.integers(0, 2**32), st.booleans())
def test_the_sweep_weighs_layouts_by_a_prior(case, seed, as_float):
    rules, observation = case
    t = tables(rules)
    rng = np.random.default_rng(seed)
    prior = rng.random(len(t.masks)) * 3 if as_float else rng.integers(0, 4, len(t.masks)).astype(np.int64)
    total, counts = brute_weighted(rules, observation, prior)
    try:
        ev = evidence(rules, observation)
    except Contradiction:
        assert total == 0
        return
    got_total, got_counts = count_by_sweep(rules, ev, weight=prior)
    assert got_total == pytest.approx(total, rel=1e-9)
    assert np.allclose(got_counts, counts, rtol=1e-9, atol=1e-9)
    if not as_float:
        assert got_total == int(total) and got_counts.dtype == np.int64


@settings(max_examples=100, deadline=None)
@given(twin_games(), st.data())
def test_a_tampered_observation_is_counted_exactly_or_refused(case, data):
    rules, observation = case
    assume(observation.shots)
    i = data.draw(st.integers(0, len(observation.shots) - 1))
    outcome = data.draw(st.sampled_from(list(Outcome)))
    named = rules.sinks in (Sinks.NAMED, Sinks.REVEALED) and outcome is Outcome.SUNK
    assume(not (rules.sinks is Sinks.REVEALED and outcome is Outcome.SUNK))  # would need revealed cells
    ship = data.draw(st.integers(0, len(rules.fleet) - 1)) if named else None
    shots = list(observation.shots)
    shots[i] = Shot(shots[i].cell, outcome, ship)
    changed = Observation(rules, tuple(shots))
    expected_total, _ = brute_posterior(rules, changed)
    if expected_total == 0:
        with pytest.raises(Contradiction):
            posterior(rules, changed)
        try:
            ev = evidence(rules, changed)
        except Contradiction:
            return
        assert count_by_sweep(rules, ev)[0] == 0  # the sweep itself finds nothing
    else:
        assert count_by_sweep(rules, evidence(rules, changed))[0] == expected_total


def test_a_whole_game_with_sinkings_uses_one_graph():
    # ships announced sunk own their sinking cell: they stay in their length's class
    rules = Rules(
        5, 5, tuple(Ship.line(f"S{i}", "ABC"[i], 2) for i in range(3)), Spacing.NO_EDGE, Sinks.NAMED
    )
    game = Game(generators.generate(rules, "uniform", 4, 1)[0])
    shapes = set()
    while not game.over:
        ev = evidence(rules, game.observation)
        w = np.where(ev.admissible, 1, 0)
        shapes.add(shape_of(rules, classes(rules, w, ev.hits)))
        result = posterior(rules, game.observation)
        game.fire(result.best(game.observation)[0])
    assert len(shapes) == 1
    assert next(iter(shapes)).mult == (3,)


def test_an_exact_count_past_64_bits():
    # twelve one-cell boats that may touch on 8x8: C(64, 12) * 12! layouts, about 2^70
    fleet = tuple(Ship.line(f"Boat {i}", "ABCDEFGHIJKL"[i], 1) for i in range(12))
    rules = Rules(8, 8, fleet, Spacing.TOUCH, Sinks.NONE)
    expected = comb(64, 12) * factorial(12)
    assert expected > 2**64
    ev = evidence(rules, Observation(rules))
    total, counts = count_by_sweep(rules, ev)
    assert total == expected and count_by_sweep(rules, ev, marginals=False)[0] == expected
    assert counts.dtype == np.float64  # each boat is on a given cell in 1/64 of the layouts
    assert np.allclose(counts, expected / 64, rtol=1e-12)


def test_integer_weights_past_64_bits_stay_exact():
    # the same count weighed by 3 a placement: every layout weighs 3^12; the sweep wraps and corrects
    fleet = tuple(Ship.line(f"Boat {i}", "ABCDEFGHIJKL"[i], 1) for i in range(12))
    rules = Rules(8, 8, fleet, Spacing.NO_EDGE, Sinks.NONE)
    ev = evidence(rules, Observation(rules))
    plain = count_by_sweep(rules, ev, marginals=False)[0]
    weighed = count_by_sweep(rules, ev, marginals=False, weight=np.full(len(tables(rules).masks), 3))[0]
    assert plain > 2**60 and weighed == plain * 3**12
    result = posterior(rules)
    assert result.engine == "sweep" and result.probability.sum() == pytest.approx(12)


def test_a_small_sea_battle_against_the_search():
    rules = Rules(
        6,
        6,
        (
            Ship.line("Cruiser", "C", 3),
            Ship.line("Destroyer 1", "D", 2),
            Ship.line("Destroyer 2", "E", 2),
            *(Ship.line(f"Boat {i}", "HIJ"[i], 1) for i in range(3)),
        ),
        Spacing.NO_CONTACT,
        Sinks.NAMED,
    )
    game = Game(generators.generate(rules, "uniform", 8, 1)[0])
    for cell in np.random.default_rng(8).permutation(rules.cells)[:20]:
        if game.over:
            break
        ev = evidence(rules, game.observation)
        assert count_by_sweep(rules, ev)[0] == count_by_search(rules, ev)[0]
        total, counts = count_by_sweep(rules, ev)
        assert (counts == count_by_search(rules, ev)[1]).all() and total > 0
        game.fire(int(cell))


# ---- sampling ------------------------------------------------------------------------------------
@pytest.mark.parametrize("spacing", list(Spacing))
@pytest.mark.parametrize("sinks", [Sinks.NONE, Sinks.NAMED])
def test_graph_samples_are_uniform_over_the_consistent_layouts(spacing, sinks):
    rules = Rules(
        4,
        5,
        (Ship.line("Two 1", "A", 2), Ship.line("Two 2", "B", 2), Ship.line("One", "C", 1)),
        spacing,
        sinks,
    )
    game = Game(generators.generate(rules, "uniform", 2, 1)[0])
    for cell in (6, 12, 0, 7, 11):
        game.fire(cell)
    consistent = [m for m in brute_force_layouts(rules) if replays(rules, m, game.observation)]
    draws = 30_000
    rows = sample_by_sweep(
        rules, evidence(rules, game.observation), draws, stream(np.uint64(5), np.uint64(0))
    )
    masks = tables(rules).masks
    seen = Counter(tuple(masks[p] for p in row) for row in rows)
    assert set(seen) <= set(consistent)
    expected = draws / len(consistent)
    stat = sum((seen.get(m, 0) - expected) ** 2 / expected for m in consistent)
    assert stat < chi2_upper(max(1, len(consistent) - 1))


def test_graph_samples_are_reproducible_from_the_seed():
    rules = Rules(
        5, 5, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.NO_CONTACT, Sinks.NONE
    )
    ev = evidence(rules, Observation(rules))
    a = sample_by_sweep(rules, ev, 200, stream(np.uint64(9), np.uint64(0)))
    b = sample_by_sweep(rules, ev, 200, stream(np.uint64(9), np.uint64(0)))
    c = sample_by_sweep(rules, ev, 200, stream(np.uint64(10), np.uint64(0)))
    assert (a == b).all() and not (a == c).all()


# ---- stopping and estimating ---------------------------------------------------------------------
def _stopping_rules() -> Rules:
    return Rules(
        7, 7, tuple(Ship.line(f"S{i}", "ABCD"[i], n) for i, n in enumerate((3, 2, 2, 1))), Spacing.NO_EDGE
    )


def test_a_stop_already_requested_stops_the_sweep_and_a_deadline_is_out_of_time():
    rules = _stopping_rules()
    stop = Stop()
    stop.request()
    with pytest.raises(Stopped):
        count(rules, stop=stop)
    with pytest.raises(OutOfTime):
        posterior(rules, Observation(rules, (Shot(3, Outcome.MISS),)), stop=Stop(0))
    assert posterior(rules, stop=Stop(60)).layouts == count(rules)[0]  # no request: it finishes


def test_a_stop_requested_while_compiling_leaves_nothing_half_built():
    rules = Rules(
        6, 7, tuple(Ship.line(f"S{i}", "ABCDE"[i], n) for i, n in enumerate((4, 3, 2, 1))), Spacing.NO_CONTACT
    )
    shape = shape_of(rules, classes(rules, np.ones(len(tables(rules).masks), np.int64), 0))
    assert graph_module.compiled(shape, np.ones(1, np.int64)) is None
    assert graph_module.cached(shape) is None
    ev = evidence(rules, Observation(rules))
    assert count(rules)[0] == count_by_search(rules, ev, marginals=False)[0]  # a later call compiles it whole


def test_the_estimate_is_exact_once_compiled_and_says_when_a_graph_cannot_fit(monkeypatch):
    rules = _stopping_rules()
    ev = evidence(rules, Observation(rules))
    count(rules)
    known = estimate(rules, ev)
    assert known.compiled and known.fits and known.states > 0 and known.edges >= known.states
    other = Rules(7, 8, rules.fleet, Spacing.NO_CONTACT)
    monkeypatch.setattr(graph_module, "MAX_GEOMETRY", 1000)
    far = estimate(other, evidence(other, Observation(other)))
    assert not far.fits and "would not fit" in far.why and far.seconds == 0
    assert posterior(other).engine == "search"  # the engines that still can answer it


@pytest.mark.parametrize("engine", ["rows", "search", "sweep", "frontier"])
def test_every_engine_stops_when_asked(engine):
    from battleship.inference.posterior import ENGINES

    rules = Rules(6, 6, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.TOUCH)
    ev = evidence(rules, Observation(rules))
    stop = Stop()
    stop.request()
    with pytest.raises(Stopped):
        ENGINES[engine](rules, ev, stop=stop)
    # a stop never asked lets it finish (no deadline: compiling with bounds checks on a busy machine
    # has passed a minute)
    assert ENGINES[engine](rules, ev, stop=Stop())[0] == ENGINES["search"](rules, ev)[0]


def test_a_monte_carlo_budget_is_a_deadline_for_the_whole_answer():
    from battleship.inference.sampling import monte_carlo

    rules = _stopping_rules()
    observation = Observation(rules, (Shot(24, Outcome.HIT),))
    estimate_ = monte_carlo(rules, observation, seconds=0.2, seed=1)
    assert estimate_.samples > 0 and estimate_.probability.shape == (7, 7)
    with pytest.raises(Stopped):
        stop = Stop()
        stop.request()
        monte_carlo(rules, observation, samples=100, stop=stop)


def test_the_work_ahead_is_told_before_starting():
    from battleship.inference import work

    small = work(_stopping_rules())
    assert small.engine == "sweep" and not small.beyond(60)
    fleet = tuple(Ship.line(f"S{i}", "ABCDEF"[i], n) for i, n in enumerate((5, 4, 4, 3, 3, 2)))
    big = work(Rules(12, 12, fleet, Spacing.NO_EDGE, Sinks.SUNK))  # issue 26's slow board
    assert big.engine == "search" and big.beyond(2) and "would not fit" in big.detail


def test_every_sweep_leaves_its_buffers_clear_for_the_next_one():
    """The passes clear what they wrote as they go (the backward pass each state's F and bits):
    counts alone, counts with marginals, no layout at all and samples, in any order, leave the
    spare buffers zero, and a board answered again gets the same answer."""
    from battleship.inference import sweep as sweep_module

    rules = Rules(
        5, 6, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.NO_CONTACT, Sinks.NONE
    )
    miss, hit = Outcome.MISS, Outcome.HIT
    boards = [
        Observation(rules),
        Observation(rules, (Shot(7, miss), Shot(14, hit))),
        Observation(rules, (Shot(0, hit), Shot(29, hit), Shot(15, miss))),
    ]
    first = [posterior(rules, o, cached=False).placement_layouts.copy() for o in boards]
    for o in boards:
        ev = evidence(rules, o)
        count_by_sweep(rules, ev, marginals=False)
        sample_by_sweep(rules, ev, 5, stream(1, 0))
        graph = sweep_module.setup(rules, ev).graph
        for sets in graph.spare.values():
            for (f_values, _b_values), (reached,) in sets:
                assert not f_values.any() and not reached.any()
    assert all(
        (posterior(rules, o, cached=False).placement_layouts == a).all()
        for o, a in zip(boards, first, strict=True)
    )
    with pytest.raises(Contradiction):  # three hits in a row of two ships, far apart: nothing fits
        posterior(rules, Observation(rules, (Shot(0, hit), Shot(2, hit), Shot(4, hit), Shot(29, hit))))
    assert (posterior(rules, boards[1], cached=False).placement_layouts == first[1]).all()


def test_the_best_cells_are_every_unshot_cell_of_the_top_count():
    rules = Rules(3, 3, (Ship.line("Two", "W", 2),), Spacing.TOUCH, Sinks.NONE)
    result = posterior(rules, Observation(rules, (Shot(4, Outcome.MISS),)), cached=False)
    counts = result.cell_layouts.ravel()
    unshot = [c for c in range(9) if c != 4]
    top = max(counts[c] for c in unshot)
    assert result.best(Observation(rules, (Shot(4, Outcome.MISS),))) == [
        c for c in unshot if counts[c] == top
    ]
    everything = Observation(rules, tuple(Shot(c, Outcome.MISS) for c in range(9)))
    assert result.best(everything) == []
