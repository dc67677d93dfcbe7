"""The noisy optimum against an independent expectimax, and the capacity bound."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot
from battleship.lab.limit import optimum
from battleship.lab.noise_limit import capacity_bound, noisy_optimum
from battleship.rules import Noise, Rules, Ship, Sinks, Telling, preset
from tests import brute
from tests.inference.test_noisy import likelihood


def expectimax(rules: Rules, refire: int = 0) -> float:
    """Expected shots of the best play by the plainest recursion: every history of (cell, answer), the
    layouts weighed by replaying it (tests.inference.test_noisy.likelihood), every cell tried; the memo
    keyed on the history itself (as a multiset where the order cannot matter: no announcements)."""
    layouts = brute.layouts(rules.honest()) or []
    answers = [Outcome.MISS, Outcome.HIT]
    if rules.sinks is Sinks.NAMED:
        answers += [("sunk", s) for s in range(len(rules.fleet))]

    def shot(cell: int, answer: object) -> Shot:
        if isinstance(answer, tuple):
            return Shot(cell, Outcome.SUNK, answer[1])
        assert isinstance(answer, Outcome)
        return Shot(cell, answer)

    def live(history: tuple[Shot, ...]) -> float:
        board = Observation(rules, history)
        return sum(w for w, going in (likelihood(rules, m, board) for m in layouts) if going) / len(layouts)

    def key(history: tuple[Shot, ...]) -> object:
        return frozenset(Counter(history).items()) if rules.sinks is Sinks.NONE else history

    memo: dict[object, float] = {}

    def value(history: tuple[Shot, ...]) -> float:
        k = key(history)
        if k in memo:
            return memo[k]
        weight = live(history)
        if weight == 0:
            return 0.0
        fired = Counter(s.cell for s in history)
        best = math.inf
        for cell in range(rules.cells):
            if fired[cell] > refire:
                continue
            best = min(best, sum(value((*history, shot(cell, a))) for a in answers))
        memo[k] = weight + best
        return memo[k]

    return value(())


def tiny(rows: int, cols: int, sinks: Sinks, flip: float, sinkings: Telling = Telling.TRUTHFUL) -> Rules:
    return Rules(rows, cols, (Ship.line("Boat", "B", 2),), sinks=sinks, noise=Noise(flip, sinkings))


@pytest.mark.parametrize(
    ("rules", "refire"),
    [
        (tiny(2, 3, Sinks.NONE, 0.1), 0),
        (tiny(2, 3, Sinks.NONE, 0.3), 0),
        (tiny(2, 2, Sinks.NAMED, 0.2), 0),
        (tiny(2, 2, Sinks.NAMED, 0.2, Telling.NOISY), 0),
        (tiny(2, 2, Sinks.NONE, 0.2), 1),
    ],
    ids=["2x3-0.1", "2x3-0.3", "2x2-named", "2x2-named-noisy", "2x2-again"],
)
def test_the_noisy_optimum_is_the_plain_expectimax(rules, refire):
    assert noisy_optimum(rules, refire).shots == pytest.approx(expectimax(rules, refire), rel=1e-9)


def test_without_flips_the_noisy_optimum_is_the_honest_one():
    rules = Rules(3, 3, (Ship.line("Boat", "B", 2),), sinks=Sinks.NONE)
    assert noisy_optimum(replace(rules, noise=Noise(0.0))).shots == pytest.approx(optimum(rules).shots)


def test_the_capacity_bound_is_log_layouts_over_the_channel_s_capacity():
    assert capacity_bound(264, 0.0) == pytest.approx(math.log2(264))
    # the noisy-Battleship study's 4x4 board at e = 0.0005: its 20.0 shots are 2.47 times this
    assert 20.0 / capacity_bound(264, 0.0005) == pytest.approx(2.47, abs=0.005)
    assert capacity_bound(264, 0.3) > capacity_bound(264, 0.1) > capacity_bound(264, 0.01)


def test_the_noisy_optimum_refuses_honest_rules_and_large_boards_in_one_line():
    for rules, said in (
        (preset("standard"), "has no \\[noise\\]"),
        (preset("noisy"), "small boards"),
    ):
        with pytest.raises(BattleshipError, match=said) as caught:
            noisy_optimum(rules)
        assert "\n" not in str(caught.value)


def test_the_limit_command_solves_noise_and_the_cheating_hider_and_refuses_shooters_there(tmp_path):
    import json

    from typer.testing import CliRunner

    from battleship.cli import app
    from battleship.rules import Hider

    runner = CliRunner()
    boat = (Ship.line("Boat", "B", 2),)
    for name, rules, key, want in (
        ("cheat", Rules(3, 3, boat, sinks=Sinks.NONE, hider=Hider()), "worst_case", 7),
        ("noisy", tiny(2, 3, Sinks.NONE, 0.1), "optimum", noisy_optimum(tiny(2, 3, Sinks.NONE, 0.1)).shots),
    ):
        path = tmp_path / f"{name}.toml"
        path.write_text(rules.to_toml())
        ran = runner.invoke(app, ["limit", "--rules", str(path), "--json"])
        assert ran.exit_code == 0, ran.output
        assert json.loads(ran.stdout)[key] == pytest.approx(want)
        refused = runner.invoke(app, ["limit", "optimal", "--rules", str(path)])
        assert refused.exit_code != 0 and "leave the shooters out" in refused.output
        assert "Traceback" not in refused.output
