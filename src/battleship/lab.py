"""The simulation lab: many games of one shooter, in parallel, reproducibly, and their statistics.

Games are cut into fixed chunks; chunk ``k`` holds games ``k * CHUNK ..``, each with its own random
streams for the layout and the shooter, so the same seed gives the same shot counts whatever the
number of jobs. Jobs are threads running the nogil Numba kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import numpy as np

from battleship import density, generators, kernels
from battleship.errors import BattleshipError
from battleship.rng import seed_words
from battleship.rules import Rules
from battleship.tables import geometry

CHUNK = 20_000
QUANTILES = (0.01, 0.05, 0.25, 0.75, 0.95, 0.99)


def kernel_kind(shooter: str) -> int:
    """The kernel number of a shooter the lab can run at full speed."""
    if shooter not in kernels.KINDS:
        raise BattleshipError(f"the lab has no kernel for {shooter!r}; it runs {', '.join(kernels.KINDS)}")
    return kernels.KINDS[shooter]


def play_rows(
    rules: Rules,
    kind: int,
    seed: int,
    rows: np.ndarray,
    option: int = 0,
    weight: int = density.DEFAULT_WEIGHT,
    first: int = 0,
) -> np.ndarray:
    """Shots per game on ``rows`` (layouts as placement indices); game ``i`` uses stream ``first + i``."""
    t = generators.tables(rules)
    out = np.empty(len(rows), dtype=np.int64)
    kernels.play_games(
        kind,
        np.uint64(seed_words(seed)),
        np.uint64(first),
        rows,
        rules.rows,
        rules.cols,
        option,
        density.SINK_CODES[rules.sinks],
        weight,
        geometry(t),
        out,
    )
    return out


def _play_chunk(
    rules: Rules,
    kind: int,
    seed: int,
    first: int,
    count: int,
    generator: str,
    layouts,
    option: int,
    weight: int,
):
    rows = (
        layouts[first : first + count]
        if layouts is not None
        else generators.draw(rules, generator, seed, count, first=first, threads=False)
    )
    return play_rows(rules, kind, seed, rows, option, weight, first)


def warm_up(rules: Rules, shooter: str, generator: str = "uniform") -> None:
    """Compile (or load) the kernels with one game, so that timings and threads start warm."""
    _play_chunk(rules, kernel_kind(shooter), 0, 0, 1, generator, None, 0, density.DEFAULT_WEIGHT)


def simulate(
    rules: Rules,
    shooter: str,
    games: int,
    seed: int = 0,
    generator: str = "uniform",
    layouts: np.ndarray | None = None,
    jobs: int = 1,
    colour: int = 0,
    tie: str = "first",
    weight: int = density.DEFAULT_WEIGHT,
    on_chunk: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Shots per game for ``games`` games; ``layouts`` (rows of placement indices) replaces the generator."""
    kind = kernel_kind(shooter)
    if tie not in density.TIES:
        raise BattleshipError(f"tie rule {tie!r} is not one of {', '.join(density.TIES)}")
    option = density.TIES[tie] if kind == kernels.DENSITY else colour
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    if layouts is not None and len(layouts) < games:
        raise BattleshipError(f"{games} games asked for but only {len(layouts)} layouts given")
    shots = np.empty(games, dtype=np.int64)
    starts = list(range(0, games, CHUNK))
    warm_up(rules, shooter, generator)

    def run(first: int) -> tuple[int, np.ndarray]:
        return first, _play_chunk(
            rules, kind, seed, first, min(CHUNK, games - first), generator, layouts, option, weight
        )

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for first, out in pool.map(run, starts):
            shots[first : first + len(out)] = out
            if on_chunk is not None:
                on_chunk(first, out)
    return shots


@dataclass(frozen=True)
class Summary:
    """Statistics of shots per game."""

    games: int
    mean: float
    ci95: tuple[float, float]
    sd: float
    median: float
    mode: int
    min: int
    max: int
    quantiles: dict[str, float]
    perfect: int
    games_per_second: float

    def as_dict(self) -> dict:
        """Plain data for JSON."""
        data = asdict(self)
        data["ci95"] = list(self.ci95)
        return data


def summarise(shots: np.ndarray, perfect: int, seconds: float) -> Summary:
    """Mean with a normal 95% interval, spread, order statistics, and the count of perfect games."""
    n = len(shots)
    mean = float(shots.mean())
    sd = float(shots.std(ddof=1)) if n > 1 else 0.0
    half = 1.959963984540054 * sd / np.sqrt(n)
    counts = np.bincount(shots)
    return Summary(
        games=n,
        mean=mean,
        ci95=(mean - half, mean + half),
        sd=sd,
        median=float(np.median(shots)),
        mode=int(counts.argmax()),
        min=int(shots.min()),
        max=int(shots.max()),
        quantiles={f"{q:g}": float(np.quantile(shots, q)) for q in QUANTILES},
        perfect=int((shots == perfect).sum()),
        games_per_second=n / seconds if seconds > 0 else float("inf"),
    )
