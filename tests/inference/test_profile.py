"""The profile engine (straight ships, any spacing) against brute-force replay, and past 64 bits."""

from math import comb, factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship.game import Observation
from battleship.inference import count, posterior
from battleship.inference.evidence import Contradiction, evidence
from battleship.inference.profile import count_by_profile, exact_total
from battleship.inference.search import count_by_search
from battleship.rules import Rules, Ship, Sinks, Spacing
from battleship.tables import tables
from tests.inference.test_posterior import brute_posterior, observed_games


@settings(max_examples=120, deadline=None)
@given(observed_games(max_side=5, max_ships=3))
def test_the_profile_engine_matches_brute_force_replay(case):
    rules, observation = case
    expected_total, expected_counts = brute_posterior(rules, observation)
    try:
        ev = evidence(rules, observation)
    except Contradiction:
        assert expected_total == 0
        return
    total, counts = count_by_profile(rules, ev)
    assert total == expected_total
    assert (counts == expected_counts).all()
    assert count_by_profile(rules, ev, marginals=False)[0] == expected_total


@settings(max_examples=40, deadline=None)
@given(observed_games(max_side=4, max_ships=3), st.integers(0, 2**32), st.booleans())
def test_the_profile_engine_weighs_layouts_by_a_prior(case, seed, as_float):
    rules, observation = case
    try:
        ev = evidence(rules, observation)
    except Contradiction:
        return
    t = tables(rules)
    rng = np.random.default_rng(seed)
    prior = rng.random(len(t.masks)) * 3 if as_float else rng.integers(0, 4, len(t.masks)).astype(np.int64)
    total, counts = count_by_profile(rules, ev, weight=prior)
    try:
        reference = posterior(rules, observation, prior=prior)
    except Contradiction:  # every consistent layout weighs nothing
        assert total == 0
        return
    assert total == pytest.approx(reference.layouts, rel=1e-9)
    assert np.allclose(counts, reference.placement_layouts, rtol=1e-9, atol=1e-9)


def test_an_exact_count_past_64_bits():
    # twelve one-cell boats that may touch on 8x8: C(64, 12) * 12! layouts, about 2^70
    fleet = tuple(Ship.line(f"Boat {i}", "ABCDEFGHIJKL"[i], 1) for i in range(12))
    rules = Rules(8, 8, fleet, Spacing.TOUCH, Sinks.NONE)
    expected = comb(64, 12) * factorial(12)
    assert expected > 2**64
    ev = evidence(rules, Observation(rules))
    total, counts = count_by_profile(rules, ev)
    assert total == expected and count_by_profile(rules, ev, marginals=False)[0] == expected
    # each boat is on a given cell in 1/64 of the layouts; the counts are floats this far out
    assert counts.dtype == np.float64
    assert np.allclose(counts, expected / 64, rtol=1e-12)
    assert exact_total(expected % 2**64, float(expected)) == expected


def test_a_margin_rule_past_64_bits_counts_and_gives_probabilities():
    fleet = tuple(Ship.line(f"Boat {i}", "ABCDEFGHIJKL"[i], 1) for i in range(12))
    rules = Rules(8, 8, fleet, Spacing.NO_EDGE, Sinks.NONE)
    total, engine = count(rules)
    assert engine == "profile" and total > 2**64
    result = posterior(rules)
    assert result.probability.sum() == pytest.approx(12)


def test_sea_battle_counts_exactly():
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
    ev = evidence(rules, Observation(rules))
    total, counts = count_by_profile(rules, ev)
    expected_total, expected_counts = count_by_search(rules, ev)
    assert total == expected_total and (counts == expected_counts).all()
