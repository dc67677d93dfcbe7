"""How long the command line takes to answer: `battleship --help`, and a first run on a fresh install.

Run: .venv/bin/python benchmarks/startup.py
Prints plain numbers (seconds): the median of five `battleship --help`, of five `import battleship`,
and one `battleship simulate density --games 1000` with an empty Numba cache (a fresh install
compiles its kernels once; NUMBA_CACHE_DIR points at a new folder) beside the same run warm.
Targets: --help under 0.5 s; a cold first run under 10 s or a progress line saying what compiles.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).with_name("battleship")


def timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, done.stderr


def main() -> None:
    helps = [timed([str(BIN), "--help"])[0] for _ in range(5)]
    imports = [timed([sys.executable, "-c", "import battleship"])[0] for _ in range(5)]
    print(f"battleship --help        median {statistics.median(helps):.3f} s (target 0.5 s)")
    print(f"import battleship        median {statistics.median(imports):.3f} s")
    cache = tempfile.mkdtemp(prefix="numba-cold-")
    try:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "COLUMNS": "100"}
        run = [str(BIN), "simulate", "density", "--games", "1000"]
        cold, said = timed(run, env)
        warm, _ = timed(run, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    told = "compil" in said
    print(f"first simulate, cold     {cold:.1f} s (target 10 s, or a line saying what compiles: {told})")
    print(f"same simulate, warm      {warm:.1f} s   ratio cold/warm {cold / warm:.1f}")


if __name__ == "__main__":
    main()
