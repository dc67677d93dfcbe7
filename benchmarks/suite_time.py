"""Where `make test`'s time goes: a fresh clone's run, with each test's CPU and every compile at test time.

Run: .venv/bin/python benchmarks/suite_time.py [--keep DIR] [--top N] [--in-place] [--pytest ARGS]

Clones HEAD into a new folder and runs `make test` there (installing into the clone's own .venv, as
CI does), with a pytest plugin that logs, in each pytest process, every test's start, end and CPU
and every Numba compile made while it ran. Prints the whole run's wall time and CPU (user + system
of make and every process it waited for), pytest's wall time, the CPU the workers spent in their own
tests by file (the N largest), the property tests' (Hypothesis) share with what a cap of 10 or 20
examples each would have saved in this very run, the bounds-checked rerun's own tests, and the
compiles. Takes as long as `make test` (20 minutes and more on 2 cores). A property test's CPU moves
from run to run (each run draws new examples): compare whole runs, not one test.

--in-place runs in this checkout instead of a clone; --pytest ARGS runs `make kernels` and then pytest
with ARGS instead of `make test` (a quick look at part of the suite).
"""

from __future__ import annotations

import argparse
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAPS = (10, 20)

# loaded into every pytest process of the run (PYTEST_ADDOPTS): one log file per process, since the
# bounds-checked rerun is a pytest of its own started from a worker (and inherits its worker's name)
PLUGIN = """
import os, resource, time
from pathlib import Path

_name = os.environ.get("PYTEST_XDIST_WORKER", "main")
_kind = "bounds" if os.environ.get("NUMBA_BOUNDSCHECK") == "1" else "tests"
_log = open(Path(os.environ["SUITE_LOG_DIR"]) / f"{_kind}-{_name}-{os.getpid()}.tsv", "a", buffering=1)
_test = ["(collecting)"]
_started = []


def pytest_collection_modifyitems(items):
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if getattr(test, "is_hypothesis_test", False) and own is not None:
            _log.write(f"H\\t{item.nodeid}\\t{own.max_examples}\\n")


def _children():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def pytest_runtest_logstart(nodeid, location):
    _test[0] = nodeid
    _log.write(f"S\\t{nodeid}\\t{time.time():.3f}\\t{time.process_time():.3f}\\t{_children():.3f}\\n")


def pytest_runtest_logfinish(nodeid, location):
    _log.write(f"E\\t{nodeid}\\t{time.time():.3f}\\t{time.process_time():.3f}\\t{_children():.3f}\\n")


try:
    from numba.core import event
except ImportError:
    event = None
if event is not None:

    class _Compiles(event.Listener):
        def on_start(self, ev):
            _started.append(time.process_time())

        def on_end(self, ev):
            began = _started.pop()
            if not _started:  # the outermost compile: it holds the ones it set off
                f = ev.data["dispatcher"].py_func
                took = time.process_time() - began
                _log.write(f"C\\t{_test[0]}\\t{f.__module__}.{f.__qualname__}\\t{took:.3f}\\n")

    event.register("numba:compile", _Compiles())
"""


@dataclass
class Logs:
    """What the plugin wrote: each test's CPU and wall seconds by kind of process (``tests``: the
    suite's own; ``bounds``: the bounds-checked rerun's), the CPU of the processes each test started
    and waited for (commands, servers, browsers: ``children``), the property tests' example counts,
    and the compiles (kind, test, function, CPU seconds)."""

    cpu: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    children: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    wall: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    examples: dict[str, int] = field(default_factory=dict)
    compiles: list[tuple[str, str, str, float]] = field(default_factory=list)


def read_logs(folder: Path) -> Logs:
    """The plugin's files; the controller's (``main`` beside workers) is left out, since xdist repeats
    the workers' test starts there with the controller's own clock."""
    logs = Logs()
    files = sorted(folder.glob("*.tsv"))
    workers = any(f.name.startswith("tests-gw") for f in files)
    for path in files:
        kind, name = path.stem.split("-")[:2]
        if workers and kind == "tests" and name == "main":
            continue
        open_tests: dict[str, tuple[float, float, float]] = {}
        for line in path.read_text().splitlines():
            tag, *rest = line.split("\t")
            if tag == "H":
                logs.examples[rest[0]] = int(rest[1])
            elif tag == "C":
                logs.compiles.append((kind, rest[0], rest[1], float(rest[2])))
            elif tag == "S":
                open_tests[rest[0]] = (float(rest[1]), float(rest[2]), float(rest[3]) if rest[3:] else 0.0)
            elif tag == "E" and rest[0] in open_tests:
                wall0, cpu0, children0 = open_tests.pop(rest[0])
                children = float(rest[3]) - children0 if rest[3:] else 0.0
                for table, spent in ((logs.cpu, float(rest[2]) - cpu0), (logs.wall, float(rest[1]) - wall0)):
                    table[kind][rest[0]] = table[kind].get(rest[0], 0.0) + spent
                logs.children[kind][rest[0]] = logs.children[kind].get(rest[0], 0.0) + children
    return logs


