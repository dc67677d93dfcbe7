"""A fresh install answers at once: the package built as a wheel (its metadata checked as PyPI renders it),
installed into a new virtual environment and run with an empty home folder, compiles nothing on the
README's first steps.

The kernels come compiled inside the package (:mod:`battleship.jit`); this is what would catch their
loss (a wheel built without them, a store that no longer matches the sources, a path the build does not
cover). It fails on any compile, whatever the time; the times are printed with a failure, never asserted
(benchmarks/first_run.py measures them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ONE_SHIP_BOARD = "....../..x.../....../....../....../......"
BOARD = "........../........../....o...../...oxo..../........../........../........../........../........../.........."
SAID = "compiling Numba kernels"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout as a release is (no build isolation: the kernels compiled by the
    install are current, and are packed as they are)."""
    wheels = tmp_path_factory.mktemp("wheels")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)]
    subprocess.run(build, check=True, timeout=1800)
    (built,) = wheels.glob("battleship-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A new venv holding the wheel, and an environment with an empty home."""
    work = tmp_path_factory.mktemp("fresh")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # uv where the suite's own install has it (the same packages as pip, in a fraction of pip's CPU), and
    # compiling the modules to bytecode as pip does: the steps timed below would otherwise compile them
    uv = Path(sys.executable).with_name("uv")
    quick = [str(uv), "pip", "install", "--quiet", "--compile-bytecode", "--python", python, str(wheel)]
    if not uv.exists() or subprocess.run(quick, timeout=1800).returncode != 0:
        pip = [python, "-m", "pip", "--disable-pip-version-check", "-q", "install", str(wheel)]
        subprocess.run(pip, check=True, timeout=1800)
    home = work / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    return venv, env


def run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[str, str, float]:
    start = time.perf_counter()
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, done.stderr, took


@pytest.mark.slow
def test_the_readme_s_first_steps_compile_nothing_on_a_fresh_install(fresh):
    venv, env = fresh
    command = str(venv / "bin" / "battleship")
    # and custom rules of one ship, as a web game's may be: its count is a kernel no preset reaches
    one_ship = venv.parent / "one-ship.toml"
    one_ship.write_text('rows = 6\ncols = 6\n[[ship]]\nname = "Boat"\nsymbol = "B"\nlength = 2\n')
    steps = {
        "layout": [command, "layout", "--seed", "7"],
        "calc": [command, "calc", BOARD, "--percent"],
        "one-ship calc": [command, "calc", ONE_SHIP_BOARD, "--rules", str(one_ship)],
        # more layouts than one thread draws, written as text (a prior's fit and the arena draw so too)
        "layouts": [command, "layout", "--count", "5000", "--seed", "7"],
        "simulate": [command, "simulate", "density", "--games", "200", "--seed", "1"],
        "python": [str(venv / "bin" / "python"), str(ROOT / "benchmarks" / "readme_example.py")],
    }
    outputs, times = {}, {}
    for label, args in steps.items():
        out, err, times[label] = run(args, env, venv.parent)
        assert SAID not in err, f"{label} compiled on a fresh install ({times[label]:.1f} s):\n{err[-2000:]}"
        outputs[label] = out
    compiled = list((venv.parent / "home").rglob("*.nbc"))
    assert not compiled, (
        f"kernels compiled into the user's store on a fresh install: {compiled[:5]} ({times})"
    )
    # the installed package plays the same games as the checkout
    assert outputs["layout"].splitlines()[-1] == (
        "PP......../........../.......D../.......D../.......D../.........S/.........S/.........S/....CCCCC./BBBB......"
    )
    assert "best cell: E5" in outputs["calc"]
    assert "layouts left: 4" in outputs["one-ship calc"]
    assert len(outputs["layouts"].splitlines()) == 5000
    assert "layouts fit what was seen" in outputs["python"] and "shots by" in outputs["python"]


def test_the_wheel_s_metadata_renders_as_pypi_shows_it(wheel):
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and "PASSED" in checked.stdout, checked.stdout + checked.stderr


def test_the_package_s_store_is_refused_when_its_numba_differs(tmp_path, monkeypatch):
    from battleship import jit

    manifest = jit.Manifest.read()
    if manifest is None:
        pytest.skip("this checkout was installed without its compiled kernels")
    other = jit.Manifest(**{**manifest.__dict__, "numba": "0.0.1"})
    assert (
        other.refusal(jit._host_magic())
        == f"it was compiled with Numba 0.0.1, this is {jit.numba.__version__}"
    )
    triple = jit._host_magic()[0]
    elsewhere = jit.Manifest(**{**manifest.__dict__, "target": "host", "magic": (triple, "another", "")})
    assert elsewhere.refusal(jit._host_magic()) == "it was compiled for another CPU (another)"
    if jit._host_features().get("sse4.2"):  # a CPU level this machine runs: the store is used
        level = jit.Manifest(
            **{**manifest.__dict__, "target": "x86-64-v2", "magic": (triple, "x86-64-v2", "")}
        )
        assert level.refusal(jit._host_magic()) is None
