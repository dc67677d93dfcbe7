"""Two-player matches, as the Dunman High paper plays them: each side hides a fleet and both fire in turn.

A side's shots never depend on the other side's, so a match is two independent runs of the lab:
A's shooter against B's layouts and B's shooter against A's. With alternate turns the side that
moves first wins when it needs no more shots than the other, and the game lasts
``2 * shots - 1`` moves if the first mover wins, ``2 * shots`` (the second mover's) otherwise.
The Dunman High paper scales the moves played by the most a game can last, ``2 * cells``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

import numpy as np

from battleship.errors import BattleshipError
from battleship.lab import runner
from battleship.lab.pool import Pool, Threads
from battleship.lab.summary import quantile
from battleship.rules import Rules
from battleship.shooters.options import Options
from battleship.stop import Stop

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


def first_movers(games: int, first: str, start: int = 0) -> np.ndarray:
    """For games ``start .. start + games``, True where A moves first: every other game
    (``alternate``, A in the even games), always (``a``) or never (``b``)."""
    if first not in FIRST:
        raise BattleshipError(f"--first must be one of {', '.join(FIRST)}, not {first!r}")
    if first == "alternate":
        return np.arange(start, start + games) % 2 == 0
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


@dataclass
class MatchTally:
    """One pairing's games as whole-number sums: chunks add up exactly, in any order, anywhere."""

    games: int
    a_wins: int
    first_won: int
    a_shots: int
    b_shots: int
    moves: np.ndarray  # games by moves played (index = moves)
    seconds: float

    def add(self, other: MatchTally) -> None:
        """Add another chunk's games."""
        self.games += other.games
        self.a_wins += other.a_wins
        self.first_won += other.first_won
        self.a_shots += other.a_shots
        self.b_shots += other.b_shots
        self.moves += other.moves
        self.seconds += other.seconds


def tally(
    shots_a: np.ndarray, shots_b: np.ndarray, a_first: np.ndarray, cells: int, seconds: float
) -> MatchTally:
    """The sums of the games whose shots per side are given."""
    a_wins, moves = outcomes(shots_a, shots_b, a_first)
    return MatchTally(
        games=len(shots_a),
        a_wins=int(a_wins.sum()),
        first_won=int((a_wins == a_first).sum()),
        a_shots=int(shots_a.sum()),
        b_shots=int(shots_b.sum()),
        moves=np.bincount(moves, minlength=2 * cells + 1),
        seconds=seconds,
    )


def summarise(rules: Rules, a: Side, b: Side, t: MatchTally, seed: int, first: str) -> MatchResult:
    """The match statistics from its tally."""
    games, most = t.games, 2 * rules.cells
    cumulative = np.cumsum(t.moves)
    moves_mean = float((np.arange(len(t.moves)) * t.moves).sum() / games)
    return MatchResult(
        rules=rules.name,
        a=a.label,
        b=b.label,
        games=games,
        seed=seed,
        first=first,
        a_wins=t.a_wins,
        a_win_rate=t.a_wins / games,
        a_win_rate_ci95=wilson(t.a_wins, games),
        first_mover_win_rate=t.first_won / games,
        first_mover_win_rate_ci95=wilson(t.first_won, games),
        first_mover_advantage=t.first_won / games - 0.5,
        moves_mean_scaled=moves_mean / most,
        moves_median_scaled=quantile(cumulative, games, 0.5) / most,
        moves_mode_scaled=float(t.moves.argmax()) / most,
        moves_mean=moves_mean,
        a_shots_mean=t.a_shots / games,
        b_shots_mean=t.b_shots / games,
        seconds=t.seconds,
    )


@dataclass(frozen=True)
class MatchChunk:
    """One chunk of a pairing: the player against every opponent over the same games."""

    start: int
    tallies: list[MatchTally]  # one per opponent
    shots: np.ndarray | None  # (games, 1 + opponents): the player's shots, then each opponent's
    complete: bool = True  # False when a stop request cut the chunk short

    @property
    def games(self) -> int:
        """Games in the chunk."""
        return self.tallies[0].games


def play_match_chunk(
    rules: Rules,
    player: Side,
    opponents: tuple[Side, ...],
    seed: int,
    start: int,
    count: int,
    first: str,
    fleets: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    keep_shots: bool = False,
    stop: Stop | None = None,
) -> MatchChunk:
    """Games ``start .. start + count`` of ``player`` against each opponent (a pure function).

    The player fires at fleets hidden by the first opponent's generator, from the seed ``2 * seed``,
    once for every opponent; each opponent fires at the player's fleets from ``2 * seed + 1``.
    ``fleets`` gives the layouts instead: those the player hides, then those the opponents hide
    (rows for these games). Cut short by ``stop``, the chunk holds the games every side finished.
    """
    hides, opponents_hide = fleets
    a = runner.play_chunk(
        rules, player.name, 2 * seed, start, count, opponents[0].generator, opponents_hide, player.options,
        True, stop,
    )  # fmt: skip
    n, played = a.games, [a]
    for opponent in opponents:
        rows = None if hides is None else hides[:n]
        b = runner.play_chunk(
            rules, opponent.name, 2 * seed + 1, start, n, player.generator, rows, opponent.options, True, stop
        )
        played.append(b)
        n = min(n, b.games)
    a_first = first_movers(n, first, start)
    tallies = [
        tally(a.kept_shots()[:n], b.kept_shots()[:n], a_first, rules.cells, a.seconds + b.seconds)
        for b in played[1:]
    ]
    shots = np.array([p.kept_shots()[:n] for p in played], dtype=np.int64).T.copy() if keep_shots else None
    return MatchChunk(start, tallies, shots, n == count)


