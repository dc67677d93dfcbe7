"""Exact sampling: numbered layouts against brute force, both samplers uniform, the montecarlo shooter."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome, Shot
from battleship.inference import Contradiction, evidence, posterior, sampling, select_by_search
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import make
from battleship.shooters.optimal import answer_entropy
from battleship.tables import tables
from tests.helpers import brute_force_layouts, chi2_upper
from tests.inference.test_posterior import observed_games, replays


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(observed_games(max_ships=4))
def test_numbered_layouts_are_every_consistent_layout_once(case):
    rules, observation = case
    if len(rules.fleet) < 2:
        return
    # four ships on 5x5 can mean 2.5 million combinations for the brute force (49 s in one CI-like run)
    assume(math.prod(len(p) for p in rules.placements) <= 250_000)
    consistent = sorted(m for m in brute_force_layouts(rules) if replays(rules, m, observation))
    total = posterior(rules, observation).layouts
    assert total == len(consistent)
    rows = select_by_search(rules, evidence(rules, observation), np.arange(total, dtype=np.int64))
    masks = tables(rules).masks
    assert sorted(tuple(masks[p] for p in row) for row in rows) == consistent


def _shot_game(rules: Rules, seed: int, cells: tuple[int, ...]) -> Game:
    game = Game(generators.generate(rules, "uniform", seed, 1)[0])
    for cell in cells:
        game.fire(cell)
    return game


@pytest.mark.parametrize("path", ["rejection", "graph", "numbered"])
@pytest.mark.parametrize("spacing", [Spacing.TOUCH, Spacing.NO_CONTACT])
def test_each_sampler_is_uniform_over_the_consistent_layouts(monkeypatch, path, spacing):
    rules = Rules(
        5, 5, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), sinks=Sinks.NAMED, spacing=spacing
    )
    layout = Layout(rules, (rules.placements[0][0], rules.placements[1][-1]))
    game = Game(layout)
    for cell in (6, 12, 0):
        game.fire(cell)
    if path != "rejection":
        monkeypatch.setattr(sampling, "PILOT_TRIES", 0)
    if path == "numbered":
        monkeypatch.setattr(sampling.sweep, "applies", lambda rules: False)
    consistent = [m for m in brute_force_layouts(rules) if replays(rules, m, game.observation)]
    draws = 20_000
    rows = sampling.draw(rules, game.observation, draws, seed=3)
    masks = tables(rules).masks
    seen = Counter(tuple(masks[p] for p in row) for row in rows)
    assert set(seen) <= set(consistent)
    expected = draws / len(consistent)
    stat = sum((seen.get(m, 0) - expected) ** 2 / expected for m in consistent)
    assert stat < chi2_upper(len(consistent) - 1)


def test_bounded_rejection_draws_uniformly_reproducibly_and_no_more_than_asked():
    rules = Rules(5, 5, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), sinks=Sinks.NAMED)
    game = Game(Layout(rules, (rules.placements[0][0], rules.placements[1][-1])))
    for cell in (6, 12, 0):
        game.fire(cell)
    consistent = [m for m in brute_force_layouts(rules) if replays(rules, m, game.observation)]
    rows = sampling.draw_by_rejection(rules, game.observation, 20_000, seed=3, tries=10_000_000)
    assert len(rows) == 20_000
    assert (
        rows == sampling.draw_by_rejection(rules, game.observation, 20_000, seed=3, tries=10_000_000)
    ).all()
    masks = tables(rules).masks
    seen = Counter(tuple(masks[p] for p in row) for row in rows)
    assert set(seen) <= set(consistent)
    expected = len(rows) / len(consistent)
    assert sum((seen.get(m, 0) - expected) ** 2 / expected for m in consistent) < chi2_upper(
        len(consistent) - 1
    )
    few = sampling.draw_by_rejection(rules, game.observation, 20_000, seed=3, tries=2_000)
    assert len(few) < 2_000 and (few == rows[: len(few)]).all()  # the same stream, cut short


def test_draws_are_reproducible_and_mixed_paths_stay_consistent():
    rules = preset("pirates")
    game = _shot_game(rules, 11, tuple(range(0, 100, 7)))
    a = sampling.draw(rules, game.observation, 300, seed=5)
    b = sampling.draw(rules, game.observation, 300, seed=5)
    assert (a == b).all()
    masks = tables(rules).masks
    for row in a[:50]:
        assert replays(rules, tuple(masks[p] for p in row), game.observation)


def test_an_impossible_observation_is_refused_by_the_sampler():
    rules = Rules(4, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), sinks=Sinks.NAMED)
    game = Game(Layout(rules, (rules.placements[0][0], rules.placements[1][-1])))
    game.fire(0)
    observation = game.observation
    # every cell but the hit a miss: no ship fits anywhere
    shots = observation.shots + tuple(Shot(c, Outcome.MISS) for c in range(1, 16))
    with pytest.raises(Contradiction):
        sampling.draw(rules, Observation(rules, shots), 10)


def test_monte_carlo_with_a_sample_count_is_reproducible_and_close_to_exact():
    rules = preset("standard")
    game = _shot_game(rules, 4, (44, 45, 54, 12, 77))
    exact = posterior(rules, game.observation).probability
    a = sampling.monte_carlo(rules, game.observation, samples=4000, seed=2)
    b = sampling.monte_carlo(rules, game.observation, samples=4000, seed=2)
    assert a.samples == 4000 and (a.probability == b.probability).all()
    z = np.abs(a.probability - exact) / np.maximum(a.standard_error, 1 / a.samples)
    assert z.max() < 5


@pytest.mark.parametrize("name", ["standard", "pirates", "datagenetics", "square-6"])
def test_montecarlo_shooter_sinks_every_ship_reproducibly(name):
    rules = preset(name)
    layout = generators.generate(rules, "uniform", 3, 1)[0]
    games = []
    for _ in range(2):
        shooter = make("montecarlo:samples=200,skew=20")
        shooter.reset(rules, np.random.default_rng(9))
        game = Game(layout)
        while not game.over:
            game.fire(shooter.next_shot(game.observation))
        games.append([s.cell for s in game.observation.shots])
    assert games[0] == games[1]
    assert len(set(games[0])) == len(games[0]) <= rules.cells


def _consistent_layouts(rules: Rules, observation) -> list:
    """Every layout the observation's answers replay on, by brute force."""
    return [masks for masks in brute_force_layouts(rules) if replays(rules, masks, observation)]


