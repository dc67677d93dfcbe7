"""``prior=GENERATOR``: shooters that know how the layouts were drawn."""

import numpy as np
import pytest

from battleship import generators
from battleship.api import simulate
from battleship.errors import BattleshipError
from battleship.inference.prior import generator_weights
from battleship.rules import preset
from battleship.shooters import make
from battleship.shooters.options import parse_spec
from battleship.tables import tables


def test_the_contest_prior_weighs_nothing_the_contest_never_draws():
    rules = preset("pirates")
    weights = generator_weights(rules, "contest")
    t = tables(rules)
    last_column = [
        p
        for p in range(len(t.masks))
        if t.size[t.ship_of[p]] > 1
        and t.cell_list[p, 1] == t.cell_list[p, 0] + 1  # along a row
        and t.cell_list[p, t.size[t.ship_of[p]] - 1] % rules.cols == rules.cols - 1
    ]
    assert last_column and (weights[last_column] == 0).all()
    assert generator_weights(rules, "uniform") is None
    assert weights.max() > 1.2  # the contest favours some placements over uniform layouts


def test_a_bad_prior_is_refused_with_the_choices():
    with pytest.raises(BattleshipError, match="no layout generator named 'nope'"):
        parse_spec("trial-sink:prior=nope")
    with pytest.raises(BattleshipError, match="density does not read prior"):
        simulate(preset("standard"), "density:prior=contest", games=10)


def test_a_prior_shooter_plays_the_same_in_python_and_in_the_kernel():
    rules = preset("pirates")
    layouts = generators.generate(rules, "contest", 5, 20)
    rows = generators.to_indices(rules, layouts)
    from battleship.shooters.kernels import KINDS, play_rows

    spec = "trial-sink:skew=20,prior=contest"
    _, options = parse_spec(spec)
    fast = play_rows(rules, KINDS["trial-sink"], 0, rows, options)
    from battleship.api import play

    slow = [len(play(make(spec), layout, 0).shots) for layout in layouts]
    # tie=first: no random numbers are drawn, so both paths make the very same shots
    assert fast.tolist() == slow
    assert np.mean(fast) < 60
