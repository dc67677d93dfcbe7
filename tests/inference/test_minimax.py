"""Cheat Battleship: the exact game value against a plain minimax, the study's boards, and the cheating hider."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Observation, Outcome, play
from battleship.inference import posterior
from battleship.inference.hider import Hider, answer_counts
from battleship.inference.minimax import Minimax, every_layout, game_value
from battleship.rng import game_rng
from battleship.rules import Hider as HiderRule
from battleship.rules import Rules, Ship, Sinks
from battleship.shooters import make
from tests import brute


def fleet(*lengths: int) -> tuple[Ship, ...]:
    return tuple(Ship.line(f"Ship {'ABCD'[i]}", "ABCD"[i], n) for i, n in enumerate(lengths))


def plain_value(rules: Rules) -> int:
    """The worst case of the best shooter by the rules' words: every cell tried, every answer some
    consistent layout gives, memo on (layouts left, cells hit) only."""
    layouts = tuple(brute.layouts(rules) or ())

    def answer(masks: tuple[int, ...], hit: int, cell: int) -> object:
        ship = next((s for s, m in enumerate(masks) if m >> cell & 1), None)
        if ship is None:
            return "miss"
        if rules.sinks is Sinks.NONE or masks[ship] & ~(hit | 1 << cell):
            return "hit"
        return {Sinks.SUNK: "sunk", Sinks.NAMED: ("sunk", ship), Sinks.REVEALED: ("sunk", masks[ship])}[
            rules.sinks
        ]

    @cache
    def value(left: tuple[tuple[int, ...], ...], hit: int) -> int:
        if hit.bit_count() == rules.ship_cells:
            return 0
        best = rules.cells + 1
        for cell in range(rules.cells):
            if hit >> cell & 1:
                continue
            if not any(m >> cell & 1 for masks in left for m in masks):
                continue  # water in every layout left: a shot there only wastes a turn
            split: dict[object, list[tuple[int, ...]]] = {}
            for masks in left:
                split.setdefault(answer(masks, hit, cell), []).append(masks)
            worst = max(
                value(tuple(group), hit if key == "miss" else hit | 1 << cell) for key, group in split.items()
            )
            best = min(best, 1 + worst)
        return best

    return value(layouts, 0)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(3, 3, fleet(2), sinks=Sinks.NONE),
        Rules(3, 3, fleet(2), sinks=Sinks.NAMED),
        Rules(3, 3, fleet(1, 2), sinks=Sinks.SUNK),
        Rules(3, 3, fleet(1, 1), sinks=Sinks.REVEALED),
        Rules(3, 3, fleet(2, 1), sinks=Sinks.NONE),
    ],
    ids=lambda r: f"{r.rows}x{r.cols}-{r.symbols}-{r.sinks.value}",
)
def test_the_game_value_is_the_plain_minimax(rules):
    assert game_value(rules)[0] == plain_value(rules)


@pytest.mark.parametrize(
    ("rows", "cols", "ships", "shots"), [(3, 3, (2,), 7), (4, 3, (2,), 8), (4, 4, (3,), 8)]
)
def test_the_study_s_worst_cases_are_reproduced(rows, cols, ships, shots):
    # the 1986 Cheat Battleship boards as the noisy-Battleship study reports them (the slower four in benchmarks/noise.py)
    assert game_value(Rules(rows, cols, fleet(*ships), sinks=Sinks.NONE))[0] == shots


def test_exact_minimax_play_against_the_minimax_hider_takes_exactly_the_game_value():
    rules = Rules(3, 3, fleet(2), sinks=Sinks.NONE, hider=HiderRule(play="minimax"))
    for game in range(3):
        hider = Hider(rules, seed=5, game=game)
        record = play(make("minimax:exact=100"), hider.layout, game_rng(5, game), referee=hider)
        assert len(record.shots) == 7
        assert record.layout.occupied == record.observation.hit_mask  # a layout it answered by throughout
    # any shooter: never fewer than the game value
    hider = Hider(rules, seed=1)
    assert len(play(make("optimal"), hider.layout, game_rng(1, 0), referee=hider).shots) >= 7


def test_the_greedy_hider_keeps_the_most_layouts_and_stays_consistent():
    rules = Rules(4, 4, fleet(3, 2), sinks=Sinks.NAMED, hider=HiderRule())
    honest = rules.honest()
    hider = Hider(rules, seed=3)
    rng = np.random.default_rng(3)
    while not hider.over:
        board = Observation(honest, hider.observation.shots)
        cell = int(rng.choice([c for c in range(rules.cells) if not board.is_shot(c)]))
        counts = dict(answer_counts(honest, board, cell))
        brute_counts: dict[object, int] = {}
        for masks in brute.layouts(honest) or []:
            layout_board = Observation(honest, board.shots)
            if _answers_alike(honest, masks, layout_board):
                key = _answer(honest, masks, board, cell)
                brute_counts[key] = brute_counts.get(key, 0) + 1
        assert {(a.outcome, a.ship): n for a, n in counts.items()} == brute_counts
        going = {
            a: n
            for a, n in counts.items()
            if not (a.outcome is not Outcome.MISS and board.hit_mask.bit_count() + 1 == rules.ship_cells)
        }
        shot = hider.fire(cell)
        assert counts[shot] == max((going or counts).values())
        posterior(Observation(honest, hider.observation.shots))  # never a contradiction
    assert hider.layout.occupied == hider.observation.hit_mask
    with pytest.raises(IllegalShot, match="over"):
        hider.fire(0)


def _answers_alike(rules: Rules, masks: tuple[int, ...], board: Observation) -> bool:
    return brute.answers(rules, masks, [s.cell for s in board.shots]) == board.shots


def _answer(
    rules: Rules, masks: tuple[int, ...], board: Observation, cell: int
) -> tuple[Outcome, int | None]:
    shot = brute.answers(rules, masks, [*(s.cell for s in board.shots), cell])[-1]
    return shot.outcome, shot.ship


def test_a_minimax_hider_is_refused_in_one_line_where_the_board_is_too_large():
    from dataclasses import replace

    from battleship.rules import preset

    with pytest.raises(BattleshipError, match="small boards") as caught:
        Hider(replace(preset("standard"), hider=HiderRule(play="minimax")))
    assert "\n" not in str(caught.value)


def test_the_state_of_a_board_is_the_layouts_that_answer_it_alike():
    rules = Rules(3, 3, fleet(2), sinks=Sinks.NAMED)
    solver = Minimax(rules, every_layout(rules))
    board = Observation(rules, brute.answers(rules, (0b11,), [0, 4, 1]))
    layouts, hit = solver.state(board)
    assert layouts.bit_count() == 1 and hit == 0b11