def _brute_entropy(rules: Rules, observation, cell: int, consistent: list) -> float:
    """The answer's entropy at ``cell`` by firing it on every consistent layout (``consistent``)."""
    answers = Counter()
    for masks in consistent:
        game = Game(Layout(rules, masks))
        for shot in observation.shots:
            game.fire(shot.cell)
        answers[game.fire(cell)] += 1
    total = sum(answers.values())
    return -sum(n / total * np.log2(n / total) for n in answers.values())


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(observed_games(max_ships=3))
def test_answer_entropy_matches_firing_on_every_layout(case):
    from battleship.shooters.density import observed_status

    rules, observation = case
    if sum(s.outcome is not Outcome.MISS for s in observation.shots) == rules.ship_cells:
        return  # the game is over: nothing more to fire at
    result = posterior(rules, observation)
    status, _ = observed_status(rules, observation)
    consistent = _consistent_layouts(rules, observation)  # once: the slow part, the same for every cell
    for cell in range(rules.cells):
        if observation.is_shot(cell):
            continue
        got = answer_entropy(rules, status, result.placement_layouts, result.layouts, cell)
        assert got == pytest.approx(_brute_entropy(rules, observation, cell, consistent), abs=1e-9)


def test_informative_ties_are_read_by_exact_shooters_only():
    rules = preset("standard")
    game = _shot_game(rules, 1, ())
    shooter = make("optimal:tie=informative")
    shooter.reset(rules, np.random.default_rng(0))
    assert 0 <= shooter.next_shot(game.observation) < rules.cells
    with pytest.raises(BattleshipError, match="informative"):
        make("density:tie=informative")
