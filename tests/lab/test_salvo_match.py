"""Matches under salvo rules: each side fires what its own fleet gives it, alternating or at once."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.lab.match import WON, Side, play_match, play_salvo_game
from battleship.layout import Layout
from battleship.rng import game_rng, kernel_state, shuffled
from battleship.rules import Answers, Rules, Salvo, Ship
from battleship.shooters.options import Options
from battleship.shooters.random import RandomShooter

runner = CliRunner()
BOATS = (Ship.line("Boat", "A", 1), Ship.line("Dinghy", "B", 1))


class LeftToRight:
    """Fires at the first cell not yet fired at, reading order: a shooter one can follow by hand."""

    name = "left-to-right"

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        self.cells = rules.cells

    def next_shot(self, observation: Observation) -> int:
        return next(c for c in range(self.cells) if not observation.is_shot(c))


def row_of(rules: Rules, *cells: tuple[int, ...]) -> Layout:
    """A fleet of one-cell boats on these cells (boat i on cells[i])."""
    return Layout(rules, tuple(1 << c for (c,) in cells))


def by_hand(rules: Rules, a_cells, b_cells, turns: str, a_first: bool = True) -> tuple[int, ...]:
    shooters = (LeftToRight(), LeftToRight())
    hidden = (row_of(rules, *a_cells), row_of(rules, *b_cells))
    rngs = (np.random.default_rng(0), np.random.default_rng(1))
    return play_salvo_game(shooters, hidden, rngs, a_first, turns)


def test_a_game_on_a_row_of_six_follows_the_hand_count() -> None:
    """A hides boats on A1 and A6, B on A3 and A4; both fire left to right, one shot per boat afloat.

    Alternating, A first: A fires A1 A2 (misses); B fires A1 A2 and sinks A's boat on A1, so A has one
    shot left; A fires A3 (sinks one); B, one boat left, fires A3 (miss); A fires A4 and wins: A took
    3 turns and 4 shots, B 2 turns and 3 shots. At once: turn 1 as before; turn 2 A fires A3 (a
    sinking) while B, whose fleet was whole when the turn began, fires two, A3 A4, missing; turn 3
    A fires A4 and wins while B fires A5: 3 turns each, A 4 shots, B 5.
    """
    rules = Rules(1, 6, BOATS, salvo=Salvo("afloat"))
    a, b = ((0,), (5,)), ((2,), (3,))
    assert by_hand(rules, a, b, "alternate") == (3, 2, 4, 3, WON["a"])
    assert by_hand(rules, a, b, "simultaneous") == (3, 3, 4, 5, WON["a"])
    # B moving first: B fires A1 A2 (A's boat on A1 sunk), A one shot A1 (miss), B A3 A4, A A2, B A5 A6 wins
    assert by_hand(rules, a, b, "alternate", a_first=False) == (2, 3, 2, 6, WON["b"])


def test_both_fleets_sinking_in_one_turn_is_a_tie_only_when_both_fire_at_once() -> None:
    rules = Rules(1, 4, BOATS, salvo=Salvo("afloat", Answers.COUNT))
    same = ((0,), (1,))
    assert by_hand(rules, same, same, "simultaneous") == (1, 1, 2, 2, WON["tie"])
    assert by_hand(rules, same, same, "alternate") == (1, 0, 2, 0, WON["a"])
    assert by_hand(rules, same, same, "alternate", a_first=False) == (0, 1, 0, 2, WON["b"])


def test_afloat_cells_counts_unhit_squares() -> None:
    """One boat of three squares each, on a 1x8 row: one shot per unhit square of one's own boat."""
    rules = Rules(1, 8, (Ship.line("Cruiser", "C", 3),), salvo=Salvo("afloat-cells"))
    shooters = (LeftToRight(), LeftToRight())
    # A hides C on A1-A3, B on A6-A8. A fires A1-A3 (misses); B fires A1-A3 and sinks A at once.
    hidden = (Layout(rules, (0b111,)), Layout(rules, (0b11100000,)))
    rngs = (np.random.default_rng(0), np.random.default_rng(1))
    assert play_salvo_game(shooters, hidden, rngs, True, "alternate") == (1, 1, 3, 3, WON["b"])
    # B hides C on A2-A4: A's first salvo A1-A3 hits two squares, so B's salvo shrinks to one (A1, a
    # hit); A, two squares unhit, fires two (A4 sinks B, A5)
    hidden = (Layout(rules, (0b111,)), Layout(rules, (0b1110,)))
    row = play_salvo_game(shooters, hidden, rngs, True, "alternate")
    assert row == (2, 1, 5, 1, WON["a"])


