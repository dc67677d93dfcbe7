"""The simulation lab's runner: many games of one shooter, in parallel and reproducibly.

Games are cut into fixed chunks; chunk ``k`` holds games ``k * chunk ..``, each with its own random
streams for the layout and the shooter, so the same seed gives the same shot counts whatever the
number of jobs and wherever the chunks run. Jobs are threads running the nogil Numba kernels, or
the workers of a Dask cluster (:class:`~battleship.lab.pool.Pool`); shooters without a kernel are played
in Python, a game at a time, and so is every shooter under salvo rules (the kernels play whole
one-shot games). Under salvo rules a game counts its turns (salvos to sink the fleet), not its shots.

A run given a :class:`~battleship.stop.Stop` winds down within a fraction of a second of a request:
a chunk on threads plays its games in slices of about ``SLICE_SECONDS`` (a kernel is not stopped
mid-call: the kernels belong to their shooters), a shooter played in Python looks at the flag
between shots, and each chunk returns the games it finished (:attr:`ChunkResult.complete` False).
A stream ends after the first incomplete chunk, so what it gave is every game from the start up to
the first one unfinished, which is what a shots file keeps and ``--resume`` carries on from.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError
from battleship.lab.pool import Pool, Threads
from battleship.lab.summary import Comparison, PairedTally, fewest, most_shots
from battleship.rules import Rules
from battleship.shooters import kernels, registry
from battleship.shooters.kernels import play_rows
from battleship.shooters.options import Options
from battleship.stop import Stop
from battleship.words import counted

CHUNK = 4_096  # games per chunk for kernel shooters (a fraction of a second for the slowest)
SLOW_CHUNK = 4  # games per chunk for shooters played in Python: seconds a game, and few lost to a stop
SLICE_SECONDS = 0.1  # a stoppable chunk plays its kernel games in slices of about this long
FIRST_SLICE = 64  # games in a stoppable chunk's first slice; doubled while slices stay short
FIRST_CHUNK = 256  # games in a run's first chunk (a kernel's slowest plays them in a tenth of a second)


class _Chunk(Protocol):
    """A chunk of games that knows whether a stop request cut it short."""

    @property
    def complete(self) -> bool: ...


T = TypeVar("T", bound=_Chunk)


class _GameStopped(Exception):
    """Raised between two shots to abandon a game when its run is asked to stop."""


def is_kernel(shooter: str, rules: Rules | None = None) -> bool:
    """True for shooters the lab runs as Numba kernels (on ``rules``, when given: the kernels play the
    one-shot game of an honest hider's true answers only); the others are played in Python."""
    plain = rules is None or (rules.salvo is None and rules.noise is None and rules.hider is None)
    return registry.spec(shooter).kernel is not None and plain


def chunk_size(shooter: str, rules: Rules | None = None) -> int:
    """Games per chunk (the unit of streaming, resuming and threads) for ``shooter`` (on ``rules``)."""
    return CHUNK if is_kernel(shooter, rules) else SLOW_CHUNK


def check(shooter: str, rules: Rules) -> None:
    """Refuse an unknown shooter, or rules it cannot play, before any work."""
    why = registry.spec(shooter).refusal(rules)
    if why:
        raise BattleshipError(why)


def play_python(
    rules: Rules,
    shooter: str,
    seed: int,
    rows: np.ndarray,
    options: Options,
    first: int = 0,
    stop: Stop | None = None,
) -> np.ndarray:
    """Shots per game of a shooter played in Python (turns under salvo rules); game ``i`` draws from
    ``game_rng(seed, first + i)``.

    With ``stop``, the flag is read between shots and a game under way when it is requested is
    abandoned: the shots of the games finished before it come back (fewer than ``rows``).
    """
    from battleship.game import play
    from battleship.inference.hider import Hider
    from battleship.rng import game_rng

    def between_shots(_observation: object, _shot: object) -> None:
        if stop is not None and stop.requested:
            raise _GameStopped

    on_shot = between_shots if stop is not None else None

    spec = registry.spec(shooter)
    out = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        rng = game_rng(seed, first + i)
        # a cheating hider holds no layout: game i's hider, its ties seeded as the run (every shooter meets it)
        referee = Hider(rules, seed, first + i) if rules.hider is not None else None
        try:
            record = play(spec.make(options), generators.to_layout(rules, row), rng, on_shot, referee)
        except _GameStopped:
            return out[:i]
        out[i] = record.turns
    return out


@dataclass(frozen=True)
class ChunkResult:
    """What one chunk of a run gives back: its games' shot histogram, and their shots when asked."""

    first: int
    histogram: np.ndarray  # (cells + 1,): games by shots
    shots: np.ndarray | None  # shots per game, only when the run keeps them
    seconds: float  # time spent playing (not drawing layouts)
    games: int = -1  # games finished (from ``first`` on); -1: the histogram's total
    complete: bool = True  # False when a stop request cut the chunk short

    def __post_init__(self) -> None:
        if self.games < 0:
            object.__setattr__(self, "games", int(self.histogram.sum()))

    def kept_shots(self) -> np.ndarray:
        """The shots per game of a chunk played with ``keep_shots``."""
        if self.shots is None:
            raise BattleshipError("this chunk was played without keep_shots: it holds its histogram only")
        return self.shots


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
    stop: Stop | None = None,
) -> ChunkResult:
    """Games ``first .. first + count`` of a run: on ``rows`` when given, else drawn by ``generator``.

    A pure function of its arguments: a Dask worker that reruns it gives the very same result.
    With ``stop`` it plays in short slices and returns early, with the games it finished, once a
    stop is requested (see the module docstring); the games it plays are the same either way.
    """
    kernel = is_kernel(shooter, rules) and not options.book  # the kernels read no opening book
    if stop is None or not kernel:
        if rows is None:
            rows = generators.draw(rules, generator, seed, count, first=first, threads=False)
        start = time.perf_counter()
        if kernel:
            shots = play_rows(rules, _kernel_kind(shooter), seed, rows, options, first)
        elif options.book and shooter == "density" and rules.salvo is None:
            from battleship.lab.book import play_book_rows  # the book's cells first, then the kernel

            shots = play_book_rows(rules, seed, rows, options, first, stop)
        else:
            shots = play_python(rules, shooter, seed, rows, options, first, stop)
        seconds = time.perf_counter() - start
    else:
        shots, seconds = _play_in_slices(rules, shooter, seed, first, count, generator, rows, options, stop)
    histogram = np.bincount(shots, minlength=most_shots(rules) + 1)
    return ChunkResult(
        first, histogram, shots if keep_shots else None, seconds, len(shots), len(shots) == count
    )


