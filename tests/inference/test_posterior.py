"""The exact engine against brute force: every layout replayed against the shots."""

import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battleship import generators
from battleship.cells import cell_name
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome, Shot
from battleship.inference import Contradiction, posterior
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, preset
from battleship.tables import tables
from tests.helpers import brute_force_layouts, small_rules


def replays(rules: Rules, masks: tuple[int, ...], observation: Observation) -> bool:
    """True when the layout ``masks`` answers every shot of ``observation`` as observed."""
    game = Game(Layout(rules, masks))
    for shot in observation.shots:
        if game.over:
            return False
        if game.fire(shot.cell) != shot:
            return False
    return True


def brute_posterior(rules: Rules, observation: Observation) -> tuple[int, np.ndarray]:
    """Count consistent layouts and per-placement counts by replaying every layout."""
    t = tables(rules)
    index = {(s, m): t.start[s] + i for s, ms in enumerate(rules.placements) for i, m in enumerate(ms)}
    counts = np.zeros(len(t.masks), dtype=np.int64)
    total = 0
    for masks in brute_force_layouts(rules):
        if replays(rules, masks, observation):
            total += 1
            for s, m in enumerate(masks):
                counts[index[s, m]] += 1
    return total, counts


def brute_weighted(rules: Rules, observation: Observation, prior: np.ndarray) -> tuple[float, np.ndarray]:
    """The prior-weighted total and per-placement weights, by replaying every layout."""
    t = tables(rules)
    index = {(s, m): t.start[s] + i for s, ms in enumerate(rules.placements) for i, m in enumerate(ms)}
    total = 0.0
    counts = np.zeros(len(t.masks))
    for masks in brute_force_layouts(rules):
        if replays(rules, masks, observation):
            w = float(np.prod([prior[index[s, m]] for s, m in enumerate(masks)]))
            total += w
            for s, m in enumerate(masks):
                counts[index[s, m]] += w
    return total, counts


@st.composite
def observed_games(draw, max_side: int = 5, max_ships: int = 3):
    """Small rules, a hidden layout, and the answers to a random prefix of shots at it."""
    rules = draw(small_rules(max_side=max_side, max_ships=max_ships))
    seed = draw(st.integers(0, 2**32))
    layout = generators.generate(rules, "uniform", seed, 1)[0]
    order = np.random.default_rng(seed).permutation(rules.cells)
    game = Game(layout)
    shots = draw(st.integers(0, rules.cells))
    for cell in order[:shots]:
        if game.over:
            break
        game.fire(int(cell))
    return rules, game.observation


@settings(max_examples=150, deadline=None)
@given(observed_games())
def test_posterior_matches_brute_force_replay(case):
    rules, observation = case
    expected_total, expected_counts = brute_posterior(rules, observation)
    result = posterior(rules, observation)
    assert result.layouts == expected_total
    assert (result.placement_layouts == expected_counts).all()


@settings(max_examples=80, deadline=None)
@given(observed_games(), st.data())
def test_a_tampered_observation_is_counted_or_refused_exactly(case, data):
    rules, observation = case
    if not observation.shots:
        return
    i = data.draw(st.integers(0, len(observation.shots) - 1))
    shot = observation.shots[i]
    outcome = data.draw(st.sampled_from(list(Outcome)))
    ship = data.draw(st.integers(0, len(rules.fleet) - 1))
    tampered = Shot(
        shot.cell,
        outcome,
        ship if rules.sinks in (Sinks.NAMED, Sinks.REVEALED) and outcome is Outcome.SUNK else None,
    )
    if rules.sinks is Sinks.REVEALED and outcome is Outcome.SUNK:
        return  # revealed cells would need inventing too
    shots = (*observation.shots[:i], tampered, *observation.shots[i + 1 :])
    changed = Observation(rules, shots)
    expected_total, _ = brute_posterior(rules, changed)
    if expected_total == 0:
        with pytest.raises(Contradiction):
            posterior(rules, changed)
    else:
        assert posterior(rules, changed).layouts == expected_total


def test_the_open_standard_board_probabilities_sum_to_the_fleet():
    rules = Rules(6, 6, preset("standard").fleet[2:])
    result = posterior(rules)
    assert result.probability.sum() == pytest.approx(rules.ship_cells)


def test_a_contradiction_says_what_is_wrong():
    rules = Rules(4, 4, (Ship.line("Three", "T", 3),), sinks=Sinks.NAMED)
    shots = (Shot(0, Outcome.HIT), Shot(1, Outcome.SUNK, 0))
    with pytest.raises(Contradiction, match="Three"):
        posterior(rules, Observation(rules, shots))
    with pytest.raises(BattleshipError, match="second time"):
        posterior(rules, Observation(rules, (Shot(0, Outcome.MISS), Shot(0, Outcome.MISS))))


def test_the_open_standard_board_has_the_published_count():
    from battleship.inference import count

    # 30,093,975,536: the figure of 001 and 002 (labelled ships: the two 3-ships are distinct)
    assert count(preset("standard")) == (30_093_975_536, "rows")


