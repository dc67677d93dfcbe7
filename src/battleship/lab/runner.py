"""The simulation lab's runner: many games of one shooter, in parallel and reproducibly.

Games are cut into fixed chunks; chunk ``k`` holds games ``k * chunk ..``, each with its own random
streams for the layout and the shooter, so the same seed gives the same shot counts whatever the
number of jobs and wherever the chunks run. Jobs are threads running the nogil Numba kernels, or
the workers of a Dask cluster (:mod:`battleship.lab.pool`); shooters without a kernel are played
in Python, a game at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError
from battleship.lab.pool import Pool, Threads
from battleship.lab.shots_file import CHUNK
from battleship.rules import Rules
from battleship.shooters import kernels, registry
from battleship.shooters.kernels import play_rows
from battleship.shooters.options import Options

SLOW_CHUNK = 50  # games per chunk for shooters played in Python (seconds a game, not microseconds)


def is_kernel(shooter: str) -> bool:
    """True for shooters the lab runs as Numba kernels; the others are played in Python."""
    return registry.spec(shooter).kernel is not None


def chunk_size(shooter: str) -> int:
    """Games per chunk (the unit of streaming, resuming and threads) for ``shooter``."""
    return CHUNK if is_kernel(shooter) else SLOW_CHUNK


def check(shooter: str, rules: Rules) -> None:
    """Refuse an unknown shooter, or rules it cannot play, before any work."""
    why = registry.spec(shooter).refusal(rules)
    if why:
        raise BattleshipError(why)


def play_python(rules: Rules, shooter: str, seed: int, rows: np.ndarray, options: Options, first: int = 0):
    """Shots per game of a shooter played in Python; game ``i`` draws from ``game_rng(seed, first + i)``."""
    from battleship.game import play
    from battleship.rng import game_rng

    spec = registry.spec(shooter)
    out = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        record = play(spec.make(options), generators.to_layout(rules, row), game_rng(seed, first + i))
        out[i] = len(record.shots)
    return out


@dataclass(frozen=True)
class ChunkResult:
    """What one chunk of a run gives back: its games' shot histogram, and their shots when asked."""

    first: int
    histogram: np.ndarray  # (cells + 1,): games by shots
    shots: np.ndarray | None  # shots per game, only when the run keeps them
    seconds: float  # time spent playing (not drawing layouts)


def play_chunk(
    rules: Rules,
    shooter: str,
    seed: int,
    first: int,
    count: int,
    generator: str,
    rows: np.ndarray | None,
    options: Options,
    keep_shots: bool = True,
) -> ChunkResult:
    """Games ``first .. first + count`` of a run: on ``rows`` when given, else drawn by ``generator``.

    A pure function of its arguments: a Dask worker that reruns it gives the very same result.
    """
    if rows is None:
        rows = generators.draw(rules, generator, seed, count, first=first, threads=False)
    start = time.perf_counter()
    if is_kernel(shooter):
        shots = play_rows(rules, kernels.KINDS[registry.spec(shooter).kernel], seed, rows, options, first)
    else:
        shots = play_python(rules, shooter, seed, rows, options, first)
    seconds = time.perf_counter() - start
    histogram = np.bincount(shots, minlength=rules.cells + 1)
    return ChunkResult(first, histogram, shots if keep_shots else None, seconds)


def warm_up(rules: Rules, shooter: str, generator: str = "uniform") -> None:
    """Compile (or load) the kernels with one game, so that timings and threads start warm."""
    check(shooter, rules)
    if is_kernel(shooter):
        play_chunk(rules, shooter, 0, 0, 1, generator, None, Options())
    else:
        from battleship.inference import posterior

        posterior(rules)  # the open board, cached: every game starts there


def _check_games(games: int, layouts: np.ndarray | None) -> None:
    """Refuse a run of no games, or of more games than the layouts given."""
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    if layouts is not None and len(layouts) < games:
        raise BattleshipError(f"{games} games asked for but only {len(layouts)} layouts given")


