import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from battleship import generators, lab, notation
from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.rules import preset, square

runner = CliRunner()


def test_same_seed_same_shots_whatever_the_jobs(monkeypatch):
    monkeypatch.setattr(lab, "CHUNK", 700)  # several chunks, so threads really interleave
    rules = preset("standard")
    one = lab.simulate(rules, "hunt-target-parity", 5_000, seed=9, jobs=1)
    two = lab.simulate(rules, "hunt-target-parity", 5_000, seed=9, jobs=2)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, lab.simulate(rules, "hunt-target-parity", 5_000, seed=10))


def test_given_layouts_are_played_in_order():
    rules = square(8)
    rows = generators.draw(rules, "uniform", 3, 300)
    from_file = lab.simulate(rules, "hunt-target", 300, seed=3, layouts=rows)
    generated = lab.simulate(rules, "hunt-target", 300, seed=3)
    assert np.array_equal(from_file, generated)  # the same layouts and the same shooter streams
    assert from_file.min() >= rules.ship_cells


def test_summary_statistics():
    shots = np.array([17, 20, 20, 30, 41])
    s = lab.summarise(shots, perfect=17, seconds=0.5)
    assert (s.mean, s.median, s.mode, s.min, s.max, s.perfect, s.games_per_second) == (
        25.6,
        20,
        20,
        17,
        41,
        1,
        10,
    )
    assert s.sd == pytest.approx(np.std(shots, ddof=1))
    assert s.ci95[0] < s.mean < s.ci95[1]


def test_simulate_json_has_the_promised_keys(tmp_path):
    out = tmp_path / "shots.txt"
    result = runner.invoke(
        app,
        ["simulate", "--shooter", "random", "--games", "2000", "--seed", "1", "--json", "--out", str(out)],
    )
    data = json.loads(result.stdout)
    for key in ("games", "mean", "ci95", "sd", "median", "mode", "min", "max", "games_per_second"):
        assert key in data
    assert data["games"] == 2000 and len(out.read_text().split()) == 2000


def test_simulate_reads_a_layouts_file_and_reports_bad_lines(tmp_path):
    good = tmp_path / "layouts.txt"
    good.write_text(runner.invoke(app, ["layout", "--count", "50", "--seed", "2"]).stdout)
    data = json.loads(runner.invoke(app, ["simulate", "--layouts", str(good), "--json"]).stdout)
    assert data["games"] == 50  # one game per layout
    too_many = runner.invoke(app, ["simulate", "--layouts", str(good), "--games", "999"])
    assert too_many.exit_code == 2 and "holds 50 layouts" in too_many.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text(good.read_text().splitlines()[0] + "\nCCCCC\n")
    result = runner.invoke(app, ["simulate", "--layouts", str(bad)])
    assert result.exit_code == 2 and "layout on line 2" in result.stderr


def test_lab_refuses_unknown_shooters():
    with pytest.raises(BattleshipError, match="no shooter named 'psychic'"):
        lab.simulate(preset("standard"), "psychic", 10)


def test_compare_writes_the_charts_and_a_paired_table(tmp_path):
    args = [
        "compare",
        "random",
        "hunt-target",
        "--games",
        "3000",
        "--seed",
        "2",
        "--figures",
        str(tmp_path),
        "--json",
    ]
    data = json.loads(runner.invoke(app, args).stdout)
    assert set(data["shooters"]) == {"random", "hunt-target"}
    assert data["shooters"]["hunt-target"]["mean"] < data["shooters"]["random"]["mean"]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["cumulative.png", "cumulative.svg", "distribution.png", "distribution.svg"]
    alone = json.loads(
        runner.invoke(
            app, ["simulate", "--shooter", "hunt-target", "--games", "3000", "--seed", "2", "--json"]
        ).stdout
    )
    assert alone["mean"] == data["shooters"]["hunt-target"]["mean"]  # the same layouts and streams
    paired = data["shooters"]["hunt-target"]
    assert paired["minus_first"] == pytest.approx(paired["mean"] - data["shooters"]["random"]["mean"])
    low, high = paired["minus_first_ci95"]
    assert low < paired["minus_first"] < high < 0


def test_compare_takes_options_and_refuses_rules_a_shooter_cannot_play(tmp_path):
    args = ["compare", "density", "density:skew=20", "--games", "200", "--figures", str(tmp_path), "--json"]
    data = json.loads(runner.invoke(app, args).stdout)
    assert set(data["shooters"]) == {"density", "density:skew=20"}
    result = runner.invoke(app, ["compare", "trial-sink", "--games", "10", "--figures", str(tmp_path)])
    assert result.exit_code == 2
    assert "may not touch" in result.stderr