def reference(rules: Rules, hidden: tuple[Layout, Layout], orders, a_first: bool, turns: str):
    """The match by sets: each side fires the next cells of its (answer-blind) order, as many as the
    rules give its own fleet at the start of its turn."""
    ships = [[set(_cells(m)) for m in layout.masks] for layout in hidden]  # A's fleet, B's fleet
    fired: list[list[int]] = [[], []]  # cells side i fired (at the other's fleet)

    def size(side: int) -> int:
        mine, hits = ships[side], set(fired[1 - side])
        afloat = sum(not ship <= hits for ship in mine)
        unhit = sum(len(ship - hits) for ship in mine)
        return min(rules.turn_size(afloat, unhit), rules.cells - len(fired[side]))

    def sunk(side: int) -> bool:  # has side's fleet been sunk?
        return all(ship <= set(fired[1 - side]) for ship in ships[side])

    def fire(side: int, k: int) -> None:
        fired[side] += [c for c in orders[side] if c not in fired[side]][:k]

    salvos = [0, 0]
    while True:
        if turns == "simultaneous":
            ka, kb = size(0), size(1)
            fire(0, ka)
            fire(1, kb)
            salvos = [salvos[0] + 1, salvos[1] + 1]
            if sunk(0) or sunk(1):
                winner = WON["tie"] if sunk(0) and sunk(1) else WON["a"] if sunk(1) else WON["b"]
                return (*salvos, len(fired[0]), len(fired[1]), winner)
            continue
        for side in (0, 1) if a_first else (1, 0):
            fire(side, size(side))
            salvos[side] += 1
            if sunk(1 - side):
                return (*salvos, len(fired[0]), len(fired[1]), WON["a"] if side == 0 else WON["b"])


def _cells(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 5),
    st.sampled_from(["afloat", "afloat-cells", 1, 2, 3]),
    st.sampled_from(list(Answers)),
    st.sampled_from(["alternate", "simultaneous"]),
    st.booleans(),
    st.integers(0, 2**20),
)
def test_salvo_games_agree_with_a_referee_by_sets(rows, cols, shots, answers, turns, a_first, seed) -> None:
    fleet = (Ship.line("Long", "L", 2), Ship.line("Short", "S", 1))
    rules = Rules(rows, cols, fleet, salvo=Salvo(shots, answers))
    from battleship import generators

    hidden = tuple(generators.generate(rules, seed=seed + i)[0] for i in (0, 1))
    rngs = (game_rng(seed, 0), game_rng(seed, 1))
    orders = [list(shuffled(kernel_state(game_rng(seed, i)), rules.cells)) for i in (0, 1)]
    row = play_salvo_game((RandomShooter(), RandomShooter()), hidden, rngs, a_first, turns)  # type: ignore[arg-type]
    assert row == reference(rules, hidden, orders, a_first, turns)  # type: ignore[arg-type]


TINY = Rules(2, 3, BOATS, salvo=Salvo("afloat"), name="tiny")


def test_ties_are_counted_and_the_match_is_reproducible_whatever_the_jobs() -> None:
    a, b = Side("random", Options(), label="random"), Side("hunt-target", Options(), label="hunt-target")
    once = play_match(TINY, a, b, 60, seed=4, turns="simultaneous")
    again = play_match(TINY, a, b, 60, seed=4, turns="simultaneous", jobs=2)
    assert once.as_dict() | {"seconds": 0} == again.as_dict() | {"seconds": 0}
    assert once.ties > 0 and once.a_wins + once.b_wins + once.ties == 60
    assert once.unit == "turns" and once.first_mover_win_rate is None
    assert once.a_turns_mean == once.b_turns_mean  # both fire every turn
    alternate = play_match(TINY, a, b, 60, seed=4)
    assert alternate.ties == 0 and alternate.a_wins + alternate.b_wins == 60
    assert alternate.first_mover_win_rate is not None
    with pytest.raises(BattleshipError, match="both sides fire at once"):
        play_match(TINY, a, b, 4, turns="simultaneous", first="a")
    with pytest.raises(BattleshipError, match="--turns must be one of"):
        play_match(TINY, a, b, 4, turns="sometimes")


def test_match_command_reports_ties_and_resumes_a_salvo_file(tmp_path) -> None:
    rules = tmp_path / "tiny.toml"
    rules.write_text(TINY.to_toml())
    out = tmp_path / "games.txt"
    args = [
        "match",
        "random",
        "hunt-target",
        "--rules",
        str(rules),
        "--games",
        "12",
        "--turns",
        "simultaneous",
    ]
    done = runner.invoke(app, [*args, "--json", "--out", str(out)])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["unit"] == "turns" and data["turns"] == "simultaneous"
    assert data["ties"] + data["a_wins"] + data["b_wins"] == 12 and len(data["tie_rate_ci95"]) == 2
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# turns A") and len(lines) == 13
    out.write_text("\n".join(lines[:7]) + "\n")  # six games kept, as after a kill
    resumed = runner.invoke(app, [*args, "--json", "--out", str(out), "--resume", "--games", "12"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout) | {"seconds": 0} == data | {"seconds": 0}
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "ties (95% CI)" in table.stdout and "A turns" in table.stdout
    bad = runner.invoke(app, [*args, "--first", "b"])
    assert bad.exit_code == 2 and "both sides fire at once" in bad.output


class Stubborn(LeftToRight):
    """Asks for A1 again and again: its salvos name a cell twice."""

    name = "stubborn"

    def next_shot(self, observation: Observation) -> int:
        return 0


def test_a_shooter_firing_an_illegal_salvo_is_named() -> None:
    rules = Rules(1, 6, BOATS, salvo=Salvo("afloat"))
    hidden = (row_of(rules, (0,), (5,)), row_of(rules, (2,), (3,)))
    rngs = (np.random.default_rng(0), np.random.default_rng(1))
    with pytest.raises(
        BattleshipError, match="stubborn chose a salvo it may not fire: A1 is in the salvo twice"
    ):
        play_salvo_game((Stubborn(), LeftToRight()), hidden, rngs)  # type: ignore[arg-type]
