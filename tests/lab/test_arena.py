"""The arena: every kind of bot, bots that misbehave in every way, matches, the protocol, the command."""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battleship import generators
from battleship import rules as rules_mod
from battleship.cli import app
from battleship.errors import BattleshipError
from battleship.game import Outcome, Shot
from battleship.lab import arena
from battleship.lab.arena import protocol
from battleship.lab.arena.bots import GameResult
from battleship.lab.arena.contest import _end

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = ROOT / "tests" / "lab" / "arena_bots" / "misbehave.py"
SMALL = rules_mod.square(6)  # the standard fleet on 6x6: a scanning bot needs at most 36 shots
runner = CliRunner()


def misbehaving(mode: str, game: int = 2) -> str:
    return f"exec:{sys.executable} {MISBEHAVE} {mode} {game}"


KEY = arena.Key.from_seed(5)
# the sandbox (make test installs bubblewrap), leaving the kernel's caches as they are between bots:
# the suite shares its machine, and dropping them before every bot of every test would slow every
# other test; test_arena_attacks.py's cache-channel and honest-runtime tests run the default
JAIL = arena.choose(caches=False)


def run(bots: list[str], games: int = 3, rules=SMALL, **limits) -> arena.ArenaResult:
    limits = arena.Limits(**{"time": 0.5, "start": 5.0, "memory_mb": 256, **limits})
    return arena.run(rules, [arena.parse_bot(b, rules) for b in bots], games, KEY, limits=limits, jail=JAIL)


def row_of(result: arena.ArenaResult, bot: str):
    return next(r for r in result.leaderboard if r.bot == bot)


CAUSE_OF = {
    "crash": "crash",
    "orphan": "crash",
    "hang": "time",
    "late": "time",
    "deaf": "time",
    "nonsense": "malformed",
    "blank": "malformed",
    "flood": "malformed",
    "offboard": "off-board",
    "double": "repeat",
    "memory": "crash",
}


LIMITS = arena.Limits(time=0.5, start=5.0, memory_mb=256)


# filling its memory to the limit takes the kernel a while (a memory forfeit must not be a time-out)
SLOW = {"memory": dataclasses.replace(LIMITS, time=10.0)}


@functools.cache
def games_of(bot_text: str, games: int = 3) -> list[GameResult]:
    """The bot's games on the arena's first battlefields, one by one."""
    bot = arena.parse_bot(bot_text, SMALL)
    rows = KEY.battlefields(SMALL, "uniform", games)
    bot.start(SMALL, next((v for k, v in SLOW.items() if f" {k} " in bot_text), LIMITS), JAIL)
    try:
        seed = KEY.bot_seed("battlefields")
        return [bot.play(g, generators.to_layout(SMALL, rows[g]), rows[g], seed) for g in range(games)]
    finally:
        bot.close()


@pytest.mark.parametrize("mode", list(CAUSE_OF))
def test_a_misbehaviour_loses_its_game_only_and_the_bot_is_restarted(mode):
    fine = games_of(misbehaving("fine"))
    assert all(g.fault is None for g in fine)
    bad = games_of(misbehaving(mode))
    assert bad[1].fault is not None and bad[1].fault.cause == CAUSE_OF[mode], bad[1].fault
    if mode == "memory" and JAIL.confined:
        assert "memory limit" in bad[1].fault.detail, bad[1].fault  # the control group's kill, said so
    assert bad[1].shots == (3 if mode == "deaf" else 2)  # it misbehaves at its third shot (deaf: its fourth)
    # games 1 and 3 are played in full (the third by a fresh process): the same scan as the fine bot's
    assert [bad[0].shots, bad[2].shots] == [fine[0].shots, fine[2].shots]
    assert bad[0].fault is None and bad[2].fault is None


def test_the_leaderboard_scores_a_forfeit_as_every_cell_and_tells_why():
    result = run([misbehaving("fine"), misbehaving("crash")])
    fine, crash = (row_of(result, misbehaving(m)) for m in ("fine", "crash"))
    assert crash.forfeits == {**dict.fromkeys(arena.CAUSES, 0), "crash": 1}
    assert crash.mean * 3 == pytest.approx(fine.mean * 3 - fine_game_two() + SMALL.cells)
    example = crash.forfeit_examples[0]
    assert example["game"] == 2 and "exit code 1" in example["detail"]
    assert "RuntimeError: the bot fell over" in example["detail"]  # the end of the bot's stderr
    assert result.forfeit_score == SMALL.cells and result.leaderboard[0].bot == misbehaving("fine")


def fine_game_two() -> int:
    return games_of(misbehaving("fine"))[1].shots


