"""What a newcomer meets first: the commands read back what they write, refuse bad counts clearly,
agree on their options, and never squeeze or blank a value; the package's front door works."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import battleship
from battleship.cli import COMMANDS, app
from battleship.rules import Rules, Ship, Sinks, Spacing, preset
from battleship.shooters import names, spec
from battleship.shooters.check import check_shooter

runner = CliRunner()
PIRATES_8 = (("Battleship", 4), ("Cruiser", 3), ("Submarine", 3), ("Destroyer", 2))
README = Path(__file__).resolve().parents[2] / "README.md"


def test_a_played_game_is_read_back_by_replay_and_calc(tmp_path):
    game = tmp_path / "game.txt"
    played = runner.invoke(app, ["play", "hunt-target", "--seed", "4"])
    assert played.exit_code == 0 and "# hunt-target sank the fleet" in played.stdout
    game.write_text(played.stdout)
    replay = runner.invoke(app, ["replay", str(game), "--json"])
    assert replay.exit_code == 0, replay.stderr
    turns = json.loads(replay.stdout)["turns"]
    shots = int(re.search(r"sank the fleet in (\d+) shots", played.stdout).group(1))
    assert len(turns) == shots
    calc = runner.invoke(app, ["calc", "--game", str(game), "--json"])
    assert calc.exit_code == 0 and json.loads(calc.stdout)["shots"] == shots


def test_calc_reads_any_game_of_a_simulate_notation_file(tmp_path):
    many = tmp_path / "games.txt"
    ran = runner.invoke(app, ["simulate", "density", "--games", "3", "--seed", "2", "--notation", str(many)])
    assert ran.exit_code == 0, ran.stderr
    third = runner.invoke(app, ["calc", "--game", str(many), "--index", "3", "--json"])
    assert third.exit_code == 0, third.stderr
    beyond = runner.invoke(app, ["calc", "--game", str(many), "--index", "4"])
    assert beyond.exit_code == 2 and "holds 3 games" in beyond.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--games", "0"], "--games must be at least 1, not 0"),
        (["simulate", "--games", "-5"], "--games must be at least 1, not -5"),
        (["simulate", "--jobs", "0"], "--jobs must be at least 1, not 0"),
        (["compare", "random", "--jobs", "0"], "--jobs must be at least 1"),
        (["match", "random", "random", "--games", "0"], "--games must be at least 1"),
        (["count", "--sizes", "6..4"], "empty range"),
        (["sweep", "--sizes", "3..5"], "side 3 is not between 4 and 16"),
        (["play", "hunt-target:skew=20"], "hunt-target does not read skew"),
        (["play", "density", "--shooter", "random"], "two shooters given"),
    ],
)
def test_bad_counts_and_options_get_one_clear_line(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_the_shooter_is_an_argument_everywhere_and_the_old_option_still_works():
    new = json.loads(runner.invoke(app, ["play", "density", "--seed", "3", "--json"]).stdout)
    old = json.loads(runner.invoke(app, ["play", "--shooter", "density", "--seed", "3", "--json"]).stdout)
    assert new == old and new["shooter"] == "density"
    best = json.loads(runner.invoke(app, ["play", "best", "--rules", "pirates", "--json"]).stdout)
    assert best["shooter"] == "twoply:endgame=5000,plies=1"  # best is printed as what really played


def test_compare_writes_no_charts_unless_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = json.loads(runner.invoke(app, ["compare", "random", "best", "--games", "100", "--json"]).stdout)
    assert out["figures"] == [] and not (tmp_path / "out").exists()
    assert list(out["shooters"]) == ["random", "density:skew=20,lattice=1,lastship=8,book=1"]


@pytest.mark.slow
def test_narrow_terminals_and_pipes_keep_every_value():
    code = (
        "from battleship.cli import app; import sys; sys.argv=['battleship', 'compare', 'random', "
        "'hunt-target', '--games', '300']; app()"
    )
    for columns in ("80", "100"):
        shown = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={"COLUMNS": columns, "TERM": "dumb"},
        ).stdout
        assert "…" not in shown and "hunt-target" in shown
        assert re.search(r"\d+\.\d\d \(\d+\.\d\d \.\. \d+\.\d\d\)", shown)


def test_calc_without_colour_prints_the_numbers():
    board = "........../" * 9 + ".........."
    shown = runner.invoke(app, ["calc", board, "--rules", "square-10"]).stdout
    assert re.search(r"\b[1-9]\d?\b", shown.split("layouts left")[0].split("\n", 1)[1])


@pytest.mark.slow
def test_every_registered_shooter_passes_check_shooter():
    # the check's own rules (standard and pirates), but shooters played in Python infer exactly every
    # shot, seconds a game under pirates' margin: they are checked on a smaller board with that margin
    spaced = Rules(8, 8, tuple(Ship.line(n, n[0], k) for n, k in PIRATES_8), Spacing.NO_CONTACT, Sinks.NONE)
    for name in names():
        if name not in ("learning", "best"):  # learning needs a model file; best is another shooter
            kernel = spec(name).kernel is not None
            check_shooter(
                name, games=2 if kernel else 1, rules=None if kernel else [preset("standard"), spaced]
            )
    assert spec("best").make().name == "best"


def test_version_is_the_packages_own():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"battleship {battleship.__version__}\n"
    from importlib.metadata import version

    assert version("battleship") == battleship.__version__  # pyproject reads it from the package


def test_the_package_front_door():
    assert battleship.__version__
    for name in battleship.__all__:
        assert getattr(battleship, name) is not None
    with pytest.raises(AttributeError):
        battleship.no_such_name  # noqa: B018
    quick = subprocess.run(
        [
            sys.executable,
            "-c",
            "import battleship, sys; print('numba' in sys.modules, 'numpy' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert quick.stdout.split() == ["False", "False"]  # importing the package loads neither


def test_the_board_comes_first_and_the_old_play_order_warns():
    layout = battleship.generate("standard", seed=1)
    record = battleship.play(layout, "density", seed=1)
    with pytest.warns(DeprecationWarning, match=r"play\(layout, shooter\)"):
        assert battleship.play("density", layout, seed=1) == record
    with pytest.raises(battleship.BattleshipError, match="play takes a Layout"):
        battleship.play(battleship.preset("standard"), "density")
    assert battleship.count(record.observation).distinct == 1  # every ship found: one layout left


def test_posterior_and_count_refuse_a_game_or_a_layout_naming_game_observation():
    layout = battleship.generate("standard", seed=7)
    game = battleship.Game(layout)
    for call in (battleship.posterior, battleship.count):
        with pytest.raises(
            battleship.BattleshipError, match=r"takes an Observation, not a Game: .*game\.observation"
        ):
            call(game)
        with pytest.raises(battleship.BattleshipError, match=r"not a Layout .*game\.observation"):
            call(layout)
        with pytest.raises(battleship.BattleshipError, match=r"not a Record: .*record\.observation"):
            call(battleship.play(layout, "random", seed=1))


def test_the_front_door_documents_one_argument_order():
    import inspect

    from battleship import api

    assert "One argument order" in api.__doc__
    first = {
        name: next(iter(inspect.signature(getattr(api, name)).parameters))
        for name in ("play", "simulate", "compare", "match", "count", "posterior", "limit", "generate")
    }
    assert first == {
        "play": "layout",
        "simulate": "rules",
        "compare": "rules",
        "match": "rules",
        "count": "board",
        "posterior": "board",
        "limit": "rules",
        "generate": "rules",
    }


def test_compiling_is_said_with_progress_and_cached_kernels_say_nothing(monkeypatch):
    import io

    from numba import njit

    from battleship import jit, waiting

    monkeypatch.setattr(
        waiting, "AFTER", 0
    )  # said at once (a compile this small takes less than the usual wait)

    @njit(cache=False)
    def triple(x):
        return 3 * x

    said = io.StringIO()
    with jit.notice(said):
        assert triple(2) == 6  # compiled here
    lines = said.getvalue().splitlines()
    assert lines[0].startswith("compiling Numba kernels (not among the package's compiled kernels")
    assert "battleship warm" in lines[0]
    assert (
        lines[-1].startswith("compiled ")
        and lines[-1].endswith(" s")
        and re.search(r" functions?: ", lines[-1])
    )
    again = io.StringIO()
    with jit.notice(again):
        assert triple(3) == 9  # compiled already
    assert again.getvalue() == ""


def test_a_users_own_numba_function_compiles_unsaid_outside_the_packages_calls(monkeypatch, capsys):
    from numba import njit

    from battleship import jit, waiting

    monkeypatch.setattr(waiting, "AFTER", 0)

    @njit(cache=False)
    def double(x):
        return 2 * x

    assert double(2) == 4  # compiled with the package's listener registered, outside any notice block
    assert jit._announcer.depth == 0 and capsys.readouterr().err == ""


def test_compile_all_reports_each_step_and_stops_between_steps(monkeypatch):
    from battleship.lab import warmup
    from battleship.stop import Stop

    ran = []
    fake = [warmup.Step(f"step {i}", lambda i=i: ran.append(i)) for i in range(3)]
    monkeypatch.setattr(warmup, "steps", lambda: fake)
    seen = []
    assert warmup.compile_all(lambda done, total, label: seen.append((done, total, label))) == 3
    assert ran == [0, 1, 2]
    assert seen == [(0, 3, "step 0"), (1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "done")]
    stop = Stop()
    stop.request()
    assert warmup.compile_all(stop=stop) == 0


def test_warm_steps_cover_every_shooter_and_generator():
    from battleship import generators
    from battleship.lab import warmup

    labels = {step.label for step in warmup.steps()}
    for name in names():
        assert f"{name} games" in labels or f"{name} shots" in labels, name
    for name in generators.GENERATORS:
        assert f"layouts ({name})" in labels


def test_the_builds_processes_share_the_steps_a_family_to_each_and_run_every_step_once():
    from battleship.lab import warmup

    todo = warmup.steps()
    for parts in (1, 2, 3, 5):
        shares = [warmup.part(todo, i, parts) for i in range(parts)]
        dealt = sorted(todo.index(step) for share in shares for step in share)
        assert dealt == list(range(len(todo))), parts  # every step once, none twice
        assert all(share for share in shares), parts  # no process idle
    games, engines = (warmup.part(todo, i, 2) for i in range(2))
    assert {s.family for s in games} == {warmup.GAMES} and {s.family for s in engines} == {warmup.ENGINES}


def test_warm_is_a_command():
    listed = runner.invoke(app, ["--help"])
    assert listed.exit_code == 0 and "warm" in listed.stdout
    helped = runner.invoke(app, ["warm", "--help"])
    assert helped.exit_code == 0 and "Load every Numba kernel" in helped.stdout


def test_summaries_and_comparisons_have_short_reprs():
    summary = battleship.simulate("standard", "density", games=20, seed=1)
    text = repr(summary)
    assert text.startswith("<Summary of 20 games: mean ") and len(text) < 160
    assert f"{summary.mean:.2f}" in text
    both = battleship.compare("standard", ["density", "random"], games=20, seed=1)
    text = repr(both)
    assert text.startswith("<Comparison on standard, 20 games (seed 1): density ") and len(text) < 160
    assert f"({both.minus_first['random'][0]:+.2f})" in text


def test_a_command_loads_its_own_module_and_no_other_commands():
    # a fresh interpreter: in this one, other tests have loaded every command already
    code = (
        "import sys; from typer.testing import CliRunner; from battleship.cli import app\n"
        "assert CliRunner().invoke(app, ['count', '--help']).exit_code == 0\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('battleship.cli.'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(loaded.stdout.split())
    assert "battleship.cli.rules" in modules  # where `count` is defined
    assert not modules & {f"battleship.cli.{m}" for m in ("calc", "games", "arena", "serve", "matches", "db")}
    everything = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    for name in COMMANDS:  # and `battleship --help` still lists every one, in order
        assert f" {name} " in everything.stdout
    shown = [
        line.split()[1]
        for line in everything.stdout.splitlines()
        if line.startswith("│ ") and len(line.split()) > 2
    ]
    assert [n for n in shown if n in COMMANDS] == list(COMMANDS)


def test_one_layout_is_drawn_without_loading_numba_and_is_the_kernels():
    code = (
        "import sys; from typer.testing import CliRunner; from battleship.cli import app\n"
        "out = CliRunner().invoke(app, ['layout', '--seed', '7', '--rules', 'pirates'])\n"
        "assert out.exit_code == 0, out.output\n"
        "print('numba' in sys.modules); print(out.stdout.splitlines()[-1])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, line = done.stdout.splitlines()
    assert loaded == "False"  # Numba's import alone is half a second of the command's first run
    from battleship import generators, notation
    from battleship.rules import preset

    rules = preset("pirates")
    assert line == notation.format_layout(
        generators.to_layout(rules, generators.draw(rules, "uniform", 7, 1)[0])
    )