def test_the_search_engine_and_the_row_engine_agree_mid_game():
    from battleship.inference import count_by_rows, count_by_search, evidence

    rules = Rules(6, 6, preset("standard").fleet[1:], sinks=Sinks.NAMED)
    layout = generators.generate(rules, "uniform", 11, 1)[0]
    game = Game(layout)
    for cell in np.random.default_rng(11).permutation(rules.cells)[:14]:
        if game.over:
            break
        game.fire(int(cell))
        ev = evidence(rules, game.observation)
        rows_total, rows_counts = count_by_rows(rules, ev)
        search_total, search_counts = count_by_search(rules, ev)
        assert rows_total == search_total
        assert (rows_counts == search_counts).all()


def test_count_command_prints_both_conventions():
    import json

    from typer.testing import CliRunner

    from battleship.cli import app

    out = json.loads(CliRunner().invoke(app, ["count", "--sizes", "6..7", "--json"]).stdout)
    assert [row["rules"] for row in out] == ["square-6", "square-7"]
    assert all(row["identical"] * 2 == row["distinct"] for row in out)  # the two 3-ships swap


def board_fits(board, masks) -> bool:
    """The order-free reading of a board state, written out plainly."""
    rules = board.rules
    covered = 0
    for m in masks:
        covered |= m
    if covered & board.misses or board.hits & ~covered:
        return False
    marks = dict(board.sunk_at)
    full = [m & ~board.hits == 0 for m in masks]
    if rules.sinks is Sinks.NAMED:
        return all(
            (full[s] and masks[s] >> marks_of[s] & 1) if s in marks_of else not full[s]
            for marks_of in [{ship: cell for cell, ship in board.sunk_at}]
            for s in range(len(masks))
        )
    if rules.sinks is Sinks.SUNK:
        for s, m in enumerate(masks):
            inside = [c for c in marks if m >> c & 1]
            if full[s] != (len(inside) == 1) or len(inside) > 1:
                return False
        return True
    if rules.sinks is Sinks.REVEALED:
        shown = dict(board.revealed)
        return all(masks[s] == shown[s] if s in shown else not full[s] for s in range(len(masks)))
    return True


@settings(max_examples=100, deadline=None)
@given(observed_games())
def test_a_board_state_means_what_it_shows(case):
    from battleship.notation import board_state

    rules, observation = case
    board = board_state(observation)
    expected = sum(1 for masks in brute_force_layouts(rules) if board_fits(board, masks))
    assert posterior(rules, board.observation()).layouts == expected


def test_monte_carlo_agrees_with_the_exact_answer():
    from battleship.inference.sampling import monte_carlo

    rules = preset("standard")
    layout = generators.generate(rules, "uniform", 5, 1)[0]
    game = Game(layout)
    for cell in np.random.default_rng(5).permutation(100)[:30]:
        if game.over:
            break
        game.fire(int(cell))
    exact = posterior(rules, game.observation).probability
    estimate = monte_carlo(rules, game.observation, seconds=0.5, seed=1)
    assert estimate.samples >= 8
    z = np.abs(estimate.probability - exact) / np.maximum(estimate.standard_error, 1 / estimate.samples)
    assert z.max() < 5


@settings(max_examples=60, deadline=None)
@given(observed_games(), st.integers(0, 2**32), st.booleans())
def test_a_prior_per_placement_is_exact_against_brute_force(case, seed, as_float):
    rules, observation = case
    t = tables(rules)
    rng = np.random.default_rng(seed)
    prior = rng.random(len(t.masks)) * 3 if as_float else rng.integers(0, 4, len(t.masks))
    total, counts = brute_weighted(rules, observation, prior)
    if total == 0:
        with pytest.raises(Contradiction):
            posterior(rules, observation, prior=prior)
        return
    result = posterior(rules, observation, prior=prior)
    assert result.layouts == pytest.approx(total, rel=1e-9)
    assert np.allclose(result.placement_layouts, counts, rtol=1e-9, atol=1e-9)
    if not as_float:
        assert result.layouts == int(total)


@pytest.mark.parametrize("name", ["standard", "pirates"])
def test_boards_with_misses_only_are_kept_and_answer_as_if_computed_afresh(name):
    rules = preset(name)
    rng = np.random.default_rng(5)
    prior = rng.integers(1, 4, size=len(tables(rules).masks)).astype(np.int64)
    misses = [int(c) for c in rng.choice(rules.cells, size=6, replace=False)]
    observation = Observation(rules, tuple(Shot(c, Outcome.MISS) for c in misses))
    reordered = Observation(rules, tuple(Shot(c, Outcome.MISS) for c in reversed(misses)))
    for weights in (None, prior):
        kept = posterior(rules, observation, prior=weights)
        assert posterior(rules, reordered, prior=weights) is kept  # the same missed cells: the kept answer
        fresh = posterior(rules, observation, prior=weights, cached=False)
        assert kept.layouts == fresh.layouts
        assert np.array_equal(kept.placement_layouts, fresh.placement_layouts)
        assert not kept.placement_layouts.flags.writeable  # shared, so nobody may change it
    uniform, weighted = posterior(rules, observation), posterior(rules, observation, prior=prior)
    assert uniform.layouts != weighted.layouts  # a prior is a different answer, kept apart


