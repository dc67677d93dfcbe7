"""The game loop: a referee holding a hidden layout, and the observation a shooter may see.

A :class:`Shooter` is handed an :class:`Observation` and nothing else. The observation is built from
the referee's answers alone (it holds no reference to the :class:`Game` or the layout), so a
strategy cannot peek at the hidden ships, by design.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from battleship.cells import CellLike, cell_name, iter_cells, to_cell
from battleship.errors import BattleshipError, IllegalShot, NotationError
from battleship.layout import Layout, split_rows
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
        return parse_board(text, rules)

    def text(self, multiline: bool = False) -> str:
        """The board-state text: rows joined by ``/`` (or one a line); the order of shots is dropped."""
        return format_board(self, multiline)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        rules = self.rules
        said = f"{len(self.shots)} shot{'s' * (len(self.shots) != 1)}"
        if self.shots:
            hits, sunk = self.hit_mask.bit_count(), len(self.sinks)
            last = self.shots[-1]
            said += f" ({hits} hit, {sunk} sunk), the last {cell_name(last.cell, rules.cols)} {last.outcome.value}"
        return f"<Observation {rules.name} {rules.rows}x{rules.cols}: {said}>"

    def _repr_svg_(self) -> str:
        """The board as the shooter sees it, for notebooks."""
        from battleship.svg import grid_svg

        return grid_svg(self.grid(), self.rules.symbols)

    def grid(self) -> list[list[str]]:
        """Rows of one-character cells in the board-state alphabet."""
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

    def is_shot(self, cell: CellLike) -> bool:
        """True if ``cell`` (``"E5"``, ``(4, 4)`` or ``44``) has been fired at."""
        return bool(self.shot_mask >> to_cell(cell, self.rules) & 1)

    def answer(self, cell: CellLike) -> Shot | None:
        """The shot at ``cell`` and its answer, or None if it has not been fired at."""
        index = to_cell(cell, self.rules)
        return next((s for s in self.shots if s.cell == index), None)

    def moves(self) -> list[str]:
        """The shots as cell names, in order."""
        return [cell_name(s.cell, self.rules.cols) for s in self.shots]


def _mask(cells: Iterable[int]) -> int:
    out = 0
    for cell in cells:
        out |= 1 << cell
    return out


def _mask_of(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class Game:
    """A referee for one hidden layout. ``fire`` answers; ``observation`` is all a shooter sees.

    It takes the layout it hides, not rules: ``Game(bs.generate(rules, seed=7))`` hides a uniformly
    random one (a random layout needs a seed, so that the game can be played again).
    """

    def __init__(self, layout: Layout):
        if not isinstance(layout, Layout):
            hint = (
                "Game(bs.generate(rules, seed=7)) hides a random layout of these rules"
                if isinstance(layout, Rules)
                else "bs.generate(rules, seed=7) draws one; bs.Layout.from_text(text, rules) reads one"
            )
            raise BattleshipError(
                f"Game takes the layout it hides (a Layout), not {type(layout).__name__}: {hint}"
            )
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

    def __repr__(self) -> str:
        return f"<Game {'over' if self.over else 'under way'}: {self._observation!r}>"

    def _repr_svg_(self) -> str:
        """The board as the shooter sees it (the hidden ships stay hidden), for notebooks."""
        return self._observation._repr_svg_()

    def fire(self, target: CellLike) -> Shot:
        """Answer a shot at ``target`` (``"E5"``, ``"e5"``, ``(4, 4)`` or ``44``); refuses cells off the
        board, repeats, and shots after the game is over."""
        rules = self.rules
        try:
            cell = to_cell(target, rules)
        except BattleshipError as exc:
            raise IllegalShot(str(exc)) from None
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

    def __repr__(self) -> str:
        rules = self.layout.rules
        done = "sank the fleet" if _sank_all(self) else "stopped"
        return f"<Record {self.shooter} on {rules.name} {rules.rows}x{rules.cols}: {done} in {len(self.shots)} shots>"

    def _repr_svg_(self) -> str:
        """The final board: the hidden ships, the misses around them and the cells hit, for notebooks."""
        from battleship.svg import grid_svg

        grid = self.layout.grid()
        cols = self.layout.rules.cols
        for shot in self.shots:
            if shot.outcome is Outcome.MISS:
                grid[shot.cell // cols][shot.cell % cols] = "o"
        struck = frozenset(s.cell for s in self.shots if s.outcome is not Outcome.MISS)
        title = f"{self.shooter}: {len(self.shots)} shots"
        return grid_svg(grid, self.layout.rules.symbols, ships_shown=True, struck=struck, title=title)


def _sank_all(record: Record) -> bool:
    """True when the record's shots hit every ship cell of its layout."""
    hit = 0
    for shot in record.shots:
        if shot.outcome is not Outcome.MISS:
            hit |= 1 << shot.cell
    return hit == record.layout.occupied


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


