"""Building an opening book: the positions a deterministic shooter's games open with, each given the
cell that long rollouts over exact posterior samples find best.

The walk starts on the empty board and takes positions in order of how likely a game is to reach
them (a game of the book's own player). At each position:

1. draw ``samples`` layouts exactly and uniformly from those consistent with it
   (:func:`battleship.inference.sampling.draw`), and a second, independent ``samples``;
2. take ``width`` candidates: the shooter's own cell, then the cells its scores rank next;
3. on the first set, play every candidate and then the rollout shooter to the end on every layout
   (common random numbers: the same layouts for every candidate) and keep the candidate of fewest
   shots;
4. replay only that candidate and the shooter's own cell on the second set: the candidate goes in
   the book only when it is ahead there by ``z`` standard errors of the paired difference. The second
   set played no part in choosing it, so its lead is not inflated by the choice (the winner's
   curse of picking the best of several noisy means);
5. the answers to the book's cell split the first set's layouts: each answer that sinks nothing is
   a position to visit next, reached with the probability its share of the layouts says.

Positions with a sunk ship are left out: the book covers the opening, and the count of a named
sinking reads the order of shots, which a board-state key drops.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from battleship import generators
from battleship.game import Game, Observation, Outcome, Shot
from battleship.inference.prior import generator_weights
from battleship.inference.sampling import draw
from battleship.layout import Layout
from battleship.rng import SHOOTER_SALT, seed_words, stream
from battleship.rules import Rules
from battleship.shooters.book import Book, Entry, rules_identity
from battleship.shooters.choice import UNKNOWN, mark_ships, skew_factor
from battleship.shooters.density import DENSITY, density_map, observed_status, opening_book, play_density
from battleship.shooters.options import Options, parse_spec
from battleship.shooters.registry import make
from battleship.shooters.rollout import rollout_shots
from battleship.stop import Stop
from battleship.tables import geometry, tables


@dataclass(frozen=True)
class BookSettings:
    """How a book is built: see the module docstring for what each number does."""

    shooter: str  # whose opening is booked (a density spec with tie=first)
    rollout: str  # the density spec that plays on after a candidate (cheaper than ``shooter``, same opening)
    positions: int = 20
    samples: int = 20_000
    width: int = 4
    z: float = 2.5
    min_reach: float = 0.0
    seed: int = 1


def build_book(
    rules: Rules,
    settings: BookSettings,
    serves: tuple[str, ...] = (),
    progress: Callable[[str], None] | None = None,
) -> Book:
    """An opening book for ``settings.shooter`` under ``rules`` (see the module docstring)."""
    name, options = parse_spec(settings.rollout)
    if name != "density" or options.tie != "first":
        raise ValueError(f"the rollout shooter must be density with tie=first, not {settings.rollout}")
    player = make(settings.shooter)
    player.reset(rules, np.random.default_rng(0))
    params, g = options.vector(rules), geometry(tables(rules))
    entries: dict[str, Entry] = {}
    queue: list[tuple[float, int, Observation]] = [(-1.0, 0, Observation(rules))]
    order = 0
    while queue and len(entries) < settings.positions:
        negative, _, observation = heapq.heappop(queue)
        key, reach = observation.text(), -negative
        if key in entries or reach < settings.min_reach:
            continue
        started = time.perf_counter()
        index = len(entries)
        base = int(player.next_shot(observation))
        first = draw(rules, observation, settings.samples, seed=_seed(settings.seed, index, 0))
        second = draw(rules, observation, settings.samples, seed=_seed(settings.seed, index, 1))
        candidates = ranked(rules, observation, params, base, settings.width)
        fired = np.array([s.cell for s in observation.shots], dtype=np.int64)
        chosen, gain, error = _choose(rules, fired, candidates, first, second, params, g, settings)
        entries[key] = Entry(chosen, base, gain, error, reach, settings.samples)
        for share, child in children(rules, observation, chosen, first):
            order += 1
            heapq.heappush(queue, (-reach * share, order, child))
        if progress is not None:
            moved = "" if chosen == base else f" -> {chosen} (gain {gain:.3f} +- {error:.3f})"
            progress(
                f"{index + 1}/{settings.positions} reach {reach:.4f} {key} base {base}{moved} "
                f"[{time.perf_counter() - started:.1f} s]"
            )
    built = {
        "rollout": settings.rollout,
        "samples": settings.samples,
        "width": settings.width,
        "z": settings.z,
        "seed": settings.seed,
        "positions": settings.positions,
    }
    return Book(rules_identity(rules), serves or (settings.shooter,), entries, built)


def _seed(seed: int, index: int, part: int) -> int:
    """The sampling seed of a position's first (part 0) or second (part 1) set of layouts."""
    return seed * 1_000_003 + index * 2 + part


def _choose(
    rules: Rules,
    fired: np.ndarray,
    candidates: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    params: np.ndarray,
    g: tuple[np.ndarray, ...],
    settings: BookSettings,
) -> tuple[int, float, float]:
    """The cell for the book (the base's, ``candidates[0]``, unless another is ahead on the second
    set by the gate), its gain over the base on the second set and that gain's standard error."""
    base = int(candidates[0])
    if len(candidates) == 1 or len(first) < 2:
        return base, 0.0, 0.0
    best = int(np.argmin(rollouts(rules, fired, candidates, first, params, g, settings.seed).sum(axis=1)))
    if best == 0:
        return base, 0.0, 0.0
    pair = np.array([base, candidates[best]], dtype=np.int64)
    out = rollouts(rules, fired, pair, second, params, g, settings.seed + 1)
    differences = (out[0] - out[1]).astype(np.float64)  # shots saved by the candidate
    gain, error = float(differences.mean()), float(differences.std(ddof=1) / math.sqrt(len(differences)))
    if gain > settings.z * error:
        return int(candidates[best]), gain, error
    return base, gain, error


