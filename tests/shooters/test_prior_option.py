"""``prior=GENERATOR``: shooters that know how the layouts were drawn, and never refuse a legal board."""

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.api import simulate
from battleship.errors import BattleshipError
from battleship.game import Observation, play
from battleship.inference import posterior, prior
from battleship.inference.prior import GENERATOR_SMOOTHING, fit, generator_weights, uniform_frequency
from battleship.lab import paired_difference
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.shooters.kernels import KINDS, play_rows
from battleship.shooters.options import parse_spec
from battleship.shooters.trial_sink import NEGLIGIBLE
from battleship.tables import tables
from tests.helpers import small_rules


def _last_column(rules):
    """Placements along a row that reach the last column (the contest generator never draws them)."""
    t = tables(rules)
    return [
        p
        for p in range(len(t.masks))
        if t.size[t.ship_of[p]] > 1
        and t.cell_list[p, 1] == t.cell_list[p, 0] + 1
        and t.cell_list[p, t.size[t.ship_of[p]] - 1] % rules.cols == rules.cols - 1
    ]


def test_the_contest_prior_weighs_little_what_the_contest_never_draws_but_never_nothing():
    rules = preset("pirates")
    weights = generator_weights(rules, "contest")
    never = _last_column(rules)
    assert never and (weights[never] > 0).all() and (weights[never] < NEGLIGIBLE).all()
    assert weights.min() > 0  # every placement of a legal layout keeps some weight
    assert generator_weights(rules, "uniform") is None
    assert weights.max() > 1.2  # the contest favours some placements over uniform layouts
    # the ratio is taken over frequencies of the same layouts: margin included, as the contest draws
    drawn = generators.draw(rules, "contest", 20_261_123, 200_000)
    used = np.bincount(drawn.ravel(), minlength=len(weights))
    frequent = used > 2000
    smoothed = (used + GENERATOR_SMOOTHING * uniform_frequency(rules)) / (200_000 + GENERATOR_SMOOTHING)
    assert np.allclose(weights[frequent], (smoothed / uniform_frequency(rules))[frequent])


def test_a_fitted_model_gives_every_legal_placement_some_weight():
    rules = Rules(6, 6, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), Spacing.NO_CONTACT)
    model = fit(rules, generators.draw(rules, "contest", 3, 40))
    weights = model.prior()
    assert (weights > 0).all()


def test_a_bad_prior_is_refused_with_the_choices():
    with pytest.raises(BattleshipError, match="no layout generator named 'nope'"):
        parse_spec("trial-sink:prior=nope")
    with pytest.raises(BattleshipError, match="density does not read prior"):
        simulate(preset("standard"), "density:prior=contest", games=10)


def test_a_prior_shooter_plays_the_same_in_python_and_in_the_kernel():
    rules = preset("pirates")
    layouts = generators.generate(rules, "contest", 5, 20)
    rows = generators.to_indices(rules, layouts)
    spec = "trial-sink:skew=20,prior=contest"
    _, options = parse_spec(spec)
    fast = play_rows(rules, KINDS["trial-sink"], 0, rows, options)
    slow = [len(play(make(spec), layout, np.random.default_rng(0)).shots) for layout in layouts]
    # tie=first: no random numbers are drawn, so both paths make the very same shots
    assert fast.tolist() == slow
    assert np.mean(fast) < 60


def test_the_contest_prior_plays_layouts_the_contest_never_draws():
    """The issue's case: `play best:prior=contest --rules pirates --seed 2` refused a uniform layout."""
    rules = preset("pirates")
    rows = generators.draw(rules, "uniform", 2, 40)
    assert (generator_weights(rules, "contest")[rows] < NEGLIGIBLE).any(axis=1).sum() >= 5
    spec = "trial-sink:skew=20,prior=contest"
    _, options = parse_spec(spec)
    fast = play_rows(rules, KINDS["trial-sink"], 2, rows, options)
    slow = [
        len(play(make(spec), generators.to_layout(rules, row), np.random.default_rng(0)).shots)
        for row in rows
    ]
    assert fast.tolist() == slow
    assert (fast >= rules.ship_cells).all() and (fast <= rules.cells).all()


@settings(max_examples=15, deadline=None)
@given(
    small_rules(spacings=(Spacing.NO_EDGE, Spacing.NO_CONTACT)),
    st.integers(0, 2**16),
    st.sampled_from(["contest", "r-blog", "sequential"]),
)
def test_a_prior_never_refuses_a_legal_board(rules, seed, generator):
    """Uniform layouts under a biased generator's prior: every game ends, the kernel as the class."""
    try:
        with patch.object(prior, "GENERATOR_LAYOUTS", 100):  # a rough prior is prior enough here
            weights = generator_weights(rules, generator)
    except BattleshipError:
        return  # a generator that cannot fill these rules (r-blog lets ships touch)
    assert weights.min() > 0
    rows = generators.draw(rules, "uniform", seed, 4)
    _, options = parse_spec(f"trial-sink:prior={generator}")
    fast = play_rows(rules, KINDS["trial-sink"], seed, rows, options)
    for i, row in enumerate(rows):
        record = play(
            make(f"trial-sink:prior={generator}"), generators.to_layout(rules, row), np.random.default_rng(0)
        )
        assert len(record.shots) == fast[i]
    generator_weights.cache_clear()  # the rough prior goes


def test_a_prior_fitting_the_layouts_keeps_its_gain():
    """The contest prior ahead of no prior on contest layouts, paired (a lost gain fails here)."""
    rules = preset("pirates")
    rows = generators.draw(rules, "contest", 5, 1500)
    with_prior = play_rows(
        rules, KINDS["trial-sink"], 5, rows, parse_spec("trial-sink:skew=20,prior=contest")[1]
    )
    without = play_rows(rules, KINDS["trial-sink"], 5, rows, parse_spec("trial-sink:skew=20")[1])
    difference, (low, high) = paired_difference(with_prior, without)
    assert high < -0.3, (difference, low, high)  # 0.79 shots measured over 10,000 games


def test_anonymous_sinks_under_a_prior_play_to_the_end():
    rules = Rules(
        7, 7, (Ship.line("Four", "F", 4), Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)),
        Spacing.NO_EDGE, Sinks.SUNK,
    )  # fmt: skip
    rows = generators.draw(rules, "uniform", 9, 30)
    fast = play_rows(rules, KINDS["trial-sink"], 9, rows, parse_spec("trial-sink:prior=contest")[1])
    assert (fast <= rules.cells).all()


def test_exact_greedy_play_under_a_generator_prior_fires_where_the_weighted_posterior_is_highest():
    rules = Rules(6, 6, (Ship.line("a", "A", 3), Ship.line("b", "B", 2)), spacing=Spacing.NO_CONTACT)
    layout = generators.generate(rules, "contest", 3, 1)[0]
    shooter = make("optimal:prior=contest-weights")  # plain prior=contest plays the exact law
    record = play(shooter, layout, np.random.default_rng(0))
    weights = generator_weights(rules, "contest")
    observation = Observation(rules, record.shots[: len(record.shots) // 2])
    counts = posterior(rules, observation, prior=weights).cell_layouts.ravel()
    unshot = [c for c in range(rules.cells) if not observation.is_shot(c)]
    top = max(counts[c] for c in unshot)
    chosen = record.shots[len(record.shots) // 2].cell
    assert counts[chosen] == top  # the weighted count, not the uniform one, chose the cell
    assert min(c for c in unshot if counts[c] == top) == chosen  # ties in reading order
