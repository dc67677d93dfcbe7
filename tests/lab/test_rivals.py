"""Best is best, on small game counts: no registered shooter beats ``best`` by a significant paired margin."""

from __future__ import annotations

import pytest

from battleship.lab.rivals import custom_rules, rivals
from battleship.rules import preset


@pytest.mark.slow
@pytest.mark.parametrize(
    # pirates is left to benchmarks/strength.py: exact play costs seconds a game there
    "name",
    ["standard", "seabattle", "square-6", "standard-sunk", "tee-8x8", "no-edge-9x9"],
)
def test_no_registered_shooter_beats_best(name):
    rules = custom_rules()[name] if name in custom_rules() else preset(name)
    best, played, left_out = rivals(rules, games=400, slow_games=2, seed=61)
    assert played, left_out
    assert all(r.shooter != best for r in played)
    ahead = [(r.shooter, r.difference, r.interval) for r in played if r.beats_best]
    assert not ahead, f"{name}: best is {best}, but {ahead} beat it"
    assert "learning" in left_out  # said why, not silently dropped
