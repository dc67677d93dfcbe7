"""The two-ply shooter against brute force: its values, its greedy game tree, and policy improvement."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome, Shot, play
from battleship.inference import count
from battleship.inference.greedytree import GreedyTree
from battleship.inference.rollouttree import RolloutTree
from battleship.lab.limit import every_layout, optimum
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.shooters.check import check_shooter
from battleship.shooters.options import Options
from battleship.shooters.twoply import answers, open_counts, two_ply_value
from tests.helpers import brute_force_layouts, small_rules


def replay(layout: Layout, observation: Observation) -> Game | None:
    """The referee for ``layout`` after the observation's shots, or None if it answers any differently."""
    game = Game(layout)
    for shot in observation.shots:
        if game.over or game.fire(shot.cell) != shot:
            return None
    return game


def brute_two_ply(rules: Rules, observation: Observation, cell: int) -> int:
    """Layouts x (P(hit at cell) + expected best next hit chance), by listing layouts directly."""
    groups: dict[object, list[Layout]] = {}
    value = 0
    for combo in brute_force_layouts(rules):
        layout = Layout(rules, combo)
        game = replay(layout, observation)
        if game is None:
            continue
        answer = None if game.over else game.fire(cell)  # a finished game answers nothing: a miss
        if answer is not None and answer.outcome.name != "MISS":
            value += 1
        key = None if answer is None or answer.outcome.name == "MISS" else answer
        groups.setdefault(key, []).append(layout)
    unshot = [c for c in range(rules.cells) if not observation.is_shot(c) and c != cell]
    for layouts in groups.values():
        value += max((sum(lay.ship_at(c) is not None for lay in layouts) for c in unshot), default=0)
    return value


@st.composite
def a_board(draw, max_side: int = 4):
    """Small rules (every spacing and sink mode) and a board reached by random shots at a real layout."""
    rules = draw(small_rules(max_side=max_side, max_ships=3))
    layouts = brute_force_layouts(rules)
    assume(0 < len(layouts) <= 400)
    layout = Layout(rules, layouts[draw(st.integers(0, len(layouts) - 1))])
    game = Game(layout)
    for cell in draw(st.permutations(range(rules.cells)))[: draw(st.integers(0, rules.cells - 1))]:
        if game.over:
            break
        game.fire(cell)
    assume(not game.over)
    return rules, game.observation


@settings(max_examples=60, deadline=None)
@given(a_board())
def test_two_ply_values_equal_brute_force(board):
    rules, observation = board
    result, counts = open_counts(rules, observation, None)
    for cell in range(rules.cells):
        if not observation.is_shot(cell):
            value = two_ply_value(rules, observation, counts, result.placement_layouts, None, cell)
            assert value == brute_two_ply(rules, observation, cell), cell


@pytest.mark.parametrize("sinks", [Sinks.NAMED, Sinks.REVEALED])
def test_identical_ships_sinkings_counted_once_equal_brute_force(sinks):
    """Two identical ships: one sinking answer stands for both (by symmetry), the values unchanged."""
    fleet = (Ship.line("Ship A", "A", 2), Ship.line("Ship B", "B", 2), Ship.line("Ship C", "C", 1))
    rules = Rules(3, 3, fleet, Spacing.TOUCH, sinks)
    shared = 0
    for combo in brute_force_layouts(rules)[::150]:
        record = play(make("optimal"), Layout(rules, combo), np.random.default_rng(0))
        # the boards just after a hit: the next shot may sink either identical ship
        for k in [k + 1 for k, shot in enumerate(record.shots[:-1]) if shot.outcome.name == "HIT"][:2]:
            observation = Observation(rules, record.shots[:k])
            result, counts = open_counts(rules, observation, None)
            for cell in range(rules.cells):
                if not observation.is_shot(cell):
                    value = two_ply_value(rules, observation, counts, result.placement_layouts, None, cell)
                    assert value == brute_two_ply(rules, observation, cell)
                    found = answers(rules, observation, counts[cell], result.placement_layouts, cell)
                    shared += sum(times > 1 for _, times in found)
    assert shared  # some sinking answer stood for both identical ships