def test_a_program_that_never_starts_forfeits_every_game_and_is_given_up():
    result = run([misbehaving("nostart"), misbehaving("badstart")], games=5)
    for bot in (misbehaving("nostart"), misbehaving("badstart")):
        row = row_of(result, bot)
        assert row.forfeits["start"] == 5 and row.mean == SMALL.cells
        assert "not tried again" in row.forfeit_examples[-1]["detail"]
    assert "exit code 3" in row_of(result, misbehaving("nostart")).forfeit_examples[0]["detail"]


def test_a_command_that_does_not_exist_is_a_start_forfeit():
    result = run(["exec:/nonexistent/bot --fast"], games=2)
    row = result.leaderboard[0]
    assert row.forfeits["start"] == 2 and "cannot run" in row.forfeit_examples[0]["detail"]


@pytest.mark.parametrize("mode", ["spin", "burn-deaf"])
def test_a_program_spinning_is_stopped_by_its_cpu_limit(mode):
    """spin: spins instead of answering (the referee looks at its CPU time while it waits); burn-deaf:
    burns CPU in a thread between its turns, ignoring SIGXCPU (the referee reads it after each answer)."""
    result = run([misbehaving(mode, 1)], games=2, cpu=0.5, time=6.0)
    row = result.leaderboard[0]
    assert row.forfeits["cpu"] == (1 if mode == "spin" else 2), row.forfeit_examples
    assert "s of CPU time in a game; the limit is 0.5 s" in row.forfeit_examples[0]["detail"]


# ---- the protocol ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(rules_mod.PRESETS))
def test_the_rules_block_reads_back_as_the_same_rules(name):
    rules = rules_mod.preset(name)  # noise and the hider too: version 3 carries them
    reader = protocol.RulesReader()
    for line in protocol.rules_lines(rules):
        reader.feed(line)
    assert reader.rules == rules and reader.rules.name == rules.name


@pytest.mark.parametrize("word", ["ship", "end"])
def test_a_rules_block_line_before_its_opening_line_is_refused_saying_so(word):
    lines = protocol.rules_lines(rules_mod.preset("standard"))
    line = next(line for line in lines if line.split()[0] == word)
    with pytest.raises(protocol.ProtocolError, match=f"'{word}' before the 'rules' line"):
        protocol.RulesReader().feed(line)


@pytest.mark.parametrize(
    ("line", "said"),
    [("newgame 1 7", "'newgame' before the rules block"), ("shoot", "'shoot' before 'newgame'")],
)
def test_the_python_host_refuses_a_message_out_of_order_saying_which(line, said):
    from battleship.lab.arena.host import Host
    from battleship.shooters import make

    host = Host(make("random"), io.StringIO())
    with pytest.raises(protocol.ProtocolError, match=said):
        host.handle(line)


def test_a_result_line_reads_back_as_the_same_shot():
    rules = rules_mod.preset("standard")
    for shot in (
        Shot(0, Outcome.MISS),
        Shot(44, Outcome.HIT),
        Shot(45, Outcome.SUNK),
        Shot(45, Outcome.SUNK, 4),
        Shot(45, Outcome.SUNK, 4, (1 << 44) | (1 << 45)),
    ):
        line = protocol.result_line(shot, rules)
        assert protocol.read_result(line, rules) == shot, line
    assert (
        protocol.result_line(Shot(45, Outcome.SUNK, 4, (1 << 44) | (1 << 45)), rules)
        == "result E6 sunk P E5,E6"
    )


@pytest.mark.parametrize(
    ("answer", "cause"),
    [("E5", None), ("e5", None), (" E5 ", None), ("K1", "off-board"), ("A11", "off-board"), ("E 5", "malformed"),
     ("", "malformed"), ("fire", "malformed"), ("5E", "malformed"), ("E05", "malformed")],
)  # fmt: skip
def test_answers_to_shoot(answer, cause):
    rules = rules_mod.preset("standard")
    if cause is None:
        assert protocol.read_shot(answer, rules) == 44
    else:
        with pytest.raises(arena.BotFault) as caught:
            protocol.read_shot(answer, rules)
        assert caught.value.cause == cause and repr(answer) in caught.value.detail


# ---- matches -----------------------------------------------------------------------------------------
def test_who_wins_a_match_game():
    done = lambda shots: GameResult(shots)  # noqa: E731
    fault = arena.BotFault("time", "late")
    # the first mover sinking in 30 beats the second sinking in 30; the second in 29 beats the first in 30
    assert _end(None, done(30), True)[0] < _end(None, done(30), False)[0]
    assert _end(None, done(29), False)[0] < _end(None, done(30), True)[0]
    # a forfeit at the 10th shot comes before a sinking at the 20th, and loses
    assert _end(None, GameResult(9, fault), True) == (19, fault)
    # a fleet never hidden loses before any shot, the first mover's before the second's
    assert _end(fault, None, True)[0] < _end(fault, None, False)[0] < _end(None, done(1), True)[0]