def test_exact_random_curve():
    from battleship.lab.figures import random_cdf

    cdf = random_cdf(100, 17)
    assert cdf[16] == 0 and cdf[100] == 1 and cdf[96] < 0.5 <= cdf[97]  # median 97
    assert abs(sum(n * (cdf[n] - cdf[n - 1]) for n in range(17, 101)) - 95.389) < 1e-3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(17, 100), min_size=1, max_size=300))
def test_histogram_summary_equals_numpy(values):
    shots = np.array(values)
    s = lab.summarise_histogram(np.bincount(shots, minlength=101), 17, 1.0)
    assert s.mean == pytest.approx(shots.mean())
    assert s.median == pytest.approx(np.median(shots))
    for q, v in s.quantiles.items():
        assert v == pytest.approx(np.quantile(shots, float(q)))
    assert (s.min, s.max, s.perfect) == (shots.min(), shots.max(), (shots == 17).sum())
    if len(shots) > 1:
        assert s.sd == pytest.approx(shots.std(ddof=1))


def test_a_killed_run_resumes_to_the_same_file(tmp_path, monkeypatch):
    monkeypatch.setattr(lab, "CHUNK", 500)
    whole, part = tmp_path / "whole.txt", tmp_path / "part.txt"
    args = ["simulate", "--shooter", "hunt-target", "--games", "2300", "--seed", "4", "--json"]
    first = json.loads(runner.invoke(app, [*args, "--out", str(whole)]).stdout)
    lines = whole.read_text().splitlines(keepends=True)
    assert len(lines) == 2300
    # a run killed after 1,234 games, mid-line
    (tmp_path / "part.txt.run.json").write_text((tmp_path / "whole.txt.run.json").read_text())
    part.write_text("".join(lines[:1234]) + lines[1234][:1])
    resumed = json.loads(runner.invoke(app, [*args, "--out", str(part), "--resume"]).stdout)
    assert part.read_text() == whole.read_text()
    assert {k: v for k, v in resumed.items() if k != "games_per_second"} == {
        k: v for k, v in first.items() if k != "games_per_second"
    }


def test_saved_runs_are_never_overwritten_or_mixed(tmp_path):
    out = tmp_path / "shots.txt"
    base = ["simulate", "--games", "100", "--out", str(out)]
    assert runner.invoke(app, base).exit_code == 0
    again = runner.invoke(app, base)
    assert again.exit_code == 2 and "pass --resume" in again.stderr
    other = runner.invoke(app, [*base, "--seed", "9", "--resume"])
    assert other.exit_code == 2 and "different run (seed differ)" in other.stderr
    assert len(out.read_text().split()) == 100


def test_a_run_written_before_an_option_existed_carries_on(tmp_path):
    """A new option key, left at its default, does not refuse a saved run; set otherwise, it does."""
    out = tmp_path / "shots.txt"
    base = ["compare", "density:skew=20", "hunt-target", "--games", "60", "--out", str(out)]
    assert runner.invoke(app, [*base[:3], "--games", "40", *base[5:]]).exit_code == 0
    meta = tmp_path / "shots.txt.run.json"
    saved = json.loads(meta.read_text())
    saved["games"] = 60
    del saved["options"]["density:skew=20"]["plies"]  # as written before plies existed
    meta.write_text(json.dumps(saved))
    resumed = runner.invoke(app, [*base, "--resume", "--json"])
    assert resumed.exit_code == 0, resumed.stderr
    assert len(out.read_text().splitlines()) == 61  # the header and 60 games
    changed = runner.invoke(app, ["compare", "density:skew=20,weight=3", *base[2:], "--resume"])
    assert changed.exit_code == 2 and "different run" in changed.stderr


@pytest.mark.parametrize("shooter", ["density", "hunt-target", "density:tie=random"])
def test_notation_file_holds_the_very_games_the_run_counted(tmp_path, shooter):
    out, games_file = tmp_path / "shots.txt", tmp_path / "games.txt"
    args = ["simulate", shooter, "--games", "30", "--seed", "4", "--out", str(out)]
    result = runner.invoke(app, [*args, "--notation", str(games_file), "--json"])
    assert result.exit_code == 0, result.stderr
    text = games_file.read_text()
    assert text.startswith("# rules: standard\n")
    games = notation.read_games(text)
    moves = [len(g.moves) for g in games]
    assert moves == [int(x) for x in out.read_text().split()]
    assert sum(moves) / len(moves) == json.loads(result.stdout)["mean"]
    again = runner.invoke(app, [*args[:-2], "--notation", str(games_file)])
    assert again.exit_code == 2 and "exists" in again.stderr


