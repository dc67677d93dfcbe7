"""Density's two-step look-ahead (``twostep=W``): the compiled value against a brute-force reference in
exact fractions, the cell it picks, and its option's validation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.shooters.density import observed_status, two_step_value
from battleship.shooters.options import SPACING_CODES, Options, parse_spec
from battleship.tables import geometry, tables
from tests.helpers import small_rules

UNKNOWN, MISS, HIT, SUNK, WATER = 0, 1, 2, 3, 4
WEIGHT = 20


def _cells(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


def _neighbours(rules: Rules, cell: int, diagonal_only: bool, edges_only: bool) -> list[int]:
    r, c = divmod(cell, rules.cols)
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            diagonal = dr != 0 and dc != 0
            if (dr, dc) == (0, 0) or (diagonal_only and not diagonal) or (edges_only and diagonal):
                continue
            if 0 <= r + dr < rules.rows and 0 <= c + dc < rules.cols:
                out.append((r + dr) * rules.cols + c + dc)
    return out


def _margin(rules: Rules, board: list[int]) -> None:
    """Unknown cells the spacing rule makes water: all round a sunk ship's cell (its edges under
    no-edge), and on a hit's diagonals under no-contact (every ship is straight here)."""
    if rules.spacing is Spacing.TOUCH:
        return
    contact = rules.spacing is Spacing.NO_CONTACT
    for cell, state in enumerate(list(board)):
        if state == SUNK:
            around = _neighbours(rules, cell, False, not contact)
        elif state == HIT and contact:
            around = _neighbours(rules, cell, True, False)
        else:
            continue
        for nb in around:
            if board[nb] == UNKNOWN:
                board[nb] = WATER


def _all_hit_through(rules: Rules, board: list[int], ship: int, cell: int) -> list[int]:
    return [m for m in rules.placements[ship] if m >> cell & 1 and all(board[c] == HIT for c in _cells(m))]


