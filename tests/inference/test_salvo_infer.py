"""Salvos answered whole ("ships", "count") as evidence: exact counts, posteriors and samples against
layouts enumerated and replayed by the referee, under every spacing and sink rule."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from battleship.errors import BattleshipError, NotationError
from battleship.game import Game, Observation, Volley
from battleship.inference import Contradiction, count, evidence, posterior
from battleship.inference.evidence import GlobalEvidence
from battleship.inference.posterior import work
from battleship.inference.salvos import TooManyParts, parts, read
from battleship.inference.sampling import draw, draw_by_rejection, monte_carlo, sample
from battleship.layout import Layout
from battleship.rules import Answers, Rules, Salvo, Ship, Sinks, Spacing, preset
from battleship.tables import tables
from tests.brute import layouts as brute_layouts

ELL = ((0, 0), (1, 0), (1, 1))


@st.composite
def salvo_rules(draw_: st.DrawFn) -> Rules:
    """4x4 to 4x5 boards, two or three small ships (straight, and at times an L tromino), every
    spacing and sink rule, answers by ship or by count, two to four shots a salvo."""
    fleet = [
        Ship.line("Boat A", "A", draw_(st.integers(1, 3))),
        Ship.line("Boat B", "B", draw_(st.integers(1, 2))),
    ]
    if draw_(st.booleans()):
        fleet.append(Ship("Ell", "C", ELL) if draw_(st.booleans()) else Ship.line("Boat C", "C", 2))
    try:
        return Rules(
            4,
            draw_(st.integers(4, 5)),
            tuple(fleet),
            draw_(st.sampled_from(list(Spacing))),
            draw_(st.sampled_from(list(Sinks))),
            salvo=Salvo(draw_(st.integers(2, 4)), draw_(st.sampled_from(list(Answers)))),
        )
    except BattleshipError:
        assume(False)
        raise


def _play(rules: Rules, masks: tuple[int, ...], order: list[int], sizes: list[int]) -> Observation:
    """The referee's answers to salvos of ``sizes`` cells taken in ``order`` (stopping when the game ends)."""
    game = Game(Layout(rules, masks))
    at = 0
    for size in sizes:
        if game.over or at >= len(order):
            break
        game.fire_salvo(order[at : at + size])
        at += size
    return game.observation


def _replayed(rules: Rules, masks: tuple[int, ...], volleys: tuple[Volley, ...]) -> tuple[Volley, ...] | None:
    """The referee's answers on ``masks`` to the cells of ``volleys``, or None if that game ends first."""
    game = Game(Layout(rules, masks))
    for volley in volleys:
        if game.over:
            return None
        game.fire_salvo(volley.cells)
    return game.observation.volleys


def _reference(rules: Rules, every: list[tuple[int, ...]], volleys: tuple[Volley, ...]):
    """The layouts whose replay gives exactly ``volleys``, and per cell how many of them cover it."""
    keep = [m for m in every if _replayed(rules, m, volleys) == volleys]
    cells = np.zeros(rules.cells, dtype=np.int64)
    for masks in keep:
        for mask in masks:
            for c in range(rules.cells):
                cells[c] += mask >> c & 1
    return keep, cells.reshape(rules.rows, rules.cols)