def test_matches_pair_every_bot_and_a_bad_layout_loses_that_game():
    result = arena.run(
        SMALL,
        [arena.parse_bot(t, SMALL) for t in ("hunt-target", misbehaving("badlayout", 3), "random")],
        6, arena.Key.from_seed(2), limits=LIMITS, matches=True, jail=JAIL,
    )  # fmt: skip
    pairs = {(p.a, p.b): p for p in result.matches}
    assert len(pairs) == 3
    bad = pairs["hunt-target", misbehaving("badlayout", 3)]
    assert bad.b_forfeits == 1 and bad.forfeit_examples[0]["game"] == 3
    assert bad.forfeit_examples[0]["cause"] == "layout"
    assert 0 <= bad.a_wins <= 6 and bad.a_win_rate_ci95[0] <= bad.a_win_rate <= bad.a_win_rate_ci95[1]


def test_matches_are_reproducible():
    bots = ("density", misbehaving("fine"))

    def once():
        return arena.run(
            SMALL,
            [arena.parse_bot(t, SMALL) for t in bots],
            4,
            arena.Key.from_seed(9),
            limits=LIMITS,
            matches=True,
            jail=JAIL,
        )

    assert once().matches == once().matches


# ---- every kind of bot; registered shooters as compare plays them ----------------------------------
EXAMPLES = [
    "examples/bots/parity_hunter.py:ParityHunter",
    f"exec:{sys.executable} examples/bots/hunt_target.py",
    "exec:node examples/bots/hunt_target.js",
]


@pytest.mark.skipif(shutil.which("node") is None, reason="make test installs Node.js for the JavaScript bot")
def test_the_example_bots_play_every_game_and_repeat_with_the_seed(monkeypatch):
    monkeypatch.chdir(ROOT)
    rules = rules_mod.preset("standard")
    first = run(EXAMPLES, games=4, rules=rules, time=2.0)
    for row in first.leaderboard:
        assert sum(row.forfeits.values()) == 0, row.forfeit_examples
        assert row.min >= 17 and row.max <= 100 and row.time_per_shot_ms["shots"] == row.mean * 4
    assert {r.name for r in first.leaderboard} == {
        "parity-hunter",
        "hunt-target (python)",
        "hunt-target (javascript)",
    }
    again = run(EXAMPLES, games=4, rules=rules, time=2.0)
    assert [(r.bot, r.mean) for r in again.leaderboard] == [(r.bot, r.mean) for r in first.leaderboard]


def test_the_leaderboard_of_registered_shooters_is_their_compare_figures(tmp_path):
    """On the battlefields the run writes, with the bots' seed it reports, compare gives the same figures."""
    shooters = ["density:skew=20", "hunt-target", "random"]
    fields = tmp_path / "battlefields.txt"
    args = ["--games", "300", "--generator", "edge", "--json"]
    arena_out = runner.invoke(app, ["arena", *shooters, *args, "--seed", "11", "--battlefields", str(fields)])
    assert arena_out.exit_code == 0, arena_out.output
    saved = json.loads(arena_out.stdout)
    compare_out = runner.invoke(
        app, ["compare", *shooters, *args, "--layouts", str(fields), "--seed", str(saved["bot_seed"])]
    )
    assert compare_out.exit_code == 0, compare_out.output
    board = {row["bot"]: row for row in saved["leaderboard"]}
    figures = json.loads(compare_out.stdout)["shooters"]
    for name in shooters:
        assert board[name]["mean"] == figures[name]["mean"]
        assert board[name]["ci95"] == figures[name]["ci95"]
        assert board[name]["sd"] == figures[name]["sd"]


def test_a_shooter_played_in_python_is_played_as_compare_plays_it(tmp_path):
    tiny = tmp_path / "tiny.toml"
    tiny.write_text('name = "tiny"\nrows = 4\ncols = 4\n[[ship]]\nname = "Cruiser"\nsymbol = "C"\nlength = 3\n'
                    '[[ship]]\nname = "Destroyer"\nsymbol = "D"\nlength = 2\n')  # fmt: skip
    fields = tmp_path / "battlefields.txt"
    args = ["optimal", "--rules", str(tiny), "--games", "40", "--json"]  # a cold first shot may take a while:
    arena_out = runner.invoke(
        app, ["arena", *args, "--seed", "3", "--battlefields", str(fields), "--time-limit", "60"]
    )
    row = json.loads(arena_out.stdout)["leaderboard"][0]
    seed = str(json.loads(arena_out.stdout)["bot_seed"])
    compare_out = runner.invoke(app, ["compare", *args, "--layouts", str(fields), "--seed", seed])
    assert row["mean"] == json.loads(compare_out.stdout)["shooters"]["optimal"]["mean"]
    assert row["time_per_shot_ms"]["timed"] == "shot"


