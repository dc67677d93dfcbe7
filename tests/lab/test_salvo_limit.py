"""The salvo limit against a plain expectimax that replays every salvo with the referee."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from battleship.game import Game
from battleship.lab import limit as lab_limit
from battleship.lab.salvo_limit import salvo_optimum
from battleship.layout import Layout
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks, Spacing
from tests.helpers import brute_force_layouts


def expectimax_turns(rules: Rules) -> Fraction:
    """Expected turns under optimal play, by brute force: every layout, every set of K free cells each
    turn, the layouts told apart by the referee's own answers to the whole history of salvos."""
    layouts = [Layout(rules, masks) for masks in brute_force_layouts(rules)]
    size = rules.turn_size()
    memo: dict[tuple[frozenset[int], frozenset[int]], Fraction] = {}

    def replayed(index: int, history: tuple[tuple[int, ...], ...]) -> Game:
        game = Game(layouts[index])
        for salvo in history:
            game.fire_salvo(salvo)
        return game

    def value(history: tuple[tuple[int, ...], ...], group: frozenset[int]) -> Fraction:
        fired = frozenset(c for salvo in history for c in salvo)
        key = (fired, group)
        if key in memo:
            return memo[key]
        free = [c for c in range(rules.cells) if c not in fired]
        best = None
        for salvo in itertools.combinations(free, min(size, len(free))):
            parts: dict[object, set[int]] = {}
            for index in group:
                game = replayed(index, history)
                volley = game.fire_salvo(salvo)
                if not game.over:
                    parts.setdefault(volley, set()).add(index)
            expected = 1 + sum(
                Fraction(len(g), len(group)) * value((*history, salvo), frozenset(g)) for g in parts.values()
            )
            best = expected if best is None or expected < best else best
        assert best is not None
        memo[key] = best
        return best

    return value((), frozenset(range(len(layouts))))


def _rules(rows, cols, lengths, shots, answers, sinks=Sinks.NAMED, spacing=Spacing.TOUCH) -> Rules:
    fleet = tuple(Ship.line(f"Ship {s}", s, n) for s, n in zip("AB", lengths, strict=False))
    return Rules(rows, cols, fleet, spacing, sinks, salvo=Salvo(shots, answers), name="tiny salvo")


TINY = [
    _rules(3, 3, (2,), 2, Answers.EACH),
    _rules(3, 3, (2,), 2, Answers.COUNT, Sinks.NONE),
    _rules(2, 3, (2, 1), 2, Answers.COUNT),
    _rules(2, 3, (2, 1), 2, Answers.SHIPS, Sinks.SUNK),
    _rules(2, 3, (2, 1), 2, Answers.EACH, Sinks.REVEALED),
    _rules(2, 3, (2, 1), "afloat", Answers.COUNT, Sinks.NONE),
    _rules(2, 4, (2,), 3, Answers.COUNT, Sinks.NONE),
]


@pytest.mark.parametrize(
    "rules", TINY, ids=lambda r: f"{r.rows}x{r.cols}-{r.symbols}-{r.salvo.text()}-{r.sinks.value}"
)
def test_the_salvo_optimum_is_the_brute_force_expectimax(rules):
    expected = expectimax_turns(rules)
    layouts = brute_force_layouts(rules)
    best = salvo_optimum(rules, layouts, budget=1_000_000)
    assert best.layouts == len(layouts)
    assert best.turns == pytest.approx(float(expected), abs=1e-9)
    assert len(best.first_salvo) == min(rules.turn_size(), rules.cells)


def test_limit_on_salvo_rules_measures_in_turns():
    rules = _rules(2, 3, (2, 1), 2, Answers.COUNT)
    result = lab_limit.limit(rules, ["random", "hunt-target"], seed=3)
    assert result.unit == "turns"
    assert result.optimum.shots == pytest.approx(float(expectimax_turns(rules)), abs=1e-9)
    rows = lab_limit.every_layout(rules)
    for name in ("random", "hunt-target"):
        mean = result.means[name]
        assert mean is not None and mean >= 1
        assert result.gap(name) == pytest.approx(mean - result.optimum.shots)
    # the shooters' means are turns on every layout, one game each
    from battleship.lab.runner import simulate

    turns = simulate(rules, "random", len(rows), seed=3, layouts=rows)
    assert result.means["random"] == pytest.approx(float(np.mean(turns)))
    assert turns.max() <= -(-rules.cells // 2)


def test_the_salvo_solver_says_when_its_budget_runs_out():
    from battleship.errors import BattleshipError

    rules = _rules(3, 3, (2, 1), 2, Answers.COUNT)
    with pytest.raises(BattleshipError, match="did not finish within 10 states"):
        salvo_optimum(rules, brute_force_layouts(rules), budget=10)


def test_limit_json_gives_the_optimum_and_each_mean_in_turns(tmp_path):
    import json

    from typer.testing import CliRunner

    from battleship.cli import app

    rules = _rules(2, 3, (2, 1), 2, Answers.EACH)
    path = tmp_path / "tiny.toml"
    path.write_text(rules.to_toml())
    result = CliRunner().invoke(app, ["limit", "random", "--rules", str(path), "--seed", "3", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["unit"] == "turns" and len(data["first_salvo"]) == 2
    assert data["optimum"] == pytest.approx(float(expectimax_turns(rules)), abs=1e-9)
    (shooter,) = data["shooters"]
    assert shooter["mean"] - data["optimum"] == pytest.approx(shooter["gap"])
    shown = CliRunner().invoke(app, ["limit", "random", "--rules", str(path)])
    assert shown.exit_code == 0 and "turns" in shown.stdout and "first salvo" in shown.stdout


@pytest.mark.parametrize("sinks", [Sinks.NONE, Sinks.NAMED])
def test_a_salvo_of_one_answered_each_is_the_one_shot_game(sinks):
    rules = _rules(3, 3, (2, 1), 1, Answers.EACH, sinks)
    one_shot = lab_limit.optimum(rules.one_shot())
    salvo = salvo_optimum(rules, brute_force_layouts(rules), budget=1_000_000)
    assert salvo.turns == pytest.approx(one_shot.shots, abs=1e-9)