@st.composite
def salvo_games(draw_: st.DrawFn):
    """Rules, every layout, and the salvos fired at one of them (the game not always finished)."""
    rules = draw_(salvo_rules())
    every = brute_layouts(rules, cap=4000)
    assume(every)
    truth = every[draw_(st.integers(0, len(every) - 1))]
    order = draw_(st.permutations(range(rules.cells)))
    sizes = draw_(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    return rules, every, _play(rules, truth, list(order), sizes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(salvo_games())
def test_salvos_answered_whole_agree_with_the_replayed_layouts(case) -> None:
    rules, every, observation = case
    keep, cells = _reference(rules, every, observation.volleys)
    found = posterior(observation)
    assert found.layouts == len(keep)
    assert (found.cell_layouts == cells).all()
    assert count(rules, observation)[0] == len(keep)
    # the board-state text says all of it (shot by shot, it drops the order, as in the one-shot game)
    again = Observation.from_text(observation.text(), rules)
    assert again.text() == observation.text()
    if not rules.answered_each:
        assert posterior(again).layouts == len(keep)
    # exact samples are consistent layouts
    t = tables(rules)
    allowed = {tuple(sorted(m)) for m in keep}
    for rows in (draw(rules, observation, 20, seed=3), sample(rules, observation, 5, seed=1)):
        assert len(rows) > 0
        for row in rows:
            assert tuple(sorted(int(t.masks[p]) for p in row)) in allowed


@pytest.mark.parametrize("sinks", [Sinks.NONE, Sinks.SUNK, Sinks.NAMED])
def test_exact_draws_over_the_hit_patterns_are_uniform(sinks: Sinks) -> None:
    """The exact sampler over hit patterns (each pattern counted, then drawn from) gives every
    consistent layout its share: a chi-square test on small supports."""
    from battleship.inference.sampling import _draw_by_parts
    from tests.helpers import chi2_upper

    rules = Rules(
        4, 4, (Ship.line("A", "A", 2), Ship("Ell", "C", ELL)), sinks=sinks, salvo=Salvo(3, Answers.COUNT)
    )
    every = brute_layouts(rules)
    for seed in range(200):  # the first game whose salvos leave a small support split into patterns
        observation = _counted(rules, every, seed)
        sev = read(rules, observation)
        keep, _ = _reference(rules, every, observation.volleys)
        if sev.is_global and len(list(parts(rules, sev))) > 1 and 3 <= len(keep) <= 20:
            break
    else:
        pytest.fail("no small global case among 200 games")
    n = 60 * len(keep)
    rows = _draw_by_parts(rules, sev, n, seed, None)
    t = tables(rules)
    index = {tuple(m): i for i, m in enumerate(keep)}
    seen = np.bincount([index[tuple(int(t.masks[p]) for p in row)] for row in rows], minlength=len(keep))
    expected = n / len(keep)
    chi2 = float(((seen - expected) ** 2 / expected).sum())
    assert chi2 < chi2_upper(len(keep) - 1)


def _counted(rules: Rules, every, seed: int) -> Observation:
    """Salvos of 3 cells answered by a count on a random layout, until a salvo hits partly."""
    rng = random.Random(seed)
    truth = every[rng.randrange(len(every))]
    order = list(range(rules.cells))
    rng.shuffle(order)
    return _play(rules, truth, order, [3, 3, 3])


def test_counts_are_global_evidence_the_per_placement_reader_refuses() -> None:
    rules = Rules(
        4,
        4,
        (Ship.line("A", "A", 2), Ship.line("B", "B", 3)),
        sinks=Sinks.NONE,
        salvo=Salvo(3, Answers.COUNT),
    )
    volley = Volley((0, 1, 2), hits=1)
    observation = Observation(rules, (), (volley,))
    with pytest.raises(GlobalEvidence, match="constrains whole layouts"):
        evidence(rules, observation)
    sev = read(rules, observation)
    assert sev.is_global and len(list(parts(rules, sev))) == 3  # the hit is A1, A2 or A3
    with pytest.raises(TooManyParts, match="more than 2"):
        list(parts(rules, sev, limit=2))
    assert work(rules, observation).detail.startswith("3 hit patterns")
    # no-hit and every-hit salvos are plain misses and hits
    plain = Observation(rules, (), (Volley((0, 1, 2), hits=0), Volley((5, 6, 7), hits=3)))
    assert evidence(rules, plain).hits == 0b11100000


@pytest.mark.parametrize(
    ("answers", "volleys", "said"),
    [
        (Answers.COUNT, (Volley((0, 1), hits=3),), "salvo 1 fires 2 shots but is answered 3 hits"),
        (Answers.COUNT, (Volley((0, 1), hits=1), Volley((1, 2), hits=0)), "salvo 2 fires at A2 again"),
        (
            Answers.COUNT,
            (Volley((0, 1, 2, 3), hits=4), Volley((4, 5), hits=2)),
            "salvo 2 brings the hits to 6",
        ),
        (
            Answers.COUNT,
            (Volley((0, 1, 2, 3, 4), hits=5), Volley((6,), hits=0)),
            "game was over before salvo 2",
        ),
        (
            Answers.SHIPS,
            (Volley((0, 1, 2), hits=3, ship_hits=(3, 0)),),
            "salvo 1 hits the A for the 3th time",
        ),
        (Answers.SHIPS, (Volley((0, 1), hits=1, ship_hits=(0, 2)),), "add up to 2, not 1"),
        (Answers.COUNT, (Volley((0, 1, 4, 5), hits=4),), "after salvo 1 (A1,A2,B1,B2, 4 hits) none is left"),
    ],
)
def test_contradictions_name_the_salvo(answers: Answers, volleys, said: str) -> None:
    rules = Rules(
        4,
        4,
        (Ship.line("A", "A", 2), Ship.line("B", "B", 3)),
        Spacing.NO_CONTACT,
        Sinks.NONE,
        salvo=Salvo(3, answers),
    )
    with pytest.raises(Contradiction, match=re.escape(said)):
        posterior(Observation(rules, (), volleys))


def test_a_sinking_the_hits_do_not_make_is_refused() -> None:
    rules = Rules(
        4,
        4,
        (Ship.line("A", "A", 2), Ship.line("B", "B", 3)),
        sinks=Sinks.NAMED,
        salvo=Salvo(3, Answers.SHIPS),
    )
    volley = Volley((0, 1, 2), hits=2, ship_hits=(2, 0), sunk=(), sunk_count=0)
    with pytest.raises(Contradiction, match="salvo 1 announces 0 sinkings, but its hits complete 1 \\(A\\)"):
        count(rules, Observation(rules, (), (volley,)))


def test_monte_carlo_and_rejection_draws_read_counts() -> None:
    rules = Rules(
        4,
        5,
        (Ship.line("A", "A", 2), Ship.line("B", "B", 3)),
        sinks=Sinks.SUNK,
        salvo=Salvo(3, Answers.COUNT),
    )
    every = brute_layouts(rules)
    observation = _counted(rules, every, 4)
    exact = posterior(observation)
    estimate = monte_carlo(rules, observation, samples=4000, seed=2)
    assert np.abs(estimate.probability - exact.probability).max() < 6 * estimate.standard_error.max() + 1e-9
    keep, _ = _reference(rules, every, observation.volleys)
    t = tables(rules)
    allowed = {tuple(sorted(m)) for m in keep}
    rows = draw_by_rejection(rules, observation, 50, seed=1, tries=20_000)
    assert all(tuple(sorted(int(t.masks[p]) for p in row)) in allowed for row in rows)
    assert (draw(rules, observation, 30, seed=9) == draw(rules, observation, 30, seed=9)).all()


def test_salvo_board_text_errors_say_where() -> None:
    rules = preset("salvo-count")
    empty = "/".join(["." * 10] * 10)
    cases = [
        (empty + " | A1,A2=x", "line 1, column 119: salvo 1 ('A1,A2=x'): answer with the number of hits"),
        (empty + " | A1,Z9=1", "line 1, column 116: salvo 1 ('A1,Z9=1'): cell 'Z9'"),
        (empty + " | A1,A2=1", "line 1, column 1: A1 shows '.', but the salvos make it '?'"),
        (empty + " | A1,A2=1+#", "a sinking is '+' and one ship letter"),
        (empty + " | ", "no salvo follows '|'"),
        (empty + " | A1A2", "write a salvo as its cells, '=' and the answer"),
    ]
    for text, said in cases:
        with pytest.raises(NotationError, match=re.escape(said)):
            Observation.from_text(text, rules)
    with pytest.raises(NotationError, match="these rules answer every shot on its own"):
        Observation.from_text(empty + " | A1=1", preset("standard"))
    ships = preset("hits-named")
    with pytest.raises(NotationError, match="one ship letter of"):
        Observation.from_text(empty + " | A1=Q", ships)


def test_salvo_board_text_multiline_form() -> None:
    rules = preset("salvo-count")
    text = "\n".join(["???" + "." * 7] + ["." * 10] * 9) + "\n| A1,A2,A3=1"
    observation = Observation.from_text(text, rules)
    assert observation.volleys == (Volley((0, 1, 2), hits=1),)
    assert observation.text(multiline=True) == text
    assert observation.text() == "/".join(["???" + "." * 7] + ["." * 10] * 9) + " | A1,A2,A3=1"


def test_one_shot_and_each_answers_keep_their_text() -> None:
    rules = preset("salvo")
    game = Game(Layout(rules, brute_first(rules)))
    game.fire_salvo([0, 1, 2, 3, 4])
    assert "|" not in game.observation.text() and "?" not in game.observation.text()


def brute_first(rules: Rules) -> tuple[int, ...]:
    """The first layout in placement order that fits (a quick one for the standard board)."""
    from battleship import generators

    return generators.to_layout(rules, generators.draw(rules, "uniform", 1, 1)[0]).masks


@pytest.mark.parametrize("answers", [Answers.SHIPS, Answers.COUNT])
@pytest.mark.parametrize("sinks", list(Sinks))
@pytest.mark.parametrize("spacing", list(Spacing))
def test_every_spacing_and_sink_rule_agrees_with_the_replayed_layouts(spacing, sinks, answers) -> None:
    """Each rule combination for certain (the Hypothesis test above draws them): an L tromino and two
    boats on 4x4, two games of salvos of three until the fleet is sunk, every turn checked."""
    fleet = (Ship("Ell", "C", ELL), Ship.line("Boat A", "A", 2), Ship.line("Boat B", "B", 1))
    rules = Rules(4, 4, fleet, spacing, sinks, salvo=Salvo(3, answers))
    every = brute_layouts(rules, cap=100_000)
    rng = random.Random(f"{spacing.value}-{sinks.value}-{answers.value}")
    for _ in range(2):
        game = Game(Layout(rules, every[rng.randrange(len(every))]))
        order = list(range(rules.cells))
        rng.shuffle(order)
        while not game.over:
            game.fire_salvo([c for c in order if not game.observation.is_shot(c)][:3])
        volleys = game.observation.volleys
        replays = [_replayed_prefix(rules, m, volleys) for m in every]
        for k in range(1, len(volleys) + 1):
            keep = [m for m, r in zip(every, replays, strict=True) if r[:k] == volleys[:k]]
            found = posterior(Observation(rules, (), volleys[:k]))
            assert found.layouts == len(keep)
            cells = np.zeros(rules.cells, dtype=np.int64)
            for masks in keep:
                for c in range(rules.cells):
                    cells[c] += sum(mask >> c & 1 for mask in masks)
            assert (found.cell_layouts.ravel() == cells).all()


def _replayed_prefix(rules: Rules, masks: tuple[int, ...], volleys: tuple[Volley, ...]) -> tuple[Volley, ...]:
    """The referee's answers on ``masks`` to the salvos of ``volleys``, as many as its game lasts."""
    game = Game(Layout(rules, masks))
    for volley in volleys:
        if game.over:
            break
        game.fire_salvo(volley.cells)
    return game.observation.volleys