# ---- the command -------------------------------------------------------------------------------------
def test_the_command_saves_a_run_that_loads_back(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "results.json"
    result = runner.invoke(
        app, ["arena", "density", f"exec:{sys.executable} examples/bots/hunt_target.py", "--rules", "square-6",
              "--games", "20", "--matches", "--out", str(out), "--shared-caches-i-trust"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "density" in result.stdout and "head to head" in result.stdout
    saved = arena.load(out)
    assert saved["games"] == 20 and saved["protocol"] == arena.VERSION
    assert [r["rank"] for r in saved["leaderboard"]] == [1, 2] and len(saved["matches"]) == 1
    assert set(saved["leaderboard"][0]) >= {"bot", "kind", "mean", "ci95", "minus_leader", "minus_leader_ci95",
                                            "forfeits", "time_per_shot_ms"}  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nosuchbot"], "not a registered shooter"),
        (["density", "density"], "'density' is the same bot on standard"),
        (
            ["best", "density:skew=20,lattice=1,lastship=8,book=1"],
            "'best' and 'density:skew=20,lattice=1,lastship=8,book=1' are",
        ),
        (["exec:"], "must be followed by a command"),
        (["density", "--time-limit", "0"], "--time-limit must be above 0"),
        (["density", "--games", "0"], "--games must be at least 1"),
        (["density:skew=x"], "skew must be an integer"),
        (["density", "--game-budget", "0"], "--game-budget must be above 0 seconds"),
        (["density", "--bot-budget", "-1"], "--bot-budget must be above 0 seconds"),
        (["density", "--budget-forfeits", "0"], "--budget-forfeits must be at least 1"),
        (["density", "--bot-cpus", "999"], "--bot-cpus must be from 1 to"),
        (
            ["density", "--roster", "/nonexistent/roster.toml"],
            "--roster /nonexistent/roster.toml: cannot read it",
        ),
    ],
)
def test_bad_arguments_are_refused_clearly(args, says):
    result = runner.invoke(app, ["arena", *args])
    assert result.exit_code == 2 and says in result.output, result.output


def test_a_saved_run_that_is_not_one_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": "standard"}')
    with pytest.raises(BattleshipError, match="is not an arena run: it has no 'games'"):
        arena.load(bad)


def test_the_protocol_documents_little_bot_plays(tmp_path):
    text = (ROOT / "docs" / "arena-protocol.md").read_text()
    start = text.index("```python") + len("```python")
    bot = tmp_path / "mybot.py"
    bot.write_text(text[start : text.index("```", start)])
    row = run([f"exec:{sys.executable} {bot}"], games=3).leaderboard[0]
    assert sum(row.forfeits.values()) == 0 and row.max <= SMALL.cells


def test_chatter_is_skipped_wherever_it_comes():
    chatty = games_of(misbehaving("chatty"))
    assert [g.shots for g in chatty] == [g.shots for g in games_of(misbehaving("fine"))]
    assert all(g.fault is None for g in chatty)


@pytest.mark.skipif(
    shutil.which("mawk") is None, reason="Debian's awk is mawk; the document's awk bot is for it"
)
def test_the_protocol_documents_awk_bot_plays(tmp_path):
    text = (ROOT / "docs" / "arena-protocol.md").read_text()
    start = text.index("```awk") + len("```awk")
    bot = tmp_path / "bot.awk"
    bot.write_text(text[start : text.index("```", start)])
    row = run([f"exec:mawk -W interactive -f {bot}"], games=3).leaderboard[0]
    assert sum(row.forfeits.values()) == 0 and row.max <= SMALL.cells


def test_an_unconfined_bot_that_exits_is_seen_at_once_though_a_child_holds_its_output():
    bot = arena.parse_bot(misbehaving("orphan", 1), SMALL)
    result = arena.run(SMALL, [bot], 1, KEY, limits=LIMITS, jail=arena.choose(unconfined=True))
    detail = result.leaderboard[0].forfeit_examples[0]
    assert detail["cause"] == "crash" and "exited while asked 'shoot': exit code 4" in detail["detail"], (
        detail
    )
