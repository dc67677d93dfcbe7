"""Two-player matches, as the Dunman High paper plays them: each side hides a fleet and both fire in turn.

A side's shots never depend on the other side's, so a match is two independent runs of the lab:
A's shooter against B's layouts and B's shooter against A's. With alternate turns the side that
moves first wins when it needs no more shots than the other, and the game lasts
``2 * shots - 1`` moves if the first mover wins, ``2 * shots`` (the second mover's) otherwise.
The Dunman High paper scales the moves played by the most a game can last, ``2 * cells``.

With simultaneous turns (BattleSalvo's rule) both sides fire at once: the side that needs fewer
shots wins, and a game in which both fleets sink in the same turn is a tie.

Under salvo rules a side's salvo may depend on the other's (``shots = "afloat"``: one shot per
ship of its own fleet still afloat, ``"afloat-cells"``: one per unhit square of it), so the games
are played turn by turn, both shooters in Python (:func:`play_salvo_game`); each game is a pure
function of the seed and its number, so the figures do not depend on ``--jobs``. They are counted
in turns (salvos), with the shots fired beside them.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Game, Shooter, choose_salvo
from battleship.lab import runner
from battleship.lab.pool import Pool, Threads
from battleship.lab.summary import quantile
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules
from battleship.shooters import registry
from battleship.shooters.options import Options
from battleship.stop import Stop
from battleship.words import counted

FIRST = ("alternate", "a", "b")
TURNS = ("alternate", "simultaneous")
# a salvo game's line: A's salvos, B's salvos, A's shots, B's shots, who won (see ``WON``)
SALVO_COLUMNS = ("turns A", "turns B", "shots A", "shots B", "winner")
WON = {"a": 1, "b": 2, "tie": 0}


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


def check_turns(turns: str, first: str) -> None:
    """Refuse an unknown ``--turns``, or a first mover where nobody moves first."""
    if turns not in TURNS:
        raise BattleshipError(f"--turns must be one of {' | '.join(TURNS)}, not {turns!r}")
    first_movers(1, first)
    if turns == "simultaneous" and first != "alternate":
        raise BattleshipError(f"--first {first}: with --turns simultaneous both sides fire at once")


def outcomes(shots_a: np.ndarray, shots_b: np.ndarray, a_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: did A win, and how many moves (both sides' shots) were played."""
    a_wins = np.where(a_first, shots_a <= shots_b, shots_a < shots_b)
    first_shots = np.where(a_first, shots_a, shots_b)
    second_shots = np.where(a_first, shots_b, shots_a)
    first_wins = first_shots <= second_shots
    moves = np.where(first_wins, 2 * first_shots - 1, 2 * second_shots)
    return a_wins, moves


