"""Shooting strategies, selectable by name."""

from __future__ import annotations

from collections.abc import Callable

from battleship.density import DensityShooter
from battleship.errors import BattleshipError
from battleship.game import Shooter
from battleship.shooters.hunt_target import HuntTargetParityShooter, HuntTargetShooter
from battleship.shooters.random import RandomShooter

SHOOTERS: dict[str, tuple[str, Callable[[], Shooter]]] = {
    "random": ("a uniformly random cell not yet fired at", RandomShooter),
    "hunt-target": ("000: random hunt, then the N/S/E/W neighbours of every hit", HuntTargetShooter),
    "hunt-target-parity": ("000: hunt-target that hunts on one checkerboard colour", HuntTargetParityShooter),
    "density": ("000: the most counted cell over every placement of every afloat ship", DensityShooter),
}


def make(name: str) -> Shooter:
    """A new shooter by name."""
    if name not in SHOOTERS:
        raise BattleshipError(f"no shooter named {name!r}; choose one of {', '.join(SHOOTERS)}")
    return SHOOTERS[name][1]()
