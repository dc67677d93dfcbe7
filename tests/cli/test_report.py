"""``battleship report``: games kept with --out summarised in the unit they were measured in."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from battleship.cli import app

runner = CliRunner()


def test_report_reads_what_simulate_and_compare_keep_in_their_unit(tmp_path: Path) -> None:
    one, paired = tmp_path / "one.txt", tmp_path / "paired.txt"
    kept = runner.invoke(app, ["simulate", "random", "--rules", "salvo", "--games", "30", "--out", str(one)])
    assert kept.exit_code == 0, kept.output
    kept = runner.invoke(
        app, ["compare", "random", "hunt-target", "--games", "30", "--seed", "2", "--out", str(paired)]
    )
    assert kept.exit_code == 0, kept.output
    result = runner.invoke(app, ["report", str(one), str(paired), "--json"])
    assert result.exit_code == 0, result.output
    salvo, standard = json.loads(result.output)
    turns = np.loadtxt(one, dtype=int, comments="#")
    assert salvo["unit"] == "turns" and salvo["games"] == 30 and salvo["columns"][0]["mean"] == turns.mean()
    shots = np.loadtxt(paired, dtype=int, comments="#")
    assert standard["unit"] == "shots" and [c["name"] for c in standard["columns"]] == [
        "random",
        "hunt-target",
    ]
    assert standard["columns"][1]["minus_first"]["mean"] == (shots[:, 1] - shots[:, 0]).mean()
    low, high = standard["columns"][0]["ci95"]
    assert low < shots[:, 0].mean() < high


def test_report_leaves_out_a_line_cut_short_and_refuses_a_bad_one(tmp_path: Path) -> None:
    cut = tmp_path / "cut.txt"
    cut.write_text("# turns\n12\n14\n1")
    result = runner.invoke(app, ["report", str(cut), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["games"] == 2 and data["cut"] is True and data["columns"][0]["mean"] == 13
    bad = tmp_path / "bad.txt"
    bad.write_text("# turns\n12\nx3\n")
    result = runner.invoke(app, ["report", str(bad)])
    assert result.exit_code == 2 and "line 3: expected 1 whole number (turns), found 'x3'" in result.output
    assert "Traceback" not in result.output
