"""One grammar for everything a user types: a shooter spec is the same everywhere (``file.py:Class`` too),
``-`` is standard input wherever a file is read, the options that mean the same thing exist on every
command where they make sense, what played is named one way in every output, and bad values are
refused with their range, naming a file once."""

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from battleship import generators, lab
from battleship.cli import app
from battleship.inference import graph
from battleship.rules import preset

runner = CliRunner()
HERE = Path(__file__).resolve().parent
PLODDING = f"{HERE / 'plodding.py'}:Plodding"


def ok(args, **kwargs):
    result = runner.invoke(app, args, **kwargs)
    assert result.exit_code == 0, result.stderr
    return result


def refused(args, **kwargs) -> str:
    result = runner.invoke(app, args, **kwargs)
    assert result.exit_code == 2, result.stdout
    assert "Traceback" not in result.stderr
    return result.stderr


def test_a_class_from_a_file_plays_in_every_command(tmp_path):
    played = json.loads(ok(["play", PLODDING, "--rules", "square-6", "--seed", "2", "--json"]).stdout)
    assert played["shooter"] == PLODDING and played["notation"].startswith(
        f"# rules: square-6\n[{PLODDING}]\n"
    )
    simulated = json.loads(ok(["simulate", PLODDING, "--rules", "square-6", "--games", "6", "--json"]).stdout)
    assert simulated["shooter"] == PLODDING and simulated["games"] == 6
    compared = json.loads(
        ok(["compare", "density", PLODDING, "--rules", "square-6", "--games", "6", "--json"]).stdout
    )
    assert list(compared["shooters"]) == ["density", PLODDING]
    matched = json.loads(
        ok(["match", PLODDING, "random", "--rules", "square-6", "--games", "4", "--json"]).stdout
    )
    assert matched["a"] == PLODDING
    # a module on the path names a class the same way
    assert json.loads(ok(["play", "tests.cli.plodding:Plodding", "--rules", "square-6", "--json"]).stdout)[
        "shots"
    ]
    assert "no such file" in refused(["play", "nowhere.py:Nothing"])
    assert "has no class Missing" in refused(["play", f"{HERE / 'plodding.py'}:Missing"])
    assert "is not a shooter" in refused(["play", "pathlib:Path"])


def test_one_name_for_what_played_in_every_output(tmp_path):
    games = tmp_path / "games.txt"
    shown = "density:skew=20,lattice=1,lastship=8,book=1"
    played = json.loads(ok(["play", "best", "--seed", "1", "--json"]).stdout)
    header = f"# rules: standard\n[{shown}]\n"  # a game file names its rules, then who played
    assert played["shooter"] == shown and played["notation"].startswith(header)
    text = ok(["play", "best", "--seed", "1"]).stdout
    assert text.startswith(header) and f"# {shown} sank the fleet" in text
    ok(["simulate", "best", "--games", "3", "--notation", str(games), "--json"])
    assert games.read_text().startswith(f"# rules: standard\n\n[{shown}]\n")  # the rules once, then each game
    assert json.loads(ok(["simulate", "best", "--games", "10", "--json"]).stdout)["shooter"] == shown
    assert f"{shown} on standard" in ok(["simulate", "best", "--games", "10"]).stdout
    # options come out in one order, whatever order they were typed in
    either = json.loads(ok(["compare", "density:skew=20,tie=centre", "--games", "10", "--json"]).stdout)
    assert list(either["shooters"]) == ["density:tie=centre,skew=20"]
    import battleship as bs

    assert bs.play(bs.generate("standard", seed=1), "best", seed=1).shooter == shown


