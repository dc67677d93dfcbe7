"""Noisy answers: the exact weighted posterior against brute force, every layout replayed with its likelihood.

The reference reads the rules' own words and nothing of the engine: each layout is replayed shot by
shot, the referee's true answer worked out (a ship's sinking is the shot that first fires at its
last cell), and the chance of the answer observed multiplied in (``1 - e`` for the true answer,
``e`` for its flip, a sinking flipping to a miss only under ``sinkings = "noisy"``); a layout whose
every cell was fired at before the last turn would have ended the game. The posterior weighs the
layouts on which the game goes on, or, when there are none, those the last turn completed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

from battleship.errors import BattleshipError, RulesError
from battleship.game import Game, Observation, Outcome, Shot, play
from battleship.inference import Contradiction, count, posterior
from battleship.layout import Layout
from battleship.rules import Noise, Rules, Ship, Sinks, Spacing, Telling, from_toml, preset
from battleship.shooters import make
from tests import brute
from tests.helpers import small_rules


def true_answer(rules: Rules, masks: tuple[int, ...], fired: int, cell: int) -> Shot:
    """The referee's true answer to a shot at ``cell`` after the cells ``fired`` (before this shot)."""
    ship = next((s for s, m in enumerate(masks) if m >> cell & 1), None)
    if ship is None:
        return Shot(cell, Outcome.MISS)
    mask = masks[ship]
    completes = not fired >> cell & 1 and (fired | 1 << cell) & mask == mask
    if not completes or rules.sinks is Sinks.NONE:
        return Shot(cell, Outcome.HIT)
    if rules.sinks is Sinks.SUNK:
        return Shot(cell, Outcome.SUNK)
    if rules.sinks is Sinks.NAMED:
        return Shot(cell, Outcome.SUNK, ship)
    return Shot(cell, Outcome.SUNK, ship, mask)


def chance(rules: Rules, truth: Shot, said: Shot) -> float:
    """The chance that the referee says ``said`` when the truth is ``truth``."""
    assert rules.noise is not None
    e = rules.noise.flip
    if truth.outcome is Outcome.SUNK:
        if said == truth:
            return 1 - e if rules.noise.sinkings is Telling.NOISY else 1.0
        flips = said == Shot(truth.cell, Outcome.MISS) and rules.noise.sinkings is Telling.NOISY
        return e if flips else 0.0
    if said.outcome is Outcome.SUNK:
        return 0.0
    return 1 - e if said.outcome is truth.outcome else e


def likelihood(rules: Rules, masks: tuple[int, ...], observation: Observation) -> tuple[float, bool]:
    """The chance of the observation's answers on this layout, and whether the game goes on after them."""
    occupied = 0
    for m in masks:
        occupied |= m
    fired, weight = 0, 1.0
    turns = [v.cells for v in observation.volleys] or [(s.cell,) for s in observation.shots]
    shots = iter(observation.shots)
    for turn in turns:
        if fired & occupied == occupied:
            return 0.0, False  # the game was over before this turn
        for cell in turn:
            said = next(shots)
            weight *= chance(rules, true_answer(rules, masks, fired, cell), said)
            fired |= 1 << cell
    return weight, fired & occupied != occupied


def brute_noisy(rules: Rules, observation: Observation) -> tuple[float, list[float]]:
    """The weighted count and per-cell weights of the layouts by the module docstring's reading."""
    rows = []
    for masks in brute.layouts(rules.honest()) or []:
        weight, going = likelihood(rules, masks, observation)
        if weight > 0:
            rows.append((masks, weight, going))
    if any(going for _, _, going in rows):
        rows = [r for r in rows if r[2]]
    total = sum(w for _, w, _ in rows)
    cells = [sum(w for masks, w, _ in rows if any(m >> c & 1 for m in masks)) for c in range(rules.cells)]
    return total, cells


@st.composite
def noisy_games(draw, max_side: int = 4, max_ships: int = 3):
    """Small rules with noise, a hidden layout, and the answers to shots at it, some at a cell again;
    now and then an answer tampered with (which may make the board impossible)."""
    honest = draw(
        st.one_of(
            small_rules(max_side=max_side, max_ships=max_ships), brute.tiny_rules(max_side=4, max_ships=2)
        )
    )
    flip = draw(st.sampled_from([0.0, 0.1, 0.3]))
    sinkings = draw(st.sampled_from(list(Telling)))
    rules = replace(honest, noise=Noise(flip, sinkings))
    layouts = brute.layouts(honest)
    assume(layouts is not None)
    assert layouts
    masks = layouts[draw(st.integers(0, len(layouts) - 1))]
    game = Game(Layout(rules, masks), seed=draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, rules.cells + 3))):
        if game.over:
            break
        game.fire(draw(st.integers(0, rules.cells - 1)))
    shots = list(game.observation.shots)
    if shots and draw(st.booleans()):
        i = draw(st.integers(0, len(shots) - 1))
        outcome = draw(st.sampled_from([Outcome.MISS, Outcome.HIT]))
        shots[i] = Shot(shots[i].cell, outcome)
    return rules, Observation(rules, tuple(shots))


