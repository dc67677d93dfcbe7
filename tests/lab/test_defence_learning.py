"""Human-like generators against their exact law, placement models, and layouts that survive."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter

import numpy as np
import pytest
from typer.testing import CliRunner

from battleship import generators
from battleship.cli import app
from battleship.errors import BattleshipError, RulesError
from battleship.game import Observation, Outcome, play
from battleship.inference import posterior
from battleship.inference import prior as learning
from battleship.lab import defence
from battleship.rules import Rules, Ship, Sinks, Spacing, preset, square
from battleship.shooters import make, spec
from battleship.shooters.options import Options
from battleship.tables import tables
from tests.helpers import brute_force_layouts, chi2_upper

runner = CliRunner()


@pytest.mark.parametrize("name", ["edge", "clustered", "spread"])
def test_human_like_generators_follow_their_exact_law(name):
    rules = Rules(4, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)), sinks=Sinks.NAMED)
    t = tables(rules)
    index = {m: i for i, m in enumerate(t.masks)}
    layouts = brute_force_layouts(rules)
    strength = 2.5
    kind = generators.HUMAN[name]
    weight = {
        m: math.exp(
            strength
            * (generators.feature(kind, np.array([index[x] for x in m]), t.cell_list, t.size, 4, 4) - 1)
        )
        for m in layouts
    }
    draws = 40_000
    rows = generators.draw(rules, f"{name}:strength={strength}", 5, draws)
    seen = Counter(tuple(t.masks[p] for p in row) for row in rows)
    total = sum(weight.values())
    stat = sum((seen.get(m, 0) - draws * w / total) ** 2 / (draws * w / total) for m, w in weight.items())
    assert stat < chi2_upper(len(layouts) - 1)


def test_strength_moves_the_feature_and_bad_specs_are_named():
    rules = preset("standard")
    t = tables(rules)

    def mean_feature(spec):
        rows = generators.draw(rules, spec, 1, 3000)
        return np.mean([generators.feature(1, row, t.cell_list, t.size, 10, 10) for row in rows])

    assert mean_feature("uniform") < mean_feature("edge:strength=2") < mean_feature("edge:strength=6")
    for bad in ("edge:strength=-1", "edge:power=2", "uniform:strength=2", "corner", "edge:strength=x"):
        with pytest.raises(RulesError):
            generators.draw(rules, bad, 1, 1)


def test_a_model_round_trips_and_bad_files_say_what_is_wrong(tmp_path):
    rules = preset("standard")
    model = learning.fit(rules, generators.draw(rules, "edge", 1, 500))
    path = tmp_path / "model.json"
    learning.save(model, path)
    again = learning.load(path)
    assert again.rules == rules and (again.counts == model.counts).all() and again.layouts == 500
    data = json.loads(path.read_text())
    data["counts"]["Carrier"] = data["counts"]["Carrier"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(BattleshipError, match="Carrier"):
        learning.load(path)
    path.write_text("{not json")
    with pytest.raises(BattleshipError, match="not JSON"):
        learning.load(path)
    with pytest.raises(BattleshipError, match="cannot read"):
        learning.load(tmp_path / "missing.json")


@pytest.mark.slow
def test_the_fitted_prior_reproduces_the_smoothed_record_exactly():
    rules = square(6)
    records = generators.draw(rules, "edge:strength=3", 2, 4000)
    model = learning.fit(rules, records, smoothing=50)
    result = posterior(rules, prior=model.prior())
    frequency = result.placement_layouts / result.layouts
    # the placement step matches the blend of counts and the region model's frequencies
    region_only = learning.fit(rules, records, smoothing=1e12).prior()
    region = posterior(rules, prior=region_only)
    blend = (model.counts + 50 * region.placement_layouts / region.layouts) / (4000 + 50)
    assert np.abs(frequency - blend).max() < 1e-4
    # uniform records give a prior near 1
    flat = learning.fit(rules, generators.draw(rules, "uniform", 3, 20000)).prior()
    assert np.abs(np.log(flat)).mean() < 0.15


def test_learning_shooter_needs_a_model_of_the_same_rules(tmp_path):
    rules = preset("standard")
    path = tmp_path / "m.json"
    learning.save(learning.fit(square(8), generators.draw(square(8), "edge", 1, 100)), path)
    layout = generators.generate(rules, "uniform", 1, 1)[0]
    with pytest.raises(BattleshipError, match="fitted under rules"):
        play(make(f"learning:model={path}"), layout, np.random.default_rng(0))
    with pytest.raises(BattleshipError, match="model=FILE"):
        play(make("learning"), layout, np.random.default_rng(0))
    tee = Rules(6, 6, (Ship("Tee", "T", ((0, 0), (0, 1), (0, 2), (1, 1))), Ship.line("Boat", "B", 2)))
    with pytest.raises(BattleshipError, match="row engine"):
        play(make(f"learning:model={path}"), generators.generate(tee, "uniform", 1, 1)[0], None)


def test_learning_under_a_margin_tends_to_the_exact_weighted_posterior():
    # a margin keeps the row engine out: the fit counts as if ships could touch, play weighs exact
    # uniform samples by the prior; on a small board the exact weighted answer is cheap to compare
    rules = Rules(6, 6, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2), Ship.line("Deux", "D", 2)))
    rules = dataclasses.replace(rules, spacing=Spacing.NO_CONTACT)
    model = learning.fit(rules, generators.draw(rules, "edge", 3, 300))
    prior = model.prior()
    assert prior.std() > 0.1  # the edge record pulls ships to the sides: a prior far from flat
    shooter = spec("learning").make(Options(samples=40000), model=model)  # a fitted model object
    shooter.reset(rules, np.random.default_rng(5))
    board = Observation.from_text("....../..o.../....../...x../....../......", rules)
    score, _, total = shooter.weights(board)
    exact = posterior(rules, board, prior=prior)
    assert np.abs(score / total - exact.probability.ravel()).max() < 0.02
    layout = generators.generate(rules, "edge", 8, 1)[0]
    record = play(shooter, layout, np.random.default_rng(1))
    assert sum(s.outcome is not Outcome.MISS for s in record.shots) == 7  # every ship cell found
    assert len({s.cell for s in record.shots}) == len(record.shots) < rules.cells


@pytest.mark.parametrize("shooter", ["density", "optimal"])
def test_the_constructed_layout_takes_the_shooter_exactly_the_construction_shots(shooter):
    rules = square(6)
    layout, built = defence.adversary_layout(rules, shooter, Options())
    record = play(make(shooter), layout, np.random.default_rng(0))
    assert len(record.shots) == built
    average = np.mean(
        [
            len(play(make(shooter), g, np.random.default_rng(0)).shots)
            for g in generators.generate(rules, "uniform", 1, 30)
        ]
    )
    assert built > average


@pytest.mark.slow
def test_annealing_never_returns_a_cheaper_layout_than_it_started_with():
    rules = preset("standard")
    one = defence.search_layout(rules, "hunt-target", iterations=150, seeds=8, seed=4)
    two = defence.search_layout(rules, "hunt-target", iterations=150, seeds=8, seed=4)
    assert one.cost >= one.start_cost and one.layout == two.layout and one.cost == two.cost


@pytest.mark.slow
def test_defend_and_learn_commands(tmp_path):
    out = runner.invoke(
        app, ["defend", "density", "--rules", "square-7", "--check", "20", "--uniform-games", "200", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["shots_mean"] == data["construction_shots"] and data["ratio"] > 1
    annealed = runner.invoke(
        app,
        [
            "defend",
            "density",
            "--method",
            "anneal",
            "--iterations",
            "50",
            "--check",
            "5",
            "--uniform-games",
            "100",
            "--json",
        ],
    )
    assert annealed.exit_code == 0, annealed.output
    assert json.loads(annealed.stdout)["search_cost"] >= json.loads(annealed.stdout)["start_cost"]
    layouts = tmp_path / "layouts.txt"
    layouts.write_text(runner.invoke(app, ["layout", "-g", "edge", "--count", "300"]).stdout)
    model = tmp_path / "model.json"
    learned = runner.invoke(app, ["learn", str(layouts), "--out", str(model), "--json"])
    assert learned.exit_code == 0, learned.output and model.exists()
    assert json.loads(learned.stdout)["layouts"] == 300
    layouts.write_text("not a layout\n")
    bad = runner.invoke(app, ["learn", str(layouts), "--out", str(model)])
    assert bad.exit_code == 2 and "line 1" in bad.output
    assert learning.load(model).layouts == 300  # the saved model survives a failed refit