def rollouts(
    rules: Rules,
    fired: np.ndarray,
    candidates: np.ndarray,
    layouts: np.ndarray,
    params: np.ndarray,
    g: tuple[np.ndarray, ...],
    seed: int,
) -> np.ndarray:
    """Whole-game shots per candidate (rows) and layout (columns), the rollout shooter playing on."""
    out = np.empty((len(candidates), len(layouts)), dtype=np.int64)
    rollout_shots(fired, candidates, layouts, np.uint64(seed), rules.rows, rules.cols, params, g, out)
    return out


def ranked(rules: Rules, observation: Observation, params: np.ndarray, base: int, width: int) -> np.ndarray:
    """``base``, then the unknown cells the density scores (with the skew the options give) rank next."""
    t = tables(rules)
    status, afloat = observed_status(rules, observation)
    density = density_map(status, afloat, t.cell_list, t.size, t.start, t.count, int(params[2]))
    factor = skew_factor(status, afloat, t.size, rules.rows, rules.cols, int(params[3]), int(params[7]))
    value = density * factor if len(factor) else density * 100
    order = [base]
    for cell in np.argsort(-value, kind="stable"):
        if len(order) >= width:
            break
        if status[cell] == UNKNOWN and value[cell] > 0 and cell != base:
            order.append(int(cell))
    return np.array(order, dtype=np.int64)


def children(
    rules: Rules, observation: Observation, cell: int, layouts: np.ndarray
) -> list[tuple[float, Observation]]:
    """The positions after firing ``cell`` that sink nothing (a miss, a hit), with their share of ``layouts``."""
    t = tables(rules)
    hit = np.zeros(len(layouts), dtype=bool)
    sinks = np.zeros(len(layouts), dtype=bool)
    hits = observation.hit_mask
    for s in range(len(rules.fleet)):
        placements = t.cell_list[layouts[:, s], : t.size[s]]
        here = (placements == cell).any(axis=1)
        others_hit = np.array(
            [all(hits >> int(c) & 1 or c == cell for c in row) for row in placements[here]], dtype=bool
        )
        hit |= here
        sinks[np.nonzero(here)[0][others_hit]] = True
    out = []
    n = len(layouts)
    miss_share, hit_share = float((~hit).sum()) / n, float((hit & ~sinks).sum()) / n
    if miss_share > 0:
        out.append((miss_share, observation.after(Shot(cell, Outcome.MISS))))
    if hit_share > 0:
        out.append((hit_share, observation.after(Shot(cell, Outcome.HIT))))
    return out


def book_line(book: Book, layout: Layout) -> list[int]:
    """The cells the book fires on ``layout`` from the first shot until the position leaves the book."""
    game = Game(layout)
    cells: list[int] = []
    while True:
        cell = book.cell(game.observation.text())
        if cell is None or game.over:
            return cells
        game.fire(cell)
        cells.append(cell)


def play_book_rows(
    rules: Rules, seed: int, rows: np.ndarray, options: Options, first: int = 0, stop: Stop | None = None
) -> np.ndarray:
    """Shots per game of ``density`` with ``book=1`` on ``rows``, as the lab's kernel plays density:
    the book's cells for each game are found in Python, then the density kernel plays the game with
    them fired first (game ``i`` draws from the kernel's stream ``first + i``). Equal, game by game, to
    the readable shooter (tested). With ``stop``, returns the games finished once a stop is asked for.
    """
    book = opening_book("density", options, rules)
    t = tables(rules)
    g = geometry(t, generator_weights(rules, options.prior))
    params, words = options.vector(rules), np.uint64(seed_words(seed))
    ship_at = np.empty(rules.cells, dtype=np.int64)
    out = np.empty(len(rows), dtype=np.int64)
    for i, row in enumerate(rows):
        if stop is not None and stop.requested:  # a game with the look-ahead can take a tenth of a second
            return out[:i]
        forced = np.array(book_line(book, generators.to_layout(rules, row)), dtype=np.int64)
        mark_ships(row, t.cell_list, t.size, ship_at)
        state = stream(words ^ SHOOTER_SALT, np.uint64(first + i))
        out[i] = play_density(
            state, ship_at, rules.ship_cells, rules.rows, rules.cols, params, g, DENSITY, forced
        )
    return out


def verify_book(
    rules: Rules, book: Book, rollout: str, samples: int, seed: int
) -> list[tuple[str, Entry, float, float]]:
    """Each position where the book leaves the shooter's cell, with the shots its cell saves over the
    shooter's measured again on ``samples`` fresh layouts (the rollout shooter playing on), and that
    figure's standard error: free of the selection that put the cell in the book."""
    _, options = parse_spec(rollout)
    params, g = options.vector(rules), geometry(tables(rules))
    out = []
    for index, (key, entry) in enumerate(sorted(book.entries.items())):
        if entry.cell == entry.base:
            continue
        observation = Observation.from_text(key, rules)
        layouts = draw(rules, observation, samples, seed=_seed(seed, index, 2))
        fired = np.array([s.cell for s in observation.shots], dtype=np.int64)
        pair = np.array([entry.base, entry.cell], dtype=np.int64)
        shots = rollouts(rules, fired, pair, layouts, params, g, seed)
        saved = (shots[0] - shots[1]).astype(np.float64)
        out.append((key, entry, float(saved.mean()), float(saved.std(ddof=1) / math.sqrt(len(saved)))))
    return out
