"""Shooting strategies, selectable by name."""

from __future__ import annotations

from collections.abc import Callable

from battleship.errors import BattleshipError
from battleship.game import Shooter
from battleship.shooters.random import RandomShooter

SHOOTERS: dict[str, tuple[str, Callable[[], Shooter]]] = {
    "random": ("a uniformly random cell not yet fired at", RandomShooter),
}


def make(name: str) -> Shooter:
    """A new shooter by name."""
    if name not in SHOOTERS:
        raise BattleshipError(f"no shooter named {name!r}; choose one of {', '.join(SHOOTERS)}")
    return SHOOTERS[name][1]()