def test_shooters_says_what_best_plays():
    assert (
        "best on pirates plays twoply:endgame=5000,plies=1" in ok(["shooters", "--rules", "pirates"]).stdout
    )
    rows = json.loads(ok(["shooters", "--rules", "seabattle", "--json"]).stdout)
    assert next(r for r in rows if r["name"] == "best")["plays"] == "optimal"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("density:skew=20,skew=30", "skew is given twice"),
        ("density:skew=1000", "skew is a percentage from 0 to 100, not 1,000"),
        ("superposition:boost=-1", "boost is a percentage from 0 to 100, not -1"),
        ("montecarlo:samples=0", "samples is a number of samples from 1 to 10,000,000, not 0"),
        ("hunt-target-parity:colour=2", "colour is a checkerboard colour from 0 to 1, not 2"),
        ("density:skew=x", "skew must be an integer, not 'x'"),
    ],
)
def test_bad_options_are_refused_with_their_range(spec, words):
    assert words in refused(["play", spec])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["simulate", "--games", "1000000000000000000000000000"], "--games runs from 1 to 10,000,000,000"),
        (["compare", "random", "--games", "0"], "--games must be at least 1"),
        (["match", "random", "random", "--games", "99999999999"], "--games runs from 1 to 10,000,000,000"),
        (["simulate", "--jobs", "5000"], "--jobs runs from 1 to 1,024"),
        (["layout", "--count", "-1"], "--count runs from 0 to"),
        (
            [
                "calc",
                "--time",
                "-1",
                "........../........../........../........../........../........../........../........../........../..........",
            ],
            "--time is a number of seconds above 0",
        ),
        (["defend", "random", "--check", "0"], "--check must be at least 1"),
    ],
)
def test_out_of_range_counts_are_refused_with_their_range(args, words):
    assert words in refused(args)


