"""Summary statistics of shots per game: mean with its 95% interval, spread, order statistics.

Everything is computed from a histogram (index = shots), so a run of any length summarises in
constant memory; paired differences compare two shooters on the same layouts.

Under salvo rules a game is measured in turns (salvos to sink the fleet), not shots: the histograms
count turns, and the shots fired follow from them (:func:`shots_fired`), since in one-sided play
every salvo but a last one that finds too few free cells fires the rules' full size.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from battleship.rules import Rules
from battleship.words import counted

QUANTILES = (0.01, 0.05, 0.25, 0.75, 0.95, 0.99)
Z95 = 1.959963984540054  # the normal 97.5% point
# Student's t 97.5% points for 1..30 degrees of freedom: a handful of games (a slow shooter's few) must
# not get the normal interval, which is far too narrow there (2 games: 12.7 standard errors, not 1.96)
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042)  # fmt: skip


def t95(df: int) -> float:
    """Student's t 97.5% point with ``df`` degrees of freedom (a table, then Cornish-Fisher to 1e-4)."""
    if df < 1:
        raise ValueError("a t interval needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def unit(rules: Rules) -> str:
    """What a game is measured in: ``"shots"`` in the one-shot game, ``"turns"`` (salvos) under salvo rules."""
    return "shots" if rules.salvo is None else "turns"


def most_shots(rules: Rules) -> int:
    """The most a game can take, in :func:`unit`: every cell once, or under ``[noise]`` (where a cell may be
    fired at again) as many shots as a game is allowed (``battleship.game.NOISY_SHOTS_PER_CELL``)."""
    if rules.noise is None:
        return rules.cells
    from battleship.game import NOISY_SHOTS_PER_CELL

    return NOISY_SHOTS_PER_CELL * rules.cells


def fewest(rules: Rules) -> int:
    """A perfect game in :func:`unit`: every shot a hit (the fleet's cells, in salvos of the full size)."""
    return -(-rules.ship_cells // rules.turn_size())


def shots_fired(histogram: np.ndarray, rules: Rules) -> float:
    """Mean shots fired a game, from a histogram of games by :func:`unit` (one-sided play: every salvo
    fires the rules' full size for a whole fleet, capped by the cells left)."""
    games = int(histogram.sum())
    fired = np.minimum(np.arange(len(histogram)) * rules.turn_size(), rules.cells)
    return float((fired * histogram).sum() / games) if games else 0.0


def unit_keys(histogram: np.ndarray, rules: Rules) -> dict[str, Any]:
    """The keys a JSON summary adds for its unit: ``unit``, and under salvo rules ``shots_fired``."""
    if rules.salvo is None:
        return {"unit": "shots"}
    return {"unit": "turns", "shots_fired": shots_fired(histogram, rules)}


@dataclass(frozen=True)
class Summary:
    """Statistics of shots per game (turns under salvo rules): what ``battleship simulate`` prints.

    Attributes
    ----------
    games : int
        Games played.
    mean, sd : float
        The mean and standard deviation of shots per game.
    ci95 : tuple of float
        The 95% confidence interval of the mean.
    median : float
        The median.
    mode, min, max : int
        The most frequent length, the shortest and the longest game.
    quantiles : dict of str to float
        The 5%, 25%, 75% and 95% points, by name (``"p5"``, ...).
    perfect : int
        Games won in as many shots as the fleet has cells.
    games_per_second : float
        How fast they were played.

    Examples
    --------
    >>> import battleship as bs
    >>> summary = bs.simulate("standard", "hunt-target", games=200, seed=1)
    >>> summary.games, round(summary.mean, 2), summary.min <= summary.median <= summary.max
    (200, 65.88, True)
    """

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

    def __repr__(self) -> str:
        low, high = self.ci95
        return (
            f"<Summary of {counted(self.games, 'game')}: mean {self.mean:.2f} shots (95% {low:.2f}..{high:.2f}), "
            f"sd {self.sd:.2f}, median {self.median:g}, {self.min}..{self.max}>"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        data = asdict(self)
        data["ci95"] = list(self.ci95)
        return data


def quantile(cumulative: np.ndarray, n: int, q: float) -> float:
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
    half = t95(n - 1) * sd / np.sqrt(n) if n > 1 else 0.0
    cumulative = np.cumsum(histogram)
    seen = np.flatnonzero(histogram)
    return Summary(
        games=n,
        mean=mean,
        ci95=(mean - half, mean + half),
        sd=sd,
        median=quantile(cumulative, n, 0.5),
        mode=int(histogram.argmax()),
        min=int(seen[0]),
        max=int(seen[-1]),
        quantiles={f"{q:g}": quantile(cumulative, n, q) for q in QUANTILES},
        perfect=int(histogram[perfect]) if perfect < len(histogram) else 0,
        games_per_second=n / seconds if seconds > 0 else float("inf"),
    )


def summarise(shots: np.ndarray, perfect: int, seconds: float) -> Summary:
    """Mean with its 95% (Student's t) interval, spread, order statistics, and the count of perfect games."""
    return summarise_histogram(np.bincount(shots), perfect, seconds)


def paired_difference(shots: np.ndarray, baseline: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Mean of ``shots - baseline`` over the same layouts, with its 95% (Student's t) interval."""
    diff = shots.astype(np.int64) - baseline.astype(np.int64)
    return paired_from_sums(len(diff), int(diff.sum()), int((diff * diff).sum()))


def paired_from_sums(games: int, total: int, squares: int) -> tuple[float, tuple[float, float]]:
    """:func:`paired_difference` from the count, sum and sum of squares of the differences.

    Whole-number sums, so chunks add up exactly in any order and on any machine.
    """
    mean = total / games
    var = (squares - total * total / games) / (games - 1) if games > 1 else 0.0
    half = t95(games - 1) * max(var, 0.0) ** 0.5 / games**0.5 if games > 1 else 0.0
    return mean, (mean - half, mean + half)


@dataclass(frozen=True)
class Comparison:
    """Shooters played on the same games: each one's summary and its paired difference from the
    first (what ``battleship compare`` prints).

    Attributes
    ----------
    rules : str
        The rules' name.
    games, seed : int
        Games played, and the seed that drew them.
    summaries : dict of str to Summary
        Each shooter's statistics, by its resolved spec.
    minus_first : dict of str to tuple
        Each shooter's mean paired difference from the first, and its 95% interval.
    unit : str
        What the numbers count: ``"shots"``, or ``"turns"`` under salvo rules.
    fired : dict of str to float
        Under salvo rules, each shooter's mean shots fired a game.

    Examples
    --------
    >>> import battleship as bs
    >>> both = bs.compare("standard", ["hunt-target", "density"], games=100, seed=1)
    >>> list(both.summaries), both.minus_first["density"][0] < 0
    (['hunt-target', 'density'], True)
    """

    rules: str
    games: int
    seed: int
    summaries: dict[str, Summary]  # by the shooter's name as printed everywhere (its resolved spec)
    minus_first: dict[str, tuple[float, tuple[float, float]]]  # mean difference and its 95% interval
    unit: str = "shots"  # what the numbers count: shots, or turns under salvo rules
    fired: dict[str, float] = field(default_factory=dict)  # salvo rules: mean shots fired a game

    def __repr__(self) -> str:
        first = next(iter(self.summaries), None)
        each = ", ".join(
            f"{name} {s.mean:.2f}" + ("" if name == first else f" ({self.minus_first[name][0]:+.2f})")
            for name, s in self.summaries.items()
        )
        return f"<Comparison on {self.rules}, {counted(self.games, 'game')} (seed {self.seed}): {each}>"

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON (the ``compare --json`` document, less its figures)."""
        return {
            "rules": self.rules,
            "seed": self.seed,
            "games": self.games,
            "unit": self.unit,
            "shooters": {
                name: {
                    **s.as_dict(),
                    **({"shots_fired": self.fired[name]} if name in self.fired else {}),
                    "minus_first": self.minus_first[name][0],
                    "minus_first_ci95": list(self.minus_first[name][1]),
                }
                for name, s in self.summaries.items()
            },
        }


class PairedTally:
    """What a comparison has counted so far, as whole numbers: games by shots per shooter, and the sums
    and sums of squares of each one's differences from the first (so chunks add up exactly)."""

    def __init__(self, shooters: int, cells: int):
        self.histograms = np.zeros((shooters, cells + 1), dtype=np.int64)
        self.minus_first = np.zeros((shooters, 2), dtype=np.int64)
        self.seconds = np.zeros(shooters)  # time each spent playing
        self.done = 0  # games counted (every shooter played each of them)

    def add(self, histograms: np.ndarray, minus_first: np.ndarray, seconds: np.ndarray, games: int) -> None:
        """Count a chunk of games (a :class:`battleship.lab.runner.PairedChunk`'s sums)."""
        self.histograms += histograms
        self.minus_first += minus_first
        self.seconds += seconds
        self.done += games

    def add_rows(self, rows: np.ndarray) -> None:
        """Count games given as ``(games, shooters)`` shots (a resumed file's lines)."""
        for i in range(rows.shape[1]):
            self.histograms[i] += np.bincount(rows[:, i], minlength=self.histograms.shape[1])
            d = rows[:, i] - rows[:, 0]
            self.minus_first[i] += (int(d.sum()), int((d * d).sum()))
        self.done += len(rows)

    def comparison(
        self,
        rules: str,
        names: list[str],
        perfect: int,
        seed: int,
        wall: float,
        measured: Rules | None = None,
    ) -> Comparison:
        """The summaries of the games counted; ``wall`` seconds shared by the time each shooter spent.

        ``measured``: the rules played, which say the unit (turns under salvo rules, with the shots fired).
        """
        total = self.seconds.sum()
        summaries, differences = {}, {}
        for i, name in enumerate(names):
            share = wall * self.seconds[i] / total if total > 0 else 0.0
            summaries[name] = summarise_histogram(self.histograms[i], perfect, share)
            differences[name] = paired_from_sums(
                self.done, int(self.minus_first[i, 0]), int(self.minus_first[i, 1])
            )
        if measured is None or measured.salvo is None:
            return Comparison(rules, self.done, seed, summaries, differences)
        fired = {name: shots_fired(self.histograms[i], measured) for i, name in enumerate(names)}
        return Comparison(rules, self.done, seed, summaries, differences, "turns", fired)
