"""Opening books: the first shots of a deterministic shooter, chosen once, deeper than play affords.

A shooter whose ties follow a rule (``tie=first``) fires the same first shot every game, and after
each answer the same next one, so the first positions of its games recur game after game. An
opening book stores, for each of those positions, the cell found best by long rollouts over many
thousands of exact posterior samples (:mod:`battleship.lab.book` builds it); a shooter playing
``book=1`` fires the book's cell while the position is in the book and plays as itself once it is
not.

A book is data (JSON): the rules it was built for (their TOML without the name), the shooter specs it
serves (whose own choice it amends), and per position, keyed by the board-state text
(:meth:`battleship.game.Observation.text`), the cell to fire and the shooter's own cell there, with
what the builder measured. Books shipped with the package live in ``battleship/shooters/books``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from battleship.errors import BattleshipError
from battleship.rules import Rules

FORMAT = "battleship-opening-book"
VERSION = 1
PACKAGED = ("standard.json",)  # the books shipped in battleship/shooters/books


@dataclass(frozen=True)
class Entry:
    """One book position: the cell to fire, the shooter's own cell, and the evidence.

    ``gain`` is the measured mean shots saved per game from this position (on layouts independent of
    those the candidate was chosen on), ``error`` its standard error, ``reach`` the probability that
    a game of the book's player reaches the position, ``samples`` the layouts each figure is over.
    """

    cell: int
    base: int
    gain: float = 0.0
    error: float = 0.0
    reach: float = 0.0
    samples: int = 0


@dataclass(frozen=True)
class Book:
    """An opening book for one rule set, serving the shooter specs in ``serves``."""

    rules: str  # the rules' TOML without their name (see :func:`rules_identity`)
    serves: tuple[str, ...]
    entries: dict[str, Entry] = field(default_factory=dict)
    built: dict[str, Any] = field(default_factory=dict)  # how it was built (builder's settings)

    @cached_property
    def deepest(self) -> int:
        """The most shots on any of the book's boards: a board with more is off book (no lookup needed).
        A position is a board-state text whose grid comes first, a character a cell, ``.`` unknown and
        ``/`` between rows (the book holds no sunk ships)."""
        grids = (key.split(" ", 1)[0] for key in self.entries)
        return max((sum(ch not in "./" for ch in grid) for grid in grids), default=-1)

    def cell(self, position: str) -> int | None:
        """The book's cell for the board-state text ``position``, or None off book."""
        entry = self.entries.get(position)
        return None if entry is None else entry.cell

    def check(self, rules: Rules, shooter: str, where: str = "book") -> None:
        """Refuse, in one line, a book built for other rules or for another shooter."""
        if rules_identity(rules) != self.rules:
            raise BattleshipError(f"{where}: this opening book was built for other rules than {rules.name}")
        if shooter not in self.serves:
            raise BattleshipError(
                f"{where}: this opening book serves {', '.join(self.serves)}, not {shooter}"
            )

    def to_json(self) -> str:
        """The book as JSON text (positions in a fixed order, so a rebuild diffs cleanly)."""
        data = {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules,
            "serves": list(self.serves),
            "built": self.built,
            "positions": {
                key: {
                    "cell": e.cell,
                    "base": e.base,
                    "gain": round(e.gain, 4),
                    "error": round(e.error, 4),
                    "reach": round(e.reach, 6),
                    "samples": e.samples,
                }
                for key, e in sorted(self.entries.items())
            },
        }
        return json.dumps(data, indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the book to ``path``."""
        Path(path).write_text(self.to_json(), encoding="utf-8")


def rules_identity(rules: Rules) -> str:
    """What a book must match: the rules' TOML without their name (a renamed copy plays the same)."""
    return "\n".join(line for line in rules.to_toml().splitlines() if not line.startswith("name ="))


def read_book(text: str, where: str = "book") -> Book:
    """A book from its JSON text, every field checked: a clear one-line error naming ``where``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BattleshipError(f"{where}: not an opening book (bad JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BattleshipError(f'{where}: not an opening book (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise BattleshipError(f"{where}: opening book version {data.get('version')!r}; this reads {VERSION}")
    rules, serves, positions = data.get("rules"), data.get("serves"), data.get("positions")
    if (
        not isinstance(rules, str)
        or not isinstance(serves, list)
        or not all(isinstance(s, str) for s in serves)
    ):
        raise BattleshipError(f'{where}: an opening book needs "rules" (text) and "serves" (texts)')
    if not isinstance(positions, dict):
        raise BattleshipError(f'{where}: an opening book needs "positions" (an object)')
    built = data.get("built", {})
    entries = {key: _entry(key, value, where) for key, value in positions.items()}
    return Book(rules, tuple(serves), entries, built if isinstance(built, dict) else {})


def _entry(key: str, value: object, where: str) -> Entry:
    """One position's entry, checked."""
    if not isinstance(value, dict):
        raise BattleshipError(f"{where}: position {key!r} is not an object")
    cell, base = value.get("cell"), value.get("base")
    if (
        not isinstance(cell, int)
        or not isinstance(base, int)
        or isinstance(cell, bool)
        or cell < 0
        or base < 0
    ):
        raise BattleshipError(f'{where}: position {key!r} needs whole "cell" and "base" numbers')
    numbers = {k: value.get(k, 0) for k in ("gain", "error", "reach", "samples")}
    for k, v in numbers.items():
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise BattleshipError(f"{where}: position {key!r} has a {k} that is not a number: {v!r}")
    return Entry(cell, base, float(numbers["gain"]), float(numbers["error"]), float(numbers["reach"]),
                 int(numbers["samples"]))  # fmt: skip


def load_book(path: str | Path) -> Book:
    """A book from a file, or a clear error."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BattleshipError(f"{path}: cannot read the opening book ({exc.strerror})") from None
    return read_book(text, str(path))


_PACKAGED: dict[str, Book] = {}


def packaged_books() -> list[Book]:
    """The books shipped with the package (read once)."""
    for name in PACKAGED:
        if name not in _PACKAGED:
            text = resources.files("battleship.shooters").joinpath("books", name).read_text(encoding="utf-8")
            _PACKAGED[name] = read_book(text, f"battleship/shooters/books/{name}")
    return [_PACKAGED[name] for name in PACKAGED]


def has_book(rules: Rules, shooter: str) -> bool:
    """Whether a shipped book serves ``shooter`` (its spec without ``book``) under ``rules``."""
    identity = rules_identity(rules)
    return any(book.rules == identity and shooter in book.serves for book in packaged_books())


def book_for(rules: Rules, shooter: str) -> Book:
    """The shipped book for ``rules`` that serves ``shooter`` (its spec without ``book``), or a clear error."""
    identity = rules_identity(rules)
    books = packaged_books()
    for book in books:
        if book.rules == identity and shooter in book.serves:
            return book
    served = sorted({s for b in books if b.rules == identity for s in b.serves})
    if served:
        raise BattleshipError(
            f"{shooter}: book=1 has no opening book for this shooter under {rules.name}; "
            f"books there serve {', '.join(served)}"
        )
    raise BattleshipError(f"{shooter}: book=1 has no opening book for the rules {rules.name}")
