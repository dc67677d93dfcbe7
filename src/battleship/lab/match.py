"""Two-player matches, as the Dunman High paper plays them: each side hides a fleet and both fire in turn.

A side's shots never depend on the other side's, so a match is two independent runs of the lab:
A's shooter against B's layouts and B's shooter against A's. With alternate turns the side that
moves first wins when it needs no more shots than the other, and the game lasts
``2 * shots - 1`` moves if the first mover wins, ``2 * shots`` (the second mover's) otherwise.
The Dunman High paper scales the moves played by the most a game can last, ``2 * cells``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from battleship import lab
from battleship.errors import BattleshipError
from battleship.rules import Rules
from battleship.shooters.options import Options

FIRST = ("alternate", "a", "b")


@dataclass(frozen=True)
class Side:
    """One player: a shooter (its name and options) and the generator its own fleet is hidden by."""

    name: str
    options: Options
    generator: str = "uniform"
    label: str = ""


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's 95% interval for a proportion."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def first_movers(games: int, first: str) -> np.ndarray:
    """True where A moves first: every other game (``alternate``), always (``a``) or never (``b``)."""
    if first not in FIRST:
        raise BattleshipError(f"--first must be one of {', '.join(FIRST)}, not {first!r}")
    if first == "alternate":
        return np.arange(games) % 2 == 0
    return np.full(games, first == "a")


def outcomes(shots_a: np.ndarray, shots_b: np.ndarray, a_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: did A win, and how many moves (both sides' shots) were played."""
    a_wins = np.where(a_first, shots_a <= shots_b, shots_a < shots_b)
    first_shots = np.where(a_first, shots_a, shots_b)
    second_shots = np.where(a_first, shots_b, shots_a)
    first_wins = first_shots <= second_shots
    moves = np.where(first_wins, 2 * first_shots - 1, 2 * second_shots)
    return a_wins, moves


@dataclass(frozen=True)
class MatchResult:
    """What a match measured (moves scaled by the Dunman High paper's maximum, ``2 * cells``)."""

    rules: str
    a: str
    b: str
    games: int
    seed: int
    first: str
    a_wins: int
    a_win_rate: float
    a_win_rate_ci95: tuple[float, float]
    first_mover_win_rate: float
    first_mover_win_rate_ci95: tuple[float, float]
    first_mover_advantage: float  # first mover's win rate minus one half
    moves_mean_scaled: float
    moves_median_scaled: float
    moves_mode_scaled: float
    moves_mean: float
    a_shots_mean: float
    b_shots_mean: float
    seconds: float

    def as_dict(self) -> dict:
        """Plain data for JSON."""
        data = asdict(self)
        data["a_win_rate_ci95"] = list(self.a_win_rate_ci95)
        data["first_mover_win_rate_ci95"] = list(self.first_mover_win_rate_ci95)
        return data


def summarise(
    rules: Rules,
    a: Side,
    b: Side,
    shots_a: np.ndarray,
    shots_b: np.ndarray,
    seed: int,
    first: str,
    seconds: float,
) -> MatchResult:
    """The match statistics from both sides' shots per game."""
    games = len(shots_a)
    a_first = first_movers(games, first)
    a_wins, moves = outcomes(shots_a, shots_b, a_first)
    first_won = int((a_wins == a_first).sum())
    most = 2 * rules.cells
    values, counts = np.unique(moves, return_counts=True)
    return MatchResult(
        rules=rules.name,
        a=a.label,
        b=b.label,
        games=games,
        seed=seed,
        first=first,
        a_wins=int(a_wins.sum()),
        a_win_rate=float(a_wins.mean()),
        a_win_rate_ci95=wilson(int(a_wins.sum()), games),
        first_mover_win_rate=first_won / games,
        first_mover_win_rate_ci95=wilson(first_won, games),
        first_mover_advantage=first_won / games - 0.5,
        moves_mean_scaled=float(moves.mean()) / most,
        moves_median_scaled=float(np.median(moves)) / most,
        moves_mode_scaled=float(values[np.argmax(counts)]) / most,
        moves_mean=float(moves.mean()),
        a_shots_mean=float(shots_a.mean()),
        b_shots_mean=float(shots_b.mean()),
        seconds=seconds,
    )


def side_shots(rules: Rules, shooter: Side, target: Side, games: int, seed: int, jobs: int = 1) -> np.ndarray:
    """Shots per game of ``shooter`` against fleets hidden by ``target``'s generator."""
    return lab.simulate(
        rules, shooter.name, games, seed=seed, generator=target.generator, jobs=jobs, options=shooter.options
    )


def play_match(
    rules: Rules, a: Side, b: Side, games: int, seed: int = 0, jobs: int = 1, first: str = "alternate"
) -> MatchResult:
    """Play ``games`` games of A against B; reproducible from ``seed``."""
    first_movers(1, first)  # checks the option before any work
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    start = time.perf_counter()
    shots_a = side_shots(rules, a, b, games, 2 * seed, jobs)
    shots_b = side_shots(rules, b, a, games, 2 * seed + 1, jobs)
    return summarise(rules, a, b, shots_a, shots_b, seed, first, time.perf_counter() - start)


# the Dunman High paper section 7.1, Optimal against each strategy: win rate, then moves (mean, median, mode) / 2n^2
PUBLISHED_001 = {
    6: {"random": (1, 0.696, 0.708, 0.708), "hunt-target": (0.807, 0.683, 0.681, 0.681)},
    7: {"random": (1, 0.605, 0.602, 0.602), "hunt-target": (0.816, 0.593, 0.592, 0.602)},
    8: {"random": (1, 0.544, 0.539, 0.539), "hunt-target": (0.816, 0.531, 0.523, 0.539)},
    9: {"random": (1, 0.500, 0.5, 0.5), "hunt-target": (0.823, 0.484, 0.475, 0.451)},
    10: {"random": (1, 0.466, 0.465, 0.455), "hunt-target": (0.826, 0.452, 0.445, 0.425)},
    11: {"random": (1, 0.442, 0.434, 0.393), "hunt-target": (0.814, 0.427, 0.417, 0.376)},
    12: {"random": (1, 0.423, 0.413, 0.406), "hunt-target": (0.818, 0.408, 0.403, 0.378)},
    13: {"random": (1, 0.409, 0.399, 0.363), "hunt-target": (0.810, 0.392, 0.388, 0.393)},
    14: {"random": (1, 0.398, 0.390, 0.375), "hunt-target": (0.816, 0.381, 0.375, 0.355)},
    15: {"random": (1, 0.388, 0.38, 0.349), "hunt-target": (0.809, 0.371, 0.367, 0.358)},
}


def sweep(
    sizes: list[int],
    player: Side,
    opponents: list[Side],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    first: str = "alternate",
):
    """The Dunman High paper's section 7: ``player`` against each opponent on square boards of each side, standard fleet.

    Yields one :class:`MatchResult` per (side, opponent). The player's own games are played once
    per side and shared by every opponent (its shots do not depend on whom it plays).
    """
    from battleship.rules import square

    for n in sizes:
        rules = square(n)
        start = time.perf_counter()
        shots_a = side_shots(rules, player, opponents[0], games, 2 * seed, jobs)
        shared = time.perf_counter() - start
        for opponent in opponents:
            begin = time.perf_counter()
            shots_b = side_shots(rules, opponent, player, games, 2 * seed + 1, jobs)
            yield summarise(
                rules, player, opponent, shots_a, shots_b, seed, first, shared + time.perf_counter() - begin
            )
