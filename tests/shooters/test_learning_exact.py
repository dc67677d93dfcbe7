"""Learning under a spacing margin is exact: the prior-weighted counts of every consistent layout."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship.inference import Contradiction, evidence
from battleship.inference import prior as learning
from battleship.shooters.learning import LearningShooter
from battleship.tables import tables
from tests.inference.test_posterior import brute_weighted, observed_games


@settings(max_examples=30, deadline=None)
@given(observed_games(max_side=4, max_ships=3), st.integers(0, 2**32))
def test_learning_under_a_margin_weighs_every_layout_by_its_prior(case, seed):
    rules, observation = case
    t = tables(rules)
    prior = np.random.default_rng(seed).uniform(0.5, 2.0, len(t.masks))
    model = learning.PlacementModel(rules, np.zeros(len(t.masks), np.int64), 0, _prior=prior)
    shooter = LearningShooter(model=model)
    try:
        shooter.reset(rules, np.random.default_rng(seed))
        evidence(rules, observation)
    except Contradiction:
        return
    except Exception as error:  # rules learning refuses (say, ships that are not straight)
        assert "learning" in str(error) or "model" in str(error), error
        return
    total, placements = brute_weighted(rules, observation, prior)
    if total == 0:
        return
    assert shooter._exact  # no importance sampling: every spacing rule is counted exactly
    _, got_placements, got_total = shooter.weights(observation)
    assert got_total == np.float64(total) or abs(got_total - total) <= 1e-9 * total
    assert np.allclose(got_placements, placements, rtol=1e-9, atol=1e-12)