def simultaneous_outcomes(
    shots_a: np.ndarray, shots_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game with both sides firing at once: did A win, was it a tie, and how many shots were fired."""
    return shots_a < shots_b, shots_a == shots_b, 2 * np.minimum(shots_a, shots_b)


@dataclass(frozen=True)
class MatchResult:
    """What a match measured (moves scaled by the Dunman High paper's maximum, ``2 * cells``).

    ``unit`` is ``"shots"`` for the one-shot game and ``"turns"`` under salvo rules. One-shot, a
    side's shots are those it needs to sink the other's fleet; under salvo rules its turns and shots
    are those it fired before the match ended. With simultaneous turns nobody moves first: the
    first mover's figures are None, and ``ties`` counts the games in which both fleets sank together.
    """

    rules: str
    a: str
    b: str
    games: int
    seed: int
    first: str
    a_wins: int
    a_win_rate: float
    a_win_rate_ci95: tuple[float, float]
    first_mover_win_rate: float | None
    first_mover_win_rate_ci95: tuple[float, float] | None
    first_mover_advantage: float | None  # first mover's win rate minus one half
    moves_mean_scaled: float
    moves_median_scaled: float
    moves_mode_scaled: float
    moves_mean: float
    a_shots_mean: float
    b_shots_mean: float
    seconds: float
    turns: str = "alternate"
    unit: str = "shots"
    b_wins: int = 0
    b_win_rate: float = 0.0
    b_win_rate_ci95: tuple[float, float] = (0.0, 1.0)
    ties: int = 0
    tie_rate: float = 0.0
    tie_rate_ci95: tuple[float, float] = (0.0, 1.0)
    a_turns_mean: float = 0.0
    b_turns_mean: float = 0.0

    def as_dict(self) -> dict:
        """Plain data for JSON."""
        data = asdict(self)
        for key in ("a_win_rate_ci95", "b_win_rate_ci95", "tie_rate_ci95", "first_mover_win_rate_ci95"):
            data[key] = None if data[key] is None else list(data[key])
        return data


@dataclass
class MatchTally:
    """One pairing's games as whole-number sums: chunks add up exactly, in any order, anywhere.

    ``a_shots``/``b_shots`` sum the shots (``a_turns``/``b_turns`` the turns: the same one-shot)."""

    games: int
    a_wins: int
    first_won: int
    a_shots: int
    b_shots: int
    moves: np.ndarray  # games by moves played (index = moves: shots one-shot, salvos under salvo rules)
    seconds: float
    ties: int = 0
    a_turns: int = 0
    b_turns: int = 0

    def add(self, other: MatchTally) -> None:
        """Add another chunk's games."""
        self.games += other.games
        self.a_wins += other.a_wins
        self.first_won += other.first_won
        self.a_shots += other.a_shots
        self.b_shots += other.b_shots
        self.moves += other.moves
        self.seconds += other.seconds
        self.ties += other.ties
        self.a_turns += other.a_turns
        self.b_turns += other.b_turns


def tally(
    shots_a: np.ndarray,
    shots_b: np.ndarray,
    a_first: np.ndarray,
    cells: int,
    seconds: float,
    turns: str = "alternate",
) -> MatchTally:
    """The sums of the one-shot games whose shots per side are given."""
    if turns == "simultaneous":
        a_wins, ties, moves = simultaneous_outcomes(shots_a, shots_b)
        first_won, tied = 0, int(ties.sum())
    else:
        a_wins, moves = outcomes(shots_a, shots_b, a_first)
        first_won, tied = int((a_wins == a_first).sum()), 0
    return MatchTally(
        games=len(shots_a),
        a_wins=int(a_wins.sum()),
        first_won=first_won,
        a_shots=int(shots_a.sum()),
        b_shots=int(shots_b.sum()),
        moves=np.bincount(moves, minlength=2 * cells + 1),
        seconds=seconds,
        ties=tied,
        a_turns=int(shots_a.sum()),
        b_turns=int(shots_b.sum()),
    )


def tally_salvo(rows: np.ndarray, a_first: np.ndarray, cells: int, seconds: float) -> MatchTally:
    """The sums of salvo games given as rows of :data:`SALVO_COLUMNS`."""
    winner = rows[:, 4]
    moves = rows[:, 0] + rows[:, 1]
    first_won = np.where(a_first, winner == WON["a"], winner == WON["b"])
    return MatchTally(
        games=len(rows),
        a_wins=int((winner == WON["a"]).sum()),
        first_won=int(first_won.sum()),
        a_shots=int(rows[:, 2].sum()),
        b_shots=int(rows[:, 3].sum()),
        moves=np.bincount(moves, minlength=2 * cells + 1),
        seconds=seconds,
        ties=int((winner == WON["tie"]).sum()),
        a_turns=int(rows[:, 0].sum()),
        b_turns=int(rows[:, 1].sum()),
    )


def summarise(
    rules: Rules, a: Side, b: Side, t: MatchTally, seed: int, first: str, turns: str = "alternate"
) -> MatchResult:
    """The match statistics from its tally."""
    games, most = t.games, 2 * rules.cells
    cumulative = np.cumsum(t.moves)
    moves_mean = float((np.arange(len(t.moves)) * t.moves).sum() / games)
    b_wins = games - t.a_wins - t.ties
    movers = turns == "alternate"
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
        first_mover_win_rate=t.first_won / games if movers else None,
        first_mover_win_rate_ci95=wilson(t.first_won, games) if movers else None,
        first_mover_advantage=t.first_won / games - 0.5 if movers else None,
        moves_mean_scaled=moves_mean / most,
        moves_median_scaled=quantile(cumulative, games, 0.5) / most,
        moves_mode_scaled=float(t.moves.argmax()) / most,
        moves_mean=moves_mean,
        a_shots_mean=t.a_shots / games,
        b_shots_mean=t.b_shots / games,
        seconds=t.seconds,
        turns=turns,
        unit="shots" if rules.salvo is None else "turns",
        b_wins=b_wins,
        b_win_rate=b_wins / games,
        b_win_rate_ci95=wilson(b_wins, games),
        ties=t.ties,
        tie_rate=t.ties / games,
        tie_rate_ci95=wilson(t.ties, games),
        a_turns_mean=t.a_turns / games,
        b_turns_mean=t.b_turns / games,
    )


# --- salvo games, played turn by turn -----------------------------------------------------------
def _afloat(own: Game, layout: Layout) -> tuple[int, int]:
    """(ships, unhit squares) of ``layout``, the fleet its owner hides in ``own``: what the owner fires with."""
    hit = own.hit
    return sum(hit & m != m for m in layout.masks), (layout.occupied & ~hit).bit_count()


def play_salvo_game(
    shooters: tuple[Shooter, Shooter],
    hidden: tuple[Layout, Layout],
    rngs: tuple[np.random.Generator, np.random.Generator],
    a_first: bool = True,
    turns: str = "alternate",
    stop: Stop | None = None,
) -> tuple[int, int, int, int, int]:
    """One salvo game of A against B, turn by turn: a row of :data:`SALVO_COLUMNS`.

    ``hidden`` holds the fleet A hides, then B's. Each side fires as many shots as the rules give its
    own fleet at the start of its turn. Alternating, the side that sinks the other's fleet first wins;
    simultaneous, both salvos are chosen, fired and answered together, and both fleets sinking in the
    same turn is a tie. A stop request abandons the game (:class:`GameStopped`).
    """
    a_hides, b_hides = hidden
    at_b, at_a = Game(b_hides), Game(a_hides)  # what A fires at, what B fires at

    def size(side: int) -> int:  # the shots a side's own fleet gives it now
        return (
            at_b.turn_size(*_afloat(at_a, a_hides)) if side == 0 else at_a.turn_size(*_afloat(at_b, b_hides))
        )

    for shooter, game, rng in zip(shooters, (at_b, at_a), rngs, strict=True):
        shooter.reset(game.rules, rng)
    a, b = shooters
    salvos = [0, 0]
    while True:  # every salvo fires at least one new cell, so a game ends within 2 * cells salvos
        if stop is not None and stop.requested:
            raise GameStopped
        if turns == "simultaneous":
            size_a, size_b = size(0), size(1)
            aim_a = choose_salvo(a, at_b.observation, size_a)
            aim_b = choose_salvo(b, at_a.observation, size_b)
            _fire(a, at_b, aim_a, size_a)
            _fire(b, at_a, aim_b, size_b)
            salvos[0] += 1
            salvos[1] += 1
            if at_a.over or at_b.over:
                winner = WON["tie"] if at_a.over and at_b.over else WON["a"] if at_b.over else WON["b"]
                return _salvo_row(salvos, at_b, at_a, winner)
            continue
        for side in (0, 1) if a_first else (1, 0):
            target, k = (at_b if side == 0 else at_a), size(side)
            _fire(shooters[side], target, choose_salvo(shooters[side], target.observation, k), k)
            salvos[side] += 1
            if target.over:
                return _salvo_row(salvos, at_b, at_a, WON["a"] if side == 0 else WON["b"])


def _fire(shooter: Shooter, target: Game, cells: tuple[int, ...], size: int) -> None:
    """Fire the salvo ``shooter`` chose; one it may not fire is refused naming the shooter."""
    try:
        target.fire_salvo(cells, size)
    except IllegalShot as exc:
        raise BattleshipError(f"{shooter.name} chose a salvo it may not fire: {exc}") from None


def _salvo_row(salvos: list[int], at_b: Game, at_a: Game, winner: int) -> tuple[int, int, int, int, int]:
    fired = (at_b.observation.fired, at_a.observation.fired)
    return (salvos[0], salvos[1], fired[0], fired[1], winner)


class GameStopped(Exception):
    """Raised between two turns to abandon a game when its run is asked to stop."""


def play_salvo_games(
    rules: Rules,
    a: Side,
    b: Side,
    seed: int,
    start: int,
    rows: tuple[np.ndarray, np.ndarray],
    a_first: np.ndarray,
    turns: str,
    stop: Stop | None = None,
) -> np.ndarray:
    """Salvo games ``start ..`` of A against B (rows of :data:`SALVO_COLUMNS`), on the fleets in ``rows``
    (A's, then B's); A's shooter draws from ``game_rng(2 * seed, game)``, B's from ``2 * seed + 1``.

    A stop request ends it early with the games finished before it.
    """
    out = np.zeros((len(a_first), len(SALVO_COLUMNS)), dtype=np.int64)
    a_spec, b_spec = registry.spec(a.name), registry.spec(b.name)
    for i in range(len(a_first)):
        hidden = (generators.to_layout(rules, rows[0][i]), generators.to_layout(rules, rows[1][i]))
        rngs = (game_rng(2 * seed, start + i), game_rng(2 * seed + 1, start + i))
        shooters = (a_spec.make(a.options), b_spec.make(b.options))
        try:
            out[i] = play_salvo_game(shooters, hidden, rngs, bool(a_first[i]), turns, stop)
        except GameStopped:
            return out[:i]
    return out


def play_salvo_chunk(
    rules: Rules,
    player: Side,
    opponents: tuple[Side, ...],
    seed: int,
    start: int,
    count: int,
    first: str,
    turns: str,
    fleets: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    keep_shots: bool = False,
    stop: Stop | None = None,
) -> MatchChunk:
    """:func:`play_match_chunk` under salvo rules: every game played turn by turn against each opponent.

    The player's fleets are drawn as the one-shot game draws the fleets the opponents fire at, and
    so on: A fires at fleets from ``2 * seed`` (the first opponent's generator), the opponents at the
    player's from ``2 * seed + 1``, unless ``fleets`` gives them.
    """
    hides, opponents_hide = fleets
    if opponents_hide is None:
        opponents_hide = generators.draw(
            rules, opponents[0].generator, 2 * seed, count, first=start, threads=False
        )
    if hides is None:
        hides = generators.draw(rules, player.generator, 2 * seed + 1, count, first=start, threads=False)
    a_first = first_movers(count, first, start)
    clock = time.perf_counter()
    played, n = [], count
    for opponent in opponents:
        games = play_salvo_games(
            rules, player, opponent, seed, start, (hides, opponents_hide), a_first[:n], turns, stop
        )
        played.append(games)
        n = min(n, len(games))
    seconds = (time.perf_counter() - clock) / len(opponents)
    tallies = [tally_salvo(games[:n], a_first[:n], rules.cells, seconds) for games in played]
    shots = np.hstack([games[:n] for games in played]) if keep_shots else None
    return MatchChunk(start, tallies, shots, n == count)


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
    turns: str = "alternate",
    stop: Stop | None = None,
) -> MatchChunk:
    """Games ``start .. start + count`` of ``player`` against each opponent (a pure function).

    The player fires at fleets hidden by the first opponent's generator, from the seed ``2 * seed``,
    once for every opponent; each opponent fires at the player's fleets from ``2 * seed + 1``.
    ``fleets`` gives the layouts instead: those the player hides, then those the opponents hide
    (rows for these games). Cut short by ``stop``, the chunk holds the games every side finished.
    """
    if rules.salvo is not None:
        return play_salvo_chunk(
            rules, player, opponents, seed, start, count, first, turns, fleets, keep_shots, stop
        )
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
        tally(a.kept_shots()[:n], b.kept_shots()[:n], a_first, rules.cells, a.seconds + b.seconds, turns)
        for b in played[1:]
    ]
    shots = np.array([p.kept_shots()[:n] for p in played], dtype=np.int64).T.copy() if keep_shots else None
    return MatchChunk(start, tallies, shots, n == count)


