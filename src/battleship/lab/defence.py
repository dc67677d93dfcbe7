"""Layouts that survive: the Dunman High paper's "optimal layout" against a deterministic shooter, and a layout search.

- :func:`adversary_layout` is the Dunman High paper's construction: let the shooter fire, and answer "miss" whenever
  some layout consistent with the answers so far has no ship there; else "hit", else the sinking
  that keeps the most layouts. When every ship is sunk, the answers pin a layout the shooter needs
  exactly that many shots to finish, if it is deterministic.
- :func:`search_layout` anneals over valid layouts: move one ship to another placement, keep the move
  when the shooter needs more shots (or, with a probability that cools, fewer). A layout's cost is
  the mean of the shooter's shots over the same ``seeds`` games (common random numbers), so
  randomised shooters are compared fairly; deterministic ones need one game.
- :func:`measure` checks a layout with fresh games against the shooter's average on uniform layouts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from battleship import generators, lab
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot
from battleship.inference import evidence, posterior, select_by_search
from battleship.lab import runner
from battleship.lab.pool import Pool, Threads
from battleship.lab.runner import ChunkResult
from battleship.layout import Layout
from battleship.rules import Rules, Sinks
from battleship.shooters import make
from battleship.shooters.options import Options
from battleship.stop import Stop
from battleship.tables import tables

CHECK_SEED = 1_000_003  # fresh games for checking, never the ones a search was scored on


def _answers(rules: Rules, observation: Observation, cell: int) -> list[tuple[Shot, float]]:
    """Every answer a consistent layout could give to a shot at ``cell``, with its layout weight."""
    result = posterior(rules, observation)
    t = tables(rules)
    hits = {s.cell for s in observation.shots if s.outcome is not Outcome.MISS}
    weights: dict[Shot, float] = {}
    for i in range(t.through_start[cell], t.through_start[cell + 1]):
        p = int(t.through[i])
        w = float(result.placement_layouts[p])
        if not w:
            continue
        s = int(t.ship_of[p])
        others = {int(x) for x in t.cell_list[p, : t.size[s]]} - {cell}
        if others <= hits and rules.sinks is not Sinks.NONE:
            shot = {
                Sinks.SUNK: Shot(cell, Outcome.SUNK),
                Sinks.NAMED: Shot(cell, Outcome.SUNK, s),
                Sinks.REVEALED: Shot(cell, Outcome.SUNK, s, t.masks[p]),
            }[rules.sinks]
        else:
            shot = Shot(cell, Outcome.HIT)
        weights[shot] = weights.get(shot, 0.0) + w
    miss = float(result.layouts) - sum(weights.values())
    return [(Shot(cell, Outcome.MISS), miss), *weights.items()]


def adversary_layout(
    rules: Rules,
    shooter: str,
    options: Options | None = None,
    seed: int = 0,
    on_shot: Callable[[int], None] | None = None,
    stop: Stop | None = None,
):
    """The Dunman High paper's optimal layout against ``shooter``: (the layout, the shots it took to build).

    ``on_shot`` hears the number of shots answered so far; ``stop`` is checked between shots (raises
    :class:`~battleship.stop.Stopped`).
    """
    player = make(shooter, options)
    player.reset(rules, np.random.default_rng(seed))
    observation = Observation(rules)
    hits = 0
    while hits < rules.ship_cells:
        if stop is not None:
            stop.check()
        if on_shot is not None:
            on_shot(len(observation.shots))
        cell = int(player.next_shot(observation))
        answers = [(shot, w) for shot, w in _answers(rules, observation, cell) if w > 0]
        misses = [a for a in answers if a[0].outcome is Outcome.MISS]
        plain = [a for a in answers if a[0].outcome is Outcome.HIT]
        shot = (misses or plain or [max(answers, key=lambda a: a[1])])[0][0]
        observation = observation.after(shot)
        hits += shot.outcome is not Outcome.MISS
    row = select_by_search(rules, evidence(rules, observation), np.zeros(1, dtype=np.int64))[0]
    return generators.to_layout(rules, row), len(observation.shots)


def layout_cost(
    rules: Rules,
    shooter: str,
    options: Options,
    row: np.ndarray,
    seeds: int,
    seed: int,
    pool: Pool | None = None,
) -> float:
    """Mean shots of ``shooter`` on one layout over games ``0 .. seeds-1`` of ``seed``.

    The games are shared among the pool's threads or workers (the same mean however they are cut).
    """
    pool = pool or Threads(1)
    rows = np.repeat(np.asarray(row, dtype=np.int64)[None, :], seeds, axis=0)
    cuts = np.linspace(0, seeds, min(seeds, pool.threads) + 1).astype(int)
    tasks = (
        (rules, shooter, seed, int(lo), int(hi - lo), "uniform", rows[lo:hi], options, False)
        for lo, hi in itertools.pairwise(cuts)
    )
    histogram = sum(chunk.histogram for chunk in pool.ordered(runner.play_chunk, tasks))
    return float((np.arange(len(histogram)) * histogram).sum() / seeds)


@dataclass(frozen=True)
class SearchResult:
    """The best layout a search found and what it cost the shooter while searching."""

    layout: Layout
    cost: float  # mean shots over the search's own games
    start_cost: float
    iterations: int
    accepted: int


def _neighbour(rules: Rules, row: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """``row`` with one ship moved to another placement that keeps the layout valid (None: no room)."""
    t = tables(rules)
    s = int(rng.integers(len(row)))
    blocked = 0
    for other, p in enumerate(row):
        if other != s:
            blocked |= rules.halo(t.masks[int(p)])
    start, count = int(t.start[s]), int(t.count[s])
    for _ in range(64):
        p = start + int(rng.integers(count))
        if p != row[s] and not t.masks[p] & blocked:
            out = row.copy()
            out[s] = p
            return out
    return None


def search_layout(
    rules: Rules,
    shooter: str,
    options: Options | None = None,
    iterations: int = 2000,
    seeds: int = 1,
    seed: int = 0,
    on_step=None,
    pool: Pool | None = None,
    stop: Stop | None = None,
) -> SearchResult:
    """Anneal towards the layout ``shooter`` needs most shots for (see the module docstring).

    Each layout's ``seeds`` games are shared among ``pool``'s workers; the search is the same.
    With ``stop``, a request ends the search after the move under way: the result holds the best
    layout found so far and the moves tried (``iterations``).
    """
    options = options or Options()
    lab.check(shooter, rules)
    if iterations < 1 or seeds < 1:
        raise BattleshipError("--iterations and --seeds must be at least 1")
    rng = np.random.default_rng(seed)
    row = generators.draw(rules, "uniform", seed, 1)[0]
    cost = start_cost = layout_cost(rules, shooter, options, row, seeds, seed, pool)
    best_row, best_cost, accepted = row, cost, 0
    hot, cold = 2.0, 0.05  # temperatures in shots: early moves may lose two shots, late ones hardly any
    tried = 0
    for i in range(iterations):
        if stop is not None and stop.requested:
            break
        tried += 1
        temperature = hot * (cold / hot) ** (i / max(1, iterations - 1))
        candidate = _neighbour(rules, row, rng)
        if candidate is not None:
            new = layout_cost(rules, shooter, options, candidate, seeds, seed, pool)
            if new >= cost or rng.random() < math.exp((new - cost) / temperature):
                row, cost = candidate, new
                accepted += 1
                if cost > best_cost:
                    best_row, best_cost = row, cost
        if on_step is not None:
            on_step(i)
    return SearchResult(generators.to_layout(rules, best_row), best_cost, start_cost, tried, accepted)


@dataclass(frozen=True)
class Check:
    """A layout's cost in fresh games against the shooter's mean on uniform layouts."""

    shots_mean: float
    shots_ci95: tuple[float, float]
    games: int
    uniform_mean: float
    uniform_ci95: tuple[float, float]
    uniform_games: int

    @property
    def ratio(self) -> float:
        """How many times the uniform mean the layout costs."""
        return self.shots_mean / self.uniform_mean


def measure(
    rules: Rules,
    shooter: str,
    options: Options,
    layout: Layout,
    games: int,
    uniform_games: int,
    jobs: int = 1,
    generator: str = "uniform",
    pool: Pool | None = None,
    on_games: Callable[[int], None] | None = None,
    stop: Stop | None = None,
) -> Check:
    """Play ``games`` fresh games on ``layout`` and ``uniform_games`` on layouts from ``generator``.

    ``on_games`` hears the games of every chunk played; a ``stop`` request raises
    :class:`~battleship.stop.Stopped` between chunks.
    """
    row = generators.to_indices(rules, [layout])[0]
    rows = np.repeat(row[None, :], games, axis=0)

    def played(count: int, layouts: np.ndarray | None) -> np.ndarray:
        chunks = lab.stream(
            rules,
            shooter,
            count,
            CHECK_SEED,
            generator,
            layouts,
            jobs,
            options,
            pool=pool,
            keep_shots=False,
            stop=stop,
        )
        return _histogram(chunks, on_games, stop)

    a = played(games, rows)
    b = played(uniform_games, None)
    on_layout = lab.summarise_histogram(a, rules.ship_cells, 1.0)
    uniform = lab.summarise_histogram(b, rules.ship_cells, 1.0)
    return Check(on_layout.mean, on_layout.ci95, games, uniform.mean, uniform.ci95, uniform_games)


def _histogram(
    chunks: Iterable[ChunkResult], on_games: Callable[[int], None] | None, stop: Stop | None
) -> np.ndarray:
    """The histogram of a stream of chunks (raising :class:`~battleship.stop.Stopped` when it was cut short)."""
    total: np.ndarray | None = None
    for chunk in chunks:
        total = chunk.histogram if total is None else total + chunk.histogram
        if on_games is not None:
            on_games(chunk.games)
    if stop is not None:
        stop.check()
    if total is None:
        raise ValueError("no games were played: a check plays at least one game")
    return total