def _kernel_kind(shooter: str) -> int:
    """The kernel a kernel shooter plays (see :func:`is_kernel`)."""
    kernel = registry.spec(shooter).kernel
    if kernel is None:
        raise BattleshipError(f"{shooter} is played in Python, not by a kernel")
    return kernels.KINDS[kernel]


def _play_in_slices(rules, shooter, seed, first, count, generator, rows, options, stop: Stop):
    """A kernel shooter's games in slices short enough to stop between: (shots finished, seconds playing)."""
    kind = _kernel_kind(shooter)
    shots = np.empty(count, dtype=np.int64)
    done, step, seconds = 0, FIRST_SLICE, 0.0
    while done < count and not stop.requested:
        n = min(step, count - done)
        if rows is None:
            part = generators.draw(rules, generator, seed, n, first=first + done, threads=False)
        else:
            part = rows[done : done + n]
        start = time.perf_counter()
        shots[done : done + n] = play_rows(rules, kind, seed, part, options, first + done)
        took = time.perf_counter() - start
        seconds += took
        done += n
        if took < SLICE_SECONDS / 2:
            step *= 2
    return shots[:done], seconds


def warm_up(rules: Rules, shooter: str, generator: str = "uniform") -> None:
    """Compile (or load) the kernels with one game, so that timings and threads start warm."""
    check(shooter, rules)
    if is_kernel(shooter, rules):
        play_chunk(rules, shooter, 0, 0, 1, generator, None, Options())
    else:
        from battleship.inference import posterior

        posterior(rules)  # the open board, cached: every game starts there


def _check_games(games: int, layouts: np.ndarray | None) -> None:
    """Refuse a run of no games, or of more games than the layouts given."""
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    if layouts is not None and len(layouts) < games:
        raise BattleshipError(
            f"{counted(games, 'game')} asked for but only {counted(len(layouts), 'layout')} given"
        )


def up_to_a_stop(chunks: Iterator[T]) -> Iterator[T]:
    """Chunks in order up to the first one a stop request cut short (included): every game from the start
    up to the first one unfinished."""
    for chunk in chunks:
        yield chunk
        if not chunk.complete:
            return


