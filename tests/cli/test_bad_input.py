"""Bad input on the command line is one line on stderr and exit code 2: never a traceback, never a value
silently taken for another.

Seeds outside what the random streams use, files that are not text, and output files whose folder is
missing (created) or is a file (refused before any work), for every command that takes them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from battleship.cli import app
from battleship.rng import SEED_MAX

runner = CliRunner()


def refused(args: list[str], message: str, stdin: bytes | None = None) -> None:
    """The command exits 2 with ``error: message`` as its last line on stderr, and no traceback."""
    result = runner.invoke(app, args, input=stdin)
    assert result.exit_code == 2, (args, result.stderr, result.exception)
    assert result.stderr.endswith(f"error: {message}\n"), (args, result.stderr)
    assert result.stderr.count("error:") == 1 and "Traceback" not in result.stdout + result.stderr


def ok(args: list[str]) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, (args, result.stderr, result.exception)
    return json.loads(result.stdout)


def commands_with(option: str) -> list[str]:
    group = typer.main.get_command(app)
    return sorted(
        name
        for name, command in group.commands.items()
        if any(option in getattr(param, "opts", ()) for param in command.params)
    )


# the arena hashes its whole seed into the run's key (no two seeds alias), so it takes any integer
SEEDED = [name for name in commands_with("--seed") if name != "arena"]


def test_every_seeded_command_is_found():
    assert {
        "play",
        "simulate",
        "compare",
        "demo",
        "layout",
        "calc",
        "match",
        "sweep",
        "defend",
        "limit",
    } <= set(SEEDED)


@pytest.mark.parametrize("command", SEEDED)
@pytest.mark.parametrize("seed", [-1, SEED_MAX + 1, 10**30])
def test_a_seed_outside_64_bits_is_refused_by_every_command(command, seed):
    # the seed comes first, so it is checked before the command's own arguments are asked for
    refused([command, "--seed", str(seed)], f"--seed runs from 0 to 2^64 - 1 ({SEED_MAX:,}), not {seed:,}")


def test_the_largest_seed_plays_and_differs_from_its_aliases():
    top = ok(["layout", "--rules", "square-6", "--seed", str(SEED_MAX)])["layouts"]
    zero = ok(["layout", "--rules", "square-6", "--seed", "0"])["layouts"]
    assert top != zero
    assert ok(["play", "random", "--rules", "square-5", "--seed", str(SEED_MAX)])["shots"] >= 1


@pytest.fixture
def not_text(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.toml"
    path.write_bytes("rows = 10 # ¡hola!\n".encode("latin-1"))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "{f}"],
        ["count", "--rules", "{f}"],
        ["limit", "--rules", "{f}"],
        ["defend", "random", "--rules", "{f}"],
        ["layout", "--rules", "{f}"],
        ["play", "--rules", "{f}"],
        ["simulate", "--rules", "{f}"],
        ["match", "random", "random", "--rules", "{f}"],
        ["calc", "...", "--rules", "{f}"],
        ["shooters", "--rules", "{f}"],
    ],
)
def test_a_rules_file_that_is_not_text_is_one_line(args, not_text, tmp_path):
    refused([a.replace("{f}", str(not_text)) for a in args], f"rules file {not_text} is not UTF-8 text")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    refused([a.replace("{f}", str(folder)) for a in args], f"cannot read rules file {folder}: Is a directory")
    missing = tmp_path / "missing.toml"
    refused(
        [a.replace("{f}", str(missing)) for a in args],
        f"cannot read rules file {missing}: No such file or directory",
    )


def test_rules_on_standard_input_that_are_not_text_are_one_line():
    refused(["rules", "-"], "the rules on standard input is not UTF-8 text", stdin="¡".encode("latin-1"))


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["calc", "{f}"], "board file"),
        (["calc", "--game", "{f}"], "game file"),
        (["replay", "{f}"], "game file"),
        (["play", "--layout", "{f}"], "layout file"),
        (["simulate", "--layouts", "{f}"], "layouts file"),
        (["match", "random", "random", "--layouts", "{f}"], "layouts file"),
        (["learn", "{f}"], "layouts file"),
    ],
)
def test_every_other_file_read_that_is_not_text_is_one_line(args, what, not_text):
    refused([a.replace("{f}", str(not_text)) for a in args], f"{what} {not_text} is not UTF-8 text")


SMALL = ["--rules", "square-5", "-n", "10"]
# every option that writes a file: (command line with {out} where the file goes, the option)
OUTPUTS = [
    (["play", "random", "--rules", "square-5", "--out", "{out}"], "--out"),
    (["simulate", "random", *SMALL, "--out", "{out}"], "--out"),
    (["simulate", "random", *SMALL, "--notation", "{out}"], "--notation"),
    (["compare", "random", "hunt-target", *SMALL, "--out", "{out}"], "--out"),
    (["match", "random", "hunt-target", *SMALL, "--out", "{out}"], "--out"),
    (["sweep", "random", "--sizes", "5", "-n", "10", "--out", "{out}"], "--out"),
    (
        ["defend", "random", "--rules", "square-5", "--check", "2", "--uniform-games", "2", "--out", "{out}"],
        "--out",
    ),
    (["learn", "{layouts}", "--rules", "square-7", "--out", "{out}"], "--out"),
]


@pytest.fixture
def layouts(tmp_path: Path) -> Path:
    path = tmp_path / "layouts.txt"
    result = runner.invoke(app, ["layout", "--rules", "square-7", "--count", "20", "--seed", "1"])
    path.write_text(result.stdout)
    return path


def _line(args: list[str], out: Path, layouts: Path) -> list[str]:
    return [a.replace("{out}", str(out)).replace("{layouts}", str(layouts)) for a in args]


@pytest.mark.parametrize(("args", "option"), OUTPUTS)
def test_an_output_file_in_a_missing_folder_is_written_there(args, option, tmp_path, layouts):
    out = tmp_path / "new" / "deeper" / "out.txt"
    ok(_line(args, out, layouts))
    assert out.is_file() and out.stat().st_size > 0


@pytest.mark.parametrize(("args", "option"), OUTPUTS)
def test_an_output_file_under_a_file_is_refused_before_any_work(args, option, tmp_path, layouts):
    (tmp_path / "a-file").write_text("mine\n")
    out = tmp_path / "a-file" / "out.txt"
    refused(_line(args, out, layouts), f"{option} {out}: {tmp_path / 'a-file'} is a file, not a folder")
    assert (tmp_path / "a-file").read_text() == "mine\n"
    folder = tmp_path / "a-folder"
    folder.mkdir()
    refused(_line(args, folder, layouts), f"{option} {folder}: {folder} is a folder, not a file")


def test_figures_go_into_a_new_folder_and_a_file_in_the_way_is_refused(tmp_path):
    args = ["compare", "random", "hunt-target", *SMALL, "--figures"]
    written = ok([*args, str(tmp_path / "new" / "charts")])["figures"]
    assert written and all(
        Path(p).is_file() and Path(p).parent == tmp_path / "new" / "charts" for p in written
    )
    (tmp_path / "a-file").write_text("mine\n")
    refused(
        [*args, str(tmp_path / "a-file")],
        f"--figures {tmp_path / 'a-file'}: {tmp_path / 'a-file'} is a file, not a folder",
    )


def test_the_access_log_under_a_file_is_refused_before_the_server_starts(tmp_path):
    (tmp_path / "a-file").write_text("")
    log = tmp_path / "a-file" / "access.log"
    refused(
        ["serve", "--access-log", str(log)],
        f"--access-log {log}: {tmp_path / 'a-file'} is a file, not a folder",
    )


def test_a_placement_model_that_is_not_text_is_one_line(not_text):
    from battleship.errors import BattleshipError
    from battleship.inference import prior

    with pytest.raises(BattleshipError, match=f"^model file {not_text} is not UTF-8 text$"):
        prior.load(not_text)


def test_an_sqlite_game_store_under_a_file_is_refused_before_the_server_starts(tmp_path):
    (tmp_path / "a-file").write_text("")
    store = tmp_path / "a-file" / "games.db"
    refused(
        ["serve", "--db", f"sqlite:///{store}"],
        f"--db {store}: {tmp_path / 'a-file'} is a file, not a folder",
    )


@pytest.mark.parametrize("command", commands_with("--tie"))
def test_an_unknown_tie_rule_is_refused_whatever_the_shooter(command):
    refused([command, "--tie", "bogus"], "--tie 'bogus' is not one of first, random, centre, informative")


def test_a_known_tie_rule_is_taken():
    assert ok(["simulate", "density", "--rules", "square-5", "-n", "5", "--tie", "centre"])["games"] == 5
