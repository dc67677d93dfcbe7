"""The rollout shooter: its replayed games, its significance gate, and that it plays reproducibly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.game import play
from battleship.rules import preset
from battleship.shooters import make
from battleship.shooters.density import DensityShooter
from battleship.shooters.options import Options
from battleship.shooters.rollout import rollout_shots, significant_best
from battleship.tables import geometry, tables
from tests.helpers import small_rules


@settings(max_examples=30, deadline=None)
@given(small_rules(max_side=6), st.integers(0, 2**32), st.integers(0, 30))
def test_a_rollout_from_the_base_policys_own_shots_replays_its_game(rules, seed, cut):
    """Forcing the density shooter's own first shots, then its own next shot, leaves its game as it was."""
    row = generators.draw(rules, "uniform", seed, 1)
    layout = generators.to_layout(rules, row[0])
    options = Options(skew=20)
    record = play(DensityShooter(options), layout, np.random.default_rng(0))
    cells = [s.cell for s in record.shots]
    k = min(cut, len(cells) - 1)
    out = np.empty((1, 1), dtype=np.int64)
    fired, candidate = np.array(cells[:k], dtype=np.int64), np.array([cells[k]], dtype=np.int64)
    vector, g = options.vector(rules), geometry(tables(rules))
    rollout_shots(fired, candidate, row, np.uint64(seed), rules.rows, rules.cols, vector, g, out)
    assert out[0, 0] == len(cells)


def test_the_gate_keeps_the_base_choice_unless_another_is_clearly_better():
    rng = np.random.default_rng(5)
    noisy = 40 + rng.normal(0, 8, size=(3, 48)).round().astype(np.int64)
    noisy[1] = noisy[0] + rng.integers(-6, 6, size=48)  # no better on average
    assert significant_best(noisy, 2.0) == 0
    clear = noisy.copy()
    clear[2] = (
        clear[0] - 3 + rng.integers(-1, 2, size=48)
    )  # three shots fewer on every layout, give or take one
    assert significant_best(clear, 2.0) == 2
    same = np.full((2, 10), 30, dtype=np.int64)
    assert significant_best(same, 2.0) == 0  # a tie keeps the base


def test_rollout_plays_reproducibly_and_finishes():
    rules = preset("standard")
    layout = generators.generate(rules, "uniform", 9, 1)[0]
    shooter = "rollout:skew=20,rollouts=8,width=3"
    one = play(make(shooter), layout, np.random.default_rng(4))
    two = play(make(shooter), layout, np.random.default_rng(4))
    assert [s.cell for s in one.shots] == [s.cell for s in two.shots]
    assert sum(s.outcome.name != "MISS" for s in one.shots) == rules.ship_cells
