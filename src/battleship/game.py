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
from typing import TYPE_CHECKING, Protocol, overload, runtime_checkable

from battleship.cells import CellLike, cell_name, iter_cells, to_cell
from battleship.errors import BattleshipError, IllegalShot, NotationError
from battleship.layout import Layout, split_rows
from battleship.noise import Coins, referee_seed
from battleship.rules import Answers, Rules, Sinks, Telling
from battleship.words import counted

if TYPE_CHECKING:
    import numpy as np


class Outcome(str, Enum):
    """The referee's answer to one shot.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.Game(bs.generate("standard", seed=7)).fire("A1").outcome
    <Outcome.HIT: 'hit'>
    """

    #: ``"miss"``: water.
    MISS = "miss"
    #: ``"hit"``: a ship, not yet sunk (or sunk, under rules that never say so).
    HIT = "hit"
    #: ``"sunk"``: the shot completed a ship, under rules that say so.
    SUNK = "sunk"


@dataclass(frozen=True)
class Shot:
    """One shot and its answer, as the referee gives it (:meth:`Game.fire`).

    Attributes
    ----------
    cell : int
        The cell fired at, ``row * cols + col``.
    outcome : Outcome
        Miss, hit or sunk.
    ship : int or None
        The sunk ship's place in the fleet, named only under ``named`` and ``revealed`` sink rules.
    cells : int
        The sunk ship's cells as a bitboard, shown only under ``revealed`` rules (else 0).
    cols : int
        The board's width, which the referee gives so that the shot names its cell; not part of
        the answer (equality and hashing leave it out), 0 when not known.

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("standard", seed=7))
    >>> game.fire("E5")
    E5 miss
    >>> game.fire("A1").outcome
    <Outcome.HIT: 'hit'>
    """

    cell: int
    outcome: Outcome
    ship: int | None = None
    cells: int = 0
    cols: int = field(default=0, repr=False, compare=False)

    def __repr__(self) -> str:
        where = cell_name(self.cell, self.cols) if self.cols else f"cell {self.cell}"
        named = f" (ship {self.ship})" if self.ship is not None else ""
        return f"{where} {self.outcome.value}{named}"


@dataclass(frozen=True)
class Volley:
    """One turn of a salvo game: the cells fired together and the referee's answer to them.

    Under ``answers = "each"`` every shot has its own answer (``shots``, in the order fired; a ship
    is sunk by the shot that completes it, in that order). Under ``"ships"`` the answer says how
    many times each ship was hit (``ship_hits``, fleet order) and under ``"count"`` only how many
    shots hit (``hits``); under both, the sinkings are said for the whole salvo, as the sink rule
    lets the referee: how many (``sunk_count``, from ``sunk`` rules on), which (``sunk``, from
    ``named`` on), and where (``revealed``, the sunk ships' cells, aligned with ``sunk``).

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("salvo-count", seed=7))
    >>> volley = game.fire(["A1", "A2", "E5", "G7", "J10"])
    >>> volley
    A1 A2 E5 G7 J10: 2 hits, 1 sunk
    >>> volley.hits, volley.sunk
    (2, (4,))
    """

    cells: tuple[int, ...]
    shots: tuple[Shot, ...] = ()
    hits: int = 0
    ship_hits: tuple[int, ...] = ()
    sunk: tuple[int, ...] = ()
    sunk_count: int = 0
    revealed: tuple[int, ...] = ()
    # the board's width, so that the salvo names its cells; not part of the answer (as for Shot)
    cols: int = field(default=0, repr=False, compare=False)

    @property
    def mask(self) -> int:
        """Bitboard of the cells fired."""
        return _mask(self.cells)

    def __repr__(self) -> str:
        if self.shots:
            return ", ".join(map(repr, self.shots))
        cells = " ".join(cell_name(c, self.cols) if self.cols else str(c) for c in self.cells)
        sunk = f", {self.sunk_count} sunk" if self.sunk_count else ""
        return f"{cells}: {self.hits} hit{'s' * (self.hits != 1)}{sunk}"


