"""A light install: the game, the inference, the shooters, the lab and the command line work without any extra,
and each part that needs one refuses in one line with the exact install command.

The extras' packages are hidden from a fresh interpreter by an import hook (they are installed here), so
these run what a user of ``pip install battleship`` runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from battleship import extras

ROOT = Path(__file__).resolve().parents[2]

# every package an extra brings, and one that FastAPI alone pulls in (Pydantic comes with Typer)
HIDDEN = (
    "fastapi", "starlette", "uvicorn", "sqlalchemy", "limits",
    "dask", "distributed", "gymnasium", "pettingzoo", "openskill", "matplotlib", "PIL",
)  # fmt: skip

PRELUDE = f"""
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {HIDDEN!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hide())
"""

# each command run through the app in the light interpreter: (arguments, what it must say or None)
RUNS = {
    "count": (["count", "--rules", "square-5", "--json"], None),
    "calc": (["calc", "...../...../...../...../.....", "--rules", "square-5", "--json"], None),
    "simulate": (["simulate", "random", "--rules", "square-5", "-n", "20", "--json"], None),
    "serve": (["serve"], "the web app needs the web extra: pip install 'battleship[web]'"),
    "cluster": (
        ["simulate", "random", "-n", "20", "--cluster", "local"],
        "--cluster needs the cluster extra: pip install 'battleship[cluster]'",
    ),
    "figures": (
        ["compare", "random", "hunt-target", "--rules", "square-5", "-n", "20", "--figures", "{tmp}/f"],
        "--figures needs the plot extra: pip install 'battleship[plot]'",
    ),
    "png": (
        ["calc", "...../...../...../...../.....", "--rules", "square-5", "--png", "{tmp}/p.png"],
        "--png needs the plot extra: pip install 'battleship[plot]'",
    ),
    "play": (
        ["play", "random", "--rules", "square-5", "--seed", "1", "--out", "{tmp}/g.txt", "--json"],
        None,
    ),
    "gif": (  # the replay imports Matplotlib itself: the command line still says which extra it needs
        ["replay", "{tmp}/g.txt", "--gif", "{tmp}/g.gif"],
        "drawing replay frames (--gif, --frames) needs the plot extra: pip install 'battleship[plot]'",
    ),
    "ratings": (
        ["arena", "random", "--games", "2", "--seed", "1", "--ratings", "{tmp}/r.json"],
        "rating bots (arena --ratings) needs the arena extra: pip install 'battleship[arena]'",
    ),
}

SCRIPT = """
import json, sys
import battleship
from typer.testing import CliRunner
from battleship.cli import app
runs, tmp = json.loads(sys.argv[1]), sys.argv[2]
out = {}
for key, args in runs.items():
    result = CliRunner().invoke(app, [a.replace("{tmp}", tmp) for a in args])
    out[key] = [result.exit_code, result.stdout, result.stderr, repr(result.exception)]
try:
    import battleship.envs
    out["envs"] = "imported"
except ImportError as exc:
    out["envs"] = str(exc)
out["loaded"] = sorted({name.partition(".")[0] for name in sys.modules})
print(json.dumps(out))
"""


def _light(tmp_path: Path) -> dict:
    runs = json.dumps({key: args for key, (args, _) in RUNS.items()})
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + SCRIPT, runs, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1800,  # the first run after an install compiles the kernels
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"},  # a pipe's width: messages unwrapped
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_core_works_and_each_extra_is_refused_with_its_install_line(tmp_path):
    out = _light(tmp_path)
    for key, (_, message) in RUNS.items():
        code, stdout, stderr, exception = out[key]
        if message is None:
            assert code == 0, (key, stderr, exception)
            json.loads(stdout)
        else:
            assert code == 2, (key, stderr, exception)
            assert stderr.endswith(f"error: {message}\n") and stderr.count("error:") == 1, (key, stderr)
            assert "Traceback" not in stdout + stderr, key
    assert (
        out["envs"]
        == "battleship.envs (the learning environments) needs the rl extra: pip install 'battleship[rl]'"
    )
    assert not set(HIDDEN) & set(out["loaded"])


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


PIP_NAMES = {"PIL": "pillow"}  # modules whose package is named otherwise


def test_the_core_dependencies_hold_no_extra_and_each_extra_installs_its_packages():
    project = _pyproject()["project"]
    core = _names(project["dependencies"])
    assert core == {"numpy", "numba", "typer", "rich"}
    optional = project["optional-dependencies"]
    for extra, (_, modules) in extras.EXTRAS.items():
        packages = {PIP_NAMES.get(m, m).lower() for m in modules}
        assert packages <= _names(optional[extra]), extra
        assert not packages & core, extra
    assert optional["all"] == [f"battleship[{','.join(extras.EXTRAS)}]"]
    assert any(r.startswith("battleship[all") for r in optional["test"]), optional["test"]


def test_make_run_and_make_test_install_everything():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(INSTALL) '.[all]'" in makefile and "$(INSTALL) '.[test]'" in makefile
    install = makefile.split("\nINSTALL = ", 1)[1].split("\n\n", 1)[0]  # uv, else pip
    assert "uv pip install" in install and "|| $(BIN)/python -m pip install" in install
    assert "--compile-bytecode" in install  # as pip does: else every process compiles the modules it imports
    assert re.search(r"^run: \$\(STAMP\)", makefile, re.M)


def test_an_install_line_names_the_extra():
    assert extras.install_line("web") == "pip install 'battleship[web]'"
    assert extras.providing("PIL.Image") == "plot" and extras.providing("numpy") is None