def test_a_nameless_sinking_is_one_answer_however_many_identical_ships_it_could_be():
    """Under "sunk" the referee names no ship: two identical ships give one answer, counted once."""
    fleet = (Ship.line("Ship A", "A", 2), Ship.line("Ship B", "B", 2))
    rules = Rules(3, 3, fleet, Spacing.TOUCH, Sinks.SUNK)
    observation = Observation(rules, (Shot(0, Outcome.HIT),))  # the case Hypothesis found: 44 for 42
    result, counts = open_counts(rules, observation, None)
    for cell in range(1, rules.cells):
        value = two_ply_value(rules, observation, counts, result.placement_layouts, None, cell)
        assert value == brute_two_ply(rules, observation, cell), cell
        found = answers(rules, observation, counts[cell], result.placement_layouts, cell)
        assert all(times == 1 for _, times in found), cell


@settings(max_examples=25, deadline=None)
@given(small_rules(max_side=4, max_ships=3))
def test_the_greedy_tree_counts_the_shots_optimal_takes_on_every_layout(rules):
    assume(count(rules)[0] <= 300)  # counted before listing: every_layout refuses past 5,000
    rows = every_layout(rules)  # a one-ship fleet: its placements
    tree = GreedyTree(rules, rows)
    expected = sum(len(play(make("optimal"), Layout(rules, lay), np.random.default_rng(0)).shots)
                   for lay in brute_force_layouts(rules))  # fmt: skip
    assert tree.shots(np.arange(len(rows)), np.zeros(rules.cells, dtype=np.bool_)) == expected


def mean_shots(spec: str, rules: Rules) -> float:
    """A shooter's mean over every layout, one game each."""
    layouts = brute_force_layouts(rules)
    games = [play(make(spec), Layout(rules, lay), np.random.default_rng(0)) for lay in layouts]
    return sum(len(g.shots) for g in games) / len(layouts)


@settings(max_examples=12, deadline=None)
@given(small_rules(max_side=4, max_ships=2))
def test_the_rest_of_game_variant_never_plays_worse_than_greedy(rules):
    """Policy improvement: greedy's own cell is a candidate, so choosing by greedy's exact cost cannot lose."""
    assume(len(brute_force_layouts(rules)) <= 150)
    assert mean_shots("twoply:endgame=5000", rules) <= mean_shots("optimal", rules) + 1e-9


@settings(max_examples=20, deadline=None)
@given(small_rules(max_side=4, max_ships=3))
def test_the_rollout_tree_counts_the_shots_the_rest_of_game_rollout_takes_on_every_layout(rules):
    assume(count(rules)[0] <= 200)
    rows = every_layout(rules)
    rollout = RolloutTree(GreedyTree(rules, rows), width=6)
    expected = sum(len(play(make("twoply:endgame=5000"), Layout(rules, lay), np.random.default_rng(0)).shots)
                   for lay in brute_force_layouts(rules))  # fmt: skip
    assert rollout.shots(np.arange(len(rows)), np.zeros(rules.cells, dtype=np.bool_)) == expected


@settings(max_examples=12, deadline=None)
@given(small_rules(max_side=4, max_ships=2))
def test_the_second_rollout_step_never_plays_worse_than_the_first(rules):
    """Policy improvement again: the rollout's own cell is a candidate of the rollout over it."""
    assume(len(brute_force_layouts(rules)) <= 150)
    first = mean_shots("twoply:endgame=5000", rules)
    assert mean_shots("twoply:endgame=5000,second=5000", rules) <= first + 1e-9


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_rules(max_side=4, max_ships=3))
def test_the_exact_endgame_plays_the_optimum_where_its_budget_holds(rules):
    """exact=N solves the whole game from the first shot when N covers every layout (within budget)."""
    layouts = count(rules)[0]
    assume(len(rules.fleet) > 1 and layouts <= 60)
    try:  # within the budget the shooter's solver has (else it plays the rollout's cell)
        best = optimum(rules, max(5_000, 200 * layouts), every_layout(rules)).shots
    except BattleshipError:
        assume(False)
    spec = f"twoply:endgame=5000,exact={layouts}"
    assert mean_shots(spec, rules) == pytest.approx(best, abs=1e-9)