# --- the front door: posterior(observation), the answer knows its board ---------------------------


def _small_board():
    rules = Rules(4, 4, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)))
    game = Game(Layout(rules, (rules.placements[0][0], rules.placements[1][-1])))
    for target in ("A1", "d4", (2, 2)):
        game.fire(target)
    return rules, game.observation


def test_the_observation_is_enough_and_the_answer_knows_it():
    import battleship as bs

    rules, observation = _small_board()
    answer = bs.posterior(observation)
    total, _ = brute_posterior(rules, observation)
    assert answer.layouts == total == posterior(rules, observation).layouts
    assert answer.observation is observation
    unshot = [c for c in range(rules.cells) if not observation.is_shot(c)]
    top = max(answer.probability.ravel()[c] for c in unshot)
    assert answer.best() == [c for c in unshot if answer.probability.ravel()[c] == top]
    assert answer.best() == answer.best(observation)
    assert answer["B2"] == answer[(1, 1)] == answer[5] == pytest.approx(answer.probability[1, 1])
    assert bs.posterior(rules).layouts == posterior(rules).layouts  # the rules alone: the open board
    with pytest.raises(BattleshipError, match="one observation"):
        bs.posterior(observation, observation)


def test_the_old_rules_and_observation_form_warns_and_still_answers():
    import battleship as bs

    rules, observation = _small_board()
    with pytest.warns(DeprecationWarning, match=r"call|posterior\(observation\)"):
        old = bs.posterior(rules, observation)
    assert old.layouts == bs.posterior(observation).layouts
    with pytest.warns(DeprecationWarning), pytest.raises(BattleshipError, match="not 'standard'"):
        bs.posterior(preset("standard"), observation)
    with pytest.warns(DeprecationWarning, match=r"count\(observation\)"):
        assert bs.count(rules, observation).distinct == bs.count(observation).distinct == old.layouts


def test_a_slow_answer_is_said_before_it_starts(monkeypatch):
    import battleship as bs
    from battleship.inference import cost

    _, observation = _small_board()
    monkeypatch.setattr(cost, "exact_seconds", lambda *_a, **_k: 3600.0)
    with pytest.warns(bs.SlowWarning, match="expected to take about 60 min"):
        bs.posterior(observation)
    monkeypatch.setattr(cost, "exact_seconds", lambda *_a, **_k: 0.01)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bs.posterior(observation)  # quick: nothing said


def test_a_board_with_misses_only_names_them_in_cell_order_whatever_their_order():
    rules = preset("standard")
    shots = tuple(Shot(c, Outcome.MISS) for c in (57, 3, 31))
    answer = posterior(Observation(rules, shots))
    assert [s.cell for s in answer.observation.shots] == [3, 31, 57]
    assert posterior(Observation(rules, shots[::-1])) is answer
    assert answer.best() == answer.best(Observation(rules, shots))


def test_the_repr_is_short_and_the_heat_map_is_svg():
    import xml.etree.ElementTree as ET

    rules, observation = _small_board()
    answer = posterior(observation)
    text = repr(answer)
    assert len(text) < 160 and f"{answer.layouts:,} layouts" in text and "3 shots" in text
    best = answer.best()
    assert f"best {cell_name(best[0], rules)}" in text
    root = ET.fromstring(answer._repr_svg_())
    rects = [e.get("class") for e in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert rects.count("cell") == rules.cells and rects.count("scale") == 1
    assert rects.count("frame") == len(best)


def test_the_best_cells_print_as_their_names_and_are_still_the_indices():
    rules = preset("standard")
    answer = posterior(Observation(rules, (Shot(44, Outcome.MISS),)))
    best = answer.best()
    assert repr(best) == "[F6]" and str(best[0]) == "F6" and f"{best[0]}" == "F6"
    assert best == [55] and best[0] + 1 == 56 and {55: "here"}[best[0]] == "here"
    assert answer.probability.ravel()[best[0]] == answer["F6"]
    assert pickle.loads(pickle.dumps(best)) == best and repr(pickle.loads(pickle.dumps(best))) == "[F6]"
    assert json.dumps(best) == "[55]"  # JSON and the engines read the index


def test_once_every_cell_is_shot_there_is_no_best_cell():
    rules = Rules(2, 2, (Ship.line("Destroyer", "D", 2),))
    game = Game(Layout(rules, (rules.placements[0][0],)))
    board = Observation(rules, tuple(Shot(c, Outcome.MISS) for c in (2, 3)))
    answer = posterior(board)
    assert answer.best() == [0, 1]
    game.fire(0)
    game.fire(1)
    assert posterior(game.observation).best() == [2, 3]
    assert "best" not in repr(
        posterior(Observation(rules, (Shot(2, Outcome.MISS), Shot(3, Outcome.MISS), *game.observation.shots)))
    )
