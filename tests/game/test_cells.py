"""Cells named any usual way: "E5", "e5", (row, col) and the index, one reader for all, bad ones refused in a line."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import battleship as bs
from battleship.cells import cell_name, parse_cell, row_name, to_cell
from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Game, Observation
from battleship.layout import Layout
from battleship.rules import Rules, Ship, preset

LINE = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."


@st.composite
def board_and_cell(draw):
    rows = draw(st.integers(1, 40))
    cols = draw(st.integers(1, 40))
    return rows, cols, draw(st.integers(0, rows * cols - 1))


@settings(max_examples=300, deadline=None)
@given(board_and_cell())
def test_every_form_of_a_cell_reads_back_to_its_index(case):
    rows, cols, cell = case
    row, col = divmod(cell, cols)
    name = f"{row_name(row)}{col + 1}"
    assert cell_name(cell, cols) == name
    for form in (cell, np.int64(cell), np.int32(cell), name, name.lower(), f" {name} ", (row, col)):
        assert to_cell(form, rows, cols) == cell, form
    assert parse_cell(name, rows, cols) == cell


@settings(max_examples=200, deadline=None)
@given(board_and_cell(), st.integers(-5, 5), st.integers(-5, 5))
def test_a_cell_off_the_board_is_refused_naming_what_is_allowed(case, dr, dc):
    rows, cols, _ = case
    row, col = rows - 1 + max(dr, 1), cols - 1 + max(dc, 1)  # just past the bottom-right corner
    for form in ((row, col), (row, 0), (0, col), (-1, 0), rows * cols, -1):
        with pytest.raises(BattleshipError) as caught:
            to_cell(form, rows, cols)
        message = str(caught.value)
        assert "\n" not in message and repr(form) in message
        assert f"off the {rows}x{cols} board" in message and f"0..{rows * cols - 1}" in message


def test_the_rules_stand_for_the_board_size():
    rules = preset("standard")
    assert bs.parse_cell("E5", rules) == bs.parse_cell("E5", 10, 10) == 44
    assert bs.cell_name(44, rules) == bs.cell_name(44, 10) == "E5"
    assert bs.cell_name("e5", rules) == bs.cell_name((4, 4), rules) == "E5"
    assert bs.to_cell("J10", rules) == 99


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (True, "is a bool, not a cell"),
        (False, "is a bool, not a cell"),
        (np.bool_(True), "is not a cell"),
        (4.0, "is not a cell"),
        (None, "is not a cell"),
        ((1,), "is not a cell"),
        ((1, 2, 3), "is not a cell"),
        ((True, 1), "is not a cell"),
        ((1.5, 2), "is not a cell"),
        ("Z9", "'Z9' is off the 10x10 board"),
        ("K1", "'K1' is off the 10x10 board"),
        ("E11", "'E11' is off the 10x10 board"),
        ("E0", "is not a cell name"),
        ("5E", "is not a cell name"),
        ("", "is not a cell name"),
        (100, "100 is off the 10x10 board"),
        ((10, 0), "(10, 0) is off the 10x10 board"),
    ],
)
def test_a_bad_cell_gets_one_line_naming_it_and_what_is_allowed(value, words):
    with pytest.raises(BattleshipError) as caught:
        to_cell(value, preset("standard"))
    message = str(caught.value)
    assert words in message and "\n" not in message
    assert "use A1..J10, (row, col) with 0 <= row < 10 and 0 <= col < 10, or 0..99" in message


def test_parse_cell_stays_strict_for_files_and_bots():
    with pytest.raises(BattleshipError, match="not a cell name"):
        parse_cell(" E5", 10, 10)
    with pytest.raises(BattleshipError, match="not a cell name"):
        parse_cell(44, preset("standard"))  # type: ignore[arg-type]
    with pytest.raises(BattleshipError, match=r"rows A..J, columns 1..10"):
        parse_cell("K1", preset("standard"))


@pytest.mark.parametrize("target", ["E5", "e5", (4, 4), 44, np.int64(44)])
def test_game_fire_takes_every_form(target):
    game = Game(bs.Layout.from_text(LINE, preset("standard")))
    shot = game.fire(target)
    assert shot.cell == 44
    assert game.observation.is_shot("E5") and game.observation.is_shot((4, 4))
    assert game.observation.answer("e5") == shot and game.observation.answer("A1") is None
    with pytest.raises(IllegalShot, match="E5 has been fired at already"):
        game.fire("e5")


@pytest.mark.parametrize("target", [True, False, 1.0, "Z9", (0, 10), "A 1"])
def test_game_fire_refuses_what_is_not_a_cell_as_an_illegal_shot(target):
    game = Game(bs.Layout.from_text(LINE, preset("standard")))
    with pytest.raises(IllegalShot) as caught:
        game.fire(target)
    assert "\n" not in str(caught.value) and repr(target) in str(caught.value)
    assert game.observation.shots == ()


def test_layout_ship_at_takes_every_form():
    layout = bs.Layout.from_text(LINE, preset("standard"))
    assert layout.ship_at("A1") == layout.ship_at((0, 0)) == layout.ship_at(0) == 0
    assert layout.ship_at("j10") is None
    with pytest.raises(BattleshipError, match="is a bool"):
        layout.ship_at(True)


def test_a_game_takes_a_layout_and_says_how_to_get_one():
    rules = preset("standard")
    with pytest.raises(BattleshipError, match=r"not Rules: Game\(bs.generate\(rules, seed=7\)\)"):
        Game(rules)
    with pytest.raises(BattleshipError, match="not str"):
        Game(LINE)


def test_cells_on_a_tall_board_use_two_row_letters():
    rules = Rules(30, 2, (Ship.line("Destroyer", "D", 2),))
    assert bs.cell_name((27, 1), rules) == "AB2"
    assert bs.to_cell("ab2", rules) == 27 * 2 + 1
    layout = Layout(rules, (rules.placements[0][-1],))
    assert Observation(rules).is_shot("AD2") is False
    assert layout.ship_at("AD2") == 0