def tally_rows(rows: np.ndarray, start: int, first: str, cells: int) -> list[MatchTally]:
    """The tallies of games ``start ..`` given as ``(games, 1 + opponents)`` shots (a resumed file's lines)."""
    a_first = first_movers(len(rows), first, start)
    return [tally(rows[:, 0], rows[:, i], a_first, cells, 0.0) for i in range(1, rows.shape[1])]


def add_tallies(totals: list[MatchTally] | None, tallies: list[MatchTally]) -> list[MatchTally]:
    """``totals`` with a chunk's tallies added (the chunk's own when there are none yet)."""
    if totals is None:
        return [dataclasses.replace(t, moves=t.moves.copy()) for t in tallies]
    for total, t in zip(totals, tallies, strict=True):
        total.add(t)
    return totals


def stream_pairings(
    rules: Rules,
    player: Side,
    opponents: list[Side],
    games: int,
    seed: int,
    first: str,
    pool: Pool,
    start: int = 0,
    fleets: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    keep_shots: bool = False,
    stop: Stop | None = None,
) -> Iterator[MatchChunk]:
    """The player against every opponent from game ``start`` to ``games``, chunk by chunk in order on ``pool``.

    With ``stop`` the stream ends early once it is requested, after the games finished up to then.
    """
    for side in (player, *opponents):
        runner.check(side.name, rules)
        runner.warm_up(rules, side.name, side.generator)
    chunk = min(runner.chunk_size(side.name) for side in (player, *opponents))
    for rows in fleets:
        if rows is not None and len(rows) < games:
            raise BattleshipError(f"{games:,} games asked for but only {len(rows):,} layouts given")
    tasks = (
        (
            rules, player, tuple(opponents), seed, first_game, count, first,
            tuple(None if rows is None else rows[first_game : first_game + count] for rows in fleets),
            keep_shots,
        )
        for first_game, count in runner.cuts(start, games, chunk)
    )  # fmt: skip
    yield from runner.up_to_a_stop(pool.ordered(play_match_chunk, tasks, stop))


def play_pairings(
    rules: Rules,
    player: Side,
    opponents: list[Side],
    games: int,
    seed: int,
    first: str,
    pool: Pool,
    on_chunk: Callable[[int], None] | None = None,
    fleets: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
) -> list[MatchTally]:
    """The player against every opponent over ``games`` games, chunk by chunk on ``pool``.

    ``on_chunk`` hears the number of games of every chunk done (a progress bar).
    """
    totals: list[MatchTally] | None = None
    for chunk in stream_pairings(rules, player, opponents, games, seed, first, pool, fleets=fleets):
        if on_chunk is not None:
            on_chunk(chunk.games)
        totals = add_tallies(totals, chunk.tallies)
    return totals if totals is not None else []  # no chunk: no games asked for


def play_match(
    rules: Rules,
    a: Side,
    b: Side,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    first: str = "alternate",
    pool: Pool | None = None,
    on_chunk: Callable[[int], None] | None = None,
    fleets: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
) -> MatchResult:
    """Play ``games`` games of A against B; reproducible from ``seed`` (on threads, or on ``pool``).

    ``fleets``: the layouts A hides and those B hides (rows of placement indices), instead of drawing them.
    """
    first_movers(1, first)  # checks the option before any work
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    (t,) = play_pairings(rules, a, [b], games, seed, first, pool or Threads(jobs), on_chunk, fleets)
    return summarise(rules, a, b, t, seed, first)


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
    pool: Pool | None = None,
    on_chunk: Callable[[int], None] | None = None,
):
    """The Dunman High paper's section 7: ``player`` against each opponent on square boards of each side, standard fleet.

    Yields one :class:`MatchResult` per (side, opponent). The player's own games are played once
    per side and shared by every opponent (its shots do not depend on whom it plays).
    """
    from battleship.rules import square

    first_movers(1, first)
    for n in sizes:
        rules = square(n)
        tallies = play_pairings(rules, player, opponents, games, seed, first, pool or Threads(jobs), on_chunk)
        for opponent, t in zip(opponents, tallies, strict=True):
            yield summarise(rules, player, opponent, t, seed, first)