def test_rest_of_game_reaches_the_optimum_on_3x3():
    """The limit table's 3x3 optimum (6.25 shots with sinkings named), which greedy misses by 0.068."""
    fleet = (Ship.line("Ship 1", "A", 2), Ship.line("Ship 2", "B", 2))
    rules = Rules(3, 3, fleet, Spacing.TOUCH, Sinks.NAMED)
    assert mean_shots("twoply:endgame=5000", rules) == 6.25
    assert round(mean_shots("optimal", rules), 4) == 6.3182


def test_twoply_keeps_the_protocol_and_repeats_its_games():
    rules = [
        preset("square-6"),
        Rules(
            5,
            5,
            (Ship.line("Ship A", "A", 3), Ship.line("Ship B", "B", 2)),
            Spacing.NO_CONTACT,
            Sinks.REVEALED,
        ),
    ]
    check_shooter("twoply", rules, Options(width=3, skew=20), games=2)
    check_shooter("twoply", rules[1:], Options(endgame=600, tie="centre"), games=2)
    layout = generators.generate(rules[0], "uniform", 5, 1)[0]
    one = play(make("twoply:tie=random"), layout, np.random.default_rng(3))
    two = play(make("twoply:tie=random"), layout, np.random.default_rng(3))
    assert [s.cell for s in one.shots] == [s.cell for s in two.shots]


@settings(max_examples=12, deadline=None)
@given(small_rules(max_side=4, max_ships=2), st.sampled_from([0, 20]))
def test_one_ply_is_greedy_until_its_endgame(rules, skew):
    """``plies=1`` fires greedy's (skewed) cell outside the endgame; with one, policy improvement holds."""
    layouts = brute_force_layouts(rules)
    assume(len(layouts) <= 150)
    for lay in layouts[:20]:
        ours = play(make(f"twoply:plies=1,skew={skew}"), Layout(rules, lay), np.random.default_rng(0))
        greedy = play(make(f"optimal:skew={skew}"), Layout(rules, lay), np.random.default_rng(0))
        assert [s.cell for s in ours.shots] == [s.cell for s in greedy.shots]
    assert mean_shots("twoply:plies=1,endgame=5000", rules) <= mean_shots("optimal", rules) + 1e-9


@settings(max_examples=10, deadline=None)
@given(small_rules(max_side=5, max_ships=2), st.sampled_from([0, 20]))
def test_early_shooter_plays_until_its_endgame(rules, skew):
    """``early=density`` (``trial-sink``) fires that shooter's (skewed) cell while more than ``endgame`` layouts remain."""
    total = count(rules)[0]
    assume(total > 12)
    endgame = total // 4
    shooters = [
        "density",
        "density" if rules.spacing is Spacing.TOUCH else "trial-sink",
    ]  # trial-sink needs a margin
    for seed, early in enumerate(shooters * 2):
        layout = generators.generate(rules, "uniform", seed, 1)[0]
        ours = play(
            make(f"twoply:early={early},skew={skew},endgame={endgame}"), layout, np.random.default_rng(0)
        )
        theirs = play(make(f"{early}:skew={skew}"), layout, np.random.default_rng(0))
        observation = Observation(rules)
        for mine, other in zip(ours.shots, theirs.shots, strict=False):  # they part after the endgame
            if count(rules, observation)[0] <= endgame:
                break
            assert mine.cell == other.cell
            observation = observation.after(mine)


def test_early_refuses_a_prior_and_unknown_shooters():
    with pytest.raises(BattleshipError, match="early=density with a prior"):
        make("twoply:early=density,prior=contest")
    with pytest.raises(BattleshipError, match="give endgame=N too"):
        make("twoply:early=trial-sink")
    with pytest.raises(BattleshipError, match="early is density or trial-sink"):
        make("twoply:early=greedy")