@dataclass(frozen=True)
class Observation:
    """Everything the shooter may know: the rules and every shot in order with its answer.

    The one board value type: shooters, the calculator and the web app all read it. Like a chess
    board's FEN, :meth:`text` is the position without the order of the shots, and
    :meth:`from_text` reads it back (``Observation.from_text(o.text(), rules).text() == o.text()``).
    A game's is :attr:`Game.observation`; ``Observation(rules)`` is the open board.

    Parameters
    ----------
    rules : Rules
        The rules being played.
    shots : tuple of Shot
        Every shot answered on its own, in order.
    volleys : tuple of Volley
        Under salvo rules, every turn in order.
    pending : tuple of int
        Cells chosen for the salvo being aimed, not fired yet.

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("standard", seed=7))
    >>> _ = game.fire("E5"), game.fire("A1")
    >>> board = game.observation
    >>> board
    <Observation standard 10x10: 2 shots (1 hit, 0 sunk), the last A1 hit>
    >>> board.text()[:22]
    'x........./........../'
    >>> bs.Observation.from_text(board.text(), board.rules).text() == board.text()
    True
    """

    rules: Rules
    shots: tuple[Shot, ...] = ()
    # salvo rules: every turn in order (under ``answers = "each"`` their shots are ``shots`` too;
    # under "ships" and "count" answers no shot has an answer of its own, and ``shots`` is empty)
    volleys: tuple[Volley, ...] = ()
    # cells chosen for the salvo being aimed, not fired yet: not evidence, but no longer free to choose
    pending: tuple[int, ...] = ()

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
        said = counted(len(self.shots), "shot")
        if self.volleys:
            fired = sum(len(v.cells) for v in self.volleys)
            said = f"{counted(len(self.volleys), 'salvo')} of {counted(fired, 'shot')}"
        elif self.shots:
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
        return Observation(self.rules, (*self.shots, shot), self.volleys)

    def after_volley(self, volley: Volley) -> Observation:
        """This observation with one more salvo (the cells pending for it are fired now)."""
        return Observation(self.rules, (*self.shots, *volley.shots), (*self.volleys, volley))

    def aiming(self, cell: CellLike) -> Observation:
        """This observation with ``cell`` chosen for the salvo being aimed: a shooter asked for one
        cell at a time chooses the next one of the salvo from it."""
        return Observation(self.rules, self.shots, self.volleys, (*self.pending, to_cell(cell, self.rules)))

    @property
    def turns(self) -> int:
        """Turns played: salvos under salvo rules, else shots."""
        return len(self.volleys) if self.volleys else len(self.shots)

    @cached_property
    def fired(self) -> int:
        """Shots fired (every cell of every salvo)."""
        return sum(len(v.cells) for v in self.volleys) if self.volleys else len(self.shots)

    @cached_property
    def shot_mask(self) -> int:
        """Bitboard of every cell fired at (and of the cells chosen for the salvo being aimed)."""
        return (
            _mask(s.cell for s in self.shots) | _mask_of(v.mask for v in self.volleys) | _mask(self.pending)
        )

    @cached_property
    def hit_mask(self) -> int:
        """Bitboard of every cell known to hold a ship: shots that struck one (hits and sinking shots),
        and the cells of a salvo whose every shot hit."""
        known = _mask(s.cell for s in self.shots if s.outcome is not Outcome.MISS)
        return known | _mask_of(v.mask for v in self.volleys if not v.shots and v.hits == len(v.cells))

    @cached_property
    def miss_mask(self) -> int:
        """Bitboard of every cell known to be water: misses, and the cells of a salvo that hit nothing."""
        known = _mask(s.cell for s in self.shots if s.outcome is Outcome.MISS)
        return known | _mask_of(v.mask for v in self.volleys if not v.shots and v.hits == 0)

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
        named = {s.ship for _, s in self.sinks if s.ship is not None}
        return frozenset(named.union(*(v.sunk for v in self.volleys if not v.shots)))

    @cached_property
    def sunk_count(self) -> int:
        """Ships announced sunk, named or not."""
        return len(self.sinks) + sum(v.sunk_count for v in self.volleys if not v.shots)

    @cached_property
    def afloat(self) -> tuple[int, ...]:
        """Fleet indices of ships not known to be sunk."""
        return tuple(i for i in range(len(self.rules.fleet)) if i not in self.sunk_ships)

    @cached_property
    def revealed_mask(self) -> int:
        """Cells of sunk ships shown by the referee (``revealed`` rules only)."""
        shown = _mask_of(s.cells for _, s in self.sinks)
        return shown | _mask_of(m for v in self.volleys if not v.shots for m in v.revealed)

    def is_shot(self, cell: CellLike) -> bool:
        """True if ``cell`` (``"E5"``, ``(4, 4)`` or ``44``) has been fired at."""
        return bool(self.shot_mask >> to_cell(cell, self.rules) & 1)

    def answer(self, cell: CellLike) -> Shot | None:
        """The shot at ``cell`` and its answer, or None if it has not been fired at."""
        index = to_cell(cell, self.rules)
        return next((s for s in self.shots if s.cell == index), None)

    def moves(self) -> list[str]:
        """The shots as cell names, in order (every cell of every salvo)."""
        if self.volleys:
            return [cell_name(c, self.rules.cols) for v in self.volleys for c in v.cells]
        return [cell_name(s.cell, self.rules.cols) for s in self.shots]


def _is_salvo(target: object) -> bool:
    """True for several cells (a list, a set, a tuple of names...), False for one cell in any form."""
    if isinstance(target, str | int) or not isinstance(target, Iterable):
        return False
    if isinstance(target, tuple) and len(target) == 2 and not any(isinstance(v, str | tuple) for v in target):
        return False  # (row, col)
    return not hasattr(target, "__index__")  # a NumPy integer is one cell


