import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.errors import IllegalShot
from battleship.game import Game, Observation, Outcome, Shooter, play
from battleship.layout import Layout
from battleship.notation import parse_layout
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from tests.helpers import small_rules

LINE = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."


def _with_sinks(sinks: Sinks) -> Rules:
    base = preset("standard")
    return Rules(base.rows, base.cols, base.fleet, Spacing.TOUCH, sinks)


@pytest.mark.parametrize("sinks", list(Sinks))
def test_answers_follow_the_sink_rule(sinks):
    layout = parse_layout(LINE, _with_sinks(sinks))
    game = Game(layout)
    assert game.fire(10).outcome is Outcome.MISS
    assert game.fire(80).outcome is Outcome.HIT
    last = game.fire(81)
    expected = {
        Sinks.NONE: (Outcome.HIT, None, 0),
        Sinks.SUNK: (Outcome.SUNK, None, 0),
        Sinks.NAMED: (Outcome.SUNK, 4, 0),
        Sinks.REVEALED: (Outcome.SUNK, 4, (1 << 80) | (1 << 81)),
    }[sinks]
    assert (last.outcome, last.ship, last.cells) == expected


def test_refuses_repeats_off_board_and_shots_after_the_end():
    game = Game(parse_layout(LINE, preset("standard")))
    game.fire(0)
    with pytest.raises(IllegalShot, match="A1 has been fired at already"):
        game.fire(0)
    with pytest.raises(IllegalShot, match="off the 10x10 board"):
        game.fire(100)
    with pytest.raises(IllegalShot, match="off the 10x10 board"):
        game.fire(-1)
    for cell in range(100):
        if not game.over and not game.observation.is_shot(cell):
            game.fire(cell)
    assert game.over
    with pytest.raises(IllegalShot, match="game is over"):
        game.fire(99)


def _reachable(obj, seen=None):
    """Every object reachable from ``obj`` through attributes and containers."""
    seen = {} if seen is None else seen
    if id(obj) in seen or isinstance(obj, str | int | float | bool | type(None)):
        return seen
    seen[id(obj)] = obj
    children = []
    if isinstance(obj, dict):
        children = list(obj.keys()) + list(obj.values())
    elif isinstance(obj, list | tuple | set | frozenset):
        children = list(obj)
    elif hasattr(obj, "__dict__"):
        children = list(vars(obj).values())
    for child in children:
        _reachable(child, seen)
    return seen


class Spy:
    """A shooter that records what it is given and tries to find the hidden layout."""

    name = "spy"

    def reset(self, rules, rng):
        self.seen = []
        self.rng = rng

    def next_shot(self, observation):
        self.seen.append(observation)
        return int(self.rng.choice([c for c in range(observation.rules.cells) if not observation.is_shot(c)]))


def test_a_shooter_cannot_reach_the_hidden_layout():
    layout = generators.generate(preset("standard"), "uniform", 3, 1)[0]
    spy = Spy()
    assert isinstance(spy, Shooter)
    play(spy, layout, np.random.default_rng(0))
    assert all(type(o) is Observation for o in spy.seen)
    for observation in spy.seen[-1:]:
        found = _reachable(observation).values()
        assert not any(isinstance(x, Layout | Game) for x in found)


@settings(max_examples=40, deadline=None)
@given(small_rules(), st.integers(0, 2**32))
def test_random_games_end_with_every_ship_cell_hit(rules, seed):
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    record = play(make("random"), layout, np.random.default_rng(seed))
    obs = record.observation
    assert obs.hit_mask == layout.occupied
    assert len(record.shots) == obs.shot_mask.bit_count() <= rules.cells
    sinks = [s for s in record.shots if s.outcome is Outcome.SUNK]
    assert len(sinks) == (0 if rules.sinks is Sinks.NONE else len(rules.fleet))
    if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        assert sorted(s.ship for s in sinks) == list(range(len(rules.fleet)))
        for s in sinks:  # the sinking shot completes its ship: all its other cells were hit before
            assert s.cell in [c for c in range(rules.cells) if layout.masks[s.ship] >> c & 1]


def test_same_seed_same_game():
    layout = generators.generate(preset("standard"), "uniform", 9, 1)[0]
    a = play(make("random"), layout, np.random.default_rng(4))
    b = play(make("random"), layout, np.random.default_rng(4))
    assert a == b


def test_tetromino_fleet_plays():
    rules = Rules(
        6, 6, (Ship("T", "T", ((0, 0), (0, 1), (0, 2), (1, 1))), Ship.line("I", "I", 3)), reflections=True
    )
    layout = generators.generate(rules, "uniform", 1, 1)[0]
    record = play(make("random"), layout, np.random.default_rng(1))
    assert record.observation.hit_mask == layout.occupied
