"""Whole games inside Numba, with no Python per shot: the dispatcher the lab runs.

Each game ``i`` of a run seeded ``seed`` draws from the stream ``rng.stream(seed ^ SHOOTER_SALT, i)``,
so a game's shots do not depend on how the run is split across jobs, and a shooter's readable class
reset with ``rng.game_rng(seed, i)`` draws the very same numbers the same way. The hidden layout is given as
``ship_at`` (cell -> ship index, or -1); each shooter's kernel lives in that shooter's module and
reads only what has been fired and answered. Every kernel reads its options from the int64 vector
of :meth:`battleship.shooters.options.Options.vector`.

A shooter's spec names its kernel (``ShooterSpec.kernel``) by a key of :data:`KINDS`.
"""

from __future__ import annotations

import numpy as np

from battleship.inference.prior import generator_weights
from battleship.jit import njit
from battleship.rng import SHOOTER_SALT, seed_words, stream
from battleship.rules import Rules
from battleship.shooters.choice import mark_ships
from battleship.shooters.density import DENSITY as DENSITY_MODE
from battleship.shooters.density import SUPERPOSITION as SUPERPOSITION_MODE
from battleship.shooters.density import play_density
from battleship.shooters.flood import play_density_grid, play_flood
from battleship.shooters.hunt_target import play_hunt_target
from battleship.shooters.options import COLOUR, SKEW, Options
from battleship.shooters.random import play_random
from battleship.shooters.trial_sink import play_trial_sink
from battleship.tables import geometry, tables

NOTHING_FORCED = np.empty(0, dtype=np.int64)  # whole games: no shots given in advance

RANDOM = 0
HUNT_TARGET = 1
HUNT_TARGET_PARITY = 2
DENSITY = 3
FLOOD = 4
DENSITY_GRID = 5
SUPERPOSITION = 6
TRIAL_SINK = 7
KINDS = {
    "random": RANDOM,
    "hunt-target": HUNT_TARGET,
    "hunt-target-parity": HUNT_TARGET_PARITY,
    "density": DENSITY,
    "flood": FLOOD,
    "density-grid": DENSITY_GRID,
    "superposition": SUPERPOSITION,
    "trial-sink": TRIAL_SINK,
}


@njit(cache=True, nogil=True)
def play_game(kind, state, ship_at, total, rows, cols, params, geometry):
    """One game of shooter ``kind``; returns the number of shots. ``params``: the options vector.

    ``geometry`` is :func:`battleship.tables.geometry`: the placement tables the kernels read.
    """
    size = geometry[1]
    if kind == RANDOM:
        return play_random(state, ship_at, total, rows, cols)
    if kind == FLOOD:
        return play_flood(state, ship_at, total, rows, cols, np.empty(0, dtype=np.int64), False)
    if kind == DENSITY_GRID:
        return play_density_grid(ship_at, total, rows, cols, size, params[SKEW], False)
    if kind == DENSITY:
        return play_density(state, ship_at, total, rows, cols, params, geometry, DENSITY_MODE, NOTHING_FORCED)
    if kind == SUPERPOSITION:
        return play_density(
            state, ship_at, total, rows, cols, params, geometry, SUPERPOSITION_MODE, NOTHING_FORCED
        )
    if kind == TRIAL_SINK:
        return play_trial_sink(state, ship_at, total, rows, cols, params, geometry)
    return play_hunt_target(state, ship_at, total, rows, cols, kind == HUNT_TARGET_PARITY, params[COLOUR])


@njit(cache=True, nogil=True)
def play_games(kind, seed, first, layouts, rows, cols, params, geometry, out):
    """Play ``len(out)`` games on ``layouts`` (rows of placement indices); game ``i`` uses stream ``first + i``."""
    cell_list, size = geometry[0], geometry[1]
    ship_at = np.empty(rows * cols, dtype=np.int64)
    total = 0
    for s in range(size.shape[0]):
        total += size[s]
    for i in range(out.shape[0]):
        mark_ships(layouts[i], cell_list, size, ship_at)
        state = stream(seed ^ SHOOTER_SALT, first + i)
        out[i] = play_game(kind, state, ship_at, total, rows, cols, params, geometry)


def play_rows(
    rules: Rules,
    kind: int,
    seed: int,
    rows: np.ndarray,
    options: Options | None = None,
    first: int = 0,
) -> np.ndarray:
    """Shots per game on ``rows`` (layouts as placement indices); game ``i`` uses stream ``first + i``."""
    t = tables(rules)
    out = np.empty(len(rows), dtype=np.int64)
    play_games(
        kind,
        np.uint64(seed_words(seed)),
        np.uint64(first),
        rows,
        rules.rows,
        rules.cols,
        (options or Options()).vector(rules),
        geometry(t, generator_weights(rules, (options or Options()).prior)),
        out,
    )
    return out