def _named(target: CellLike, rules: Rules) -> str:
    """A cell as the user would write it in a message: its name if it is one, else as given."""
    try:
        return repr(cell_name(to_cell(target, rules), rules.cols))
    except BattleshipError:
        return repr(target)


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
    """A referee for one hidden layout: :meth:`fire` answers, :attr:`observation` is all a shooter sees.

    Parameters
    ----------
    layout : Layout
        The layout it hides (not rules: ``Game(bs.generate(rules, seed=7))`` hides a uniformly random
        one, drawn from a seed so that the game can be played again).

    Raises
    ------
    BattleshipError
        Anything but a :class:`~battleship.layout.Layout`, saying how to get one.

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("standard", seed=7))
    >>> game.fire("E5"), game.fire((0, 0)), game.fire(1)
    (E5 miss, A1 hit, A2 sunk (ship 4))
    >>> game
    <Game under way: <Observation standard 10x10: 3 shots (2 hit, 1 sunk), the last A2 sunk>>
    """

    def __init__(self, layout: Layout, seed: int | None = None):
        if not isinstance(layout, Layout):
            hint = (
                "Game(bs.generate(rules, seed=7)) hides a random layout of these rules"
                if isinstance(layout, Rules)
                else "bs.generate(rules, seed=7) draws one; bs.Layout.from_text(text, rules) reads one"
            )
            raise BattleshipError(
                f"Game takes the layout it hides (a Layout), not {type(layout).__name__}: {hint}"
            )
        rules = layout.rules
        if rules.hider is not None:
            raise BattleshipError(
                f"{rules.name}'s hider cheats and hides no layout: battleship.inference.hider.Hider(rules, seed=7) "
                "is its referee"
            )
        if rules.noise is not None and seed is None:
            raise BattleshipError(
                f"{rules.name} flips answers at random: give the referee a seed, Game(layout, seed=7)"
            )
        self._layout = layout
        self._hit = 0
        self._observation = Observation(rules)
        # under noise: the referee's coins, and how many times each cell has been fired at
        self._coins = Coins(seed) if rules.noise is not None and seed is not None else None
        self._visits: dict[int, int] = {}

    def __copy__(self) -> Game:
        """A referee to fire on without touching this one (the answers so far are shared: they never change)."""
        twin = Game.__new__(Game)
        twin.__dict__.update(self.__dict__)
        twin._visits = dict(self._visits)  # under noise each cell's visits decide its next coin
        return twin

    @property
    def coins(self) -> int | None:
        """The seed of the referee's coins under ``[noise]`` (None without noise): a record keeps it, so
        that its game can be replayed answer for answer."""
        return None if self._coins is None else self._coins.seed

    @property
    def layout(self) -> Layout:
        """The layout hidden (the referee's knowledge, not the shooter's)."""
        return self._layout

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

    @property
    def hit(self) -> int:
        """Bitboard of the ship cells hit so far (the referee's knowledge, not the shooter's)."""
        return self._hit

    def turn_size(self, ships_afloat: int | None = None, cells_afloat: int | None = None) -> int:
        """Shots the next turn fires: the rules' salvo for a shooter with that much of its own fleet
        afloat (all of it when not given), never more than the cells left to fire at."""
        free = self._observation.unknown_mask.bit_count() if self.rules.noise is None else self.rules.cells
        return min(self.rules.turn_size(ships_afloat, cells_afloat), free)

    def __repr__(self) -> str:
        return f"<Game {'over' if self.over else 'under way'}: {self._observation!r}>"

    def _repr_svg_(self) -> str:
        """The board as the shooter sees it (the hidden ships stay hidden), for notebooks."""
        return self._observation._repr_svg_()

    @overload
    def fire(self, target: CellLike) -> Shot: ...

    @overload
    def fire(self, target: list[CellLike]) -> Volley: ...

    def fire(self, target: CellLike | list[CellLike]) -> Shot | Volley:
        """Fire one shot, or under salvo rules a whole salvo, and return the referee's answer.

        Parameters
        ----------
        target : CellLike or list of CellLike
            A cell (``"E5"``, ``"e5"``, ``(4, 4)`` or ``44``), or under salvo rules the list of the
            turn's cells, as many as :meth:`turn_size` says.

        Returns
        -------
        Shot or Volley
            The answer to the shot (:class:`Shot`), or to the salvo (:class:`Volley`).

        Raises
        ------
        IllegalShot
            A cell off the board or fired at already, a shot after the game is over, one cell
            where the rules fire several a turn, or a salvo of the wrong size:
            :meth:`fire_salvo` fires a salvo of any size on purpose.

        Examples
        --------
        >>> import battleship as bs
        >>> game = bs.Game(bs.generate("standard", seed=7))
        >>> game.fire("E5")
        E5 miss
        >>> salvo = bs.Game(bs.generate("salvo", seed=7))
        >>> salvo.fire(["A1", "C3", "E5", "G7", "J10"])
        A1 hit, C3 miss, E5 miss, G7 miss, J10 miss
        """
        rules = self.rules
        if _is_salvo(target):
            assert isinstance(target, Iterable)
            return self._fire_turn(list(target))
        assert not isinstance(target, list)
        if rules.salvo is not None:
            name = _named(target, rules)
            if not rules.answered_each:
                raise IllegalShot(
                    f"these rules answer a whole salvo ({rules.answers.value}), not a shot: fire the turn's "
                    f"cells together, fire([{name}, ...]) or fire_salvo([{name}, ...])"
                )
            size = self.turn_size()
            if size > 1:
                raise IllegalShot(
                    f"these rules fire {size} shots a turn, not one: fire([{name}, ...]) fires them together "
                    f"(fire_salvo([{name}]) fires a salvo of one on purpose)"
                )
            return self.fire_salvo([target]).shots[0]
        cell = self._checked([target])[0]
        shot = self._answer(cell)
        self._observation = self._observation.after(shot)
        return shot

    def _fire_turn(self, targets: list[CellLike]) -> Volley:
        """A salvo fired with :meth:`fire`: exactly the turn's size (:meth:`fire_salvo` takes any)."""
        rules = self.rules
        if rules.salvo is None:
            raise IllegalShot(
                f"these rules fire one shot a turn, not a salvo of {len(targets)}: fire one cell"
            )
        size = self.turn_size()
        if len(targets) != size and not self.over:
            raise IllegalShot(
                f"this turn fires {size} shot{'s' * (size != 1)}, not {len(targets)}: "
                "fire_salvo(cells) fires a salvo of another size on purpose"
            )
        return self.fire_salvo(targets, len(targets))

    def fire_salvo(self, targets: Iterable[CellLike], size: int | None = None) -> Volley:
        """Answer a salvo: every cell of ``targets`` fired together (``size`` of them, when given),
        answered as the rules' salvo answers and sink rule say."""
        cells = self._checked(list(targets))
        if size is not None and len(cells) != size:
            raise IllegalShot(f"this turn fires {size} shot{'s' * (size != 1)}, not {len(cells)}")
        rules = self.rules
        if rules.salvo is None and len(cells) != 1:
            raise IllegalShot(f"these rules fire one shot a turn, not {len(cells)}")
        if rules.answered_each:
            shots = tuple(self._answer(cell) for cell in cells)
            sunk = tuple(s.ship for s in shots if s.ship is not None)
            volley = Volley(
                cells,
                shots,
                hits=sum(s.outcome is not Outcome.MISS for s in shots),
                sunk=sunk,
                sunk_count=sum(s.outcome is Outcome.SUNK for s in shots),
                revealed=tuple(s.cells for s in shots if s.cells),
                cols=rules.cols,
            )
        else:
            volley = self._answer_whole(cells)
        if rules.salvo is None:
            self._observation = self._observation.after(volley.shots[0])
        else:
            self._observation = self._observation.after_volley(volley)
        return volley

    def _checked(self, targets: list[CellLike]) -> tuple[int, ...]:
        """The target cells, refusing cells off the board, repeats, and shots after the game is over."""
        return checked_targets(self.rules, self._observation, self.over, targets)

    def _answer_whole(self, cells: tuple[int, ...]) -> Volley:
        """A salvo answered whole: hits per ship (``ships``) or their number (``count``), and sinkings."""
        rules, layout = self.rules, self._layout
        before = self._hit
        ship_hits = [0] * len(rules.fleet)
        for cell in cells:
            ship = layout.ship_at(cell)
            if ship is not None:
                ship_hits[ship] += 1
                self._hit |= 1 << cell
        sunk = tuple(i for i, m in enumerate(layout.masks) if self._hit & m == m and before & m != m)
        named = rules.sinks in (Sinks.NAMED, Sinks.REVEALED)
        return Volley(
            cells,
            hits=sum(ship_hits),
            ship_hits=tuple(ship_hits) if rules.answers is Answers.SHIPS else (),
            sunk=sunk if named else (),
            sunk_count=len(sunk) if rules.sinks is not Sinks.NONE else 0,
            revealed=tuple(layout.masks[i] for i in sunk) if rules.sinks is Sinks.REVEALED else (),
            cols=rules.cols,
        )

    def _answer(self, cell: int) -> Shot:
        """The answer to one shot, as the sink rule says; the referee marks the hit."""
        rules = self.rules
        if self._coins is not None:
            return self._noisy_answer(cell)
        ship = self._layout.ship_at(cell)
        if ship is None:
            shot = Shot(cell, Outcome.MISS, cols=rules.cols)
        else:
            self._hit |= 1 << cell
            mask = self._layout.masks[ship]
            sunk = self._hit & mask == mask
            shot = _announce(rules, cell, ship, mask) if sunk else Shot(cell, Outcome.HIT, cols=rules.cols)
        return shot

    def _noisy_answer(self, cell: int) -> Shot:
        """The answer under ``[noise]``: the true one, flipped by the coin of this visit to the cell.

        A ship is sunk by the shot that first completes it (every cell fired at once); that shot says so
        truly, or under ``sinkings = "noisy"`` flips like any hit, to a miss that leaves the sinking unsaid.
        """
        assert self._coins is not None and self.rules.noise is not None
        rules, noise = self.rules, self.rules.noise
        visit = self._visits.get(cell, 0)
        self._visits[cell] = visit + 1
        flipped = self._coins.flips(cell, visit, noise.flip)
        ship = self._layout.ship_at(cell)
        if ship is None:
            return Shot(cell, Outcome.HIT if flipped else Outcome.MISS, cols=rules.cols)
        first = not self._hit >> cell & 1
        self._hit |= 1 << cell
        mask = self._layout.masks[ship]
        if first and self._hit & mask == mask and rules.sinks is not Sinks.NONE:
            if flipped and noise.sinkings is Telling.NOISY:
                return Shot(cell, Outcome.MISS, cols=rules.cols)
            return _announce(rules, cell, ship, mask)
        return Shot(cell, Outcome.MISS if flipped else Outcome.HIT, cols=rules.cols)