def stream(
    rules: Rules,
    shooter: str,
    games: int,
    seed: int = 0,
    generator: str = "uniform",
    layouts: np.ndarray | None = None,
    jobs: int = 1,
    options: Options | None = None,
    start: int = 0,
    pool: Pool | None = None,
    keep_shots: bool = True,
) -> Iterator[ChunkResult]:
    """Chunks in order, from game ``start`` (a multiple of the chunk) to ``games``.

    They run on ``pool`` (a Dask cluster, see :mod:`battleship.lab.pool`), else on ``jobs`` threads;
    without ``keep_shots`` each chunk brings back its histogram only.
    """
    check(shooter, rules)
    chunk = chunk_size(shooter)
    options = options or Options()
    _check_games(games, layouts)
    if start % chunk:
        raise BattleshipError(f"a run resumes at a multiple of {chunk} games, not {start}")
    warm_up(rules, shooter, generator)
    tasks = (
        (
            rules, shooter, seed, first, min(chunk, games - first), generator,
            None if layouts is None else layouts[first : first + chunk], options, keep_shots,
        )
        for first in range(start, games, chunk)
    )  # fmt: skip
    yield from (pool or Threads(jobs)).ordered(play_chunk, tasks)


@dataclass(frozen=True)
class PairedChunk:
    """One chunk of a comparison: every shooter on the same games, as sums that add up exactly."""

    first: int
    histograms: np.ndarray  # (shooters, cells + 1): games by shots, per shooter
    minus_first: np.ndarray  # (shooters, 2): sum and sum of squares of (shots - the first's shots)
    seconds: np.ndarray  # (shooters,): time each spent playing


def play_paired_chunk(
    rules: Rules,
    shooters: tuple[tuple[str, Options], ...],
    seed: int,
    first: int,
    count: int,
    generator: str,
    rows: np.ndarray | None,
) -> PairedChunk:
    """Games ``first .. first + count`` for every shooter, on the same layouts (a pure function)."""
    if rows is None:
        rows = generators.draw(rules, generator, seed, count, first=first, threads=False)
    results = [
        play_chunk(rules, name, seed, first, count, generator, rows, options) for name, options in shooters
    ]
    baseline = results[0].shots
    diffs = [r.shots - baseline for r in results]
    return PairedChunk(
        first,
        np.array([r.histogram for r in results]),
        np.array([[int(d.sum()), int((d * d).sum())] for d in diffs], dtype=np.int64),
        np.array([r.seconds for r in results]),
    )


def stream_paired(
    rules: Rules,
    shooters: list[tuple[str, Options]],
    games: int,
    seed: int = 0,
    generator: str = "uniform",
    layouts: np.ndarray | None = None,
    pool: Pool | None = None,
    jobs: int = 1,
) -> Iterator[PairedChunk]:
    """Every shooter on the same games, chunk by chunk in order (memory flat for any number of games)."""
    for name, _ in shooters:
        check(name, rules)
        warm_up(rules, name, generator)
    _check_games(games, layouts)
    chunk = min(chunk_size(name) for name, _ in shooters)
    tasks = (
        (
            rules, tuple(shooters), seed, first, min(chunk, games - first), generator,
            None if layouts is None else layouts[first : first + chunk],
        )
        for first in range(0, games, chunk)
    )  # fmt: skip
    yield from (pool or Threads(jobs)).ordered(play_paired_chunk, tasks)


def simulate(
    rules: Rules,
    shooter: str,
    games: int,
    on_chunk: Callable[[int, np.ndarray], None] | None = None,
    **options,
) -> np.ndarray:
    """Shots per game for ``games`` games (options as :func:`stream`), held in memory."""
    shots = np.empty(games, dtype=np.int64)
    for result in stream(rules, shooter, games, **options):
        shots[result.first : result.first + len(result.shots)] = result.shots
        if on_chunk is not None:
            on_chunk(result.first, result.shots)
    return shots
