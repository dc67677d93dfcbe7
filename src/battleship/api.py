"""The front door's conveniences: one call for a game, a run of games, a layout.

These wrap the layers below (:func:`battleship.game.play`, :func:`battleship.lab.simulate`,
:func:`battleship.generators.generate`) with the forgiving arguments a newcomer reaches for: a
shooter by name, rules by preset name, a seed instead of a generator object.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from battleship import generators, lab
from battleship.game import Observation, Record, Shooter, Shot
from battleship.game import play as play_game
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules, load
from battleship.shooters import make, names, registry


def _rules(rules: Rules | str) -> Rules:
    return load(rules) if isinstance(rules, str) else rules


def play(
    shooter: Shooter | str,
    layout: Layout,
    seed: int = 0,
    on_shot: Callable[[Observation, Shot], None] | None = None,
) -> Record:
    """Play one game to the end: ``shooter`` (a Shooter, or a spec like ``"density:skew=20"``) against ``layout``."""
    player = make(shooter) if isinstance(shooter, str) else shooter
    return play_game(player, layout, game_rng(seed, 0), on_shot)


def simulate(
    rules: Rules | str,
    shooter: str,
    games: int = 10_000,
    seed: int = 0,
    generator: str = "uniform",
    jobs: int = 1,
) -> lab.Summary:
    """``games`` games of ``shooter`` on layouts drawn by ``generator``, summarised (mean, interval, ...)."""
    r = _rules(rules)
    name, options = registry.check(shooter, r)
    start = time.perf_counter()
    shots = lab.simulate(r, name, games, seed=seed, generator=generator, jobs=jobs, options=options)
    return lab.summarise(shots, r.ship_cells, time.perf_counter() - start)


def generate(rules: Rules | str, generator: str = "uniform", seed: int = 0) -> Layout:
    """One seeded layout (``uniform``: every valid layout equally likely)."""
    return generators.generate(_rules(rules), generator, seed, 1)[0]


def shooter_names() -> list[str]:
    """Every registered shooter's name."""
    return names()
