"""Every ``--help`` reads well on any terminal: prose wrapped to its width, flags without a value
placeholder, one or two examples at the end that the command takes, and the same in the reference."""

import functools
import re
import shlex
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from battleship.cli import COMMANDS, app
from battleship.cli.helptext import examples_of, unescaped

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import battleship_docs  # a Sphinx extension, not a package: found through docs/_ext

runner = CliRunner()
GROUP = typer.main.get_command(app)
NAMES = [name for name in COMMANDS]


@functools.cache
def _reference() -> str:
    return battleship_docs.cli_markdown()


def _help(args: list[str], columns: int) -> str:
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _prose(text: str) -> list[str]:
    """The words of each paragraph of the help, as the terminal shows them (one line each)."""
    return [" ".join(unescaped(p).split()) for p in text.split("\n\n") if p.strip()]


@pytest.mark.parametrize("name", [None, *NAMES])
def test_help_wraps_to_the_terminal_and_flags_take_no_placeholder(name):
    args = [] if name is None else [name]
    command = GROUP if name is None else GROUP.commands[name]
    wide, narrow = _help(args, 2000), _help(args, 100)
    lines = [" ".join(line.strip(" │").split()) for line in wide.splitlines()]
    for paragraph in _prose(command.help or ""):
        assert paragraph in lines, f"{paragraph!r} is broken across lines on a wide terminal"
    assert max(len(line) for line in narrow.splitlines()) <= 100
    assert "<bool>" not in wide and "\\[" not in wide
    if name is None:  # the command list shows each command's first paragraph whole
        for each in NAMES:
            first = _prose(GROUP.commands[each].help)[0]
            assert any(line.startswith(f"{each} {first}") for line in lines), each


def test_a_flag_shows_plainly_and_square_brackets_in_help_survive():
    calc = _help(["calc"], 200)
    assert re.search(r"--percent +Show each cell", calc)
    refused = runner.invoke(app, ["calc", "--percent", "yes", "........../" * 9 + ".........."])
    assert refused.exit_code == 2 and "unexpected extra argument" in refused.output
    assert "a TOML file with an [entries] table" in " ".join(_help(["arena"], 400).split())


def test_calc_help_says_what_each_board_character_means():
    text = " ".join(_help(["calc"], 400).split())
    for said in (
        "'.' a cell not fired at",
        "'o' a miss",
        "'x' a hit",
        "a sunk ship's letter",
        "'#' is a sinking",
    ):
        assert said in text
    assert "'?' is a cell fired at" in text and "E5,F5,G5=2" in text


@pytest.mark.parametrize("name", NAMES)
def test_every_command_ends_with_examples_it_takes(tmp_path, monkeypatch, name):
    command = GROUP.commands[name]
    examples = examples_of(command)
    assert 1 <= len(examples) <= 2
    text = _help([name], 400)
    assert text.rstrip().splitlines()[-1].strip() == examples[-1]  # the help ends with them
    assert "Examples:\n\n```sh\n" + "\n".join(examples) in _reference()
    monkeypatch.chdir(tmp_path)
    for example in examples:
        words = shlex.split(example)
        words = words[: words.index(">")] if ">" in words else words  # a redirection is the shell's
        assert words[0] == "battleship" and words[1] in GROUP.commands, example
        for name in ("game.txt", "board.txt", "games.txt", "layouts.txt", "results.json", "model.json"):
            (tmp_path / name).touch()
        top = GROUP.make_context("battleship", [words[1]], resilient_parsing=True)
        GROUP.commands[words[1]].make_context(words[1], words[2:], parent=top)  # raises on a bad option