def _announce(rules: Rules, cell: int, ship: int, mask: int) -> Shot:
    """The answer to a shot that completes a ship, as much as the rules let the referee say."""
    sinks, cols = rules.sinks, rules.cols
    if sinks is Sinks.NONE:
        return Shot(cell, Outcome.HIT, cols=cols)
    if sinks is Sinks.SUNK:
        return Shot(cell, Outcome.SUNK, cols=cols)
    if sinks is Sinks.NAMED:
        return Shot(cell, Outcome.SUNK, ship, cols=cols)
    return Shot(cell, Outcome.SUNK, ship, mask, cols=cols)


@runtime_checkable
class Shooter(Protocol):
    """A strategy: anything with ``name``, ``reset`` and ``next_shot``; reset for each game and asked
    for one cell at a time (:func:`battleship.make <battleship.shooters.make>` builds the registered ones).

    Examples
    --------
    >>> import battleship as bs
    >>> class Reading:
    ...     name = "reading-order"
    ...     def reset(self, rules, rng):
    ...         self.next = 0
    ...     def next_shot(self, observation):
    ...         self.next += 1
    ...         return self.next - 1
    >>> isinstance(Reading(), bs.Shooter)
    True
    >>> bs.play(bs.generate("standard", seed=7), Reading()).turns
    94
    """

    name: str

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Prepare for a new game under ``rules``; all randomness must come from ``rng``."""

    def next_shot(self, observation: Observation) -> int:
        """The next cell to fire at, given only what has been observed."""


def choose_salvo(shooter: Shooter, observation: Observation, size: int) -> tuple[int, ...]:
    """The ``size`` cells ``shooter`` fires this turn.

    A shooter that chooses whole salvos has ``next_salvo(observation, size)``; any other is asked
    for one cell at a time, each time seeing the cells already chosen for the salvo as aimed at
    (:meth:`Observation.aiming`): its next ``size`` cells.
    """
    whole = getattr(shooter, "next_salvo", None)
    if whole is not None:
        return tuple(int(c) for c in whole(observation, size))
    cells: list[int] = []
    board = observation
    for _ in range(size):
        cell = int(shooter.next_shot(board))
        cells.append(cell)
        board = board.aiming(cell)
    return tuple(cells)


@dataclass(frozen=True)
class Record:
    """A finished game: the layout that was hidden, who shot, and every shot (every salvo under
    salvo rules, where ``shots`` holds the shots answered one by one).

    Parameters
    ----------
    layout : Layout
        The layout that was hidden.
    shooter : str
        Who shot, as the commands name it (``density:skew=20``).
    shots : tuple of Shot
        Every shot answered on its own, in order.
    volleys : tuple of Volley
        Under salvo rules, every turn in order.

    Examples
    --------
    >>> import battleship as bs
    >>> record = bs.play(bs.generate("standard", seed=7), "density", seed=1)
    >>> record
    <Record density on standard 10x10: sank the fleet in 52 shots>
    >>> record.turns, record.shots[0]
    (52, E5 miss)
    """

    layout: Layout
    shooter: str
    shots: tuple[Shot, ...] = field(default=())
    volleys: tuple[Volley, ...] = field(default=())
    coins: int | None = (
        None  # under [noise]: the referee's seed (Game(layout, seed=coins) replays the answers)
    )

    @property
    def turns(self) -> int:
        """Turns taken: salvos under salvo rules, else shots."""
        return len(self.volleys) if self.layout.rules.salvo is not None else len(self.shots)

    @property
    def fired(self) -> int:
        """Shots fired."""
        if self.layout.rules.salvo is not None:
            return sum(len(v.cells) for v in self.volleys)
        return len(self.shots)

    @property
    def observation(self) -> Observation:
        """The shooter's view at the end."""
        return Observation(self.layout.rules, self.shots, self.volleys)

    def __repr__(self) -> str:
        rules = self.layout.rules
        done = "sank the fleet" if _sank_all(self) else "stopped"
        took = counted(len(self.shots), "shot")
        if rules.salvo is not None:
            took = f"{counted(self.turns, 'salvo')} ({counted(self.fired, 'shot')})"
        return f"<Record {self.shooter} on {rules.name} {rules.rows}x{rules.cols}: {done} in {took}>"

    def _repr_svg_(self) -> str:
        """The final board: the hidden ships, the misses around them and the cells hit, for notebooks."""
        from battleship.svg import grid_svg

        grid = self.layout.grid()
        cols = self.layout.rules.cols
        fired = [c for v in self.volleys for c in v.cells] or [s.cell for s in self.shots]
        for cell in fired:
            if self.layout.ship_at(cell) is None:
                grid[cell // cols][cell % cols] = "o"
        struck = frozenset(c for c in fired if self.layout.ship_at(c) is not None)
        title = f"{self.shooter}: {counted(len(self.shots), 'shot')}"
        if self.layout.rules.salvo is not None:
            title = f"{self.shooter}: {counted(self.turns, 'salvo')} ({counted(self.fired, 'shot')})"
        return grid_svg(grid, self.layout.rules.symbols, ships_shown=True, struck=struck, title=title)


def _sank_all(record: Record) -> bool:
    """True when the record's shots hit every ship cell of its layout."""
    fired = _mask(s.cell for s in record.shots) | _mask_of(v.mask for v in record.volleys)
    return fired & record.layout.occupied == record.layout.occupied


NOISY_SHOTS_PER_CELL = 20  # shots a game under noise may take, per cell of the board, before it is stopped


class Referee(Protocol):
    """What answers the shots: a :class:`Game` holding a layout, or a hider who holds none
    (``battleship.inference.hider.Hider``)."""

    @property
    def rules(self) -> Rules: ...

    @property
    def observation(self) -> Observation: ...

    @property
    def over(self) -> bool: ...

    @property
    def layout(self) -> Layout: ...

    def fire(self, target: CellLike) -> Shot: ...

    def fire_salvo(self, targets: Iterable[CellLike], size: int | None = None) -> Volley: ...

    def turn_size(self, ships_afloat: int | None = None, cells_afloat: int | None = None) -> int: ...


def play(
    shooter: Shooter,
    layout: Layout,
    rng: np.random.Generator,
    on_shot: Callable[[Observation, Shot | Volley], None] | None = None,
    referee: Referee | None = None,
) -> Record:
    """Play one game to the end; the shooter sees only observations. Under salvo rules each turn is
    a salvo of the rules' size for a whole fleet (nobody fires back), and ``on_shot`` hears salvos.

    ``referee`` answers the shots (default: a :class:`Game` hiding ``layout``; under ``[noise]`` its coins
    are seeded from ``rng``'s game stream, ``battleship.noise.referee_seed``). A cheating hider
    (``[hider]`` rules) hides no layout: give it as ``referee``; the record then holds the layout it ends
    the game with.
    """
    if referee is None:
        seed = referee_seed(rng) if layout.rules.noise is not None else None
        referee = Game(layout, seed=seed)
    game = referee
    shooter.reset(game.rules, rng)
    salvo = layout.rules.salvo is not None
    # under noise a cell may be fired again and again: a shooter that never fires at every cell is stopped
    most = NOISY_SHOTS_PER_CELL * layout.rules.cells if game.rules.noise is not None else None
    while not game.over:
        if most is not None and game.observation.fired >= most:
            raise BattleshipError(
                f"{shooter.name} fired {game.observation.fired} shots under noise without firing at every "
                "ship cell: a shooter must fire at cells it has not tried"
            )
        answer: Shot | Volley
        if salvo:
            size = game.turn_size()
            answer = game.fire_salvo(choose_salvo(shooter, game.observation, size), size)
        else:
            answer = game.fire(shooter.next_shot(game.observation))
        if on_shot is not None:
            on_shot(game.observation, answer)
    coins = getattr(game, "coins", None)
    return Record(game.layout, shooter.name, game.observation.shots, game.observation.volleys, coins)


# --- the board-state text (what a shooter has seen), like a chess position's FEN ----------------
#
# ``.`` unknown, ``o`` miss, ``x`` hit, and for a sunk ship its letter (``named`` rules: only on the
# cell whose shot sank it; ``revealed``: on all its cells) or ``#`` under ``sunk`` rules, where no
# name is given; rows joined by ``/`` or one row a line.
#
# Salvos answered whole (``ships``, ``count``): ``?`` on a cell fired at but not known on its own
# (``o``/``x`` where the answers make it certain, a ship's letter where a sinking revealed it), then
# every salvo in order after `` | `` (in the multi-line form, a last line starting with ``| ``):
# ``E5,F5,G5=2`` (count) or ``E5,F5,G5=BC`` (one ship letter per hit, ``-`` for none), then
# ``+C`` for each ship it sank by name, ``+#`` for each sinking without one (``sunk`` rules).


@dataclass(frozen=True)
class BoardState:
    """What a player has seen of a board, read from a board-state text (order of shots unknown)."""

    rules: Rules
    misses: int
    hits: int  # every cell known to hold a ship, sunk or not
    sunk_at: tuple[tuple[int, int | None], ...]  # (sinking cell, ship index or None under `sunk`)
    revealed: tuple[tuple[int, int], ...] = ()  # (ship index, its cells) under `revealed`
    volleys: tuple[Volley, ...] = ()  # salvos answered whole (``ships``, ``count``), in order

    def __post_init__(self) -> None:
        object.__setattr__(self, "sunk_at", tuple(sorted(self.sunk_at)))
        object.__setattr__(self, "revealed", tuple(sorted(self.revealed)))

    def grid(self) -> list[list[str]]:
        """Rows of one-character strings in the board-state alphabet."""
        rules = self.rules
        out = [["."] * rules.cols for _ in range(rules.rows)]
        fired = _mask_of(v.mask for v in self.volleys)
        for mask, ch in ((fired, "?"), (self.misses, "o"), (self.hits, "x")):
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
        board = ("\n" if multiline else "/").join("".join(row) for row in self.grid())
        if not self.volleys:
            return board
        said = " ".join(volley_text(self.rules, v) for v in self.volleys)
        return board + ("\n| " if multiline else " | ") + said

    def observation(self) -> Observation:
        """The board as shots in the least telling order: misses, plain hits, then the sinking shots.

        A board state has no order, so this reads a sunk ship as "all its cells hit, its marked cell
        last" and a ship not marked sunk as "not all hit", which is what the board shows.
        """
        rules = self.rules
        if self.volleys or not rules.answered_each:
            return Observation(rules, (), self.volleys)
        sink_cells = {cell for cell, _ in self.sunk_at}
        cols = rules.cols
        shots = [Shot(c, Outcome.MISS, cols=cols) for c in iter_cells(self.misses)]
        revealed_cells = 0
        for _ship, mask in self.revealed:
            revealed_cells |= mask
        plain = self.hits & ~revealed_cells
        shots += [Shot(c, Outcome.HIT, cols=cols) for c in iter_cells(plain) if c not in sink_cells]
        for cell, ship in self.sunk_at:
            shots.append(Shot(cell, Outcome.SUNK, ship, cols=cols))
        for ship, mask in self.revealed:
            cells = list(iter_cells(mask))
            shots += [Shot(c, Outcome.HIT, cols=cols) for c in cells[:-1]]
            shots.append(Shot(cells[-1], Outcome.SUNK, ship, mask, cols=cols))
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
    whole = tuple(v for v in observation.volleys if not v.shots)
    if whole:
        shown = tuple((s, m) for v in whole for s, m in zip(v.sunk, v.revealed, strict=False))
        return BoardState(rules, observation.miss_mask, observation.hit_mask, (), shown, whole)
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


def volley_text(rules: Rules, volley: Volley) -> str:
    """One salvo answered whole in the board-state text: ``E5,F5,G5=2``, ``E5,F5,G5=BC+C``."""
    cells = ",".join(cell_name(c, rules.cols) for c in volley.cells)
    if rules.answers is Answers.SHIPS:
        answer = "".join(rules.fleet[s].symbol * n for s, n in enumerate(volley.ship_hits)) or "-"
    else:
        answer = str(volley.hits)
    if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        sinkings = "".join(f"+{rules.fleet[s].symbol}" for s in sorted(volley.sunk))
    else:
        sinkings = "+#" * volley.sunk_count
    return f"{cells}={answer}{sinkings}"


def read_board_state(text: str, rules: Rules) -> BoardState:
    """Read a board state as cells (:class:`BoardState`), checking its letters against the sink rule."""
    if "|" in text or not rules.answered_each:
        return _read_salvo_board(text, rules)
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


def _read_salvo_board(text: str, rules: Rules) -> BoardState:
    """A board state of salvos answered whole: the grid, then the salvos after ``|``; the grid must
    show what the salvos say (``?``, ``o``, ``x`` and revealed letters)."""
    if rules.answered_each:
        raise NotationError(
            "these rules answer every shot on its own: a board state lists no salvos after '|'",
            *_where(text, text.index("|")),
        )
    bar = text.find("|")
    grid_text = text if bar < 0 else text[:bar]
    rows = split_rows(grid_text.rstrip(), rules, "board")
    letters: dict[int, int] = {}
    allowed = "'.', 'o', 'x', '?'" + (
        f" or a ship letter of {rules.symbols}" if rules.sinks is Sinks.REVEALED else ""
    )
    for r, (row, line, col) in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in ".ox?":
                continue
            idx = rules.symbols.find(ch) if ch.isupper() else -1
            if rules.sinks is not Sinks.REVEALED or idx < 0:
                raise NotationError(f"{ch!r} is not allowed here: expected {allowed}", line, col + c)
            letters[idx] = letters.get(idx, 0) | 1 << (r * rules.cols + c)
    volleys = [] if bar < 0 else _read_volleys(text, bar + 1, rules, letters)
    for idx in letters:
        if not any(idx in v.sunk for v in volleys):
            line, col = _letter_at(rows, rules, letters[idx])
            raise NotationError(f"{rules.fleet[idx].name} is shown sunk but no salvo sinks it", line, col)
    state = board_state(Observation(rules, (), tuple(volleys)))
    expected = state.grid()
    for r, (row, line, col) in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != expected[r][c]:
                raise NotationError(
                    f"{cell_name(r * rules.cols + c, rules.cols)} shows {ch!r}, but the salvos make it {expected[r][c]!r}",
                    line,
                    col + c,
                )
    return state


def _where(text: str, index: int) -> tuple[int, int]:
    """(line, column) from 1 of a character of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _letter_at(rows: list[tuple[str, int, int]], rules: Rules, mask: int) -> tuple[int, int]:
    """(line, column) of the first cell of ``mask`` in the grid."""
    cell = (mask & -mask).bit_length() - 1
    _, line, col = rows[cell // rules.cols]
    return line, col + cell % rules.cols


def _read_volleys(text: str, start: int, rules: Rules, letters: dict[int, int]) -> list[Volley]:
    """The salvos listed from ``text[start:]``, space separated: ``E5,F5,G5=2``, ``E5,F5=BB+B``."""
    volleys: list[Volley] = []
    i = start
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        end = i
        while end < len(text) and not text[end].isspace():
            end += 1
        volleys.append(_read_volley(text[i:end], _where(text, i), len(volleys), rules, letters))
        i = end
    if not volleys:
        raise NotationError("no salvo follows '|': give each as E5,F5,G5=2", *_where(text, start - 1))
    return volleys


def _read_volley(
    token: str, at: tuple[int, int], number: int, rules: Rules, letters: dict[int, int]
) -> Volley:
    """One salvo of the board-state text; ``at`` is its (line, column)."""
    line, col = at
    said = f"salvo {number + 1} ({token!r})"
    if token.count("=") != 1:
        raise NotationError(f"{said}: write a salvo as its cells, '=' and the answer (E5,F5,G5=2)", line, col)
    head, tail = token.split("=")
    cells = []
    offset = 0
    for name in head.split(","):
        try:
            cells.append(to_cell(name, rules))
        except BattleshipError as exc:
            raise NotationError(f"{said}: {exc}", line, col + offset) from None
        offset += len(name) + 1
    answer, *sinkings = tail.split("+")
    at_answer = col + len(head) + 1
    ship_hits: tuple[int, ...] = ()
    if rules.answers is Answers.SHIPS:
        if answer != "-" and (not answer or any(ch not in rules.symbols for ch in answer)):
            raise NotationError(
                f"{said}: answer with one ship letter of {rules.symbols} per hit, or '-' for none",
                line,
                at_answer,
            )
        ship_hits = tuple(answer.count(ship.symbol) for ship in rules.fleet)
        hits = sum(ship_hits)
    elif not answer.isdigit():
        raise NotationError(f"{said}: answer with the number of hits (E5,F5,G5=2)", line, at_answer)
    else:
        hits = int(answer)
    sunk = _read_sinkings(sinkings, said, rules, (line, at_answer + len(answer)))
    named = rules.sinks in (Sinks.NAMED, Sinks.REVEALED)
    revealed: tuple[int, ...] = ()
    if rules.sinks is Sinks.REVEALED:
        missing = [s for s in sunk if s not in letters]
        if missing:
            raise NotationError(
                f"{said} sinks the {rules.fleet[missing[0]].name}, but the grid does not show its cells",
                line,
                col,
            )
        revealed = tuple(letters[s] for s in sunk)
        for s, mask in zip(sunk, revealed, strict=True):
            if mask not in rules.placements[s]:
                raise NotationError(
                    f"the cells marked {rules.fleet[s].symbol} are not one {rules.fleet[s].name} placement "
                    f"(a sunk ship is shown on all {rules.fleet[s].size} of its cells)",
                    line,
                    col,
                )
    return Volley(
        tuple(cells),
        hits=hits,
        ship_hits=ship_hits,
        sunk=tuple(sunk) if named else (),
        sunk_count=len(sunk),
        revealed=revealed,
        cols=rules.cols,
    )


def _read_sinkings(words: list[str], said: str, rules: Rules, at: tuple[int, int]) -> list[int]:
    """The ``+C`` / ``+#`` sinkings of a salvo, as the sink rule allows them (fleet order; ``-1`` unnamed)."""
    line, col = at
    out: list[int] = []
    for word in words:
        if rules.sinks is Sinks.NONE:
            raise NotationError(f"{said}: these rules announce no sinking", line, col)
        if rules.sinks is Sinks.SUNK:
            if word != "#":
                raise NotationError(
                    f"{said}: a sinking is '+#' under these rules (ships are not named)", line, col
                )
            out.append(-1)
        else:
            idx = rules.symbols.find(word) if len(word) == 1 and word.isupper() else -1
            if idx < 0 or idx in out:
                raise NotationError(
                    f"{said}: a sinking is '+' and one ship letter of {rules.symbols}, each once", line, col
                )
            out.append(idx)
        col += len(word) + 1
    return sorted(out)


def checked_targets(rules: Rules, seen: Observation, over: bool, targets: list[CellLike]) -> tuple[int, ...]:
    """A turn's target cells, refusing cells off the board, a cell twice in the salvo, a cell fired at
    already (under noise a cell may be fired again) and shots after the game is over: what every
    referee checks."""
    cells = []
    for target in targets:
        try:
            cells.append(to_cell(target, rules))
        except BattleshipError as exc:
            raise IllegalShot(str(exc)) from None
    if over:
        raise IllegalShot("the game is over: every ship is sunk")
    if not cells:
        raise IllegalShot("a salvo needs at least one cell")
    for i, cell in enumerate(cells):
        if seen.is_shot(cell) and rules.noise is None:  # under noise a cell may be fired again
            raise IllegalShot(f"{cell_name(cell, rules.cols)} has been fired at already")
        if cell in cells[:i]:
            raise IllegalShot(f"{cell_name(cell, rules.cols)} is in the salvo twice")
    return tuple(cells)
