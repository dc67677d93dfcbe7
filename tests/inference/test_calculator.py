"""The calculator's one policy: a count given a time that runs out is estimated in the time left, saying so."""

from __future__ import annotations

import importlib
import time

import pytest

import battleship as bs
from battleship.inference import calculator
from battleship.stop import OutOfTime, Stop


def _count_that_runs_out(monkeypatch):
    """Every count waits for its stop and so runs out of time (as a count the forecast misjudged would);
    the stops it was given are kept."""
    given: list[Stop] = []

    def runs_out(rules, observation, prior=None, stop=None, **_):
        given.append(stop)
        while not stop.requested:
            time.sleep(0.005)
        stop.check()

    # the module (the package's own ``posterior`` is the function it exports)
    monkeypatch.setattr(importlib.import_module("battleship.inference.posterior"), "posterior", runs_out)
    return given


def _board():
    game = bs.Game(bs.generate("standard", seed=5))
    for cell in ("A1", "B2", "C3", "D4", "E5", "F6"):
        game.fire(cell)
    return game.observation


def test_a_count_out_of_its_share_of_the_time_is_estimated_in_the_rest_saying_so(monkeypatch):
    given = _count_that_runs_out(monkeypatch)
    whole = Stop(600)  # generous: a busy machine
    answer = calculator.calculate(_board(), seconds=4.0, stop=whole)  # the estimate gets about 0.6 s
    assert not answer.exact and answer.engine == "sampling" and answer.samples > 0
    assert answer.why == f"the exact count did not finish within {calculator.COUNT_SHARE * 4.0:.3g} s"
    assert abs(float(answer.probability.sum()) - 17) < 1e-6  # every sample holds the fleet's 17 squares
    assert given[0].deadline < whole.deadline and not whole.flag[0]  # the count's deadline was its own


def test_a_count_asked_for_exactly_is_never_cut_short_by_a_time(monkeypatch):
    given = _count_that_runs_out(monkeypatch)
    whole = Stop(0.05)
    with pytest.raises(OutOfTime):  # the whole answer's own deadline: no estimate after it
        calculator.calculate(_board(), method="exact", seconds=2.0, stop=whole)
    assert given[0] is whole


def test_a_count_out_of_time_with_too_little_left_to_estimate_is_out_of_time(monkeypatch):
    _count_that_runs_out(monkeypatch)
    with pytest.raises(OutOfTime, match=r"too little of the 0\.1 s was left"):
        calculator.calculate(_board(), seconds=0.1)
