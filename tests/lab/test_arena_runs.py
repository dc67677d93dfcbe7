"""The arena as an organiser runs it: keys and their checking, Ctrl-C, machines without a sandbox,
contests from a folder of entries, ratings across runs."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battleship import generators
from battleship import rules as rules_mod
from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.lab import arena
from battleship.lab.arena import keys, ratings, sandbox
from battleship.lab.arena.verify import rules_of
from tests.lab.test_arena_attacks import ATTACK, SHARED, attacker, leftovers

ROOT = Path(__file__).resolve().parents[2]
SMALL = rules_mod.square(6)
runner = CliRunner()


# ---- the key ---------------------------------------------------------------------------------------
def test_battlefields_and_bot_seeds_come_from_separate_streams_of_the_key():
    key = arena.Key.new()
    assert len(key.secret) == 32 and key.seed is None and arena.Key.new().secret != key.secret
    assert key.commitment == __import__("hashlib").sha256(key.secret).hexdigest()
    rows = key.battlefields(SMALL, "uniform", 6)
    # each battlefield from a seed of its own: the same whatever the first game asked for
    assert (key.battlefields(SMALL, "uniform", 3, first=3) == rows[3:]).all()
    layout_seeds = {key.layout_seed("battlefield", g) for g in range(100)}
    bot_seeds = {key.bot_seed("battlefields", g) for g in range(100)}
    assert len(layout_seeds) == 100 and not layout_seeds & bot_seeds
    assert all(0 <= s < 2**63 for s in bot_seeds)
    assert arena.Key.from_seed(7) == arena.Key.from_seed(7) and arena.Key.from_seed(7) != arena.Key.from_seed(
        8
    )
    assert arena.Key.from_hex(key.hex).secret == key.secret


@pytest.mark.parametrize(
    ("text", "says"),
    [("zz", "not hexadecimal"), ("ab" * 8, "64 hexadecimal digits"), (None, "not hexadecimal")],
)
def test_a_bad_key_is_refused_clearly(text, says):
    with pytest.raises(BattleshipError, match=says):
        arena.Key.from_hex(text)
    with pytest.raises(BattleshipError, match="not the one seed 3 gives"):
        arena.Key.from_hex(arena.Key.from_seed(4).hex, seed=3)


def test_a_run_prints_its_commitment_first_and_reveals_the_key_at_the_end(tmp_path):
    out = tmp_path / "run.json"
    result = runner.invoke(
        app, ["arena", "hunt-target", "random", "--rules", "square-6", "--games", "5", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    first = result.stderr.splitlines()[0]
    assert first.startswith("commitment: sha256 of the run's key is " + saved["commitment"])
    assert f"key: {saved['key']}" in result.stdout and saved["seed"] is None and saved["jail"] == "sandbox"
    assert keys.Key.from_hex(saved["key"]).commitment == saved["commitment"]


def test_verify_checks_the_commitment_the_battlefields_and_replays_the_bots(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out, fields = tmp_path / "run.json", tmp_path / "battlefields.txt"
    program = f"exec:{sys.executable} examples/bots/hunt_target.py"
    made = runner.invoke(app, ["arena", "density", program, "--rules", "square-6", "--games", "8", "--out", str(out),
                               "--battlefields", str(fields), SHARED])  # fmt: skip
    assert made.exit_code == 0, made.output
    saved = json.loads(out.read_text())
    assert keys.fingerprint(SMALL, generators.to_indices(SMALL, _layouts(fields))) == saved["battlefields"]
    checked = runner.invoke(app, ["arena", "--verify", str(out), program, SHARED])
    assert checked.exit_code == 0, checked.output
    for what in (
        "ok   commitment",
        "ok   battlefields: 8 battlefields",
        "ok   replay density",
        f"ok   replay {program}",
    ):
        assert what in checked.stdout
    # tampered: another key, a battlefield changed, a score changed
    for field, value, fails in [
        ("key", arena.Key.new().hex, "FAIL commitment"),
        ("battlefields", "0" * 64, "FAIL battlefields"),
        ("leaderboard", _with_shots(saved["leaderboard"], program), f"FAIL replay {program}"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**saved, field: value}))
        checked = runner.invoke(app, ["arena", "--verify", str(bad), program, SHARED])
        assert checked.exit_code == 1 and fails in checked.stdout, checked.output


def _layouts(path: Path) -> list:
    from battleship import notation

    return [notation.parse_layout(line, SMALL) for line in path.read_text().splitlines()]


def _with_shots(board: list[dict], bot: str) -> list[dict]:
    return [{**row, "shots": [s + (row["bot"] == bot) for s in row["shots"]]} for row in board]


def test_verify_refuses_a_file_without_a_key(tmp_path):
    bare = tmp_path / "old.json"
    bare.write_text(json.dumps({"rules": "standard", "games": 1, "seed": 0, "leaderboard": []}))
    result = runner.invoke(app, ["arena", "--verify", str(bare)])
    assert result.exit_code == 2 and "reveals no key" in result.output


def test_the_rules_of_a_saved_run_read_back():
    for name in ("standard", "pirates", "square-6"):
        rules = rules_mod.load(name)
        assert rules_of(rules.as_dict()) == rules


# ---- Ctrl-C and SIGTERM --------------------------------------------------------------------------------
@pytest.mark.parametrize(("number", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_kills_every_bot_and_keeps_what_finished(tmp_path, number, code):
    token = "interrupt-" + secrets.token_hex(6)
    slow = attacker("honest", token, "slow")  # 10 ms a shot: 200 games take a minute
    out, said = tmp_path / "results.json", tmp_path / "stderr.txt"
    with said.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "battleship", "arena", "hunt-target", slow, "--rules", "square-6",
             "--games", "200", "--out", str(out), "--shared-caches-i-trust"],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
    try:
        end = time.monotonic() + 120
        while not set(leftovers(token)) - {process.pid} and time.monotonic() < end and process.poll() is None:
            time.sleep(0.05)  # until the bot has started (the arena's own command line names it too)
        time.sleep(8.0)  # a few of its games finish (each takes about 0.4 s; 200 take over a minute)
        process.send_signal(number)
        assert process.wait(timeout=60) == code, said.read_text()
    finally:
        process.kill()
        process.wait()
    saved = arena.load(out)
    assert saved["interrupted"] is True
    games = {row["bot"]: row["games"] for row in saved["leaderboard"]}
    assert games["hunt-target"] == 200 and 0 < games.get(slow, 0) < 200
    assert leftovers(token) == []
    assert "interrupted: " in said.read_text()


# ---- a machine that cannot sandbox ------------------------------------------------------------------
def test_without_a_sandbox_program_bots_are_refused_unless_the_organiser_says_otherwise(monkeypatch):
    monkeypatch.setattr(sandbox, "BWRAP", "no-such-bwrap")
    sandbox.probe.cache_clear()
    try:
        program = f"exec:{sys.executable} {ATTACK} honest"
        refused = runner.invoke(app, ["arena", "hunt-target", program, "--rules", "square-6", "--games", "2"])
        assert refused.exit_code == 2
        line = refused.stderr.strip()
        assert len(line.splitlines()) == 1 and "cannot sandbox program and class bots" in line
        assert "no-such-bwrap is not installed" in line and "--unconfined-bots-i-trust" in line
        shooters = runner.invoke(
            app, ["arena", "hunt-target", "random", "--rules", "square-6", "--games", "2"]
        )
        assert shooters.exit_code == 0, shooters.output  # registered shooters need no sandbox
        trusted = runner.invoke(app, ["arena", "hunt-target", program, "--rules", "square-6", "--games", "2",
                                      "--unconfined-bots-i-trust", "--json"])  # fmt: skip
        assert trusted.exit_code == 0, trusted.output
        assert json.loads(trusted.stdout)["jail"] == "unconfined"
    finally:
        sandbox.probe.cache_clear()


def test_the_refusal_names_the_commands_option():
    from battleship.cli import arena as arena_cli

    assert arena_cli.UNCONFINED_OPTION == sandbox.UNCONFINED_OPTION


@pytest.mark.skipif(os.geteuid() != 0, reason="as root the sandbox runs bots as another user")
def test_a_bot_file_other_users_cannot_read_is_refused_before_the_run(tmp_path):
    private = tmp_path / "private.py"
    shutil.copy(ATTACK, private)
    private.chmod(stat.S_IRUSR | stat.S_IWUSR)
    result = runner.invoke(app, ["arena", f"exec:{sys.executable} {private} honest", "--rules", "square-6"])
    assert result.exit_code == 2 and "is not readable by other users (mode 600)" in result.output


def test_a_bot_naming_the_working_directory_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["arena", f"exec:{sys.executable} {ATTACK} honest .", "--rules", "square-6"])
    assert result.exit_code == 2 and "holds the arena's working directory" in result.output


def test_a_run_from_a_folder_every_bot_can_read_is_refused(monkeypatch):
    import battleship

    monkeypatch.chdir(Path(battleship.__file__).parent)  # the package: every sandbox shows it
    result = runner.invoke(app, ["arena", f"exec:{sys.executable} {ATTACK} honest", "--rules", "square-6"])
    assert result.exit_code == 2 and "which every bot may read" in result.output


# ---- a folder of entries ------------------------------------------------------------------------------
def test_a_contest_from_a_folder_of_entries(tmp_path):
    entries = tmp_path / "entries"
    entries.mkdir()
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", entries / "alice.py")
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.js", entries / "bob.js")
    (entries / "carol").mkdir()
    shutil.copy(ROOT / "examples" / "bots" / "parity_hunter.py", entries / "carol" / "strategy.py")
    (entries / "carol" / "bot.toml").write_text('class = "strategy.py:ParityHunter"\n')
    (entries / "dave").mkdir()
    shutil.copy(ATTACK, entries / "dave" / "play.py")
    (entries / "dave" / "bot.toml").write_text(f'command = "{sys.executable} play.py honest"\n')
    (entries / "erin").mkdir()
    shutil.copy(ROOT / "examples" / "bots" / "hunt_target.py", entries / "erin" / "main.py")
    (entries / "README.md").write_text("the entries of the autumn contest")
    bots = arena.load_entries(entries)
    assert [b.label for b in bots] == ["alice.py", "bob.js", "carol", "dave", "erin"]
    assert [b.kind for b in bots] == ["program", "program", "class", "program", "program"]
    if shutil.which("node") is None:
        bots = [b for b in bots if b.label != "bob.js"]
    # at the defaults (the kernel's caches dropped before each bot, each bot on one CPU of its own)
    result = arena.run(SMALL, bots, 3, arena.Key.new(), limits=arena.Limits(time=5.0, start=20.0))
    for row in result.leaderboard:
        assert sum(row.forfeits.values()) == 0, row.forfeit_examples
    cli = runner.invoke(app, ["arena", "random", "--entries", str(entries), "--rules", "square-6", "--games", "2",
                              "--time-limit", "5", "--json", "--shared-caches-i-trust"])  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert {r["bot"] for r in json.loads(cli.stdout)["leaderboard"]} >= {
        "random",
        "alice.py",
        "carol",
        "dave",
    }


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: (d / "x.cobol").write_text("."), "cannot tell how to run x.cobol"),
        (lambda d: (d / "y").mkdir(), "needs a bot.toml or exactly one main file"),
        (lambda d: ((d / "z").mkdir(), (d / "z" / "bot.toml").write_text('main = "a.py"\ncommand = "b"\n')),
         "exactly one of command, main or class"),
        (lambda d: ((d / "w").mkdir(), (d / "w" / "bot.toml").write_text('colour = "red"\n')), "unknown key 'colour'"),
        (lambda d: ((d / "v").mkdir(), (d / "v" / "bot.toml").write_text("main = [")), "bot.toml cannot be read"),
        (lambda d: ((d / "u").mkdir(), (d / "u" / "bot.toml").write_text('main = "../../etc/passwd"\n')),
         "is not a file in the entry"),
    ],
)  # fmt: skip
def test_an_entry_that_cannot_be_run_is_refused_naming_it(tmp_path, make, says):
    make(tmp_path)
    with pytest.raises(BattleshipError, match=says):
        arena.load_entries(tmp_path)


def test_an_empty_folder_of_entries_is_refused(tmp_path):
    with pytest.raises(BattleshipError, match="no entry in it"):
        arena.load_entries(tmp_path)


# ---- ratings across runs ------------------------------------------------------------------------------
def test_ratings_carry_across_runs_and_a_run_counts_once(tmp_path):
    table = tmp_path / "ratings.json"
    args = ["--rules", "square-6", "--games", "30", "--ratings", str(table), "--json"]
    first = runner.invoke(app, ["arena", "density", "random", *args])
    assert first.exit_code == 0, first.output
    rated = json.loads(first.stdout)["ratings"]
    assert [r["bot"] for r in rated] == ["density", "random"] and rated[0]["ordinal"] > rated[1]["ordinal"]
    assert rated[0]["games"] == 30 and rated[0]["runs"] == 1 and rated[0]["change"] is None
    second = runner.invoke(app, ["arena", "hunt-target", "random", *args])
    assert second.exit_code == 0, second.output
    after = {r["bot"]: r for r in json.loads(second.stdout)["ratings"]}
    assert set(after) == {"density", "hunt-target", "random"} and after["random"]["runs"] == 2
    assert (
        after["random"]["games"] == 60
        and after["random"]["change"] is not None
        and after["density"]["in_run"] is False
    )
    saved = ratings.read(table)
    assert len(saved["runs"]) == 2 and saved["bots"]["density"]["runs"] == 1
    result = arena.ArenaResult(**{**json.loads(first.stdout), "leaderboard": []})
    with pytest.raises(BattleshipError, match="already in"):
        ratings.update(table, result)


def test_a_file_that_is_not_a_ratings_table_is_refused_before_the_run(tmp_path):
    bad = tmp_path / "ratings.json"
    bad.write_text('{"model": "elo"}')
    result = runner.invoke(
        app, ["arena", "random", "--rules", "square-6", "--games", "2", "--ratings", str(bad)]
    )
    assert result.exit_code == 2 and "is not a ratings file" in result.output
