"""The simulation lab's runner: many games of one shooter, in parallel and reproducibly.

Games are cut into fixed chunks; chunk ``k`` holds games ``k * chunk ..``, each with its own random
streams for the layout and the shooter, so the same seed gives the same shot counts whatever the
number of jobs. Jobs are threads running the nogil Numba kernels; shooters without a kernel are
played in Python, a game at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError
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
    """Shots per game of a shooter played in Python; game ``i`` draws from ``rng([seed, first + i])``."""
    from battleship.game import play

    spec = registry.spec(shooter)
    out = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        record = play(
            spec.make(options), generators.to_layout(rules, row), np.random.default_rng([seed, first + i])
        )
        out[i] = len(record.shots)
    return out


def _play_chunk(
    rules: Rules,
    shooter: str,
    seed: int,
    first: int,
    count: int,
    generator: str,
    layouts,
    options: Options,
):
    rows = (
        layouts[first : first + count]
        if layouts is not None
        else generators.draw(rules, generator, seed, count, first=first, threads=False)
    )
    if is_kernel(shooter):
        return play_rows(rules, kernels.KINDS[registry.spec(shooter).kernel], seed, rows, options, first)
    return play_python(rules, shooter, seed, rows, options, first)


def warm_up(rules: Rules, shooter: str, generator: str = "uniform") -> None:
    """Compile (or load) the kernels with one game, so that timings and threads start warm."""
    check(shooter, rules)
    if is_kernel(shooter):
        _play_chunk(rules, shooter, 0, 0, 1, generator, None, Options())
    else:
        from battleship.inference import posterior

        posterior(rules)  # the open board, cached: every game starts there


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
) -> Iterator[tuple[int, np.ndarray]]:
    """Chunks ``(first game, shots)`` in order, from game ``start`` (a multiple of the chunk) to ``games``."""
    check(shooter, rules)
    chunk = chunk_size(shooter)
    options = options or Options()
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    if layouts is not None and len(layouts) < games:
        raise BattleshipError(f"{games} games asked for but only {len(layouts)} layouts given")
    if start % chunk:
        raise BattleshipError(f"a run resumes at a multiple of {chunk} games, not {start}")
    warm_up(rules, shooter, generator)

    def run(first: int) -> tuple[int, np.ndarray]:
        count = min(chunk, games - first)
        return first, _play_chunk(rules, shooter, seed, first, count, generator, layouts, options)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # a bounded window of chunks in flight keeps memory flat for any number of games
        window = 4 * max(1, jobs)
        for lo in range(start, games, window * chunk):
            yield from pool.map(run, range(lo, min(games, lo + window * chunk), chunk))


def simulate(
    rules: Rules,
    shooter: str,
    games: int,
    on_chunk: Callable[[int, np.ndarray], None] | None = None,
    **options,
) -> np.ndarray:
    """Shots per game for ``games`` games (options as :func:`stream`), held in memory."""
    shots = np.empty(games, dtype=np.int64)
    for first, out in stream(rules, shooter, games, **options):
        shots[first : first + len(out)] = out
        if on_chunk is not None:
            on_chunk(first, out)
    return shots
