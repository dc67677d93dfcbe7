"""A ship-by-ship generator's exact layout law, checked against its draws and brute force on small boards."""

from fractions import Fraction

import numpy as np
import pytest

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, play
from battleship.inference import likelihood
from battleship.rules import Rules, Ship, Sinks, Spacing
from battleship.shooters import make
from battleship.tables import tables
from tests.helpers import brute_force_layouts, chi2_upper
from tests.inference.test_posterior import replays

FLEET = (Ship.line("A", "A", 2), Ship.line("B", "B", 2), Ship.line("C", "C", 1))
# no contact on 4x4: the contest generator can box its last ship in (an attempt completes 23 times in 24;
# the rest start again)
BOXED = Rules(4, 4, (FLEET[0], Ship.line("B", "B", 1), FLEET[2]), Spacing.NO_CONTACT)
# 3x4 (not square: the contest's two directions have supports of different sizes), ships may touch
OPEN = Rules(3, 4, FLEET)


def _rows(rules: Rules) -> np.ndarray:
    """Every valid layout, as rows of placement indices (brute force)."""
    t = tables(rules)
    index = [{m: int(t.start[s]) + i for i, m in enumerate(ms)} for s, ms in enumerate(rules.placements)]
    return np.array([[index[s][m] for s, m in enumerate(layout)] for layout in brute_force_layouts(rules)])


def _literal_law(rules: Rules, generator: str, row: np.ndarray) -> Fraction:
    """The product of the process, straight from the draw plan, in exact fractions (no retry cap)."""
    plan, t = generators.plan(rules, generator), tables(rules)
    placed: list[int] = []
    out = Fraction(1)
    for s, p in enumerate(row):
        groups = range(int(plan.ship_groups[s]), int(plan.ship_groups[s + 1]))
        chance: dict[int, Fraction] = {}
        for g in groups:
            begin, count = int(plan.group_start[g]), int(plan.group_count[g])
            for m in plan.members[begin : begin + count]:
                chance[int(m)] = chance.get(int(m), Fraction(0)) + Fraction(1, len(groups) * count)
        legal = {
            q: c for q, c in chance.items() if all(not t.masks[q] & rules.halo(t.masks[o]) for o in placed)
        }
        if int(p) not in legal:
            return Fraction(0)
        out *= legal[int(p)] / sum(legal.values())
        placed.append(int(p))
    return out


@pytest.mark.parametrize("rules", [BOXED, OPEN], ids=["boxed", "open"])
@pytest.mark.parametrize("generator", ["contest", "sequential", "r-blog"])
def test_the_law_is_the_process_written_out(rules, generator):
    if generator == "r-blog" and rules.spacing is not Spacing.TOUCH:
        pytest.skip("r-blog lets ships touch only")
    rows = _rows(rules)
    got = np.exp(likelihood.log_weights(rules, generator, rows))
    want = np.array([float(_literal_law(rules, generator, row)) for row in rows])
    assert np.allclose(got, want, rtol=1e-12, atol=0)


def test_the_law_sums_to_one_where_no_ship_can_be_boxed_in_and_below_where_one_can():
    for generator in ("contest", "sequential", "r-blog"):
        assert np.exp(likelihood.log_weights(OPEN, generator, _rows(OPEN))).sum() == pytest.approx(
            1, abs=1e-12
        )
    rows = _rows(BOXED)
    boxed = np.exp(likelihood.log_weights(BOXED, "contest", rows)).sum()
    completes = sum(_literal_law(BOXED, "contest", row) for row in rows)  # an attempt's chance to finish
    assert completes < 1 and boxed == pytest.approx(float(completes), abs=1e-12)


@pytest.mark.parametrize(
    ("rules", "generator"),
    [(BOXED, "contest"), (BOXED, "sequential"), (OPEN, "contest"), (OPEN, "sequential"), (OPEN, "r-blog")],
    ids=["boxed-contest", "boxed-sequential", "open-contest", "open-sequential", "open-r-blog"],
)
def test_the_generators_draws_follow_the_law(rules, generator):
    """Chi-square of 30 draws per layout of the generator against the law (normalised), every layout."""
    rows = _rows(rules)
    law = np.exp(likelihood.log_weights(rules, generator, rows))
    law /= law.sum()
    assert law.sum() == pytest.approx(1)
    key = {tuple(int(p) for p in row): i for i, row in enumerate(rows)}
    draws = 30 * len(rows)
    drawn = generators.draw(rules, generator, 2026, draws)
    counts = np.bincount([key[tuple(int(p) for p in row)] for row in drawn], minlength=len(rows))
    assert counts[law == 0].sum() == 0  # never a layout the law calls impossible
    expected = draws * law[law > 0]
    stat = float(((counts[law > 0] - expected) ** 2 / expected).sum())
    assert stat < chi2_upper(int((law > 0).sum()) - 1), stat


def _brute_posterior(rules: Rules, generator: str, observation: Observation) -> np.ndarray:
    """Per cell, the law's probability of a ship there given the shots (every layout replayed)."""
    rows = _rows(rules)
    law = np.exp(likelihood.log_weights(rules, generator, rows))
    t = tables(rules)
    cells = np.zeros(rules.cells)
    for row, w in zip(rows, law, strict=True):
        if w and replays(rules, tuple(t.masks[p] for p in row), observation):
            for p in row:
                cells[t.cell_list[p, : t.size[t.ship_of[p]]]] += w
    return cells / cells.max() if cells.max() else cells


