"""The simulation lab: many games of one shooter, in parallel, reproducibly, and their statistics.

Games are cut into fixed chunks; chunk ``k`` holds games ``k * CHUNK ..``, each with its own random
streams for the layout and the shooter, so the same seed gives the same shot counts whatever the
number of jobs. Jobs are threads running the nogil Numba kernels.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from battleship import generators, kernels, trialsink
from battleship.errors import BattleshipError
from battleship.options import Options
from battleship.rng import seed_words
from battleship.rules import Rules
from battleship.tables import geometry

CHUNK = 20_000
SLOW_CHUNK = 50  # games per chunk for shooters played in Python (seconds a game, not microseconds)
QUANTILES = (0.01, 0.05, 0.25, 0.75, 0.95, 0.99)


def is_kernel(shooter: str) -> bool:
    """True for shooters the lab runs as Numba kernels; the others are played in Python."""
    return shooter in kernels.KINDS


def chunk_size(shooter: str) -> int:
    """Games per chunk (the unit of streaming, resuming and threads) for ``shooter``."""
    return CHUNK if is_kernel(shooter) else SLOW_CHUNK


def check(shooter: str, rules: Rules) -> None:
    """Refuse an unknown shooter, or rules it cannot play, before any work."""
    from battleship.shooters import SHOOTERS

    if shooter not in SHOOTERS:
        raise BattleshipError(f"no shooter named {shooter!r}; choose one of {', '.join(SHOOTERS)}")
    why = refusal(shooter, rules)
    if why:
        raise BattleshipError(why)


def refusal(shooter: str, rules: Rules) -> str | None:
    """Why ``shooter`` cannot play ``rules``, or None when it can."""
    if shooter == "trial-sink":
        return trialsink.refusal(rules)
    if shooter == "learning":
        from battleship.shooters.learning import refusal as learning_refusal

        return learning_refusal(rules)
    if shooter == "density-grid":
        bent = [s.name for s in rules.fleet if not s.is_straight]
        if bent:
            return f"density-grid counts straight runs (004's buildDen); {', '.join(bent)} is not straight"
    return None


def play_rows(
    rules: Rules,
    kind: int,
    seed: int,
    rows: np.ndarray,
    options: Options | None = None,
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
        (options or Options()).vector(rules),
        geometry(t),
        out,
    )
    return out


def play_python(rules: Rules, shooter: str, seed: int, rows: np.ndarray, options: Options, first: int = 0):
    """Shots per game of a shooter played in Python; game ``i`` draws from ``rng([seed, first + i])``."""
    from battleship.game import play
    from battleship.shooters import make

    out = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        record = play(
            make(shooter, options), generators.to_layout(rules, row), np.random.default_rng([seed, first + i])
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
        return play_rows(rules, kernels.KINDS[shooter], seed, rows, options, first)
    return play_python(rules, shooter, seed, rows, options, first)


def warm_up(rules: Rules, shooter: str, generator: str = "uniform") -> None:
    """Compile (or load) the kernels with one game, so that timings and threads start warm."""
    check(shooter, rules)
    if is_kernel(shooter):
        _play_chunk(rules, shooter, 0, 0, 1, generator, None, Options())
    else:
        from battleship.posterior import posterior

        posterior(rules)


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


def _quantile(cumulative: np.ndarray, n: int, q: float) -> float:
    """NumPy's default (linear) quantile of the data whose running histogram is ``cumulative``."""
    h = (n - 1) * q
    low = int(np.floor(h))

    def kth(k: int) -> int:
        """The k-th smallest value (from 0)."""
        return int(np.searchsorted(cumulative, k, side="right"))

    a = kth(low)
    b = kth(min(low + 1, n - 1))
    return a + (h - low) * (b - a)


