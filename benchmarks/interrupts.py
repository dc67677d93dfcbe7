"""How long each long command takes to stop after Ctrl-C or SIGTERM (the target: two seconds).

Run: .venv/bin/python benchmarks/interrupts.py [--rounds N] [--only WORD ...]

Each command runs as the ``battleship`` program on a pseudo-terminal (so it shows its progress,
which says the work is under way) in a scratch folder; once its output shows the work has begun,
it is sent the signal and the time until it has exited is measured. Prints one line a command and
round: the signal, the exit status, the seconds to exit, and the line it said on the way out. The
tests (tests/cli/test_interrupts.py) check the statuses, messages and files; this measures time.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = str(Path(sys.executable).with_name("battleship"))
EMPTY_SEABATTLE = "/".join(["." * 10] * 10)
SLOW_TOML = (
    'rows = 4\ncols = 5\nsinks = "revealed"\n'
    '[[ship]]\nname = "Three"\nsymbol = "T"\nlength = 3\n[[ship]]\nname = "Two"\nsymbol = "W"\nlength = 2\n'
)
# (name, arguments, what on the terminal says the work is under way, signal)
CASES = [
    ("simulate optimal", ["simulate", "optimal", "--games", "200", "--jobs", "2", "--out", "o.txt"], "optimal on", signal.SIGINT),
    ("simulate montecarlo", ["simulate", "montecarlo", "--games", "200", "--out", "m.txt"], "montecarlo on", signal.SIGINT),
    ("simulate density", ["simulate", "density", "--games", "100000000", "--jobs", "2", "--out", "d.txt"], "density on", signal.SIGTERM),
    ("compare", ["compare", "trial-sink", "density", "--rules", "pirates", "--games", "10000000", "--jobs", "2", "--out", "c.txt"], "2 shooters", signal.SIGINT),
    ("match", ["match", "density", "hunt-target", "--games", "10000000", "--jobs", "2", "--out", "x.txt"], " v ", signal.SIGINT),
    ("sweep", ["sweep", "optimal", "--sizes", "6..15", "--games", "1000", "--out", "s.txt"], " v ", signal.SIGTERM),
    ("defend best (construct)", ["defend", "best", "--rules", "seabattle"], "building", signal.SIGINT),
    ("defend anneal", ["defend", "density", "--method", "anneal", "--iterations", "1000000"], "annealing", signal.SIGINT),
    ("calc exact", ["calc", EMPTY_SEABATTLE, "--rules", "seabattle"], "counting layouts", signal.SIGINT),
    ("calc --time", ["calc", EMPTY_SEABATTLE, "--rules", "seabattle", "--time", "600"], "sampling", signal.SIGINT),
    ("count", ["count", "--rules", "seabattle"], "counting", signal.SIGTERM),
    ("limit", ["limit", "--rules", "slow.toml"], "solving", signal.SIGINT),
    ("learn", ["learn", "contest.txt", "--rules", "pirates"], "fitting", signal.SIGINT),
    ("layout --count", ["layout", "--count", "1000000000", "--rules", "pirates"], "layouts", signal.SIGINT),
]  # fmt: skip


def one(args: list[str], marker: str, sig: int, cwd: Path) -> tuple[int, float, str]:
    """Run, signal once ``marker`` shows, and return (exit status, seconds from signal to exit, last line)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([PROGRAM, *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    seen, sent = b"", None
    try:
        while proc.poll() is None:
            ready = select.select([master], [], [], 0.01)[0]
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            if sent is None and marker.encode() in seen:
                proc.send_signal(sig)
                sent = time.perf_counter()
        proc.wait()
        took = time.perf_counter() - sent if sent is not None else float("nan")
    finally:
        proc.kill()
        os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    said = [line.strip() for line in text.splitlines() if "interrupted" in line or "stopped" in line]
    return proc.returncode, took, said[-1] if said else ""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="only the commands whose name holds one of these words")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="interrupts-"))
    (folder / "slow.toml").write_text(SLOW_TOML)
    layouts = subprocess.run(
        [PROGRAM, "layout", "--rules", "pirates", "--generator", "contest", "--count", "20000"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (folder / "contest.txt").write_text(layouts)
    worst = 0.0
    for name, command, marker, sig in CASES:
        if args.only and not any(word in name for word in args.only):
            continue
        times = []
        for _ in range(args.rounds):
            for leftover in folder.glob("*.txt*"):
                if leftover.name != "contest.txt":
                    leftover.unlink()
            code, took, said = one(command, marker, sig, folder)
            times.append(took)
            print(
                f"{name:26s} {signal.Signals(sig).name:7s} exit {code:4d} {took:6.2f} s  {said[:110]}",
                flush=True,
            )
        worst = max(worst, max(times))
        print(f"{name:26s} median {statistics.median(times):.2f} s, worst {max(times):.2f} s", flush=True)
    print(f"worst of all: {worst:.2f} s")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
