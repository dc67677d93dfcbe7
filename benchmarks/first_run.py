"""What a newcomer meets: a clean export installed into a new venv, the README's first steps timed.

Run: .venv/bin/python benchmarks/first_run.py [--wheel WHEEL] [--keep DIR]

1. install: `git archive HEAD` into a folder, a new venv, `pip install "<export>[web]"` (which builds the
   wheel, compiling the kernels into it), timed; or, with --wheel, that wheel installed instead;
2. each README step run twice with an empty home folder (no user cache): `battleship --help`, `layout
   --seed 7`, `calc <the README's board> --percent`, `simulate density --games 200`, the README's Python
   example, and `battleship serve` until a new game against the computer has its first move answered
   (and where that time went: until the port answers, the warm-up behind it, the game, the move);
   wall time, CPU time (user + system) and whether anything compiled (the compile notice on stderr);
3. a warm one-board `calc` as a whole process against a bare script that imports only the engine and
   runs it (seven of each, in turns; medians of wall and of CPU time): the command line's own cost.
Prints plain numbers: seconds and ratios. The machine may be shared: CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
BOARD = "........../........../....o...../...oxo..../........../........../........../........../........../.........."
README_EXAMPLE = ROOT / "benchmarks" / "readme_example.py"
BARE_CALC = f"""
from battleship.game import Observation
from battleship.inference.posterior import posterior
from battleship.rules import preset
seen = Observation.from_text({BOARD!r}, preset("standard"))
print(posterior(seen).best())
"""


def run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def install(venv: Path, wheel: str | None) -> float:
    """A new venv with the package and its web extra; returns the seconds pip took."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    if wheel is not None:
        target = f"{wheel}[web]"
    else:
        export = venv.parent / "export"
        export.mkdir()
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(export)], input=archive, check=True)
        target = f"{export}[web]"
    start = time.perf_counter()
    subprocess.run([*pip, target], check=True)
    return time.perf_counter() - start


def serve_first_move(venv: Path, env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """Seconds from launching `battleship serve` to a new game's first move answered by the computer,
    and where they went: until the port answers (imports, the store's schema, the app), until it is
    ready for play (the warm-up behind the open port), the new game (its level timed once under
    the rules), the first move."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = f"sqlite:///{cwd}/first-run.db"
    args = [str(venv / "bin" / "battleship"), "serve", "--port", str(port), "--db", db]
    start = time.perf_counter()
    server = subprocess.Popen(
        args, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks.setdefault(name, time.perf_counter() - start)

    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            while True:
                try:
                    ready = client.get("/api/ready").status_code == 200
                    mark("port answers")
                    if ready:
                        mark("ready for play")
                        made = client.post("/api/games", json={"rules": "standard", "mode": "best"})
                        made.raise_for_status()
                        mark("game made")
                        game = made.json()["id"]
                        client.post(f"/api/games/{game}/fire", json={"cell": "E5"}).raise_for_status()
                        client.post(f"/api/games/{game}/computer").raise_for_status()
                        mark("first move answered")
                        parts, last = [], 0.0
                        for name, at in marks.items():
                            parts.append(f"{name} +{at - last:.2f}")
                            last = at
                        return marks["first move answered"], "; ".join(parts)
                except httpx.TransportError:
                    pass
                if time.perf_counter() - start > 900 or server.poll() is not None:
                    return float("nan"), "the server did not answer a game"
                time.sleep(0.02)
    finally:
        server.terminate()
        server.communicate(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="install this wheel instead of building a clean export")
    parser.add_argument("--keep", help="a folder to work in (kept afterwards)")
    args = parser.parse_args()
    if args.wheel and not Path(args.wheel).is_file():
        parser.error(f"--wheel {args.wheel}: no such file (a wheel built by `pip wheel --no-deps .`)")
    work = Path(args.keep or tempfile.mkdtemp(prefix="first-run-"))
    work.mkdir(parents=True, exist_ok=True)
    venv = work / "venv"
    seconds = install(venv, args.wheel)
    print(
        f"install                                  {seconds:7.1f} s (pip install{' of the wheel' if args.wheel else ', building the wheel'})"
    )
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), COLUMNS="100")
    bin_ = venv / "bin"
    shutil.copy(README_EXAMPLE, work / "readme_example.py")
    steps = {
        "battleship --help": [str(bin_ / "battleship"), "--help"],
        "battleship layout --seed 7": [str(bin_ / "battleship"), "layout", "--seed", "7"],
        "battleship calc <README board> --percent": [str(bin_ / "battleship"), "calc", BOARD, "--percent"],
        "battleship simulate density --games 200": [
            str(bin_ / "battleship"),
            "simulate",
            "density",
            "--games",
            "200",
        ],
        "the README's Python example": [str(bin_ / "python"), "readme_example.py"],
    }
    print(f"{'step':40s} {'first wall':>10s} {'first cpu':>10s} {'again wall':>10s}  compiled")
    for label, command in steps.items():
        wall, cpu, said = run(command, env, work)
        again, _, _ = run(command, env, work)
        compiled = "yes" if "compiling Numba kernels" in said else "no"
        print(f"{label:40s} {wall:9.2f}s {cpu:9.2f}s {again:9.2f}s  {compiled}")
    first, why = serve_first_move(venv, env, work)
    again, _ = serve_first_move(venv, env, work)
    print(f"{'battleship serve: first move answered':40s} {first:9.2f}s {'':>10s} {again:9.2f}s  {why}")
    # in turns, so that a change in the machine's speed (a shared host) falls on both alike
    cli, bare = [], []
    for _ in range(7):
        cli.append(run(steps["battleship calc <README board> --percent"], env, work)[:2])
        bare.append(run([str(bin_ / "python"), "-c", BARE_CALC], env, work)[:2])
    for what, i in (("wall", 0), ("CPU", 1)):
        c, b = statistics.median(x[i] for x in cli), statistics.median(x[i] for x in bare)
        print(f"warm calc, whole process: median {c:.3f} s {what}; bare script {b:.3f} s; ratio {c / b:.2f}")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
