"""The game loop: a referee holding a hidden layout, and the observation a shooter may see.

A :class:`Shooter` is handed an :class:`Observation` and nothing else. The observation is built from
the referee's answers alone (it holds no reference to the :class:`Game` or the layout), so a
strategy cannot peek at the hidden ships, by design.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from numbers import Integral
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from battleship.cells import cell_name
from battleship.errors import IllegalShot
from battleship.layout import Layout
from battleship.rules import Rules, Sinks

if TYPE_CHECKING:
    import numpy as np


class Outcome(str, Enum):
    """The referee's answer to one shot."""

    MISS = "miss"
    HIT = "hit"
    SUNK = "sunk"


@dataclass(frozen=True)
class Shot:
    """One shot and its answer: ``ship`` is named only under ``named``/``revealed`` rules,
    ``cells`` (the sunk ship's bitboard) only under ``revealed``."""

    cell: int
    outcome: Outcome
    ship: int | None = None
    cells: int = 0


@dataclass(frozen=True)
class Observation:
    """Everything the shooter may know: the rules and every shot in order with its answer.

    The one board value type: shooters, the calculator and the web app all read it. Like a chess
    board's FEN, :meth:`text` is the position without the order of the shots, and
    :meth:`from_text` reads it back (``Observation.from_text(o.text(), rules).text() == o.text()``).
    """

    rules: Rules
    shots: tuple[Shot, ...] = ()

    @classmethod
    def from_text(cls, text: str, rules: Rules) -> Observation:
        """The observation a board-state text shows (``.`` unknown, ``o`` miss, ``x`` hit, letters sunk)."""
        from battleship.notation import parse_board

        return parse_board(text, rules)

    def text(self, multiline: bool = False) -> str:
        """The board-state text: rows joined by ``/`` (or one a line); the order of shots is dropped."""
        from battleship.notation import format_board

        return format_board(self, multiline)

    def __str__(self) -> str:
        return self.text()

    def grid(self) -> list[list[str]]:
        """Rows of one-character cells in the board-state alphabet."""
        from battleship.notation import board_state

        return board_state(self).grid()

    def after(self, shot: Shot) -> Observation:
        """This observation with one more shot."""
        return Observation(self.rules, (*self.shots, shot))

    @cached_property
    def shot_mask(self) -> int:
        """Bitboard of every cell fired at."""
        return _mask(s.cell for s in self.shots)

    @cached_property
    def hit_mask(self) -> int:
        """Bitboard of every shot that struck a ship (hits and sinking shots)."""
        return _mask(s.cell for s in self.shots if s.outcome is not Outcome.MISS)

    @cached_property
    def miss_mask(self) -> int:
        """Bitboard of every shot into water."""
        return _mask(s.cell for s in self.shots if s.outcome is Outcome.MISS)

    @property
    def unknown_mask(self) -> int:
        """Bitboard of cells not yet fired at."""
        return self.rules.full & ~self.shot_mask

    @cached_property
    def sinks(self) -> tuple[tuple[int, Shot], ...]:
        """The sinking shots as ``(shot number from 0, shot)``."""
        return tuple((i, s) for i, s in enumerate(self.shots) if s.outcome is Outcome.SUNK)

    @cached_property
    def sunk_ships(self) -> frozenset[int]:
        """Fleet indices of ships announced sunk by name (empty unless sinks are named)."""
        return frozenset(s.ship for _, s in self.sinks if s.ship is not None)

    @cached_property
    def afloat(self) -> tuple[int, ...]:
        """Fleet indices of ships not known to be sunk."""
        return tuple(i for i in range(len(self.rules.fleet)) if i not in self.sunk_ships)

    @cached_property
    def revealed_mask(self) -> int:
        """Cells of sunk ships shown by the referee (``revealed`` rules only)."""
        return _mask_of(s.cells for _, s in self.sinks)

    def is_shot(self, cell: int) -> bool:
        """True if ``cell`` has been fired at."""
        return bool(self.shot_mask >> cell & 1)

    def moves(self) -> list[str]:
        """The shots as cell names, in order."""
        return [cell_name(s.cell, self.rules.cols) for s in self.shots]


def _mask(cells) -> int:
    out = 0
    for cell in cells:
        out |= 1 << cell
    return out


def _mask_of(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class Game:
    """A referee for one hidden layout. ``fire`` answers; ``observation`` is all a shooter sees."""

    def __init__(self, layout: Layout):
        self._layout = layout
        self._hit = 0
        self._observation = Observation(layout.rules)

    @property
    def rules(self) -> Rules:
        """The rules being played."""
        return self._layout.rules

    @property
    def observation(self) -> Observation:
        """What the shooter knows so far."""
        return self._observation

    @property
    def over(self) -> bool:
        """True once every ship cell has been hit."""
        return self._hit == self._layout.occupied

    def fire(self, cell: int) -> Shot:
        """Answer a shot; refuses cells off the board, repeats, and shots after the game is over."""
        rules = self.rules
        if not isinstance(cell, Integral) or not 0 <= cell < rules.cells:
            raise IllegalShot(f"cell {cell!r} is off the {rules.rows}x{rules.cols} board")
        cell = int(cell)
        if self.over:
            raise IllegalShot("the game is over: every ship is sunk")
        if self._observation.is_shot(cell):
            raise IllegalShot(f"{cell_name(cell, rules.cols)} has been fired at already")
        ship = self._layout.ship_at(cell)
        if ship is None:
            shot = Shot(cell, Outcome.MISS)
        else:
            self._hit |= 1 << cell
            mask = self._layout.masks[ship]
            sunk = self._hit & mask == mask
            shot = _announce(rules.sinks, cell, ship, mask) if sunk else Shot(cell, Outcome.HIT)
        self._observation = self._observation.after(shot)
        return shot


def _announce(sinks: Sinks, cell: int, ship: int, mask: int) -> Shot:
    """The answer to a shot that completes a ship, as much as the rules let the referee say."""
    if sinks is Sinks.NONE:
        return Shot(cell, Outcome.HIT)
    if sinks is Sinks.SUNK:
        return Shot(cell, Outcome.SUNK)
    if sinks is Sinks.NAMED:
        return Shot(cell, Outcome.SUNK, ship)
    return Shot(cell, Outcome.SUNK, ship, mask)


@runtime_checkable
class Shooter(Protocol):
    """A strategy. It is reset for each game and asked for one cell at a time."""

    name: str

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Prepare for a new game under ``rules``; all randomness must come from ``rng``."""

    def next_shot(self, observation: Observation) -> int:
        """The next cell to fire at, given only what has been observed."""


@dataclass(frozen=True)
class Record:
    """A finished game: the layout that was hidden, who shot, and every shot."""

    layout: Layout
    shooter: str
    shots: tuple[Shot, ...] = field(default=())

    @property
    def observation(self) -> Observation:
        """The shooter's view at the end."""
        return Observation(self.layout.rules, self.shots)


def play(
    shooter: Shooter,
    layout: Layout,
    rng: np.random.Generator,
    on_shot: Callable[[Observation, Shot], None] | None = None,
) -> Record:
    """Play one game to the end; the shooter sees only observations."""
    game = Game(layout)
    shooter.reset(layout.rules, rng)
    while not game.over:
        shot = game.fire(shooter.next_shot(game.observation))
        if on_shot is not None:
            on_shot(game.observation, shot)
    return Record(layout, shooter.name, game.observation.shots)