def cuts(start: int, games: int, chunk: int) -> Iterator[tuple[int, int]]:
    """``(first, count)`` of each chunk from game ``start`` to ``games``: the first ones small and doubling
    up to ``chunk``, so that a run's progress moves within its first second (every game has its own
    streams, so where the cuts fall changes no game)."""
    first, size = start, min(chunk, FIRST_CHUNK)
    while first < games:
        count = min(size, games - first)
        yield first, count
        first, size = first + count, min(2 * size, chunk)


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
    stop: Stop | None = None,
) -> Iterator[ChunkResult]:
    """Chunks in order, from game ``start`` (any game: each has its own streams) to ``games``.

    They run on ``pool`` (a Dask cluster, see :class:`~battleship.lab.pool.Pool`), else on ``jobs`` threads;
    without ``keep_shots`` each chunk brings back its histogram only. With ``stop`` the stream ends
    early once it is requested, after the games finished up to then (see the module docstring).
    """
    check(shooter, rules)
    chunk = chunk_size(shooter, rules)
    options = options or Options()
    _check_games(games, layouts)
    if not 0 <= start <= games:
        raise BattleshipError(f"a run of {games} games cannot start at game {start}")
    warm_up(rules, shooter, generator)
    tasks = (
        (
            rules, shooter, seed, first, count, generator,
            None if layouts is None else layouts[first : first + count], options, keep_shots,
        )
        for first, count in cuts(start, games, chunk)
    )  # fmt: skip
    yield from up_to_a_stop((pool or Threads(jobs)).ordered(play_chunk, tasks, stop))


@dataclass(frozen=True)
class PairedChunk:
    """One chunk of a comparison: every shooter on the same games, as sums that add up exactly."""

    first: int
    histograms: np.ndarray  # (shooters, cells + 1): games by shots, per shooter
    minus_first: np.ndarray  # (shooters, 2): sum and sum of squares of (shots - the first's shots)
    seconds: np.ndarray  # (shooters,): time each spent playing
    shots: np.ndarray | None = None  # (games, shooters): every game's shots, when the run keeps them
    complete: bool = True  # False when a stop request cut the chunk short

    @property
    def games(self) -> int:
        """Games in the chunk (every shooter played each of them)."""
        return int(self.histograms[0].sum())


def play_paired_chunk(
    rules: Rules,
    shooters: tuple[tuple[str, Options], ...],
    seed: int,
    first: int,
    count: int,
    generator: str,
    rows: np.ndarray | None,
    keep_shots: bool = False,
    stop: Stop | None = None,
) -> PairedChunk:
    """Games ``first .. first + count`` for every shooter, on the same layouts (a pure function).

    Cut short by ``stop``, it holds the games every shooter finished.
    """
    if rows is None:
        rows = generators.draw(rules, generator, seed, count, first=first, threads=False)
    n, played, kept = count, [], []
    for name, options in shooters:
        result = play_chunk(rules, name, seed, first, n, generator, rows[:n], options, True, stop)
        played.append(result)
        kept.append(result.kept_shots())
        n = min(n, result.games)
    shots = np.array([s[:n] for s in kept], dtype=np.int64).reshape(len(shooters), n)
    diffs = shots - shots[0]
    return PairedChunk(
        first,
        np.array([np.bincount(s, minlength=most_shots(rules) + 1) for s in shots]),
        np.array([[int(d.sum()), int((d * d).sum())] for d in diffs], dtype=np.int64),
        np.array([r.seconds for r in played]),
        shots.T.copy() if keep_shots else None,
        n == count,
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
    start: int = 0,
    keep_shots: bool = False,
    stop: Stop | None = None,
) -> Iterator[PairedChunk]:
    """Every shooter on the same games, chunk by chunk in order (memory flat for any number of games).

    From game ``start``; ``keep_shots`` brings back every game's shots; ``stop`` as in :func:`stream`.
    """
    for name, _ in shooters:
        check(name, rules)
        warm_up(rules, name, generator)
    _check_games(games, layouts)
    chunk = min(chunk_size(name, rules) for name, _ in shooters)
    tasks = (
        (
            rules, tuple(shooters), seed, first, count, generator,
            None if layouts is None else layouts[first : first + count], keep_shots,
        )
        for first, count in cuts(start, games, chunk)
    )  # fmt: skip
    yield from up_to_a_stop((pool or Threads(jobs)).ordered(play_paired_chunk, tasks, stop))


def compare(
    rules: Rules,
    shooters: list[tuple[str, Options]],
    games: int,
    seed: int = 0,
    generator: str = "uniform",
    layouts: np.ndarray | None = None,
    jobs: int = 1,
    pool: Pool | None = None,
) -> Comparison:
    """Every shooter on the same ``games`` games: summaries and paired differences from the first."""
    from battleship.shooters.options import format_spec

    tally = PairedTally(len(shooters), most_shots(rules))
    start = time.perf_counter()
    for chunk in stream_paired(rules, shooters, games, seed, generator, layouts, pool, jobs):
        tally.add(chunk.histograms, chunk.minus_first, chunk.seconds, chunk.games)
    names = [format_spec(name, options) for name, options in shooters]
    wall = time.perf_counter() - start
    return tally.comparison(rules.name, names, fewest(rules), seed, wall, rules)


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
        kept = result.kept_shots()
        shots[result.first : result.first + len(kept)] = kept
        if on_chunk is not None:
            on_chunk(result.first, kept)
    return shots