def _board(rules: Rules, observation: Observation) -> tuple[list[int], list[bool]]:
    """What the shots tell cell by cell, and which ships are afloat, read as the rules say."""
    board, afloat = [UNKNOWN] * rules.cells, [True] * len(rules.fleet)
    for shot in observation.shots:
        board[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
        if shot.outcome is not Outcome.SUNK:
            continue
        if rules.sinks is Sinks.SUNK:  # anonymous: the run of hits, when every candidate agrees
            found = [
                (s, m)
                for s in range(len(afloat))
                if afloat[s]
                for m in _all_hit_through(rules, board, s, shot.cell)
            ]
            if found and all(m == found[0][1] for _, m in found):
                afloat[found[0][0]] = False
                for c in _cells(found[0][1]):
                    board[c] = SUNK
        elif shot.ship is not None:
            afloat[shot.ship] = False
            shown = shot.cells if rules.sinks is Sinks.REVEALED else 0
            if not shown:
                only = _all_hit_through(rules, board, shot.ship, shot.cell)
                shown = only[0] if len(only) == 1 else 0
            for c in _cells(shown):
                board[c] = SUNK
    _margin(rules, board)
    return board, afloat


def _weight(board: list[int], mask: int) -> int:
    """WEIGHT per hit the placement passes through; 0 when it crosses a miss, water or a sunk ship."""
    states = [board[c] for c in _cells(mask)]
    return 0 if any(s not in (UNKNOWN, HIT) for s in states) else WEIGHT ** states.count(HIT)


def _chances(rules: Rules, board: list[int], afloat: list[bool]) -> list[list[Fraction]]:
    out = []
    for s, masks in enumerate(rules.placements):
        chance = [Fraction(0)] * rules.cells
        total = sum(_weight(board, m) for m in masks) if afloat[s] else 0
        for m in masks if total else ():
            for c in _cells(m):
                if board[c] == UNKNOWN:
                    chance[c] += Fraction(_weight(board, m), total)
        out.append(chance)
    return out


def _hit(chances: list[list[Fraction]], afloat: list[bool], cell: int) -> Fraction:
    miss = Fraction(1)
    for s, chance in enumerate(chances):
        if afloat[s]:
            miss *= 1 - chance[cell]
    return 1 - miss


def _best(rules: Rules, board: list[int], afloat: list[bool]) -> Fraction:
    chances = _chances(rules, board, afloat)
    return max(
        (_hit(chances, afloat, c) for c in range(rules.cells) if board[c] == UNKNOWN), default=Fraction(0)
    )


def _after(rules, board, afloat, cell, state, sunk_ship=-1, shown=0):
    board, afloat = list(board), list(afloat)
    board[cell] = state
    if sunk_ship >= 0:
        afloat[sunk_ship] = False
        if not shown:
            only = _all_hit_through(rules, board, sunk_ship, cell)
            shown = only[0] if len(only) == 1 else 0
        for c in _cells(shown):
            board[c] = SUNK
    _margin(rules, board)
    return _best(rules, board, afloat)


def reference_value(rules: Rules, board: list[int], afloat: list[bool], cell: int) -> Fraction:
    """P(hit) plus, over the answers, P(answer) x the best hit chance after it (see two_step_value)."""
    chances = _chances(rules, board, afloat)
    hit = _hit(chances, afloat, cell)
    value = hit + (1 - hit) * _after(rules, board, afloat, cell, MISS) if hit < 1 else hit
    share = sum(chances[s][cell] for s in range(len(afloat)) if afloat[s])
    plain = Fraction(0)
    for s in range(len(afloat)):
        if not afloat[s] or chances[s][cell] == 0:
            continue
        answered = hit * chances[s][cell] / share
        through = [m for m in rules.placements[s] if m >> cell & 1 and _weight(board, m)]
        weights = sum(_weight(board, m) for m in through)
        sinking = [m for m in through if all(board[c] == HIT for c in _cells(m) if c != cell)]
        sunk = Fraction(sum(_weight(board, m) for m in sinking), weights)
        if rules.sinks is Sinks.REVEALED:
            for m in sinking:
                value += (
                    answered
                    * Fraction(_weight(board, m), weights)
                    * _after(rules, board, afloat, cell, HIT, s, m)
                )
        if rules.sinks is Sinks.NAMED and sunk:
            value += answered * sunk * _after(rules, board, afloat, cell, HIT, s)
        plain += answered * (1 - sunk) if rules.sinks in (Sinks.NAMED, Sinks.REVEALED) else answered
    if plain:
        value += plain * _after(rules, board, afloat, cell, HIT)
    return value


def _position(rules: Rules, data: st.DataObject) -> Observation:
    """A position from a real game: a uniform layout and a few shots the referee answered."""
    seed = data.draw(st.integers(0, 2**32 - 1))
    game = Game(generators.generate(rules, "uniform", seed, 1)[0])
    for cell in data.draw(st.lists(st.integers(0, rules.cells - 1), unique=True, max_size=rules.cells - 1)):
        if game.over:
            break
        game.fire(cell)
    assume(not game.over)
    return game.observation


def _kernel_args(rules: Rules) -> tuple:
    t = tables(rules)
    straight = all(ship.is_straight for ship in rules.fleet)
    return geometry(t), (SPACING_CODES[rules.spacing], straight, rules.rows, rules.cols)


@settings(max_examples=40, deadline=None)
@given(small_rules(max_side=5, max_ships=2), st.data())
def test_the_kernels_value_is_the_brute_force_one_on_every_open_cell(rules, data):
    observation = _position(rules, data)
    board, afloat = _board(rules, observation)
    status, kernel_afloat = observed_status(rules, observation)
    assert list(status) == board and list(kernel_afloat) == afloat  # the same board read independently
    g, margin = _kernel_args(rules)
    params = Options(twostep=3).vector(rules)
    for cell in (c for c in range(rules.cells) if board[c] == UNKNOWN):
        expected = reference_value(rules, board, afloat, cell)
        assert two_step_value(cell, status, kernel_afloat, params, g, margin) == pytest.approx(
            float(expected), abs=1e-9
        )


@pytest.mark.parametrize("sinks", list(Sinks))
def test_a_sinking_shot_that_two_runs_of_hits_could_complete(sinks):
    """Hits either side of the centre of the top row: a shot there sinks a two-cell ship lying left or
    right of it, which a shown sinking tells apart and a named one does not."""
    fleet = (Ship.line("Ship A", "A", 2), Ship.line("Ship B", "B", 2))
    rules = Rules(3, 3, fleet, Spacing.TOUCH, sinks)
    game = Game(Layout(rules, (0b11, 1 << 2 | 1 << 5)))
    game.fire(0)
    game.fire(2)
    board, afloat = _board(rules, game.observation)
    status, kernel_afloat = observed_status(rules, game.observation)
    g, margin = _kernel_args(rules)
    params = Options(twostep=3).vector(rules)
    for cell in (c for c in range(rules.cells) if board[c] == UNKNOWN):
        expected = float(reference_value(rules, board, afloat, cell))
        assert two_step_value(cell, status, kernel_afloat, params, g, margin) == pytest.approx(
            expected, abs=1e-9
        )


@settings(max_examples=30, deadline=None)
@given(small_rules(max_side=5, max_ships=2), st.integers(1, 4), st.data())
def test_while_hunting_it_fires_at_the_best_valued_of_densitys_first_cells(rules, width, data):
    observation = _position(rules, data)
    board, afloat = _board(rules, observation)
    assume(HIT not in board)  # it looks ahead while hunting only
    counts = [0] * rules.cells  # density's count (no hit: every fitting placement weighs 1)
    for s, masks in enumerate(rules.placements):
        for m in masks if afloat[s] else ():
            if _weight(board, m):
                for c in _cells(m):
                    counts[c] += 1
    order = sorted((c for c in range(rules.cells) if board[c] == UNKNOWN), key=lambda c: -counts[c])
    values = [reference_value(rules, board, afloat, c) for c in order[:width]]
    top = max(values)
    assume(all(v == top or abs(v - top) > 1e-9 for v in values))  # no float-level near-tie
    shooter = make("density", Options(twostep=width))
    shooter.reset(rules, np.random.default_rng(0))
    assert shooter.next_shot(observation) == order[values.index(top)]


@settings(max_examples=15, deadline=None)
@given(small_rules(max_side=5, max_ships=2), st.data())
def test_one_candidate_is_density_itself(rules, data):
    observation = _position(rules, data)
    plain, one = make("density"), make("density", Options(twostep=1))
    plain.reset(rules, np.random.default_rng(0))
    one.reset(rules, np.random.default_rng(0))
    assert one.next_shot(observation) == plain.next_shot(observation)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("density:twostep=-1", r"twostep is a number of candidate cells from 0 to 100, not -1"),
        ("density:twostep=101", r"twostep is a number of candidate cells from 0 to 100, not 101"),
        ("density:twostep=two", r"twostep must be an integer, not 'two'"),
    ],
)
def test_a_bad_width_is_refused_in_one_line(spec, message):
    with pytest.raises(BattleshipError, match=message) as error:
        parse_spec(spec)
    assert "\n" not in str(error.value)


def test_shooters_that_do_not_look_ahead_refuse_it():
    with pytest.raises(BattleshipError, match=r"superposition does not read twostep"):
        make("superposition:twostep=3")


def test_salvo_rules_refuse_it_in_one_line():
    with pytest.raises(BattleshipError, match=r"^density: twostep=3 looks ahead one shot a turn"):
        make("density:twostep=3").reset(preset("salvo"), np.random.default_rng(0))
    make("density:twostep=3").reset(preset("standard"), np.random.default_rng(0))