def tally_rows(
    rows: np.ndarray, start: int, first: str, rules: Rules, turns: str = "alternate"
) -> list[MatchTally]:
    """The tallies of games ``start ..`` given as a resumed file's lines: ``(games, 1 + opponents)`` shots,
    or under salvo rules a row of :data:`SALVO_COLUMNS` per opponent."""
    a_first = first_movers(len(rows), first, start)
    if rules.salvo is not None:
        width = len(SALVO_COLUMNS)
        return [
            tally_salvo(rows[:, i : i + width], a_first, rules.cells, 0.0)
            for i in range(0, rows.shape[1], width)
        ]
    return [tally(rows[:, 0], rows[:, i], a_first, rules.cells, 0.0, turns) for i in range(1, rows.shape[1])]


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
    turns: str = "alternate",
) -> Iterator[MatchChunk]:
    """The player against every opponent from game ``start`` to ``games``, chunk by chunk in order on ``pool``.

    With ``stop`` the stream ends early once it is requested, after the games finished up to then.
    Under salvo rules every game is played turn by turn in Python, a few games a chunk.
    """
    check_turns(turns, first)
    for side in (player, *opponents):
        runner.check(side.name, rules)
        if rules.salvo is None:
            runner.warm_up(rules, side.name, side.generator)
    chunk = min(runner.chunk_size(side.name) for side in (player, *opponents))
    if rules.salvo is not None:
        chunk = runner.SLOW_CHUNK
    for rows in fleets:
        if rows is not None and len(rows) < games:
            raise BattleshipError(
                f"{counted(games, 'game')} asked for but only {counted(len(rows), 'layout')} given"
            )
    tasks = (
        (
            rules, player, tuple(opponents), seed, first_game, count, first,
            tuple(None if rows is None else rows[first_game : first_game + count] for rows in fleets),
            keep_shots, turns,
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
    turns: str = "alternate",
) -> list[MatchTally]:
    """The player against every opponent over ``games`` games, chunk by chunk on ``pool``.

    ``on_chunk`` hears the number of games of every chunk done (a progress bar).
    """
    totals: list[MatchTally] | None = None
    for chunk in stream_pairings(
        rules, player, opponents, games, seed, first, pool, fleets=fleets, turns=turns
    ):
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
    turns: str = "alternate",
) -> MatchResult:
    """Play ``games`` games of A against B; reproducible from ``seed`` (on threads, or on ``pool``).

    ``fleets``: the layouts A hides and those B hides (rows of placement indices), instead of drawing them.
    ``turns``: ``alternate`` (the first mover as ``first`` says) or ``simultaneous`` (both fire at once).
    """
    check_turns(turns, first)  # checks the options before any work
    if games < 1:
        raise BattleshipError("--games must be at least 1")
    (t,) = play_pairings(rules, a, [b], games, seed, first, pool or Threads(jobs), on_chunk, fleets, turns)
    return summarise(rules, a, b, t, seed, first, turns)


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