def summarise_histogram(histogram: np.ndarray, perfect: int, seconds: float) -> Summary:
    """The summary of games whose shot counts are tallied in ``histogram`` (index = shots)."""
    n = int(histogram.sum())
    values = np.arange(len(histogram))
    mean = float((values * histogram).sum() / n)
    var = float(((values - mean) ** 2 * histogram).sum() / (n - 1)) if n > 1 else 0.0
    sd = var**0.5
    half = 1.959963984540054 * sd / np.sqrt(n)
    cumulative = np.cumsum(histogram)
    seen = np.flatnonzero(histogram)
    return Summary(
        games=n,
        mean=mean,
        ci95=(mean - half, mean + half),
        sd=sd,
        median=_quantile(cumulative, n, 0.5),
        mode=int(histogram.argmax()),
        min=int(seen[0]),
        max=int(seen[-1]),
        quantiles={f"{q:g}": _quantile(cumulative, n, q) for q in QUANTILES},
        perfect=int(histogram[perfect]) if perfect < len(histogram) else 0,
        games_per_second=n / seconds if seconds > 0 else float("inf"),
    )


def summarise(shots: np.ndarray, perfect: int, seconds: float) -> Summary:
    """Mean with a normal 95% interval, spread, order statistics, and the count of perfect games."""
    return summarise_histogram(np.bincount(shots), perfect, seconds)


def paired_difference(shots: np.ndarray, baseline: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Mean of ``shots - baseline`` over the same layouts, with its normal 95% interval."""
    diff = (shots - baseline).astype(np.float64)
    mean = float(diff.mean())
    half = 1.959963984540054 * float(diff.std(ddof=1)) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
    return mean, (mean - half, mean + half)


class ShotsFile:
    """Shots per game streamed to a text file (one a line) with its run's parameters beside it.

    A run killed part-way keeps every chunk written; ``resume`` checks that the parameters match,
    drops a partly written chunk and says where to carry on.
    """

    def __init__(self, path: Path, params: dict, chunk: int = CHUNK):
        self.path = path
        self.chunk = chunk
        self.meta = path.with_name(path.name + ".run.json")
        self.params = params

    def start(self, resume: bool, cells: int) -> tuple[int, np.ndarray]:
        """Open for writing; returns (games already done, their histogram)."""
        histogram = np.zeros(cells + 1, dtype=np.int64)
        if not resume:
            if self.path.exists():
                raise BattleshipError(f"{self.path} exists: pass --resume to carry on with it, or remove it")
            self.meta.write_text(json.dumps(self.params, indent=2) + "\n")
            self.path.write_text("")
            return 0, histogram
        if not self.path.exists() or not self.meta.exists():
            raise BattleshipError(f"nothing to resume: {self.path} or {self.meta.name} is missing")
        saved = json.loads(self.meta.read_text())
        if saved != self.params:
            changed = sorted(k for k in set(saved) | set(self.params) if saved.get(k) != self.params.get(k))
            raise BattleshipError(f"{self.path} was written by a different run ({', '.join(changed)} differ)")
        # read line by line (a 10^8-game file is too big to hold as text): tally each chunk apart and
        # keep it only once complete, then cut the file after the last complete chunk
        done, keep_bytes, offset = 0, 0, 0
        chunk = np.zeros(cells + 1, dtype=np.int64)
        in_chunk = 0
        with self.path.open("rb") as handle:
            for line in handle:
                if not line.endswith(b"\n"):
                    break  # a line cut short by the kill
                offset += len(line)
                chunk[int(line)] += 1
                in_chunk += 1
                if in_chunk == self.chunk:
                    histogram += chunk
                    chunk[:] = 0
                    done, keep_bytes, in_chunk = done + self.chunk, offset, 0
        with self.path.open("r+b") as handle:
            handle.truncate(keep_bytes)
        return done, histogram

    def append(self, shots: np.ndarray) -> None:
        """Add one chunk, flushed to disk before the next is counted."""
        with self.path.open("a") as handle:
            handle.write("".join(f"{v}\n" for v in shots.tolist()))
            handle.flush()
            os.fsync(handle.fileno())
