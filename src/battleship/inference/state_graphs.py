"""The exact engines' state graphs as seen from outside ``inference/``: which one a board needs, how large
it may be, compiling one, and keeping it in a folder that other processes map it from.

Exact counting under a spacing margin sweeps a state graph compiled once per board shape, spacing and
ship classes (:mod:`battleship.inference.graph`): seconds to compile, then a board is one sweep. A
program that answers many boards in many processes (the web app) compiles each graph once, writes
it with :func:`save`, and has every process map it with :func:`adopt`: the files are mapped
copy-on-write and never written, so the processes share one copy in memory. The shooters and the
web app ask this module, never the engines (``sweep``, ``graph``) themselves.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from battleship.game import Observation
from battleship.inference import graph, sweep
from battleship.inference.evidence import evidence
from battleship.inference.graph import Graph, Shape, TooLarge
from battleship.inference.posterior import check_prior
from battleship.inference.rows import fast_path
from battleship.rules import Rules

__all__ = [
    "ARRAYS",
    "Graph",
    "Shape",
    "TooLarge",
    "adopt",
    "compile_graph",
    "first_pass",
    "key",
    "load",
    "needed",
    "no_larger",
    "save",
]

ARRAYS = ("layer_first", "edge_first", "target", "label")  # a stored graph's arrays, one .npy file each


def needed(rules: Rules, observation: Observation, prior: np.ndarray | None = None) -> Shape | None:
    """The shape of the graph the exact engine sweeps for this board, or None when it needs none.

    Ships that may touch are counted by the row engine and polyominoes by the search: neither needs
    a graph. Under a uniform prior a whole game needs one graph; under a learned prior, a ship
    announced sunk may merge into its length's class, so later boards may need another.
    """
    if fast_path(rules) or not sweep.applies(rules):
        return None
    ev = evidence(rules, observation)
    weight = np.ones(len(ev.admissible), np.int64) if prior is None else check_prior(rules, prior)
    v = np.where(ev.admissible, weight, 0).astype(weight.dtype)
    return sweep.shape_of(rules, sweep.classes(rules, v, ev.hits))


def no_larger(rules: Rules, than: Rules) -> bool:
    """True when the open board's graph of ``rules`` is surely no larger than that of ``than``, known
    from the rules alone, compiling nothing (:func:`battleship.inference.sweep.no_larger`)."""
    return sweep.no_larger(rules, than)


def first_pass(shape: Shape, flag: np.ndarray | None = None) -> int | None:
    """About how many states ``shape``'s graph will have, from the compiler's first pass (kept: the
    compilation reuses it); None if ``flag[0]`` was set while it ran; :class:`TooLarge` past the
    compiler's own bounds."""
    geometry = graph.geometry(shape, flag)
    return None if geometry is None else graph.likely_states(shape, geometry)


def compile_graph(shape: Shape, flag: np.ndarray | None = None) -> Graph | None:
    """Compile ``shape``'s graph (None if ``flag[0]`` was set while it ran; :class:`TooLarge`)."""
    return graph.build(shape, flag)


@functools.cache
def _compiler_digest() -> bytes:
    """The compiler's source: a graph stored by another version of it is never read."""
    return hashlib.sha256(Path(graph.__file__).read_bytes()).digest()


def key(shape: Shape) -> str:
    """A shape's folder name: a digest of everything the graph depends on, the compiler included."""
    return hashlib.sha256(_compiler_digest() + repr(shape).encode()).hexdigest()[:24]


def save(compiled: Graph, directory: Path) -> None:
    """Write ``compiled`` under ``directory`` (a folder per shape, appearing whole or not at all)."""
    final = directory / key(compiled.shape)
    if final.exists():
        return
    partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=directory))
    for name in ARRAYS:
        np.save(partial / f"{name}.npy", getattr(compiled, name))
    meta = {"shape": repr(compiled.shape), "open_total": str(compiled.open_total)}
    (partial / "graph.json").write_text(json.dumps(meta))
    try:
        partial.rename(final)
    except OSError:  # another compilation of the same shape won the race
        shutil.rmtree(partial, ignore_errors=True)


def load(shape: Shape, directory: Path) -> Graph | None:
    """The graph of ``shape`` from ``directory``, its arrays mapped copy-on-write (None if absent)."""
    folder = directory / key(shape)
    if not (folder / "graph.json").exists():
        return None
    meta = json.loads((folder / "graph.json").read_text())
    if meta["shape"] != repr(shape):
        return None
    layer_first, edge_first, target, label = (
        np.load(folder / f"{name}.npy", mmap_mode="c") for name in ARRAYS
    )
    return Graph(shape, layer_first, edge_first, target, label, shape.jumps(), int(meta["open_total"]))


def adopt(directory: Path, shape: Shape | None) -> bool:
    """Make the graph of ``shape`` (stored in ``directory``) the engine's in this process; False if absent."""
    if shape is None or graph.cached(shape) is not None:
        return True
    found = load(shape, directory)
    if found is None:
        return False
    graph.keep(shape, found)
    return True