@pytest.mark.parametrize("shots", [0, 3, 8])
def test_importance_weights_tend_to_the_exact_posterior_under_the_law(shots):
    rules = Rules(5, 5, (Ship.line("D", "D", 3), *FLEET[1:]), Spacing.NO_CONTACT, Sinks.NONE)
    layout = generators.generate(rules, "contest", 5, 1)[0]
    game = Game(layout)
    for cell in np.random.default_rng(7).permutation(rules.cells)[:shots]:
        game.fire(int(cell))
    brute = _brute_posterior(rules, "contest", game.observation)
    got = likelihood.importance(rules, game.observation, "contest", 20_000, seed=3)
    assert got.effective > 5_000
    # each ship's cells: the weights over all layouts, so each cell's share is its probability times the ships
    estimate = got.cells / got.cells.max()
    assert np.abs(estimate - brute).max() < 0.05


def test_only_ship_by_ship_generators_have_an_exact_prior():
    assert likelihood.split_prior("contest-exact") == ("contest", "exact")
    assert likelihood.split_prior("contest-weights") == ("contest", "weights")
    assert likelihood.split_prior("contest") == ("contest", "")
    for bad in ("uniform-exact", "edge-exact", "nonsense-exact"):
        with pytest.raises(BattleshipError, match="exact layout law is known for the ship-by-ship"):
            likelihood.split_prior(bad)
    with pytest.raises(BattleshipError, match="exact layout law is known"):
        make("optimal:prior=uniform-exact")


def test_shooters_that_weigh_placements_refuse_an_exact_prior_clearly():
    shooter = make("trial-sink:prior=contest-exact")
    with pytest.raises(BattleshipError, match="played by optimal only"):
        shooter.reset(BOXED, np.random.default_rng(0))


def test_optimal_under_the_exact_prior_sinks_every_ship_and_replays_its_seed():
    rules = Rules(6, 6, FLEET, Spacing.NO_CONTACT, Sinks.NONE)
    layout = generators.generate(rules, "contest", 11, 1)[0]

    def shots(seed: int) -> list[int]:
        shooter = make("optimal:prior=contest-exact,samples=2000")
        shooter.reset(rules, np.random.default_rng(seed))
        game = Game(layout)
        while not game.over and len(game.observation.shots) < rules.cells:
            game.fire(shooter.next_shot(game.observation))
        assert game.over
        return [s.cell for s in game.observation.shots]

    assert shots(4) == shots(4)


def test_a_layout_the_generator_never_draws_is_still_played_to_the_end():
    rules = Rules(5, 5, (Ship.line("D", "D", 3), *FLEET[1:]), Spacing.NO_CONTACT, Sinks.NONE)
    rows = generators.draw(rules, "uniform", 8, 50)
    never = rows[np.isneginf(likelihood.log_weights(rules, "contest", rows))][0]
    shooter = make("optimal:prior=contest-exact,samples=500")
    shooter.reset(rules, np.random.default_rng(1))
    game = Game(generators.to_layout(rules, never))
    while not game.over and len(game.observation.shots) < rules.cells:
        game.fire(shooter.next_shot(game.observation))
    assert game.over


def test_rules_the_exact_prior_cannot_play_are_refused_at_the_start():
    margin = Rules(5, 5, FLEET, Spacing.NO_CONTACT)
    with pytest.raises(BattleshipError, match="r-blog generator lets ships touch"):
        make("optimal:prior=r-blog-exact").reset(margin, np.random.default_rng(0))
    bent = Rules(4, 4, (Ship("T", "T", ((0, 0), (0, 1), (1, 1))), Ship.line("B", "B", 2)))
    with pytest.raises(BattleshipError, match="straight ships"):
        make("optimal:prior=contest-exact").reset(bent, np.random.default_rng(0))


def test_a_plain_contest_prior_is_its_exact_law_wherever_the_rules_allow():
    margin = Rules(5, 5, FLEET, Spacing.NO_CONTACT)
    bent = Rules(4, 4, (Ship("T", "T", ((0, 0), (0, 1), (1, 1))), Ship.line("B", "B", 2)))
    assert likelihood.plays_law(margin, "contest")
    # measured behind its weights: the sequential generator's law only when asked for by name
    assert not likelihood.plays_law(margin, "sequential") and likelihood.plays_law(margin, "sequential-exact")
    assert likelihood.plays_law(margin, "contest-exact")
    assert not likelihood.plays_law(margin, "contest-weights")
    assert not likelihood.plays_law(margin, "r-blog")  # the R study's generator lets ships touch
    assert not likelihood.plays_law(bent, "contest")  # the law's sampler takes straight ships only
    assert not likelihood.plays_law(margin, "edge")  # no ship-by-ship law known
    assert not likelihood.plays_law(margin, "")


def test_optimal_under_a_plain_generator_prior_plays_exactly_as_under_its_exact_law():
    rules = Rules(6, 6, FLEET, Spacing.NO_CONTACT, Sinks.NONE)
    layout = generators.generate(rules, "contest", 12, 1)[0]
    played = {}
    for prior in ("contest", "contest-exact"):
        shooter = make(f"optimal:prior={prior},samples=300")
        played[prior] = [s.cell for s in play(shooter, layout, np.random.default_rng(3)).shots]
    assert played["contest"] == played["contest-exact"]
