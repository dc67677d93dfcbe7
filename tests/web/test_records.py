"""How the pages see a game: a sunk ship's cells, shown only when the answers pin them down (and then right),
and the calculator reading a named sunk ship marked on all its cells."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.game import Game, Observation, Outcome, Shot
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.web.records import known_ships
from battleship.web.service import whole_ships
from tests.helpers import small_rules


def cells(*names: str, cols: int = 10) -> int:
    return sum(1 << ((ord(n[0]) - 65) * cols + int(n[1:]) - 1) for n in names)


def test_a_named_sinking_on_a_lone_run_of_hits_shows_the_whole_ship():
    rules = preset("standard")
    shots = (Shot(0, Outcome.HIT), Shot(1, Outcome.SUNK, ship=4))  # A1 hit, A2 sinks the Patrol Boat
    assert known_ships(rules, shots) == {1: cells("A1", "A2")}


def test_a_sinking_the_hits_leave_open_is_not_drawn_whole():
    rules = preset("standard")
    shots = (
        Shot(0, Outcome.HIT),
        Shot(2, Outcome.HIT),
        Shot(1, Outcome.SUNK, ship=4),
    )  # A1 A3 hit, A2 sinks P
    assert known_ships(rules, shots) == {}  # P was A1-A2 or A2-A3


def test_one_known_ship_can_settle_another():
    rules = preset("standard")
    shots = (
        Shot(0, Outcome.HIT),  # A1
        Shot(2, Outcome.HIT),  # A3
        Shot(3, Outcome.HIT),  # A4
        Shot(1, Outcome.SUNK, ship=2),  # A2 sinks the Destroyer: A1-A3 or A2-A4, so far
        Shot(4, Outcome.SUNK, ship=4),  # A5 sinks the Patrol Boat: A4-A5, so the Destroyer was A1-A3
    )
    assert known_ships(rules, shots) == {3: cells("A1", "A2", "A3"), 4: cells("A4", "A5")}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_ship_drawn_whole_is_the_ship_that_sank(data):
    """Soundness: on random games of random rules, a sunk ship's cells, when shown, are the true ones."""
    rules = data.draw(small_rules(max_side=6, max_ships=4))
    seed = data.draw(st.integers(0, 2**32))
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    game = Game(layout)
    order = np.random.default_rng(seed).permutation(rules.cells)
    for cell in order:
        if game.over:
            break
        game.fire(int(cell))
    shots = game.observation.shots
    for i, mask in known_ships(rules, shots).items():
        sank = next(k for k, m in enumerate(layout.masks) if m >> shots[i].cell & 1)
        assert mask == layout.masks[sank], (rules, i)


def test_anonymous_twins_are_drawn_whatever_twin_it_was():
    twins = Rules(6, 6, (Ship.line("Boat 1", "A", 2), Ship.line("Boat 2", "B", 2)), Spacing.TOUCH, Sinks.SUNK)
    shots = (Shot(0, Outcome.HIT), Shot(1, Outcome.SUNK))
    assert known_ships(twins, shots) == {1: 0b11}


def test_the_calculator_reads_a_named_ship_marked_on_all_its_cells():
    rules = preset("standard")
    open_rows = "/".join(["." * 10] * 9)
    text, note = whole_ships("PP......../" + open_rows, rules)
    assert text in ("xP......../" + open_rows, "Px......../" + open_rows) and note is None
    marked = Observation.from_text(text, rules)
    assert any(s.outcome is Outcome.SUNK and s.ship == 4 for s in marked.shots)
    # on a longer run of hits the marks cannot say which two were the Patrol Boat: a note says so
    text, note = whole_ships("xPPx....../" + open_rows, rules)
    assert text.count("P") == 1 and "more than one way" in note
    # marks that are not one placement are left for the reader to refuse, saying where
    assert whole_ships("P.P......./" + open_rows, rules) == ("P.P......./" + open_rows, None)
