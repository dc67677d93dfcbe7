"""Shooters when answers lie and when the hider cheats: the answers' chances against brute force, density's
noisy count, firing again, what ``best`` plays, and every shooter playing or refusing in one line."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battleship import generators, lab
from battleship.errors import BattleshipError
from battleship.game import Game, Outcome, Shot, play
from battleship.inference import posterior
from battleship.inference.hider import Hider
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Hider as HiderRule
from battleship.rules import Noise, Rules, Ship, Sinks, preset
from battleship.shooters import make, names, resolve, spec
from battleship.shooters.best import best_for
from battleship.shooters.noisy import answer_chances, noisy_density
from battleship.shooters.options import Options
from tests import brute
from tests.inference.test_noisy import chance, likelihood, noisy_games, true_answer

FLEET = (Ship.line("A", "A", 3), Ship.line("B", "B", 2))


@settings(max_examples=20, deadline=None)
@given(noisy_games(max_side=4, max_ships=2), st.integers(0, 15))
def test_the_chances_of_the_next_answer_are_the_brute_force_mixture(game, at):
    rules, observation = game
    cell = at % rules.cells
    mixture: dict[object, float] = {}
    total = 0.0
    for masks in brute.layouts(rules.honest()) or []:
        weight, going = likelihood(rules, masks, observation)
        if weight <= 0 or not going:
            continue
        total += weight
        truth = true_answer(rules, masks, observation.shot_mask, cell)
        for said in {truth, Shot(cell, Outcome.MISS), Shot(cell, Outcome.HIT)}:
            mixture[said] = mixture.get(said, 0.0) + weight * chance(rules, truth, said)
    assume(total > 0)
    cells = posterior(observation).probability.ravel()
    got = {shot: p for shot, p in answer_chances(rules, observation, cells, cell) if p > 1e-12}
    want = {shot: w / total for shot, w in mixture.items() if w / total > 1e-12}
    assert got.keys() == want.keys()
    for shot, p in want.items():
        assert got[shot] == pytest.approx(p, rel=1e-9, abs=1e-12)


@st.composite
def one_ship_games(draw):
    """A board of up to 4x4 with one straight ship, no announcements, noise, and shots some fired again."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    ship = Ship.line("A", "A", draw(st.integers(1, min(3, max(rows, cols)))))
    rules = Rules(rows, cols, (ship,), sinks=Sinks.NONE, noise=Noise(draw(st.sampled_from([0.0, 0.1, 0.3]))))
    layouts = brute.layouts(rules.honest()) or []
    game = Game(Layout(rules, layouts[draw(st.integers(0, len(layouts) - 1))]), seed=draw(st.integers(0, 99)))
    for cell in draw(st.lists(st.integers(0, rules.cells - 1), max_size=rules.cells + 2)):
        if game.over:
            break
        game.fire(cell)
    return rules, game.observation


@settings(max_examples=25, deadline=None)
@given(one_ship_games())
def test_with_one_ship_the_noisy_count_is_the_exact_posterior(game):
    rules, observation = game
    assume(not observation.shots or not _over(rules, observation))
    exact = posterior(observation).probability.ravel()
    assert np.allclose(noisy_density(rules, observation), exact, atol=1e-9)


def _over(rules: Rules, observation: object) -> bool:
    """No layout the answers leave possible goes on (the game is over)."""
    layouts = brute.layouts(rules.honest()) or []
    return not any(w > 0 and going for w, going in (likelihood(rules, m, observation) for m in layouts))


def small(**twist: object) -> Rules:
    return Rules(4, 4, FLEET, sinks=Sinks.NAMED, name="4x4 twisted", **twist)  # type: ignore[arg-type]


def _one_game(rules: Rules, name: str, seed: int) -> int:
    honest = generators.generate(rules.honest(), "uniform", seed, 1)[0]
    referee = Hider(rules, seed) if rules.hider is not None else None
    return len(play(make(name), Layout(rules, honest.masks), game_rng(seed, 0), referee=referee).shots)


@pytest.mark.parametrize(
    "rules",
    [small(noise=Noise(0.1)), replace(small(hider=HiderRule()), rows=3, fleet=FLEET[1:])],
    ids=["noise", "cheating hider"],
)
def test_every_shooter_plays_or_refuses_in_one_line(rules):
    played = []
    for name in names():
        why = spec(name).refusal(rules)
        if why is None:
            try:
                shots = _one_game(rules, name, 3)
            except BattleshipError as exc:  # an option it needs (learning's model): said in one line
                assert "\n" not in str(exc)
                continue
            assert shots >= rules.ship_cells
            played.append(name)
        else:
            assert "\n" not in why and name in why
    assert {"density", "optimal", "best", "random"} <= set(played)
    assert ("minimax" in played) is (rules.hider is not None)


def test_options_that_read_every_answer_as_true_are_refused_in_one_line():
    rules = small(noise=Noise(0.1))
    for text, said in (("density:lastship=8", "lastship=8"), ("density:book=1", "book=1")):
        with pytest.raises(BattleshipError, match=said) as caught:
            _one_game(rules, text, 1)
        assert "\n" not in str(caught.value)


def test_confirm_plays_to_the_end_and_without_it_no_cell_is_fired_twice():
    # firing again is rarely worth a new cell's chance of a ship: exact play fires again on 3x3 with one
    # ship of 2 at flip 0.05 only (benchmarks/noise.py --only optimum), so no count of repeats is asserted
    rules = replace(small(noise=Noise(0.3)), sinks=Sinks.NONE)
    again = {0: 0, 4: 0}
    for confirm in again:
        for seed in range(2):
            honest = generators.generate(rules.honest(), "uniform", seed, 1)[0]
            record = play(make(f"optimal:confirm={confirm}"), Layout(rules, honest.masks), game_rng(seed, 0))
            cells = [s.cell for s in record.shots]
            again[confirm] += len(cells) - len(set(cells))
            assert record.layout.occupied & ~record.observation.shot_mask == 0  # every ship cell fired at
    assert again[0] == 0


def test_best_plays_the_noisy_posterior_and_the_worst_case():
    assert best_for(preset("noisy")) == "optimal"
    assert best_for(preset("noisy"), Options(fast=1)) == "density:skew=20"
    assert best_for(preset("cheat")) == "density:skew=20"
    assert best_for(small(hider=HiderRule())) == "minimax:exact=500"


def test_the_lab_counts_shots_past_the_cells_under_noise_and_pairs_the_cheating_hider():
    rules = replace(small(noise=Noise(0.2)), sinks=Sinks.NONE)
    result = lab.compare(rules, [resolve(s, rules) for s in ("random", "density")], 6, seed=2)
    assert lab.most_shots(rules) > rules.cells
    assert all(s.games == 6 for s in result.summaries.values())
    cheating = replace(small(hider=HiderRule()), rows=3, fleet=FLEET[1:])
    cheat = lab.compare(cheating, [resolve(s, cheating) for s in ("best", "random")], 4, seed=2)
    assert all(s.mean >= cheating.ship_cells for s in cheat.summaries.values())
