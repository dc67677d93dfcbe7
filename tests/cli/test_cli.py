import json

from typer.testing import CliRunner

from battleship.cli import app
from battleship.rules import preset

runner = CliRunner()


def test_rules_lists_and_shows_presets():
    out = runner.invoke(app, ["rules"])
    assert out.exit_code == 0 and "pirates" in out.stdout
    shown = json.loads(runner.invoke(app, ["rules", "standard", "--json"]).stdout)
    assert shown["fleet"][0] == {
        "name": "Carrier",
        "symbol": "C",
        "size": 5,
        "cells": [[0, c] for c in range(5)],
    }
    toml = runner.invoke(app, ["rules", "pirates", "--toml"]).stdout
    assert 'spacing = "no-contact"' in toml


def test_layout_prints_many_lines_reproducibly():
    first = runner.invoke(app, ["layout", "--seed", "3", "--count", "1000"])
    assert first.exit_code == 0
    lines = first.stdout.split()
    assert len(lines) == 1000 and all(len(line) == 109 for line in lines)
    again = runner.invoke(app, ["layout", "--seed", "3", "--count", "1000", "--json"])
    assert json.loads(again.stdout)["layouts"] == lines


def test_play_prints_the_game_and_reads_a_layout_file(tmp_path):
    layout = "CCCCC...../........../BBBB....../........../DDD......./........../SSS......./........../PP......../.........."
    path = tmp_path / "layout.txt"
    path.write_text(layout.replace("/", "\n"))
    out = runner.invoke(app, ["play", "--shooter", "random", "--seed", "5", "--layout", str(path), "--json"])
    data = json.loads(out.stdout)
    assert data["layout"] == layout
    assert data["shots"] == len(data["moves"]) == data["notation"].count("random: (")
    text = runner.invoke(app, ["play", "--seed", "5", "--rules", "pirates"]).stdout
    assert text.startswith("# rules: pirates\n[random]\n[target]\n") and "sank the fleet in" in text


def test_bad_input_is_one_clear_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("rows = 2\ncols = 2\n[[ship]]\nname='Long'\nsymbol='L'\nlength=3\n")
    for args, message in (
        (["layout", "--rules", str(bad)], "does not fit on a 2x2 board"),
        (["layout", "--rules", "nonsense"], "no preset named 'nonsense'"),
        (["layout", "--generator", "clever"], "no layout generator named 'clever'"),
        (["play", "--shooter", "psychic"], "no shooter named 'psychic'"),
        (["play", "--layout", "CCCCC/...."], "layout has 2 rows"),
    ):
        out = runner.invoke(app, args)
        assert out.exit_code == 2, args
        assert message in out.stderr and "Traceback" not in out.stderr + out.stdout


def test_every_preset_plays_from_the_cli():
    for name in ("standard", "datagenetics", "pirates", "r-blog", "square-6", "square-15"):
        data = json.loads(runner.invoke(app, ["play", "--rules", name, "--json"]).stdout)
        assert data["shots"] >= preset(name).ship_cells


def test_demo_plays_every_shooter_on_one_layout():
    data = json.loads(runner.invoke(app, ["demo", "--json", "--seed", "4"]).stdout)
    assert data["games"]["random"]["shots"] >= 17
    assert data["games"]["random"]["board"].count("o") == data["games"]["random"]["shots"] - 17
