"""No memory errors: the compiled kernels' property tests, run again with every array access checked.

Numba compiles without bounds checks; a read past an array's end gives a wrong number or a
segmentation fault. This runs the property tests of the kernels (the engines and the sampler in
tests/inference, the endgame solver and ``limit``, the shooters' kernels, the commands against brute
force) once more in a subprocess with ``NUMBA_BOUNDSCHECK=1`` and a ``NUMBA_CACHE_DIR`` of its own:
the kernels cached without checks would otherwise be loaded again. That cache holds only kernels
compiled with the checks and is kept between runs (in pytest's cache folder), under a name made
of the package's source: any change to the source starts a new one (Numba notices a change to a
kernel's own file, not to a kernel it calls in another), so only a run after a change compiles
every kernel again. Small boards of every kind are drawn there, one-ship fleets included (fewer per
property than the ordinary run draws, see below); an access out of bounds raises IndexError and fails
them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES_CAP

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = 5  # at most, per property test, in the bounds-checked run
CHECKED = [
    "tests/inference",
    "tests/shooters/test_kernels.py",
    "tests/shooters/test_shooters.py",
    "tests/shooters/test_prior_option.py",
    "tests/test_commands_brute_force.py",
]


def checked_cache(config: pytest.Config, tmp_path: Path) -> Path:
    """The bounds-checked kernels' cache for this version of the source (older versions' removed)."""
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider: a fresh folder then
    if cache is None:
        return tmp_path / "numba"
    digest = hashlib.sha256()
    for source in sorted((ROOT / "src" / "battleship").rglob("*.py")):
        digest.update(source.relative_to(ROOT).as_posix().encode() + b"\0" + source.read_bytes())
    name = f"numba-boundscheck-opt1-{digest.hexdigest()[:16]}"  # compiled at NUMBA_OPT=1 (below)
    folder = cache.mkdir(name)
    for old in folder.parent.glob("numba-boundscheck-*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return folder


@pytest.mark.slow
def test_the_kernels_property_tests_pass_with_bounds_checked(request, tmp_path):
    folder = checked_cache(request.config, tmp_path)
    # Compiling every kernel again is most of this run's time; much of the rest is the brute-force
    # references, which the ordinary run already holds every example against: here each property draws
    # at most EXAMPLES boards (new ones each run, as there), every kernel still reached with its checks on.
    # LLVM's first level of optimisation (NUMBA_OPT=1): the whole run took 295 s of CPU against 399 s
    # at Numba's default 3, compiling faster and playing nearly as fast (none, NUMBA_OPT=0, compiled
    # faster still but the games ran so much slower that the whole took longer). The checks are
    # Numba's, put in before LLVM optimises, the same at every level.
    env = {
        **os.environ,
        "NUMBA_OPT": "1",
        "NUMBA_BOUNDSCHECK": "1",
        "NUMBA_CACHE_DIR": str(folder),
        EXAMPLES_CAP: str(EXAMPLES),
    }
    # small boards are the point: the statistical 10x10 check, and the endgame solver's fixed
    # figures (pure Python, minutes), stay with the ordinary run
    # and so do whole games of every shooter on every preset and the sea-battle-sized comparison: full-size
    # boards, minutes with checks, where the point here is many small boards
    whole_games = "every_shooter_plays or python_shooters or reads_the_margin or small_sea_battle or pirates"
    # and the tests of stopping a compile or an engine: they compile kernels again to stop them (20 s of
    # the rerun's 300), where stopping is the same with the checks as without
    stopping = "stop_requested_while_compiling or stops_when_asked"
    select = [
        "-m",
        "not slow",
        "-k",
        f"not 10x10 and not independent_solver and not gives_up and not ({whole_games} or {stopping})",
    ]
    command = [sys.executable, "-m", "pytest", "-x", "-p", "no:cacheprovider", *select, *CHECKED]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = (done.stdout + done.stderr)[-4000:]
    assert done.returncode == 0, (
        f"exit {done.returncode} (a negative one is a signal: -11 a segfault)\n{tail}"
    )
    assert "[100%]" in done.stdout and "IndexError" not in done.stdout, tail