def test_best_names_the_strongest_measured_shooter_for_the_rules():
    for rules, expected, games in (
        ("standard", "density:skew=20,lattice=1,lastship=8,book=1", "20"),
        ("pirates", "twoply:endgame=5000,plies=1", "2"),
    ):
        args = ["simulate", "--shooter", "best", "--rules", rules, "--games", games, "--json"]
        data = json.loads(runner.invoke(app, args).stdout)
        assert data["shooter"] == expected


def test_best_follows_what_the_rules_are_not_their_name():
    from dataclasses import replace

    from battleship.rules import Rules, Ship, Sinks, Spacing
    from battleship.shooters.best import best_for

    standard = preset("standard")
    assert best_for(replace(standard, name="anything")) == "density:skew=20,lattice=1,lastship=8,book=1"
    # a file that calls itself "standard" but has a margin and no announcements plays as pirates
    quiet = replace(standard, spacing=Spacing.NO_CONTACT, sinks=Sinks.NONE)
    assert best_for(quiet) == "twoply:endgame=5000,plies=1"
    assert best_for(replace(preset("pirates"), name="standard")) == "twoply:endgame=5000,plies=1"
    # a margin with sinkings announced: trial-sink, which reads them (the look-ahead was measured without)
    assert best_for(replace(quiet, sinks=Sinks.NAMED)) == "trial-sink:skew=20"
    assert best_for(replace(standard, sinks=Sinks.SUNK)) == "optimal"
    tee = Rules(8, 8, (Ship("Tee", "T", ((0, 0), (0, 1), (0, 2), (1, 1))), Ship.line("Boat", "B", 2)))
    assert best_for(replace(tee, name="standard")) == "optimal"
    # a margin and one-cell ships: exact play where the engine is quick, else trial-sink with no skew
    assert best_for(preset("seabattle")) == "optimal"
    wide = replace(preset("seabattle"), rows=17, cols=17)  # past the sweep's 16 columns
    assert best_for(wide) == "trial-sink"
    # pirates: exact greedy play with greedy's exact rest of game; exact play under a generator's prior
    from battleship.shooters.registry import resolve

    assert resolve("best:prior=contest", preset("pirates")) == resolve("optimal:prior=contest")
    assert resolve("best", preset("pirates"))[0] == "twoply"
    assert (
        resolve("best", replace(preset("pirates"), rows=12, cols=12))[0] == "trial-sink"
    )  # exact play too dear
    assert resolve("best:prior=contest", replace(preset("pirates"), rows=12, cols=12))[0] == "trial-sink"
    tiny = Rules(4, 4, (Ship.line("Three", "T", 3), Ship.line("Two", "W", 2)))
    # small enough for greedy's exact rest of game from the first shot
    assert best_for(replace(tiny, name="standard")) == "twoply:endgame=5000,plies=1,second=500"


def test_best_fast_plays_a_kernel_where_the_strongest_is_exact_play():
    from battleship.shooters.options import Options
    from battleship.shooters.registry import resolve

    # the fast setting is the chooser's own: it is not handed on (the chosen shooter would refuse it)
    assert resolve("best:fast=1", preset("seabattle"))[0] == "trial-sink"
    assert resolve("best:fast=1", preset("pirates")) == resolve("trial-sink:skew=20")
    assert resolve("best:fast=1,prior=contest", preset("pirates")) == resolve(
        "trial-sink:skew=20,prior=contest"
    )
    # standard: density's last-ship look-ahead costs milliseconds a shot, so fast keeps the lattice alone
    assert resolve("best:fast=1", preset("standard")) == resolve("density:skew=20,lattice=1")
    assert resolve("best:fast=1", preset("square-8")) == resolve("best", preset("square-8"))
    assert resolve("best:fast=0", preset("seabattle"))[0] == "optimal"
    with pytest.raises(BattleshipError, match="fast"):
        resolve("optimal:fast=1", preset("standard"))
    with pytest.raises(BattleshipError, match="fast is 0 or 1"):
        Options(fast=2)


def test_intervals_use_students_t_so_a_few_games_prove_nothing():
    from battleship.lab.summary import paired_from_sums, t95

    # published 97.5% points of Student's t
    for df, point in [
        (1, 12.706),
        (2, 4.303),
        (10, 2.228),
        (30, 2.042),
        (40, 2.021),
        (60, 2.000),
        (120, 1.980),
    ]:
        assert abs(t95(df) - point) < 1e-3, df
    assert all(t95(d) > t95(d + 1) for d in range(1, 500))
    # two games a shot apart (-2, -3): with 1.96 standard errors it looked significant; with t it is not
    mean, (low, high) = paired_from_sums(2, -5, 13)
    assert mean == -2.5 and low < -8.8 and high > 3.8  # 12.7 standard errors of 0.5
