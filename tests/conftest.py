"""What every test process shares.

``make test`` runs the suite on every core (pytest-xdist, a file to a worker). Its workers set
``COLUMNS=80``, which the commands read as a terminal's width, so their messages would wrap at 80
columns as they never do in a pipe; the tests see the program as a pipe does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.pop("COLUMNS", None)
# tests/test_bounds.py runs the kernels' property tests again with bounds checks: each property there
# draws at most this many examples (the ordinary run draws them all, and every run draws new ones)
EXAMPLES_CAP = "BATTLESHIP_TEST_MAX_EXAMPLES"
OWN_GRAPHS = pytest.StashKey[bool]()  # the run made its folder of graphs (none was given)
GRAPHS_ENV = "BATTLESHIP_GRAPHS"  # battleship.web.graphs.FOLDER_ENV (not imported: conftest loads first)

ROOT = Path(__file__).resolve().parents[1]
# the longest files (by --durations, summed over each file's tests) go to the workers first, then the
# rest as workers free up: none of them is then what the other workers wait for at the end
LONGEST_FIRST = [
    "tests/test_bounds.py",
    "tests/test_fresh_install.py",  # mostly waiting on pip: beside the others from the start
    "tests/web/test_web_graphs.py",
    "tests/docs/test_docs.py",
    "tests/web/test_web_browser.py",
    "tests/shooters/test_shooters.py",
    "tests/web/test_web_server.py",
    "tests/web/test_web_api.py",
    "tests/web/test_web_processes.py",
    "tests/lab/test_arena_attacks.py",
    "tests/cli/test_interrupts.py",
    "tests/web/test_salvo_web.py",
    "tests/lab/test_cluster.py",
    "tests/inference/test_sweep.py",
    "tests/test_commands_brute_force.py",
    "tests/cli/test_front_door.py",
    "tests/shooters/test_twoply.py",
]


def pytest_configure(config: pytest.Config) -> None:
    """Keep LONGEST_FIRST's order under ``--dist loadfile``: xdist otherwise hands out the files with
    the most tests first, which sent the one-test bounds-checked rerun (four minutes) last, alone.

    And one folder of compiled state graphs for every server the run starts (``$BATTLESHIP_GRAPHS``,
    which the workers and the servers they start inherit): each server warms the presets' graphs up
    in the background, and with a folder each, every server that lived long enough compiled them
    again (Sea Battle's: 1.5 GB at its peak), most of them stopped unfinished with their server."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    if not hasattr(config, "workerinput") and not os.environ.get(GRAPHS_ENV):
        os.environ[GRAPHS_ENV] = tempfile.mkdtemp(prefix="battleship-test-graphs-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop(GRAPHS_ENV), ignore_errors=True))
        config.stash[OWN_GRAPHS] = True


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In xdist's controller, before the workers start: where the package's compiled kernels are older than
    its sources (a checkout changed since it was installed), compile them once into the user's store, in as
    many processes as there are workers (battleship.lab.warmup); the workers then load them instead of
    each compiling the same ones. Kernels built from these very sources need nothing."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers or config.option.collectonly:
        return
    _warm_kernels(workers)
    if config.stash.get(OWN_GRAPHS, False):
        _compile_presets_graphs(config)


def _warm_kernels(workers: object) -> None:
    from battleship import jit

    manifest = jit.Manifest.read()
    if manifest is not None and manifest.current(manifest.target) and jit.package_status()[1] is None:
        return
    parts = min(int(workers), os.cpu_count() or 1) if str(workers).isdigit() else os.cpu_count() or 1
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "battleship.lab.warmup", "--part", f"{i}/{parts}"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )
        for i in range(parts)
    ]
    for run in runs:
        run.wait(timeout=1800)


def _compile_presets_graphs(config: pytest.Config) -> None:
    """The presets' state graphs compiled once for the whole run, into its shared folder, in a process
    in the background (niced, as a server's): the servers the tests start wait for them rather than
    each compiling its own, and Sea Battle's exact tests find them sooner."""
    compiling = subprocess.Popen(
        [sys.executable, "-c", "import os, pathlib, signal, sys; from battleship.web import graphs; "
         "signal.signal(signal.SIGTERM, lambda *_: sys.exit(0)); "  # its compiling process stopped too
         f"graphs.compile_presets(pathlib.Path(os.environ[{GRAPHS_ENV!r}]))"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip

    def stop() -> None:
        compiling.terminate()
        compiling.wait(60)

    config.add_cleanup(stop)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Same order in every worker (xdist checks): the files of LONGEST_FIRST first, the rest as collected.

    xdist's ``loadfile`` starts each of N workers with two files: the first N in order, then the next
    N. The first worker's second file waits behind the first, the bounds-checked rerun (ten minutes on a
    busy run): the browser's tests waited there, and that worker ended minutes after the others. So
    the (N+1)-th file is the first one not in LONGEST_FIRST, a short one, and the long ones follow."""
    order = list(dict.fromkeys(item.nodeid.split("::")[0] for item in items))
    order.sort(key=lambda path: LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    short = next((p for p in order if p not in LONGEST_FIRST), None)
    if 1 < workers < len(order) and short is not None and order and order[0] == LONGEST_FIRST[0]:
        order.remove(short)
        order.insert(workers, short)
    rank = {path: i for i, path in enumerate(order)}
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])
    if os.environ.get(EXAMPLES_CAP):
        cap_examples(items, int(os.environ[EXAMPLES_CAP]))


def cap_examples(items: list[pytest.Item], cap: int) -> None:
    """At most ``cap`` examples for each Hypothesis test: its own settings otherwise, deadline included.

    Hypothesis lets a test's settings be applied once; the settings it runs with are an attribute of the
    test, replaced here. Should Hypothesis keep them elsewhere one day, this fails instead of capping nothing.
    """
    for item in items:
        test = getattr(item, "obj", None)
        if not getattr(test, "is_hypothesis_test", False):
            continue
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if not isinstance(own, settings):
            raise pytest.UsageError(f"{EXAMPLES_CAP}: no Hypothesis settings found on {item.nodeid}")
        if own.max_examples > cap:
            test._hypothesis_internal_use_settings = settings(own, max_examples=cap)