@settings(max_examples=60, deadline=None)
@given(noisy_games())
def test_the_noisy_posterior_is_the_brute_force_likelihood_weighting(case):
    rules, observation = case
    note(f"{rules!r} {observation.shots}")
    total, cells = brute_noisy(rules, observation)
    if total == 0:
        with pytest.raises(Contradiction):
            posterior(observation)
        return
    result = posterior(observation)
    expected = np.array(cells) / total
    assert np.allclose(result.probability.ravel(), expected, rtol=1e-7, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(noisy_games(max_side=4, max_ships=2))
def test_the_noisy_count_is_every_layout_the_answers_leave_possible(case):
    rules, observation = case
    total, _ = brute_noisy(rules, observation)
    possible = sum(
        1
        for masks in brute.layouts(rules.honest()) or []
        if likelihood(rules, masks, observation)[0] > 0 and likelihood(rules, masks, observation)[1]
    )
    if total == 0:
        with pytest.raises(Contradiction):
            count(rules, observation)
        return
    ended = sum(
        1 for masks in brute.layouts(rules.honest()) or [] if likelihood(rules, masks, observation)[0] > 0
    )
    assert count(rules, observation)[0] == (possible if possible else ended)


def test_a_noisy_game_fires_again_and_ends_when_every_ship_cell_was_fired_at():
    rules = Rules(3, 3, (Ship.line("Boat", "B", 2),), sinks=Sinks.NONE, noise=Noise(0.3))
    game = Game(Layout(rules, (0b11,)), seed=4)
    answers = [game.fire(0).outcome for _ in range(12)]  # the same cell again and again
    assert Outcome.HIT in answers and Outcome.MISS in answers  # 0.3: both, from this seed
    assert not game.over
    game.fire(1)
    assert game.over
    with pytest.raises(BattleshipError, match="over"):
        game.fire(2)


def test_noise_rules_read_back_and_refuse_in_one_line():
    rules = preset("noisy")
    assert from_toml(rules.to_toml()) == rules and rules.flip == 0.05
    assert rules.honest() == replace(preset("standard"), name="noisy")
    for toml, said in (
        ("[noise]\nflip = 0.5", "from 0 up to"),
        ("[noise]\nflip = 0.1\nsinkings = 'loud'", "truthful | noisy"),
        ("[noise]\nsinkings = 'noisy'", "needs flip"),
        ("[noise]\nflip = 0.1\n[hider]\nkind = 'adversarial'", "cannot go together"),
        ("[noise]\nflip = 0.1\n[salvo]\nshots = 3\nanswers = 'count'", 'use answers = "each"'),
        ("[hider]\nkind = 'sneaky'", "honest"),
        ("[hider]\nplay = 'clever'", "greedy | minimax"),
    ):
        with pytest.raises(RulesError, match=said) as caught:
            from_toml('[[ship]]\nname = "A"\nsymbol = "A"\nlength = 2\n' + toml, "r.toml")
        assert "\n" not in str(caught.value)


def test_a_noisy_game_needs_a_seed_and_play_gives_it_one_from_the_game_stream():
    rules = preset("noisy")
    layout = Layout.from_text(
        "CCCCC...../BBBB....../DDD......./SSS......./PP......../........../........../........../........../..........",
        rules,
    )
    with pytest.raises(BattleshipError, match="seed"):
        Game(layout)
    from battleship.rng import game_rng

    one = play(make("random"), layout, game_rng(3, 1))
    two = play(make("random"), layout, game_rng(3, 1))
    assert one == two and len(one.shots) >= rules.ship_cells


def test_evidence_refuses_noise_saying_where_it_is_read():
    rules = preset("noisy")
    from battleship.inference import evidence

    with pytest.raises(BattleshipError, match="weigh layouts"):
        evidence(rules, Observation(rules))


def test_every_spacing_rule_weighs_the_same_way_on_a_fixed_board():
    for spacing in Spacing:
        rules = Rules(
            4, 4, (Ship.line("A", "A", 3), Ship.line("B", "B", 2)), spacing, Sinks.NAMED, noise=Noise(0.1)
        )
        shots = (Shot(5, Outcome.HIT), Shot(6, Outcome.MISS), Shot(5, Outcome.HIT), Shot(0, Outcome.MISS))
        observation = Observation(rules, shots)
        total, cells = brute_noisy(rules, observation)
        assert np.allclose(posterior(observation).probability.ravel(), np.array(cells) / total, rtol=1e-9)
