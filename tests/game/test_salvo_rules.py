"""Salvo rules: the ``[salvo]`` table, turn sizes, and the referee's answers to a whole salvo."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import battleship as bs
from battleship.errors import IllegalShot, RulesError
from battleship.game import Game, Outcome
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks, Spacing, from_toml, preset

SHIPS = '[[ship]]\nname = "Boat"\nsymbol = "A"\nlength = 2\n'


@pytest.mark.parametrize("name", ["salvo", "salvo-count", "hits-named"])
def test_salvo_presets_round_trip_through_toml(name: str) -> None:
    rules = preset(name)
    assert rules.salvo is not None
    assert from_toml(rules.to_toml(), name) == rules
    assert rules.one_shot() == preset("standard")


def test_rules_without_salvo_are_unchanged() -> None:
    standard = preset("standard")
    assert standard.salvo is None and standard.turn_size() == 1
    assert "salvo" not in standard.to_toml() and "salvo" not in standard.as_dict()


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("shots = 0", "shots must be a whole number of at least 1"),
        ('shots = "all"', "shots must be"),
        ("shots = true", "shots must be"),
        ('answers = "every"', "answers 'every' is not one of each | ships | count"),
        ("volley = 2", "unknown key 'volley'"),
        ("shots = 99", "the board has only 16 cells"),
    ],
)
def test_bad_salvo_tables_are_refused_saying_what(table: str, said: str) -> None:
    text = f"rows = 4\ncols = 4\n[salvo]\n{table}\n{SHIPS}"
    with pytest.raises(RulesError, match=r"rules\.toml: ") as info:
        from_toml(text, "rules.toml")
    assert said in str(info.value)


def test_turn_sizes_follow_the_shooters_own_fleet() -> None:
    fleet = (Ship.line("Long", "L", 3), Ship.line("Short", "S", 2))
    afloat = Rules(5, 5, fleet, salvo=Salvo("afloat"))
    cells = Rules(5, 5, fleet, salvo=Salvo("afloat-cells", Answers.COUNT))
    assert afloat.turn_size() == 2 and afloat.turn_size(ships_afloat=1) == 1
    assert cells.turn_size() == 5 and cells.turn_size(cells_afloat=3) == 3
    assert Salvo.from_text(cells.salvo.text()) == cells.salvo  # type: ignore[union-attr]


def _truth(layout: bs.Layout, cells: tuple[int, ...], before: int) -> tuple[list[int], list[int]]:
    """Hits per ship and ships completed by a salvo, read off the layout cell by cell."""
    per_ship = [0] * len(layout.masks)
    after = before
    for cell in cells:
        for i, mask in enumerate(layout.masks):
            if mask >> cell & 1:
                per_ship[i] += 1
                after |= 1 << cell
    sunk = [i for i, m in enumerate(layout.masks) if after & m == m and before & m != m]
    return per_ship, sunk


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(list(Answers)),
    st.sampled_from(list(Sinks)),
    st.sampled_from(list(Spacing)),
    st.integers(1, 4),
    st.integers(0, 2**32),
)
def test_the_referee_answers_a_salvo_as_the_rules_say(answers, sinks, spacing, k, seed) -> None:
    fleet = (Ship.line("Long", "L", 3), Ship.line("Short", "S", 2))
    rules = Rules(5, 5, fleet, spacing, sinks, salvo=Salvo(k, answers))
    layout = bs.generate(rules, seed=seed % 1000)
    game, rnd, hit = Game(layout), random.Random(seed), 0
    while not game.over:
        free = [c for c in range(rules.cells) if not game.observation.is_shot(c)]
        size = game.turn_size()
        cells = tuple(rnd.sample(free, size))
        per_ship, sunk = _truth(layout, cells, hit)
        volley = game.fire_salvo(cells, size)
        hit |= sum(1 << c for c in cells if layout.ship_at(c) is not None)
        assert volley.cells == cells and volley.hits == sum(per_ship)
        assert volley.ship_hits == (tuple(per_ship) if answers is Answers.SHIPS else ())
        assert volley.sunk_count == (0 if sinks is Sinks.NONE else len(sunk))
        assert sorted(volley.sunk) == (sunk if sinks in (Sinks.NAMED, Sinks.REVEALED) else [])
        assert bool(volley.shots) == (answers is Answers.EACH)
        if volley.shots:
            assert [s.outcome is not Outcome.MISS for s in volley.shots] == [
                layout.ship_at(c) is not None for c in cells
            ]
    observation = game.observation
    assert (
        observation.turns == len(observation.volleys)
        and observation.shot_mask & layout.occupied == layout.occupied
    )


def test_a_salvo_of_the_wrong_size_or_with_a_cell_twice_is_refused() -> None:
    game = Game(bs.generate(preset("salvo"), seed=1))
    with pytest.raises(IllegalShot, match="this turn fires 5 shots, not 2"):
        game.fire_salvo(["A1", "A2"], game.turn_size())
    with pytest.raises(IllegalShot, match="A1 is in the salvo twice"):
        game.fire_salvo(["A1", "A1", "B1", "C1", "D1"], 5)
    game.fire_salvo(["A1", "A2", "A3", "A4", "A5"], 5)
    with pytest.raises(IllegalShot, match="A3 has been fired at already"):
        game.fire_salvo(["A3", "B2", "B3", "B4", "B5"], 5)
    with pytest.raises(IllegalShot, match=r"not a shot: .*fire_salvo"):
        Game(bs.generate(preset("salvo-count"), seed=1)).fire("A1")


def test_fire_takes_a_list_as_the_turns_salvo_and_refuses_a_short_turn() -> None:
    game = Game(bs.generate(preset("salvo"), seed=7))
    volley = game.fire(["A1", "C3", "E5", "G7", "J10"])
    assert volley.cells == (0, 22, 44, 66, 99) and game.observation.turns == 1
    assert repr(volley) == "A1 hit, C3 miss, E5 miss, G7 miss, J10 miss"
    with pytest.raises(IllegalShot, match=r"fire 5 shots a turn, not one: fire\(\['F5', \.\.\.\]\)"):
        game.fire("F5")  # one cell where the turn is five: said, not taken as a whole turn
    with pytest.raises(IllegalShot, match=r"this turn fires 5 shots, not 2: fire_salvo"):
        game.fire(("F5", "F6"))
    assert game.observation.turns == 1  # nothing refused was taken
    game.fire_salvo(["F5"])  # a salvo of one, on purpose
    assert game.observation.turns == 2
    with pytest.raises(IllegalShot, match="fire_salvo"):
        Game(bs.generate(preset("salvo-count"), seed=7)).fire("A1")
    one = Game(bs.generate(preset("standard"), seed=7))
    with pytest.raises(IllegalShot, match="one shot a turn, not a salvo of 2"):
        one.fire(["A1", "A2"])
    assert repr(one.fire((4, 4))) == "E5 miss"  # a (row, col) pair is one cell, not a salvo


def test_salvos_answered_whole_say_their_cells_and_hits() -> None:
    game = Game(bs.generate(preset("salvo-count"), seed=7))
    volley = game.fire(["A1", "A2", "E5", "G7", "J10"])
    assert repr(volley) == "A1 A2 E5 G7 J10: 2 hits, 1 sunk"