def run_suite(folder: Path, logs: Path, pytest_args: str | None) -> tuple[float, float, str]:
    """``make test`` (or the kernels, then pytest with ``pytest_args``) in ``folder``: wall seconds,
    CPU seconds of everything waited for, and the output."""
    plugins = logs / "plugin"
    plugins.mkdir()
    (plugins / "suite_log.py").write_text(PLUGIN)
    env_line = f"SUITE_LOG_DIR={shlex.quote(str(logs))} PYTHONPATH={shlex.quote(str(plugins))} "
    env_line += "PYTEST_ADDOPTS='-p suite_log'"
    if pytest_args is None:
        command = f"{env_line} make test"
    else:
        command = f"make kernels && {env_line} .venv/bin/python -m pytest {pytest_args}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    output = done.stdout + done.stderr
    (logs / "output.txt").write_text(output)
    if done.returncode != 0:
        print(output[-4000:])
        sys.exit(f"the run failed (exit {done.returncode}); its output: {logs / 'output.txt'}")
    return wall, cpu, output


def report(logs: Logs, wall: float, cpu: float, output: str, top: int) -> None:
    """The figures, as plain numbers."""
    finished = re.findall(r"(\d+) passed.* in ([\d.]+)s", output)
    print(f"whole run     {wall:8.0f} s wall  {cpu:8.0f} s CPU (user + system, everything waited for)")
    if finished:
        print(f"pytest        {float(finished[-1][1]):8.0f} s wall  ({finished[-1][0]} passed)")
    tests = logs.cpu.get("tests", {})
    children = logs.children.get("tests", {})
    by_file: Counter[str] = Counter()
    wall_by_file: Counter[str] = Counter()
    children_by_file: Counter[str] = Counter()
    for nodeid, seconds in tests.items():
        name = nodeid.split("::")[0]
        by_file[name] += seconds
        wall_by_file[name] += logs.wall["tests"][nodeid]
        children_by_file[name] += children.get(nodeid, 0.0)
    print(f"\nthe workers' own tests: {sum(tests.values()):.0f} s CPU over {len(tests)} tests, and")
    print(f"{sum(children.values()):.0f} s CPU in the processes they started; by file (own + started):")
    print(f"{'CPU s':>8} {'started':>8} {'wall s':>8}  file")
    total = by_file + children_by_file
    for name, _ in total.most_common(top):
        print(f"{by_file[name]:8.1f} {children_by_file[name]:8.1f} {wall_by_file[name]:8.1f}  {name}")
    properties = {n: s for n, s in tests.items() if n in logs.examples}
    print(f"\nproperty tests: {sum(properties.values()):.0f} s CPU over {len(properties)} tests")
    for cap in CAPS:
        saved = sum(s * (1 - cap / logs.examples[n]) for n, s in properties.items() if logs.examples[n] > cap)
        print(f"  at most {cap} examples each would have saved about {saved:.0f} s of this run's CPU")
    bounds = logs.cpu.get("bounds", {})
    if bounds:
        print(
            f"\nthe bounds-checked rerun's own tests: {sum(bounds.values()):.0f} s CPU over {len(bounds)} tests"
        )
    for kind, label in (("tests", "at test time"), ("bounds", "in the bounds-checked rerun")):
        if kind not in logs.cpu:
            continue
        mine = [c for c in logs.compiles if c[0] == kind]
        print(f"\ncompiles {label}: {len(mine)}, {sum(c[3] for c in mine):.1f} s CPU")
        for _kind, test, function, seconds in sorted(mine, key=lambda c: -c[3])[:5]:
            print(f"  {seconds:6.1f} s  {function}  ({test})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="clone into (and keep) this folder")
    parser.add_argument("--top", type=int, default=15, help="test files listed (default 15)")
    parser.add_argument("--in-place", action="store_true", help="run in this checkout, not a clone")
    parser.add_argument("--pytest", metavar="ARGS", help="make kernels, then pytest ARGS, not make test")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="suite-time-"))
    if args.in_place:
        folder = ROOT
    else:
        folder = args.keep or Path(tempfile.mkdtemp(prefix="suite-clone-")) / "clone"
        if folder.exists():
            sys.exit(f"{folder} exists: --keep takes a new folder")
        subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
        print(f"cloned HEAD into {folder}; running make test there (20 minutes and more) ...", flush=True)
    try:
        wall, cpu, output = run_suite(folder, logs, args.pytest)
        report(read_logs(logs), wall, cpu, output, args.top)
        print(f"\nthe plugin's logs and the run's output: {logs}")
    finally:
        if not args.in_place and args.keep is None:
            shutil.rmtree(folder.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
