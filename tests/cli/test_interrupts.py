"""Ctrl-C and SIGTERM on every long command, sent to a real process: the exit status (130, 143), the one
line saying what was kept, the file kept (whole lines only), and --resume carrying the run to the end
with the very games an uninterrupted run plays. Never a traceback.

Each test waits until the work is under way (the --out file has a game, or on a terminal the progress
bar has appeared) before it signals; no test asserts how long anything took
(benchmarks/interrupts.py measures that).
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from battleship import generators, lab
from battleship.rules import preset

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals, a pty")]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# `python -m battleship`, as the `battleship` program runs
COMMAND = [sys.executable, "-m", "battleship"]
WAIT = 240  # generous: the machine may be busy; never asserted


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT / "src")}


def _until(condition: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    """Wait (bounded) until ``condition``; the command must still be running then, or the test is void."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert proc.poll() is None, f"the command ended ({proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.01)
    assert proc.poll() is None, f"the command ended before it could be interrupted ({what})"


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def _numbers(path: Path, width: int = 1) -> np.ndarray:
    """A shots file's games as whole numbers, ``(games, width)`` (or a vector for one column)."""
    values = np.array(" ".join(_lines(path)).split(), dtype=np.int64)
    return values if width == 1 else values.reshape(-1, width)


def interrupt_when(args: list[str], cwd: Path, ready: Callable[[], bool], sig: int) -> tuple[int, str, str]:
    """Run a command, send ``sig`` once ``ready()``, and return its status, stdout and stderr."""
    proc = subprocess.Popen(
        [*COMMAND, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()
    )
    try:
        _until(ready, proc, "the work under way")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
    assert "Traceback" not in err and "Segmentation" not in err, err
    return proc.returncode, out, err


def interrupt_on_terminal(
    args: list[str], cwd: Path, marker: str, sig: int, then: str | None = None
) -> tuple[int, str]:
    """Run a command on a pseudo-terminal, send ``sig`` once ``marker`` shows (its progress bar) and, if
    given, the pattern ``then`` (its progress past nothing); return its status and everything it printed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([*COMMAND, *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=_env())
    os.close(slave)
    seen = []

    def read() -> bool:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            with contextlib.suppress(OSError):
                seen.append(os.read(master, 65536).decode(errors="replace"))
        text = "".join(seen)
        return marker in text and (then is None or re.search(then, text) is not None)

    try:
        _until(read, proc, f"{marker!r} on the terminal")
        proc.send_signal(sig)
        deadline = time.monotonic() + WAIT
        while proc.poll() is None and time.monotonic() < deadline:
            read()
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen.append(chunk.decode(errors="replace"))
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", "".join(seen))
    assert "Traceback" not in text and "Segmentation" not in text, text
    return proc.returncode, text


def _has_games(path: Path) -> Callable[[], bool]:
    return lambda: path.exists() and len(_lines(path)) > 0


def _run(args: list[str], cwd: Path) -> dict:
    done = subprocess.run(
        [*COMMAND, *args], cwd=cwd, capture_output=True, text=True, env=_env(), timeout=WAIT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


KEPT = r"kept ([\d,]+) of ([\d,]+) games in (\S+); the same command with --resume carries on"


def test_simulate_keeps_every_finished_game_and_resume_plays_the_same_games(tmp_path):
    args = ["simulate", "hunt-target", "--games", "300000", "--seed", "3", "--jobs", "2", "--out", "f.txt"]
    code, _, err = interrupt_when(args, tmp_path, _has_games(tmp_path / "f.txt"), signal.SIGINT)
    assert code == 130
    kept = re.search(r"interrupted \(Ctrl-C\): " + KEPT, err)
    assert kept, err
    shots = [int(x) for x in _lines(tmp_path / "f.txt")]
    assert len(shots) == int(kept.group(1).replace(",", "")) >= 1 and kept.group(2) == "300,000"
    first = len(shots)
    data = _run([*args, "--resume", "--json"], tmp_path)
    assert data["games"] == 300_000
    again = _numbers(tmp_path / "f.txt")
    assert len(again) == 300_000 and list(again[:first]) == shots
    head = lab.simulate(preset("standard"), "hunt-target", 5_000, seed=3)
    assert np.array_equal(again[:5_000], head)  # the games an uninterrupted run plays
    window = slice(first - 2_000, first + 2_000) if first > 2_000 else slice(0, first + 2_000)
    across = lab.simulate(preset("standard"), "hunt-target", window.stop, seed=3)[window]
    assert np.array_equal(again[window], across)  # no game lost or played twice where it stopped


def test_a_class_played_in_python_stops_between_shots_and_resumes(tmp_path):
    shooter = f"{HERE / 'plodding.py'}:Plodding"
    args = ["simulate", shooter, "--rules", "square-6", "--games", "120", "--jobs", "2", "--out", "p.txt"]
    code, _, err = interrupt_when(args, tmp_path, _has_games(tmp_path / "p.txt"), signal.SIGTERM)
    assert code == 143
    assert re.search(r"stopped \(SIGTERM\): " + KEPT, err), err
    data = _run([*args, "--resume", "--json"], tmp_path)
    assert data["games"] == 120 and data["shooter"] == shooter
    r = preset("square-6")
    layouts = [generators.to_layout(r, row) for row in generators.draw(r, "uniform", 0, 120)]
    expected = [layout.occupied.bit_length() for layout in layouts]  # reading order: the last ship cell
    assert [int(x) for x in _lines(tmp_path / "p.txt")] == expected


def test_compare_keeps_its_paired_games_and_resumes(tmp_path):
    args = ["compare", "random", "hunt-target", "--games", "300000", "--seed", "5", "--jobs", "2"]
    code, _, err = interrupt_when(
        [*args, "--out", "c.txt"], tmp_path, _has_games(tmp_path / "c.txt"), signal.SIGINT
    )
    assert code == 130 and re.search(KEPT, err), err
    assert (tmp_path / "c.txt").read_text().startswith("# random\thunt-target\n")
    assert all(len(line.split()) == 2 for line in _lines(tmp_path / "c.txt"))
    resumed = _run([*args, "--out", "c.txt", "--resume", "--json"], tmp_path)
    rows = _numbers(tmp_path / "c.txt", 2)
    assert len(rows) == resumed["games"] == 300_000
    diff = rows[:, 1] - rows[:, 0]
    assert resumed["shooters"]["hunt-target"]["minus_first"] == pytest.approx(diff.mean())
    assert resumed["shooters"]["random"]["mean"] == pytest.approx(rows[:, 0].mean())


def test_match_keeps_both_sides_games_and_resumes(tmp_path):
    args = ["match", "random", "hunt-target", "--games", "300000", "--seed", "2", "--jobs", "2"]
    code, _, err = interrupt_when(
        [*args, "--out", "m.txt"], tmp_path, _has_games(tmp_path / "m.txt"), signal.SIGTERM
    )
    assert code == 143 and re.search(r"stopped \(SIGTERM\): " + KEPT, err), err
    resumed = _run([*args, "--out", "m.txt", "--resume", "--json"], tmp_path)
    rows = _numbers(tmp_path / "m.txt", 2)
    assert len(rows) == resumed["games"] == 300_000
    assert resumed["a_shots_mean"] == pytest.approx(rows[:, 0].mean())
    assert resumed["b_shots_mean"] == pytest.approx(rows[:, 1].mean())


def test_sweep_keeps_its_games_and_resumes(tmp_path):
    args = [
        "sweep",
        "hunt-target",
        "--against",
        "random",
        "--sizes",
        "6,7",
        "--games",
        "150000",
        "--jobs",
        "2",
    ]
    code, _, err = interrupt_when(
        [*args, "--out", "s.txt"], tmp_path, _has_games(tmp_path / "s.txt"), signal.SIGINT
    )
    assert code == 130 and re.search(r"kept ([\d,]+) of 300,000 games in s.txt", err), err
    resumed = _run([*args, "--out", "s.txt", "--resume", "--json"], tmp_path)
    rows = _numbers(tmp_path / "s.txt", 3)
    assert len(rows) == 300_000 and sorted(set(rows[:, 0])) == [6, 7]
    assert [m["games"] for m in resumed["matches"]] == [150_000] * 2


def test_simulate_montecarlo_stops_between_shots(tmp_path):
    args = ["simulate", "montecarlo", "--games", "200", "--jobs", "2", "--out", "mc.txt"]
    code, _, err = interrupt_when(args, tmp_path, _has_games(tmp_path / "mc.txt"), signal.SIGINT)
    assert code == 130
    kept = re.search(KEPT, err)
    assert kept and int(kept.group(1)) == len(_lines(tmp_path / "mc.txt")), err


def test_layout_count_writes_whole_lines_and_says_where_to_carry_on(tmp_path):
    out = tmp_path / "layouts.txt"
    proc = subprocess.Popen(
        [*COMMAND, "layout", "--count", "100000000", "--seed", "4"],
        cwd=tmp_path, stdout=out.open("w"), stderr=subprocess.PIPE, text=True, env=_env(),
    )  # fmt: skip
    try:
        _until(lambda: out.stat().st_size > 0, proc, "layouts written")
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=WAIT)[1]
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err
    said = re.search(
        r"([\d,]+) of 100,000,000 layouts written, every line whole; --start (\d+) --count (\d+)", err
    )
    assert said, err
    lines = out.read_text().split("\n")
    assert lines[-1] == "" and all(len(line) == 109 for line in lines[:-1])
    written = len(lines) - 1
    assert int(said.group(1).replace(",", "")) == int(said.group(2)) == written
    rest = subprocess.run(
        [*COMMAND, "layout", "--count", "3", "--seed", "4", "--start", str(written)],
        capture_output=True, text=True, env=_env(), timeout=WAIT,
    )  # fmt: skip
    r = preset("standard")
    expected = generators.format_lines(r, generators.draw(r, "uniform", 4, 3, first=written)).decode()
    assert rest.stdout == expected


def test_defend_writes_the_best_layout_found_so_far(tmp_path):
    args = ["defend", "density", "--method", "anneal", "--iterations", "10000000", "--out", "d.txt"]
    # once a move is done: the bar can show for a second on a busy machine before the first layout is found
    code, text = interrupt_on_terminal(
        args, tmp_path, "annealing against density", signal.SIGINT, then=r" [1-9]\d*/10000000"
    )
    assert code == 130
    assert re.search(r"interrupted \(Ctrl-C\): the layout found after [\d,]+ moves, [\d.]+ shots", text), text
    from battleship.notation import parse_layout

    parse_layout((tmp_path / "d.txt").read_text().strip(), preset("standard"))  # a valid layout


@pytest.mark.parametrize(
    ("args", "marker", "sig", "said"),
    [
        (
            ["count", "--rules", "seabattle"],
            "counting",
            signal.SIGINT,
            "counted 0 of 1 rule sets; nothing written",
        ),
        (
            ["calc", "./empty.txt", "--rules", "seabattle"],
            "counting layouts",
            signal.SIGTERM,
            "nothing to keep: the count was not finished",
        ),
        (
            ["calc", "./empty.txt", "--rules", "seabattle", "--time", "600"],
            "sampling",
            signal.SIGINT,
            "nothing to keep: the estimate was not finished",
        ),
        (
            ["limit", "--rules", "./slow.toml", "optimal"],
            "solving every layout",
            signal.SIGTERM,
            "nothing to keep: the exact solve was not finished",
        ),
    ],
)
def test_commands_that_keep_nothing_stop_and_say_so(tmp_path, args, marker, sig, said):
    (tmp_path / "empty.txt").write_text("/".join(["." * 10] * 10) + "\n")
    (tmp_path / "slow.toml").write_text(
        'rows = 4\ncols = 5\nsinks = "revealed"\n'
        '[[ship]]\nname = "Three"\nsymbol = "T"\nlength = 3\n'
        '[[ship]]\nname = "Two"\nsymbol = "W"\nlength = 2\n'
    )
    code, text = interrupt_on_terminal(args, tmp_path, marker, sig)
    assert code == 128 + sig
    why = "interrupted (Ctrl-C)" if sig == signal.SIGINT else "stopped (SIGTERM)"
    assert f"{why}: {said}" in text, text


def test_learn_writes_no_half_fitted_model(tmp_path):
    layouts = tmp_path / "layouts.txt"
    r = preset("pirates")
    layouts.write_bytes(generators.format_lines(r, generators.draw(r, "contest", 1, 20_000)))
    code, text = interrupt_on_terminal(
        ["learn", "layouts.txt", "--rules", "pirates", "--out", "model.json"],
        tmp_path,
        "fitting",
        signal.SIGINT,
    )
    assert code == 130
    model = tmp_path / "model.json"
    if "nothing written: the model was not fitted" in text:
        assert not model.exists()
    else:  # the fit was quicker than the signal: the model is whole, and said to be
        assert "the model was fitted and written to model.json" in text, text
        from battleship.inference.prior import load

        load(model)


def test_a_signal_while_the_program_starts_ends_it_quietly(tmp_path):
    program = Path(sys.executable).with_name("battleship")
    if not program.exists():
        pytest.skip("the battleship program is not installed beside this Python")
    for delay in (0.0, 0.05, 0.2):
        proc = subprocess.Popen(
            [str(program), "count", "--rules", "seabattle"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=WAIT)[1]
        # 143 once Python runs; before that the signal ends the process itself (a shell says 143 too)
        assert proc.returncode in (143, -signal.SIGTERM) and "Traceback" not in err, err


TWELVE = """name = "twelve"
rows = 12
cols = 12
spacing = "no-edge"
sinks = "sunk"
""" + "".join(
    f'[[ship]]\nname = "{name}"\nsymbol = "{name[0]}"\nlength = {size}\n'
    for name, size in (
        ("Carrier", 5),
        ("Battleship", 4),
        ("Raider", 4),
        ("Submarine", 3),
        ("Destroyer", 3),
        ("Patrol", 2),
    )
)


def test_a_problem_far_beyond_is_said_before_it_starts(tmp_path):
    (tmp_path / "twelve.toml").write_text(TWELVE)
    board = "/".join(["." * 12] * 4 + ["......x....."] + ["." * 12] * 7)
    code, text = interrupt_on_terminal(
        ["calc", board, "--rules", "twelve.toml"], tmp_path, "counting layouts", signal.SIGINT
    )
    assert code == 130
    said = re.search(r"note: counting every layout is expected to take about (\d+ (min|h))", text)
    assert said and "--time 10 answers by Monte Carlo within ten seconds" in text, text


def _drain(master: int) -> bytes:
    """Everything still to be read from a pseudo-terminal's master side."""
    out = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def test_progress_shows_on_a_terminal_only(tmp_path):
    args = [*COMMAND, "simulate", "hunt-target", "--games", "300000", "--json"]
    master, slave = pty.openpty()
    piped = subprocess.run(args, stdout=subprocess.PIPE, stderr=slave, env=_env(), timeout=WAIT, cwd=tmp_path)
    os.close(slave)
    shown = _drain(master)
    os.close(master)
    assert piped.returncode == 0 and b'"games": 300000' in piped.stdout
    assert b"hunt-target on" not in shown  # stdout is piped: no progress, even with stderr on a terminal
    args = args[:-1]  # a terminal, and no --json
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=_env(), cwd=tmp_path)
    os.close(slave)
    seen = b""
    while proc.poll() is None:
        seen += _drain(master)
    seen += _drain(master)
    os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    assert proc.returncode == 0 and "300,000 games" in text
    assert "hunt-target on standard" in text and "elapsed" in text and "left" in text
