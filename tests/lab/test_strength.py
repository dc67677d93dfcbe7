"""What ``best`` plays on each rule set is the choice docs/research measured ahead there.

The gains themselves (each kept choice against what it beat, on paired runs of thousands of games)
are measurements, replayed by benchmarks/gains.py (a minute or more of a core each); the full figures
are re-measured by benchmarks/strategies.py. These checks are what the measurements decided.
"""

from battleship.lab.rivals import custom_rules
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters.best import best_for
from battleship.shooters.options import Options


def test_best_plays_the_skew_and_its_lattice_on_standard_rules():
    # docs: density:skew=20 minus density -0.274 (-0.383 .. -0.165), 20,000 games
    assert best_for(preset("standard")) == "density:skew=20,lattice=1,lastship=8,book=1"


def test_best_plays_the_skews_lattice_only_where_it_was_measured_ahead():
    # docs: the lattice ahead on 10x10 to 15x15 boards, level or behind on 6x6 to 9x9
    for side, lattice in ((6, False), (9, False), (10, True), (12, True), (15, True)):
        assert ("lattice=1" in best_for(preset(f"square-{side}"))) is lattice
    assert best_for(preset("square-12")) == "density:skew=20,lattice=1"  # the look-ahead: 10x10 only
    no_boat = Rules(10, 10, tuple(Ship.line(f"Ship {n}", "ABC"[i], n) for i, n in enumerate((5, 4, 3))))
    assert best_for(no_boat) == "density:skew=20"  # smallest ship of three cells: not measured


def test_best_plays_exactly_where_sinkings_are_anonymous():
    # docs: optimal minus density:skew=20 about -10 shots with anonymous sinks
    assert best_for(custom_rules()["standard-sunk"]) == "optimal"


def test_best_plays_trial_sink_under_a_margin():
    # docs: trial-sink:skew=20 minus density:skew=20 under pirates' margin -2.320 (-2.449 .. -2.192)
    assert best_for(preset("pirates"), Options(fast=1)) == "trial-sink:skew=20"  # best's kernel there
    assert best_for(custom_rules()["no-edge-9x9"]) == "trial-sink:skew=20"


def test_best_plays_the_rest_of_game_on_small_boards():
    # docs, the limit table: the rest of game played on by itself within 0.09 of the optimum
    tiny = Rules(3, 3, (Ship.line("Two", "T", 2), Ship.line("Boat", "B", 2)), Spacing.NO_CONTACT, Sinks.NONE)
    assert best_for(tiny) == "twoply:endgame=5000,plies=1,second=500"
    assert best_for(tiny, Options(fast=1)) == "optimal"  # a kernel for lab runs
