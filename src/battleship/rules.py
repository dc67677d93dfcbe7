"""The rules of a game: board, fleet, spacing between ships, and what a sinking shot reveals."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import TypeVar

from battleship import shapes
from battleship.cells import grow
from battleship.errors import RulesError

MAX_SIDE = 64
SHIP_SYMBOLS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Spacing(str, Enum):
    """How close two ships may lie (``spacing`` in a rules file: its value).

    Examples
    --------
    >>> Spacing("no-contact")
    <Spacing.NO_CONTACT: 'no-contact'>
    >>> [s.value for s in Spacing]
    ['touch', 'no-edge', 'no-contact']
    """

    #: ``"touch"``: ships may share edges and corners (the official rules).
    TOUCH = "touch"
    #: ``"no-edge"``: ships may meet at a corner but not along an edge.
    NO_EDGE = "no-edge"
    #: ``"no-contact"``: a margin of one cell all round, corners included (the C# Pirates winner).
    NO_CONTACT = "no-contact"


class Sinks(str, Enum):
    """What the referee says when a shot completes a ship (``sinks`` in a rules file: its value).

    Examples
    --------
    >>> Sinks("named"), preset("pirates").sinks
    (<Sinks.NAMED: 'named'>, <Sinks.NONE: 'none'>)
    """

    #: ``"none"``: only hit or miss (the C# Pirates winner).
    NONE = "none"
    #: ``"sunk"``: "you sank a ship", no name.
    SUNK = "sunk"
    #: ``"named"``: "you sank my Cruiser" (the official rules).
    NAMED = "named"
    #: ``"revealed"``: named, and the sunk ship's cells are shown (DataGenetics' diagrams).
    REVEALED = "revealed"


class Answers(str, Enum):
    """How the referee answers a salvo (several shots fired together; ``answers`` in a rules file).

    Examples
    --------
    >>> preset("salvo").answers, preset("salvo-count").answers
    (<Answers.EACH: 'each'>, <Answers.COUNT: 'count'>)
    """

    #: ``"each"``: every shot answered on its own, as the sink rule says.
    EACH = "each"
    #: ``"ships"``: which ships were hit and how many times, never which shot (the paper game).
    SHIPS = "ships"
    #: ``"count"``: only how many shots hit ("two hits").
    COUNT = "count"


SALVO_SIZES = ("afloat", "afloat-cells")


class Telling(str, Enum):
    """What a noisy referee does to a sinking announcement (``[noise] sinkings``)."""

    TRUTHFUL = "truthful"  # a sinking is always announced, truly: only plain hit and miss answers flip
    NOISY = "noisy"  # the sinking shot's answer flips like any hit: "miss", and the sinking goes unsaid


@dataclass(frozen=True)
class Noise:
    """Answers that lie: every hit or miss answer is flipped with probability ``flip``, independently.

    ``sinkings`` says what happens to a shot that completes a ship where the rules announce sinkings:
    ``truthful`` (the announcement is always made, and true: a sinking never flips) or ``noisy`` (it
    flips like any hit: with probability ``flip`` the shot is answered "miss" and the sinking goes
    unsaid for good). A "miss" never turns into a sinking. Under noise a cell may be fired at again (each
    answer flips on its own), and the game ends when every ship cell has been fired at at least once,
    which the referee knows and says by ending the game. Salvos are answered shot by shot
    (``answers = "each"``), each shot flipped on its own; salvos answered whole are refused.
    """

    flip: float
    sinkings: Telling = Telling.TRUTHFUL

    def __post_init__(self) -> None:
        flip = self.flip
        if isinstance(flip, bool) or not isinstance(flip, int | float) or not 0 <= flip < 0.5:
            raise RulesError(f"[noise] flip must be a number from 0 up to (not including) 0.5, not {flip!r}")
        object.__setattr__(self, "flip", float(flip))
        try:
            object.__setattr__(self, "sinkings", Telling(self.sinkings))
        except ValueError:
            choices = " | ".join(t.value for t in Telling)
            raise RulesError(f"[noise] sinkings {self.sinkings!r} is not one of {choices}") from None

    def text(self) -> str:
        """``0.05 truthful``: the rule in two words (the arena protocol's noise line)."""
        return f"{self.flip:g} {self.sinkings.value}"

    @classmethod
    def from_text(cls, text: str) -> Noise:
        """Read :meth:`text` back."""
        words = text.split()
        if len(words) != 2:
            raise RulesError(f'a noise rule is two words, flip and sinkings ("0.05 truthful"), not {text!r}')
        try:
            flip = float(words[0])
        except ValueError:
            raise RulesError(f"[noise] flip must be a number, not {words[0]!r}") from None
        return cls(flip, words[1])  # type: ignore[arg-type]  # Noise checks it


HIDER_PLAYS = ("greedy", "minimax")


@dataclass(frozen=True)
class Hider:
    """A hider who cheats (Cheat Battleship): it commits to no layout and answers each shot so as to keep
    the game longest while staying consistent with every answer it has given.

    ``play = "greedy"`` answers with what keeps the most layouts alive (never ending the game while another
    answer goes on); ``"minimax"`` with what keeps the game longest against the best shooter, solved
    exactly (small boards only: refused, in one line, where the layouts are too many).
    """

    kind: str = "adversarial"
    play: str = "greedy"

    def __post_init__(self) -> None:
        if self.kind != "adversarial":
            raise RulesError(
                f'[hider] kind is "honest" (no [hider] table) or "adversarial", not {self.kind!r}'
            )
        if self.play not in HIDER_PLAYS:
            raise RulesError(f"[hider] play is one of {' | '.join(HIDER_PLAYS)}, not {self.play!r}")

    def text(self) -> str:
        """``adversarial greedy``: the hider in two words."""
        return f"{self.kind} {self.play}"


@dataclass(frozen=True)
class Salvo:
    """Several shots a turn: how many (``shots``) and how they are answered (``answers``).

    Parameters
    ----------
    shots : int or str
        A whole number K, ``"afloat"`` (one shot per ship of the shooter's own fleet still afloat:
        Milton Bradley's Salvo rules and BattleSalvo) or ``"afloat-cells"`` (one per unhit square of
        it, the older paper rule). In one-sided play nobody fires back, so the fleet is whole.
    answers : Answers or str
        How the referee answers a salvo.

    Raises
    ------
    RulesError
        A number of shots below 1, or a value not listed here.

    Examples
    --------
    >>> Salvo(5, "count")
    Salvo(shots=5, answers=<Answers.COUNT: 'count'>)
    >>> Salvo.from_text("afloat each") == preset("salvo").salvo
    True
    """

    shots: int | str = 1
    answers: Answers = Answers.EACH

    def __post_init__(self) -> None:
        shots = self.shots
        if isinstance(shots, bool) or not (
            (isinstance(shots, int) and shots >= 1) or (isinstance(shots, str) and shots in SALVO_SIZES)
        ):
            raise RulesError(
                f'salvo shots must be a whole number of at least 1, "afloat" or "afloat-cells", not {shots!r}'
            )
        try:
            object.__setattr__(self, "answers", Answers(self.answers))
        except ValueError:
            choices = " | ".join(a.value for a in Answers)
            raise RulesError(f"salvo answers {self.answers!r} is not one of {choices}") from None

    def text(self) -> str:
        """``5 each``, ``afloat count``: the rule in two words (the arena protocol's rules line)."""
        return f"{self.shots} {self.answers.value}"

    @classmethod
    def from_text(cls, text: str) -> Salvo:
        """Read :meth:`text` back."""
        words = text.split()
        if len(words) != 2:
            raise RulesError(f'a salvo rule is two words, shots and answers ("5 each"), not {text!r}')
        shots: int | str = int(words[0]) if words[0].isdigit() else words[0]
        if words[1] not in {a.value for a in Answers}:
            choices = " | ".join(a.value for a in Answers)
            raise RulesError(f"salvo answers {words[1]!r} is not one of {choices}")
        return cls(shots, Answers(words[1]))


@dataclass(frozen=True)
class Ship:
    """A named ship with a one-letter symbol and a shape (a polyomino; :meth:`line` makes a straight one).

    Parameters
    ----------
    name : str
        Its name, as the referee says it ("you sank my Cruiser").
    symbol : str
        One capital letter, its mark in layouts and board states.
    cells : tuple
        Its shape: ``(row, col)`` squares joined edge to edge.

    Raises
    ------
    RulesError
        No name, a symbol that is not one capital letter, or cells that are not one joined shape.

    Examples
    --------
    >>> Ship.line("Cruiser", "C", 3).size
    3
    >>> Ship("Ell", "L", ((0, 0), (1, 0), (1, 1))).is_straight
    False
    """

    name: str
    symbol: str
    cells: shapes.Cells

    @classmethod
    def line(cls, name: str, symbol: str, length: int) -> Ship:
        """A straight ship of ``length`` cells."""
        if length < 1:
            raise RulesError(f"ship {name!r}: length must be at least 1, not {length}")
        return cls(name, symbol, shapes.line(length))

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise RulesError("a ship needs a name")
        if len(self.symbol) != 1 or self.symbol not in SHIP_SYMBOLS:
            raise RulesError(
                f"ship {self.name!r}: symbol must be one capital letter A-Z, not {self.symbol!r}"
            )
        if not self.cells:
            raise RulesError(f"ship {self.name!r} has no cells")
        object.__setattr__(self, "cells", shapes.normalise(tuple((r, c) for r, c in self.cells)))
        if len(set(self.cells)) != len(self.cells):
            raise RulesError(f"ship {self.name!r} lists a cell twice")
        if not shapes.is_connected(self.cells):
            raise RulesError(
                f"ship {self.name!r}: its cells {shapes.render(self.cells)} are not joined edge to edge"
            )

    @property
    def size(self) -> int:
        """Number of cells."""
        return len(self.cells)

    @property
    def is_straight(self) -> bool:
        """True for a 1 x L line."""
        return min(shapes.extent(self.cells)) == 1


@dataclass(frozen=True)
class Rules:
    """Board size, fleet, spacing rule, sink announcements and salvos: always playable once built.

    Most games start from a preset (:func:`preset`, :func:`load`); building rules by hand checks
    that every ship fits and that some layout of the fleet exists.

    Parameters
    ----------
    rows, cols : int
        The board's size, each from 1 to 64.
    fleet : tuple of Ship
        The ships, in the order layouts list them.
    spacing : Spacing or str
        How close two ships may lie.
    sinks : Sinks or str
        What a sinking shot tells.
    reflections : bool
        Whether a ship of an asymmetric shape may also lie mirrored.
    name : str
        A name for messages and files (not compared: equal rules under two names are equal).
    salvo : Salvo, optional
        Several shots a turn; None, the classic game, fires one.

    Raises
    ------
    RulesError
        A board too small or too large, a ship that fits nowhere, a fleet with no layout.

    Examples
    --------
    >>> rules = Rules(6, 6, (Ship.line("Cruiser", "C", 3), Ship.line("Destroyer", "D", 2)))
    >>> rules
    <Rules custom: 6x6, fleet C3 D2, spacing touch, sinks named>
    >>> rules.cells, rules.ship_cells, rules == preset("standard")
    (36, 5, False)
    """

    rows: int = 10
    cols: int = 10
    fleet: tuple[Ship, ...] = ()
    spacing: Spacing = Spacing.TOUCH
    sinks: Sinks = Sinks.NAMED
    reflections: bool = False
    name: str = field(default="custom", compare=False)
    salvo: Salvo | None = None  # None: one shot a turn, answered on its own (the classic game)
    noise: Noise | None = None  # None: every answer is true
    hider: Hider | None = None  # None: an honest hider, who places a layout and answers from it

    def __post_init__(self) -> None:
        object.__setattr__(self, "fleet", tuple(self.fleet))
        object.__setattr__(self, "spacing", Spacing(self.spacing))
        object.__setattr__(self, "sinks", Sinks(self.sinks))
        if self.salvo is not None and not isinstance(self.salvo, Salvo):
            raise RulesError(f"salvo must be a Salvo or None, not {type(self.salvo).__name__}")
        if self.noise is not None and not isinstance(self.noise, Noise):
            raise RulesError(f"noise must be a Noise or None, not {type(self.noise).__name__}")
        if self.hider is not None and not isinstance(self.hider, Hider):
            raise RulesError(f"hider must be a Hider or None, not {type(self.hider).__name__}")
        _check_twists(self)
        _check(self)
        if self.salvo is not None and isinstance(self.salvo.shots, int) and self.salvo.shots > self.cells:
            raise RulesError(f"salvo shots = {self.salvo.shots}, but the board has only {self.cells} cells")

    def __repr__(self) -> str:
        fleet = " ".join(f"{s.symbol}{s.size}" for s in self.fleet)
        salvo = f", salvo {self.salvo.text()}" if self.salvo is not None else ""
        return (
            f"<Rules {self.name}: {self.rows}x{self.cols}, fleet {fleet}, spacing {self.spacing.value}, "
            f"sinks {self.sinks.value}{', reflections' if self.reflections else ''}{salvo}{self._twists()}>"
        )

    def _twists(self) -> str:
        """``, noise 0.05 truthful``, ``, hider adversarial greedy``: the twists for one-line descriptions."""
        noise = f", noise {self.noise.text()}" if self.noise is not None else ""
        return noise + (f", hider {self.hider.text()}" if self.hider is not None else "")

    # --- noise and the hider ---------------------------------------------------------------
    @property
    def flip(self) -> float:
        """The chance that an answer is flipped (0 without noise)."""
        return 0.0 if self.noise is None else self.noise.flip

    @property
    def adversarial(self) -> bool:
        """True when the hider cheats (commits to no layout)."""
        return self.hider is not None

    def honest(self) -> Rules:
        """These rules with every answer true and an honest hider: the board, fleet, spacing, sinks and
        salvo the same (what the exact engines count layouts of)."""
        if self.noise is None and self.hider is None:
            return self
        return _honest(self)

    # --- salvo ---------------------------------------------------------------------------
    @property
    def answers(self) -> Answers:
        """How a turn is answered (``each`` in the one-shot game)."""
        return Answers.EACH if self.salvo is None else self.salvo.answers

    @property
    def answered_each(self) -> bool:
        """True when every shot gets its own answer (the one-shot game, and ``answers = "each"``)."""
        return self.answers is Answers.EACH

    def turn_size(self, ships_afloat: int | None = None, cells_afloat: int | None = None) -> int:
        """Shots in a turn for a shooter whose own fleet has ``ships_afloat`` ships and ``cells_afloat``
        unhit squares left (a whole fleet when not given, as in one-sided play)."""
        if self.salvo is None:
            return 1
        shots = self.salvo.shots
        if shots == "afloat":
            return len(self.fleet) if ships_afloat is None else ships_afloat
        if shots == "afloat-cells":
            return self.ship_cells if cells_afloat is None else cells_afloat
        assert isinstance(shots, int)
        return shots

    def one_shot(self) -> Rules:
        """These rules with one shot a turn (the board, fleet, spacing and sinks the same)."""
        return replace(self, salvo=None) if self.salvo is not None else self

    # --- derived facts -------------------------------------------------------------------
    @property
    def cells(self) -> int:
        """Number of cells on the board."""
        return self.rows * self.cols

    @property
    def full(self) -> int:
        """Bitboard of the whole board."""
        return (1 << self.cells) - 1

    @property
    def ship_cells(self) -> int:
        """Total number of cells the fleet covers."""
        return sum(ship.size for ship in self.fleet)

    @property
    def symbols(self) -> str:
        """Ship symbols in fleet order."""
        return "".join(ship.symbol for ship in self.fleet)

    def ship_index(self, symbol: str) -> int:
        """Fleet index of the ship with this symbol."""
        idx = self.symbols.find(symbol)
        if idx < 0 or not symbol:
            raise RulesError(f"no ship has symbol {symbol!r}; the fleet is {self.symbols}")
        return idx

    @cached_property
    def placements(self) -> tuple[tuple[int, ...], ...]:
        """Per ship, the bitboards of all its placements."""
        return tuple(
            shapes.placements(ship.cells, self.rows, self.cols, self.reflections) for ship in self.fleet
        )

    def halo(self, mask: int) -> int:
        """Cells another ship may not use once a ship lies on ``mask`` (spacing rule)."""
        if self.spacing is Spacing.TOUCH:
            return mask
        return grow(mask, self.rows, self.cols, diagonal=self.spacing is Spacing.NO_CONTACT)

    @cached_property
    def halos(self) -> tuple[tuple[int, ...], ...]:
        """Per ship, the halo of each placement, aligned with ``placements``."""
        return tuple(tuple(self.halo(m) for m in ms) for ms in self.placements)

    def describe(self) -> str:
        """One line summary."""
        fleet = ", ".join(f"{s.name} {s.symbol} {s.size}" for s in self.fleet)
        salvo = f", salvo {self.salvo.text()}" if self.salvo is not None else ""
        return (
            f"{self.name}: {self.rows}x{self.cols}, fleet [{fleet}], spacing {self.spacing.value}, "
            f"sinks {self.sinks.value}{salvo}{self._twists()}"
        )

    def as_dict(self) -> dict[str, object]:
        """The rules as plain data (what ``--json`` prints); ``salvo`` only under salvo rules."""
        out: dict[str, object] = {
            "name": self.name,
            "rows": self.rows,
            "cols": self.cols,
            "spacing": self.spacing.value,
            "sinks": self.sinks.value,
            "reflections": self.reflections,
            "fleet": [
                {"name": s.name, "symbol": s.symbol, "size": s.size, "cells": [list(c) for c in s.cells]}
                for s in self.fleet
            ],
        }
        if self.salvo is not None:
            out["salvo"] = {"shots": self.salvo.shots, "answers": self.salvo.answers.value}
        if self.noise is not None:
            out["noise"] = {"flip": self.noise.flip, "sinkings": self.noise.sinkings.value}
        if self.hider is not None:
            out["hider"] = {"kind": self.hider.kind, "play": self.hider.play}
        return out

    # --- TOML ----------------------------------------------------------------------------
    def to_toml(self) -> str:
        """The rules as a small TOML document that :func:`from_toml` reads back."""
        lines = [
            f"name = {_quote(self.name)}",
            f"rows = {self.rows}",
            f"cols = {self.cols}",
            f'spacing = "{self.spacing.value}"  # touch | no-edge | no-contact',
            f'sinks = "{self.sinks.value}"  # none | sunk | named | revealed',
            f"reflections = {'true' if self.reflections else 'false'}",
        ]
        for ship in self.fleet:
            lines += ["", "[[ship]]", f"name = {_quote(ship.name)}", f'symbol = "{ship.symbol}"']
            if ship.cells == shapes.line(ship.size):
                lines.append(f"length = {ship.size}")
            else:
                lines.append(f'shape = "{shapes.render(ship.cells)}"')
        if self.salvo is not None:
            shots = self.salvo.shots
            lines += [
                "",
                "[salvo]",
                f'shots = {shots if isinstance(shots, int) else _quote(shots)}  # K | "afloat" | "afloat-cells"',
                f'answers = "{self.salvo.answers.value}"  # each | ships | count',
            ]
        if self.noise is not None:
            lines += [
                "",
                "[noise]",
                f"flip = {self.noise.flip!r}  # each hit or miss answer flipped with this chance",
                f'sinkings = "{self.noise.sinkings.value}"  # truthful | noisy',
            ]
        if self.hider is not None:
            lines += [
                "",
                "[hider]",
                f'kind = "{self.hider.kind}"',
                f'play = "{self.hider.play}"  # greedy | minimax',
            ]
        return "\n".join(lines) + "\n"


@lru_cache(maxsize=64)
def _honest(rules: Rules) -> Rules:
    """:meth:`Rules.honest`, built once per rules (checking that a fleet fits takes a moment)."""
    return replace(rules, noise=None, hider=None)


def _quote(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's): names may hold quotes and backslashes."""
    return json.dumps(text, ensure_ascii=False)


def from_toml(text: str, source: str = "rules") -> Rules:
    """Read rules from TOML text (see :meth:`Rules.to_toml` for the format)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{source}: not valid TOML: {exc}") from None
    known = {"name", "rows", "cols", "spacing", "sinks", "reflections", "ship", "salvo", "noise", "hider"}
    unknown = set(data) - known
    if unknown:
        raise RulesError(f"{source}: unknown key {sorted(unknown)[0]!r}; expected {', '.join(sorted(known))}")
    ships = []
    for i, entry in enumerate(data.get("ship", []), 1):
        where = f"{source}: ship #{i}"
        if not isinstance(entry, dict):
            raise RulesError(f"{where}: expected a [[ship]] table")
        extra = set(entry) - {"name", "symbol", "length", "shape", "cells", "count"}
        if extra:
            raise RulesError(f"{where}: unknown key {sorted(extra)[0]!r}")
        name, symbol = entry.get("name"), entry.get("symbol")
        if not isinstance(name, str) or not isinstance(symbol, str):
            raise RulesError(f"{where}: needs name and symbol strings")
        names_symbols = _copies(entry, name, symbol, where)
        given = [k for k in ("length", "shape", "cells") if k in entry]
        if len(given) != 1:
            raise RulesError(f"{where} ({name}): give exactly one of length, shape or cells")
        try:
            if "length" in entry:
                length = entry["length"]
                if not isinstance(length, int) or isinstance(length, bool):
                    raise RulesError(f"{where} ({name}): length must be a whole number")
                if length < 1:
                    raise RulesError(f"{where} ({name}): length must be at least 1, not {length}")
                cells = shapes.line(length)
            elif "shape" in entry:
                cells = shapes.parse(str(entry["shape"]))
            else:
                cells = tuple((int(r), int(c)) for r, c in entry["cells"])
            ships += [Ship(n, sym, cells) for n, sym in names_symbols]
        except (ValueError, TypeError) as exc:
            if isinstance(exc, RulesError):
                raise RulesError(_from(source, exc)) from None
            raise RulesError(f"{where} ({name}): {exc}") from None
    for key, kind, what in (
        ("rows", int, "a whole number"),
        ("cols", int, "a whole number"),
        ("reflections", bool, "true or false"),
        ("name", str, "a string"),
    ):
        if key in data and (not isinstance(data[key], kind) or (kind is int and isinstance(data[key], bool))):
            raise RulesError(f"{source}: {key} must be {what}, not {data[key]!r}")
    salvo = _salvo(data.get("salvo"), source) if "salvo" in data else None
    noise = _noise(data.get("noise"), source) if "noise" in data else None
    hider = _hider(data.get("hider"), source) if "hider" in data else None
    try:
        return Rules(
            rows=data.get("rows", 10),
            cols=data.get("cols", 10),
            fleet=tuple(ships),
            spacing=_enum(Spacing, data.get("spacing", "touch"), source),
            sinks=_enum(Sinks, data.get("sinks", "named"), source),
            reflections=data.get("reflections", False),
            name=data.get("name", Path(source).stem),
            salvo=salvo,
            noise=noise,
            hider=hider,
        )
    except RulesError as exc:
        raise RulesError(_from(source, exc)) from None


def _noise(table: object, source: str) -> Noise:
    """The ``[noise]`` table: ``flip`` (0 <= flip < 0.5) and ``sinkings`` (truthful | noisy)."""
    if not isinstance(table, dict):
        raise RulesError(f"{source}: noise must be a table ([noise] with flip and sinkings)")
    extra = set(table) - {"flip", "sinkings"}
    if extra:
        raise RulesError(f"{source}: [noise]: unknown key {sorted(extra)[0]!r}; expected flip, sinkings")
    if "flip" not in table:
        raise RulesError(f"{source}: [noise] needs flip, the chance that an answer is flipped (flip = 0.05)")
    sinkings = table.get("sinkings", "truthful")
    if not isinstance(sinkings, str):
        raise RulesError(f"{source}: [noise] sinkings must be a string (truthful | noisy), not {sinkings!r}")
    try:
        return Noise(table["flip"], sinkings)  # type: ignore[arg-type]  # Noise checks it
    except RulesError as exc:
        raise RulesError(f"{source}: {exc}") from None


def _hider(table: object, source: str) -> Hider | None:
    """The ``[hider]`` table: ``kind`` (honest | adversarial) and ``play`` (greedy | minimax)."""
    if not isinstance(table, dict):
        raise RulesError(f"{source}: hider must be a table ([hider] with kind and play)")
    extra = set(table) - {"kind", "play"}
    if extra:
        raise RulesError(f"{source}: [hider]: unknown key {sorted(extra)[0]!r}; expected kind, play")
    kind, play = table.get("kind", "adversarial"), table.get("play", "greedy")
    if kind == "honest":
        if "play" in table:
            raise RulesError(
                f"{source}: [hider] play is for an adversarial hider; an honest one just answers"
            )
        return None
    if not isinstance(kind, str) or not isinstance(play, str):
        raise RulesError(f"{source}: [hider] kind and play must be strings")
    try:
        return Hider(kind, play)
    except RulesError as exc:
        raise RulesError(f"{source}: {exc}") from None


def _check_twists(rules: Rules) -> None:
    """Refuse, in one line, the combinations of noise, a cheating hider and salvos that make no game."""
    whole = rules.salvo is not None and rules.salvo.answers is not Answers.EACH
    if rules.noise is not None and rules.hider is not None:
        raise RulesError(
            "[noise] and an adversarial [hider] cannot go together: a cheating hider answers consistently by design, "
            "and with every answer possibly false no answer is ever inconsistent"
        )
    if rules.noise is not None and whole:
        raise RulesError(
            f'[noise] flips each shot\'s own answer, and salvos answered whole (answers = "{rules.answers.value}") '
            'have none: use answers = "each" with noise'
        )
    if rules.hider is not None and whole:
        raise RulesError(
            f'an adversarial [hider] answers shot by shot: salvos answered whole (answers = "{rules.answers.value}") '
            'are refused with it; use answers = "each"'
        )


def _salvo(table: object, source: str) -> Salvo:
    """The ``[salvo]`` table: ``shots`` (K, "afloat" or "afloat-cells") and ``answers``."""
    if not isinstance(table, dict):
        raise RulesError(f"{source}: salvo must be a table ([salvo] with shots and answers)")
    extra = set(table) - {"shots", "answers"}
    if extra:
        raise RulesError(f"{source}: [salvo]: unknown key {sorted(extra)[0]!r}; expected shots, answers")
    answers = table.get("answers", "each")
    if not isinstance(answers, str):
        raise RulesError(
            f"{source}: [salvo] answers must be a string (each | ships | count), not {answers!r}"
        )
    try:
        return Salvo(table.get("shots", 1), answers)  # type: ignore[arg-type]  # Salvo checks it
    except RulesError as exc:
        raise RulesError(f"{source}: [salvo] {str(exc).removeprefix('salvo ')}") from None


def _from(source: str, exc: Exception) -> str:
    """An error's message said to come from ``source``, which it names once."""
    text = str(exc)
    return text if text.startswith(f"{source}:") else f"{source}: {text}"


def _copies(entry: dict[str, object], name: str, symbol: str, where: str) -> list[tuple[str, str]]:
    """The (name, symbol) of each ship a ``[[ship]]`` table stands for: ``count`` copies, one letter each.

    ``count = 4`` with ``symbol = "HIJK"`` gives four ships named "Name 1" .. "Name 4" (fleets such as
    Sea Battle's four one-cell boats); without ``count`` the table is one ship.
    """
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise RulesError(f"{where} ({name}): count must be a whole number of at least 1, not {count!r}")
    if count == 1:
        return [(name, symbol)]
    if len(symbol) != count:
        raise RulesError(
            f"{where} ({name}): count = {count} needs {count} symbols, one capital letter per ship "
            f'(e.g. symbol = "{"ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:count]}"), not {symbol!r}'
        )
    return [(f"{name} {i}", letter) for i, letter in enumerate(symbol, 1)]


_E = TypeVar("_E", bound=Enum)


def _enum(kind: type[_E], value: object, source: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        choices = " | ".join(v.value for v in kind)
        raise RulesError(f"{source}: {kind.__name__.lower()} {value!r} is not one of {choices}") from None


# --- presets -------------------------------------------------------------------------------
def _fleet(spec: str) -> tuple[Ship, ...]:
    """Straight ships from ``"Name S 5, Other Name O 4"``: a name, its letter, its length."""
    ships = []
    for entry in spec.split(","):
        *name, symbol, length = entry.split()
        ships.append(Ship.line(" ".join(name), symbol, int(length)))
    return tuple(ships)


STANDARD_FLEET = "Carrier C 5, Battleship B 4, Destroyer D 3, Submarine S 3, Patrol Boat P 2"


def _presets() -> dict[str, tuple[str, Callable[[], Rules]]]:
    """Every preset: what it is, and how to build its rules (built when first asked for: checking that a
    fleet fits takes a moment a rule set)."""
    standard = _fleet(STANDARD_FLEET)
    datagenetics = _fleet("Aircraft Carrier A 5, Battleship B 4, Submarine S 3, Cruiser C 3, Destroyer D 2")
    sea_battle = _fleet(
        "Battleship B 4, Cruiser 1 C 3, Cruiser 2 D 3, Destroyer 1 E 2, Destroyer 2 F 2, Destroyer 3 G 2, "
        "Torpedo Boat 1 H 1, Torpedo Boat 2 I 1, Torpedo Boat 3 J 1, Torpedo Boat 4 K 1"
    )
    r_blog = _fleet("Carrier C 5, Battleship B 4, Submarine S 3, Cruiser R 3, Patrol P 2")
    out: dict[str, tuple[str, Callable[[], Rules]]] = {
        "standard": (
            "1990 Milton Bradley rules (the Dunman High paper): 10x10, ships may touch, sunk ships are named",
            partial(Rules, 10, 10, standard, Spacing.TOUCH, Sinks.NAMED, name="standard"),
        ),
        "datagenetics": (
            "DataGenetics' analysis: its ship names, sunk ships shown on the board",
            partial(Rules, 10, 10, datagenetics, Spacing.TOUCH, Sinks.REVEALED, name="datagenetics"),
        ),
        "pirates": (
            "The C# Pirates contest: a one-cell margin round every ship, no sink announcements",
            partial(Rules, 10, 10, standard, Spacing.NO_CONTACT, Sinks.NONE, name="pirates"),
        ),
        "r-blog": (
            "The R study: its ship names, ships may touch, sunk ships are named",
            partial(Rules, 10, 10, r_blog, Spacing.TOUCH, Sinks.NAMED, name="r-blog"),
        ),
        "seabattle": (
            "Sea Battle (Morskoy Boy), the Russian game: one 4, two 3s, three 2s and four 1s, "
            "a one-cell margin round every ship, sinkings announced",
            partial(Rules, 10, 10, sea_battle, Spacing.NO_CONTACT, Sinks.NAMED, name="seabattle"),
        ),
    }
    salvo_rules = {
        "salvo": (
            "Salvo, Milton Bradley's rules: one shot a turn per ship of your own fleet still afloat (five "
            "in one-sided play), each shot answered, sunk ships named",
            Salvo("afloat", Answers.EACH),
        ),
        "salvo-count": (
            'Salvo with only the number of hits announced for each salvo ("two hits"), sunk ships named',
            Salvo("afloat", Answers.COUNT),
        ),
        "hits-named": (
            'The board game\'s other classic rule: one shot a turn, every hit names the ship ("hit, battleship")',
            Salvo(1, Answers.SHIPS),
        ),
    }
    for key, (text, salvo) in salvo_rules.items():
        out[key] = (text, partial(Rules, 10, 10, standard, Spacing.TOUCH, Sinks.NAMED, name=key, salvo=salvo))
    out["noisy"] = (
        "Standard rules with answers that lie: every hit or miss flipped with probability 0.05, sinkings "
        "told truly; a cell may be fired at again",
        partial(Rules, 10, 10, standard, Spacing.TOUCH, Sinks.NAMED, name="noisy", noise=Noise(0.05)),
    )
    out["cheat"] = (
        "Cheat Battleship: the standard fleet against a hider who commits to no layout and answers each "
        "shot to keep the most layouts alive, consistent with every answer given",
        partial(Rules, 10, 10, standard, Spacing.TOUCH, Sinks.NAMED, name="cheat", hider=Hider()),
    )
    for n in range(6, 16):
        out[f"square-{n}"] = (
            f"The Dunman High paper's board of side {n} with the standard fleet",
            partial(square, n),
        )
    return out


def square(n: int) -> Rules:
    """The standard fleet on an n x n board (the Dunman High paper's section 7 uses n = 6..15).

    Parameters
    ----------
    n : int
        The board's side.

    Returns
    -------
    Rules
        The preset ``square-N``.

    Examples
    --------
    >>> square(8)
    <Rules square-8: 8x8, fleet C5 B4 D3 S3 P2, spacing touch, sinks named>
    """
    return Rules(n, n, _fleet(STANDARD_FLEET), Spacing.TOUCH, Sinks.NAMED, name=f"square-{n}")


def preset(name: str) -> Rules:
    """A rule preset by name (:data:`PRESETS` lists them, as ``battleship rules`` does).

    Parameters
    ----------
    name : str
        ``standard``, ``datagenetics``, ``pirates``, ``seabattle``, ``salvo``, ``square-N``, ...

    Returns
    -------
    Rules
        The preset's rules.

    Raises
    ------
    RulesError
        No preset of that name (the message lists them).

    Examples
    --------
    >>> preset("pirates")
    <Rules pirates: 10x10, fleet C5 B4 D3 S3 P2, spacing no-contact, sinks none>
    """
    if name in PRESETS:
        return PRESETS[name][1]
    if name.startswith("square-") and name[7:].isdigit():
        return square(int(name[7:]))
    raise RulesError(f"no preset named {name!r}; choose one of {', '.join(PRESETS)} or give a rules file")


def load(spec: str | Path) -> Rules:
    """Rules from a preset name or a TOML file (``battleship rules NAME --toml`` writes one).

    Parameters
    ----------
    spec : str or pathlib.Path
        A preset name, or the path of a rules file (``.toml``).

    Returns
    -------
    Rules
        The rules, checked.

    Raises
    ------
    RulesError
        No such preset or file, or a file that is not valid rules (saying where).

    Examples
    --------
    >>> load("standard") == preset("standard")
    True
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "salvo.toml"
    >>> _ = path.write_text(preset("salvo").to_toml())
    >>> load(path) == preset("salvo")
    True
    """
    text = str(spec)
    path = Path(text)
    if text.endswith(".toml") or path.is_file():
        from battleship.files import read_text

        return from_toml(read_text(path, "rules file", RulesError), source=text)
    return preset(text)


# --- feasibility -----------------------------------------------------------------------------
def _check(rules: Rules) -> None:
    """Refuse rules that cannot hold their fleet, saying why."""
    for side, value in (("rows", rules.rows), ("cols", rules.cols)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SIDE:
            raise RulesError(f"{side} must be a whole number from 1 to {MAX_SIDE}, not {value!r}")
    if not rules.fleet:
        raise RulesError("the fleet is empty: give at least one ship")
    names = [s.name for s in rules.fleet]
    symbols = [s.symbol for s in rules.fleet]
    for label, values in (("name", names), ("symbol", symbols)):
        dup = {v for v in values if values.count(v) > 1}
        if dup:
            raise RulesError(f"two ships share the {label} {sorted(dup)[0]!r}")
    for ship in rules.fleet:
        if not shapes.placements(ship.cells, rules.rows, rules.cols, rules.reflections):
            h, w = shapes.extent(ship.cells)
            raise RulesError(f"ship {ship.name} ({h}x{w}) does not fit on a {rules.rows}x{rules.cols} board")
    if rules.ship_cells > rules.cells:
        raise RulesError(
            f"the fleet has {rules.ship_cells} cells but the {rules.rows}x{rules.cols} board has only {rules.cells}"
        )
    _check_packing(rules)
    if not _has_layout(rules):
        raise RulesError(
            f"no layout of the fleet fits on a {rules.rows}x{rules.cols} board with spacing "
            f"{rules.spacing.value} (searched every arrangement)"
        )


def _check_packing(rules: Rules) -> None:
    """Counting bounds: with a margin rule each ship claims more room than its own cells."""
    if rules.spacing is Spacing.TOUCH:
        return
    if rules.spacing is Spacing.NO_CONTACT:
        block = ((0, 0), (0, 1), (1, 0), (1, 1))
        need = sum(shapes.minkowski_size(s.cells, block) for s in rules.fleet)
        room = (rules.rows + 1) * (rules.cols + 1)
    else:

        def least(ship: Ship) -> int:
            return min(
                shapes.minkowski_size(o, ((0, 0), (0, 1)))
                for o in shapes.orientations(ship.cells, rules.reflections)
            )

        need = sum(least(s) for s in rules.fleet)
        room = rules.rows * (rules.cols + 1)
    if need > room:
        raise RulesError(
            f"the fleet cannot fit under spacing {rules.spacing.value}: with its margins it needs "
            f"{need} cells of an extended board that has {room}"
        )


_NODE_BUDGET = 200_000


def _has_layout(rules: Rules) -> bool:
    """Depth-first search for one valid layout; gives up (saying yes) after a node budget."""
    order = sorted(range(len(rules.fleet)), key=lambda i: -rules.fleet[i].size)
    placements = [rules.placements[i] for i in order]
    halos = [rules.halos[i] for i in order]
    nodes = 0

    def search(depth: int, blocked: int) -> bool:
        nonlocal nodes
        if depth == len(order):
            return True
        for mask, halo in zip(placements[depth], halos[depth], strict=True):
            nodes += 1
            if nodes > _NODE_BUDGET:
                return True  # not proven impossible; the generators will report if they fail
            if not mask & blocked and search(depth + 1, blocked | halo):
                return True
        return False

    return search(0, 0)


class _Presets(Mapping[str, tuple[str, Rules]]):
    """The presets by name, each ``(what it is, its rules)``; a preset's rules are built when first asked for."""

    def __init__(self, makers: dict[str, tuple[str, Callable[[], Rules]]]) -> None:
        self._makers = makers
        self._built: dict[str, tuple[str, Rules]] = {}

    def __getitem__(self, name: str) -> tuple[str, Rules]:
        if name not in self._built:
            text, make = self._makers[name]
            self._built[name] = (text, make())
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


PRESETS: Mapping[str, tuple[str, Rules]] = _Presets(_presets())
"""The rule presets by name, each with what it is (``battleship rules`` lists them):
``PRESETS["salvo"] == (description, rules)``; :func:`preset` reads one by name."""
