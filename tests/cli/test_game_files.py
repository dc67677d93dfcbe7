"""Game files carry their rules: replay and calc --game read a game under the rules it was played by."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from battleship.cli import app

runner = CliRunner()


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_issues_pirates_game_replays_under_pirates(tmp_path):
    game = tmp_path / "g.txt"
    game.write_text(_json("play", "trial-sink", "--rules", "pirates", "--seed", "2")["notation"])
    assert game.read_text().startswith("# rules: pirates\n")
    turns = _json("replay", str(game))["turns"]
    assert turns[0]["layouts"] == 3_851_502_784  # pirates' layouts, not standard's 30,093,975,536
    assert "sunk" not in {t["outcome"] for t in turns}  # pirates never announces a sinking
    calc = _json("calc", "--game", str(game))
    assert calc["rules"] == "pirates" and calc["shots"] == len(turns)
    refused = runner.invoke(app, ["replay", str(game), "--rules", "standard"])
    assert refused.exit_code == 2 and "played under pirates" in refused.stderr


def test_a_file_without_rules_reads_as_standard_and_says_so(tmp_path):
    played = _json("play", "density", "--seed", "3")["notation"]
    bare = tmp_path / "bare.txt"
    bare.write_text("".join(line + "\n" for line in played.splitlines() if not line.startswith("# rules")))
    result = runner.invoke(app, ["replay", str(bare), "--json"])
    assert result.exit_code == 0
    assert result.stderr.count("\n") == 1 and "does not say its rules: read under standard" in result.stderr
    assert json.loads(result.stdout)["turns"][0]["layouts"] == 30_093_975_536
    told = runner.invoke(app, ["calc", "--game", str(bare), "--rules", "r-blog", "--json"])
    assert told.exit_code == 0 and json.loads(told.stdout)["rules"] == "r-blog" and told.stderr == ""