def test_a_rules_file_is_named_once_in_its_errors(tmp_path):
    cases = {
        "length.toml": 'rows = 10\ncols = 10\n[[ship]]\nname="A"\nsymbol="A"\nlength=0\n',
        "spacing.toml": 'rows = 10\ncols = 10\nspacing="far"\n[[ship]]\nname="A"\nsymbol="A"\nlength=2\n',
        "fit.toml": 'rows = 2\ncols = 2\n[[ship]]\nname="A"\nsymbol="A"\nlength=3\n',
        "key.toml": "rows = 3\ncols = 3\nfoo=1\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        message = refused(["layout", "--rules", str(path)])
        assert message.count(name) == 1, message


def test_dash_is_standard_input_wherever_a_file_is_read(tmp_path):
    layouts = ok(["layout", "--count", "5", "--seed", "3"]).stdout
    from_file = tmp_path / "layouts.txt"
    from_file.write_text(layouts)
    piped = json.loads(ok(["simulate", "density", "--layouts", "-", "--json"], input=layouts).stdout)
    assert piped["games"] == 5
    assert (
        piped["mean"]
        == json.loads(ok(["simulate", "density", "--layouts", str(from_file), "--json"]).stdout)["mean"]
    )
    six = ["--rules", "square-6"]
    played = json.loads(ok(["play", "hunt-target", "--seed", "4", *six, "--json"]).stdout)
    replayed = json.loads(ok(["replay", "-", *six, "--json"], input=played["notation"]).stdout)
    assert len(replayed["turns"]) == played["shots"]
    calc = json.loads(ok(["calc", "--game", "-", *six, "--json"], input=played["notation"]).stdout)
    assert calc["shots"] == played["shots"]
    board = json.loads(ok(["calc", "-", *six, "--json"], input=played["board"]).stdout)
    assert board["shots"] == played["shots"]
    toml = ok(["rules", "pirates", "--toml"]).stdout
    assert json.loads(ok(["rules", "-", "--json"], input=toml).stdout)["spacing"] == "no-contact"
    assert json.loads(ok(["play", "--rules", "-", "--json"], input=toml).stdout)["rules"] == "pirates"
    model = tmp_path / "model.json"
    ok(["learn", "-", "--out", str(model), "--json"], input=layouts)
    assert model.exists()
    assert json.loads(ok(["play", "--layout", "-", "--json"], input=layouts.split()[0]).stdout)["layout"]
    # standard input is read once
    assert "read once" in refused(["simulate", "--rules", "-", "--layouts", "-"], input=toml)


def test_the_same_options_exist_wherever_they_make_sense(tmp_path, monkeypatch):
    layouts = tmp_path / "layouts.txt"
    layouts.write_text(ok(["layout", "--count", "40", "--seed", "3"]).stdout)
    matched = json.loads(ok(["match", "density", "random", "--layouts", str(layouts), "--json"]).stdout)
    assert matched["games"] == 40
    out = tmp_path / "m.txt"
    ok(["match", "density", "random", "--games", "30", "--out", str(out)])
    assert len(out.read_text().splitlines()) == 31  # a header, then a game a line
    compare_out = tmp_path / "c.txt"
    ok(["compare", "random", "density", "--games", "30", "--out", str(compare_out)])
    assert compare_out.read_text().startswith("# random\tdensity\n")
    assert json.loads(ok(["demo", "--rules", "square-6", "--json"]).stdout)["rules"] == "square-6"
    # as a fresh process meets Sea Battle: no state graph compiled by an earlier test in this worker
    # (a compiled graph makes one count quick, and exact play would then rightly be played)
    monkeypatch.setattr(graph, "_cache", {})
    seabattle = json.loads(ok(["demo", "--rules", "seabattle", "--json"]).stdout)
    assert "optimal" in seabattle["left_out"] and "density" in seabattle["games"]


def test_games_with_layouts_plays_the_first_n_and_says_so(tmp_path):
    r = preset("standard")
    rows = generators.draw(r, "uniform", 7, 300)
    path = tmp_path / "layouts.txt"
    path.write_bytes(generators.format_lines(r, rows))
    result = runner.invoke(
        app, ["simulate", "hunt-target", "--layouts", str(path), "--games", "120", "--json"]
    )
    data = json.loads(result.stdout)
    assert data["games"] == 120 and "playing the first 120 of the 300 layouts" in result.stderr
    expected = lab.simulate(r, "hunt-target", 120, seed=0, layouts=rows[:120])
    assert data["mean"] == pytest.approx(expected.mean())
    table = ok(["simulate", "hunt-target", "--layouts", str(path), "--games", "120"]).stdout
    assert "120 games" in table and f"{expected.mean():.3f}" in table
    compared = json.loads(
        ok(["compare", "hunt-target", "random", "--layouts", str(path), "--games", "120", "--json"]).stdout
    )
    second = lab.simulate(r, "random", 120, seed=0, layouts=rows[:120])
    both = compared["shooters"]
    assert both["hunt-target"]["games"] == both["random"]["games"] == 120
    assert both["random"]["mean"] - both["hunt-target"]["mean"] == pytest.approx(
        both["random"]["minus_first"]
    )
    assert both["random"]["minus_first"] == pytest.approx((second - expected).mean())


def test_the_python_api_offers_what_the_commands_offer():
    import battleship as bs

    compared = bs.compare("standard", ["random", "density"], games=300, seed=2)
    assert isinstance(compared, bs.Comparison) and compared.games == 300
    assert compared.summaries["density"].mean < compared.summaries["random"].mean
    command = json.loads(
        ok(["compare", "random", "density", "--games", "300", "--seed", "2", "--json"]).stdout
    )
    assert compared.summaries["density"].mean == command["shooters"]["density"]["mean"]
    assert compared.minus_first["density"][0] == pytest.approx(command["shooters"]["density"]["minus_first"])
    matched = bs.match("square-6", "density", "random", games=200, seed=1)
    assert matched.as_dict() | {"seconds": 0} == json.loads(
        ok(
            ["match", "density", "random", "--rules", "square-6", "--games", "200", "--seed", "1", "--json"]
        ).stdout
    ) | {"seconds": 0}
    assert bs.count("pirates").distinct == 3_851_502_784
    report = bs.check_shooter("density")
    assert report.passed == ["standard", "pirates"] and report.kernel == "exactly"
    tiny = bs.Rules(3, 3, (bs.Ship.line("Two", "T", 2), bs.Ship.line("Boat", "B", 2)), bs.Spacing.NO_CONTACT)
    solved = bs.limit(tiny, ["optimal"])
    assert solved.optimum.layouts == 16 and solved.means["optimal"] >= solved.optimum.shots
    assert np.isfinite(
        bs.simulate("standard", "random", games=50, layouts=[bs.generate("standard")] * 50).mean
    )