# --- the board-state text (what a shooter has seen), like a chess position's FEN ----------------
#
# ``.`` unknown, ``o`` miss, ``x`` hit, and for a sunk ship its letter (``named`` rules: only on the
# cell whose shot sank it; ``revealed``: on all its cells) or ``#`` under ``sunk`` rules, where no
# name is given; rows joined by ``/`` or one row a line.


@dataclass(frozen=True)
class BoardState:
    """What a player has seen of a board, read from a board-state text (order of shots unknown)."""

    rules: Rules
    misses: int
    hits: int  # every cell known to hold a ship, sunk or not
    sunk_at: tuple[tuple[int, int | None], ...]  # (sinking cell, ship index or None under `sunk`)
    revealed: tuple[tuple[int, int], ...] = ()  # (ship index, its cells) under `revealed`

    def __post_init__(self) -> None:
        object.__setattr__(self, "sunk_at", tuple(sorted(self.sunk_at)))
        object.__setattr__(self, "revealed", tuple(sorted(self.revealed)))

    def grid(self) -> list[list[str]]:
        """Rows of one-character strings in the board-state alphabet."""
        rules = self.rules
        out = [["."] * rules.cols for _ in range(rules.rows)]
        for mask, ch in ((self.misses, "o"), (self.hits, "x")):
            for cell in iter_cells(mask):
                out[cell // rules.cols][cell % rules.cols] = ch
        for cell, ship in self.sunk_at:
            out[cell // rules.cols][cell % rules.cols] = "#" if ship is None else rules.fleet[ship].symbol
        for ship, mask in self.revealed:
            for cell in iter_cells(mask):
                out[cell // rules.cols][cell % rules.cols] = rules.fleet[ship].symbol
        return out

    def text(self, multiline: bool = False) -> str:
        """The board state in its text format."""
        return ("\n" if multiline else "/").join("".join(row) for row in self.grid())

    def observation(self) -> Observation:
        """The board as shots in the least telling order: misses, plain hits, then the sinking shots.

        A board state has no order, so this reads a sunk ship as "all its cells hit, its marked cell
        last" and a ship not marked sunk as "not all hit", which is what the board shows.
        """
        rules = self.rules
        sink_cells = {cell for cell, _ in self.sunk_at}
        shots = [Shot(c, Outcome.MISS) for c in iter_cells(self.misses)]
        revealed_cells = 0
        for _ship, mask in self.revealed:
            revealed_cells |= mask
        plain = self.hits & ~revealed_cells
        shots += [Shot(c, Outcome.HIT) for c in iter_cells(plain) if c not in sink_cells]
        for cell, ship in self.sunk_at:
            shots.append(Shot(cell, Outcome.SUNK, ship))
        for ship, mask in self.revealed:
            cells = list(iter_cells(mask))
            shots += [Shot(c, Outcome.HIT) for c in cells[:-1]]
            shots.append(Shot(cells[-1], Outcome.SUNK, ship, mask))
        # revealed ships' plain hits must come before any sinking shot that could claim them
        first_sink = (
            next(i for i, s in enumerate(shots) if s.outcome is Outcome.SUNK)
            if any(s.outcome is Outcome.SUNK for s in shots)
            else len(shots)
        )
        head = [s for s in shots[first_sink:] if s.outcome is Outcome.HIT]
        tail = [s for s in shots[first_sink:] if s.outcome is Outcome.SUNK]
        return Observation(rules, (*shots[:first_sink], *head, *tail))


def board_state(observation: Observation) -> BoardState:
    """The board state that an observation shows (the order of shots is dropped)."""
    rules = observation.rules
    sunk_at: list[tuple[int, int | None]] = []
    revealed: list[tuple[int, int]] = []
    for _, shot in observation.sinks:
        if rules.sinks is Sinks.REVEALED:
            assert shot.ship is not None  # a revealed sinking always names its ship
            revealed.append((shot.ship, shot.cells))
        else:
            sunk_at.append((shot.cell, shot.ship))
    return BoardState(rules, observation.miss_mask, observation.hit_mask, tuple(sunk_at), tuple(revealed))


def format_board(observation: Observation, multiline: bool = False) -> str:
    """An observation in the board-state format."""
    return board_state(observation).text(multiline)


def parse_board(text: str, rules: Rules) -> Observation:
    """Read a board state as the observation it shows, checking its letters against the sink rule.

    A board state has no order of shots; the observation lists them in the least telling order
    (see :meth:`BoardState.observation`), and ``format_board`` of it gives the same text back.
    """
    return read_board_state(text, rules).observation()


def read_board_state(text: str, rules: Rules) -> BoardState:
    """Read a board state as cells (:class:`BoardState`), checking its letters against the sink rule."""
    rows = split_rows(text, rules, "board")
    misses = hits = 0
    sunk_at: list[tuple[int, int | None]] = []
    letters: dict[int, int] = {}
    where: dict[int, tuple[int, int]] = {}
    allowed = {
        Sinks.NONE: "'.', 'o' or 'x' (no sinks are announced under these rules)",
        Sinks.SUNK: "'.', 'o', 'x' or '#' (a sunk ship, unnamed under these rules)",
        Sinks.NAMED: f"'.', 'o', 'x' or a ship letter of {rules.symbols}",
        Sinks.REVEALED: f"'.', 'o', 'x' or a ship letter of {rules.symbols}",
    }[rules.sinks]
    for r, (row, line, col) in enumerate(rows):
        for c, ch in enumerate(row):
            cell = r * rules.cols + c
            if ch == ".":
                continue
            if ch == "o":
                misses |= 1 << cell
                continue
            hits |= 1 << cell
            if ch == "x":
                continue
            if ch == "#" and rules.sinks is Sinks.SUNK:
                sunk_at.append((cell, None))
                continue
            idx = rules.symbols.find(ch) if ch.isupper() else -1
            if rules.sinks not in (Sinks.NAMED, Sinks.REVEALED) or idx < 0:
                raise NotationError(f"{ch!r} is not allowed here: expected {allowed}", line, col + c)
            if rules.sinks is Sinks.NAMED:
                if idx in letters:
                    raise NotationError(
                        f"{rules.fleet[idx].name} ({ch}) is marked sunk twice; under named rules its "
                        "letter marks only the cell whose shot sank it",
                        line,
                        col + c,
                    )
                sunk_at.append((cell, idx))
            letters[idx] = letters.get(idx, 0) | 1 << cell
            where.setdefault(idx, (line, col + c))
    if rules.sinks is Sinks.SUNK and len(sunk_at) > len(rules.fleet):
        raise NotationError(f"{len(sunk_at)} ships are marked sunk but the fleet has {len(rules.fleet)}")
    revealed = []
    if rules.sinks is Sinks.REVEALED:
        for idx, mask in sorted(letters.items()):
            if mask not in rules.placements[idx]:
                line, col = where[idx]
                raise NotationError(
                    f"the cells marked {rules.fleet[idx].symbol} are not one {rules.fleet[idx].name} "
                    f"placement (a sunk ship is shown on all {rules.fleet[idx].size} of its cells)",
                    line,
                    col,
                )
            revealed.append((idx, mask))
    return BoardState(rules, misses, hits, tuple(sunk_at), tuple(revealed))
