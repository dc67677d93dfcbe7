"""Shooting strategies, selectable by name, with options written ``name:key=value,...``."""

from __future__ import annotations

from collections.abc import Callable

from battleship.density import DensityShooter, SuperpositionShooter
from battleship.errors import BattleshipError
from battleship.game import Shooter
from battleship.options import Options, parse_spec
from battleship.shooters.flood import DensityGridShooter, FloodShooter
from battleship.shooters.hunt_target import HuntTargetParityShooter, HuntTargetShooter
from battleship.shooters.learning import LearningShooter
from battleship.shooters.montecarlo import MonteCarloShooter
from battleship.shooters.optimal import OptimalShooter
from battleship.shooters.random import RandomShooter
from battleship.trialsink import TrialSinkShooter

SHOOTERS: dict[str, tuple[str, Callable[[Options], Shooter]]] = {
    "random": ("a uniformly random cell not yet fired at", lambda o: RandomShooter()),
    "hunt-target": (
        "000: random hunt, then the N/S/E/W neighbours of every hit",
        lambda o: HuntTargetShooter(colour=o.colour),
    ),
    "hunt-target-parity": (
        "000: hunt-target that hunts on one checkerboard colour (colour=0|1)",
        lambda o: HuntTargetParityShooter(colour=o.colour),
    ),
    "density": ("000: the most counted cell over every placement of every afloat ship", DensityShooter),
    "flood": ("004: random guesses, and a flood of the neighbours of every hit", FloodShooter),
    "density-grid": (
        "004: misses-only density over the whole fleet, and a flood on a hit",
        DensityGridShooter,
    ),
    "superposition": ("001: forced cells, then the most arranged cell, parity boosted", SuperpositionShooter),
    "trial-sink": (
        "003: trial shots by ship options, sink shots to finish (no-touch rules)",
        TrialSinkShooter,
    ),
    "optimal": (
        "001 done exactly: the cell most likely to hold a ship, from every consistent layout",
        OptimalShooter,
    ),
    "montecarlo": (
        "002's Probability mode: the cell most exact uniform samples put a ship on (samples=, budget=)",
        MonteCarloShooter,
    ),
    "learning": (
        "002's Learning mode: optimal under a placement prior fitted to recorded layouts (model=FILE)",
        LearningShooter,
    ),
}
# shooters that read tie=informative (the others pick in Numba kernels, which do not)
INFORMATIVE = ("optimal", "montecarlo", "learning")


def make(spec: str, options: Options | None = None) -> Shooter:
    """A new shooter from ``name`` or ``name:key=value,...`` (keys of :class:`Options`)."""
    name, options = parse_spec(spec, options)
    if name not in SHOOTERS:
        raise BattleshipError(f"no shooter named {name!r}; choose one of {', '.join(SHOOTERS)}")
    if options.tie == "informative" and name not in INFORMATIVE:
        raise BattleshipError(f"tie=informative is read by {' and '.join(INFORMATIVE)} only, not by {name}")
    return SHOOTERS[name][1](options)
