"""The arena's line protocol, version 1: what the referee says to a bot, and what a bot may answer.

In the spirit of chess's UCI: plain lines of words on the bot's stdin and stdout. The referee sends
the rules once, then for each game ``newgame``, and for each shot ``shoot`` (the bot answers a cell
name) followed by ``result`` (the referee's answer). docs/arena-protocol.md is the reference, with a
transcript; both sides of it live here, so the referee and the Python host cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from battleship import shapes
from battleship.cells import cell_name, iter_cells, parse_cell
from battleship.errors import BattleshipError
from battleship.game import Outcome, Shot
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing

VERSION = 1
GREETING = f"battleship {VERSION}"
CELL_NAME = re.compile(r"[A-Za-z]{1,2}[1-9][0-9]{0,2}")  # a cell name as parse_cell reads one
MAX_LINE = 4096  # longest line a bot may send, in bytes: a longer one is nonsense, not a shot


# why a bot lost a game, as the leaderboard counts them (docs/arena-protocol.md says each)
CAUSES = ("start", "crash", "time", "cpu", "malformed", "off-board", "repeat", "layout")


class ProtocolError(BattleshipError):
    """A message that breaks the protocol (the text says what and where)."""


class BotFault(Exception):
    """A bot broke a rule of the arena: ``cause`` is one of :data:`CAUSES`, ``detail`` says how."""

    def __init__(self, cause: str, detail: str):
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail


# ---- the referee's side ---------------------------------------------------------------------------
def rules_lines(rules: Rules) -> list[str]:
    """The rules block the referee sends once, after the greeting."""
    lines = [
        f"rules {rules.name}",
        f"board {rules.rows} {rules.cols}",
        f"spacing {rules.spacing.value}",
        f"sinks {rules.sinks.value}",
        f"reflections {'yes' if rules.reflections else 'no'}",
    ]
    lines += [f"ship {s.symbol} {s.size} {shapes.render(s.cells)} {s.name}" for s in rules.fleet]
    return [*lines, "end"]


def result_line(shot: Shot, rules: Rules) -> str:
    """The referee's answer to a shot, as much as the rules let it say."""
    words = ["result", cell_name(shot.cell, rules.cols), shot.outcome.value]
    if shot.ship is not None:
        words.append(rules.fleet[shot.ship].symbol)
    if shot.cells:
        words.append(",".join(cell_name(c, rules.cols) for c in iter_cells(shot.cells)))
    return " ".join(words)


CHATTER = ("info", "name", "author", "debug")  # first words of lines the referee skips


def is_chatter(line: str) -> bool:
    """Lines a bot may send at any time and the referee skips: ``info``, ``name``, ``author``, ``debug``,
    alone or followed by a space and any text. Every other line answers what the referee asked."""
    word = line.split(" ", 1)[0]
    return word in CHATTER


def read_shot(line: str, rules: Rules) -> int:
    """The cell a bot's answer to ``shoot`` names; a ``malformed`` or ``off-board`` :class:`BotFault` if none."""
    text = line.strip()
    try:
        return parse_cell(text, rules.rows, rules.cols)
    except BattleshipError as exc:
        cause = "off-board" if CELL_NAME.fullmatch(text) else "malformed"
        raise BotFault(cause, f"answered {_quote(line)} to 'shoot': {exc}") from None


def read_layout(line: str, rules: Rules) -> Layout | None:
    """The layout a bot's answer to ``place`` gives, or None for ``layout random``; a ``layout``
    :class:`BotFault` if the answer is not a valid layout of ``rules``."""
    words = line.split()
    if len(words) != 2 or words[0] != "layout":
        raise BotFault(
            "layout", f"answered {_quote(line)} to 'place': expected 'layout TEXT' or 'layout random'"
        )
    if words[1] == "random":
        return None
    try:
        return Layout.from_text(words[1], rules)
    except BattleshipError as exc:
        raise BotFault("layout", f"answered {_quote(line)} to 'place': {exc}") from None


def _quote(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


# ---- the bot's side (what the Python host reads) --------------------------------------------------
@dataclass
class RulesReader:
    """Reads the rules block line by line; :attr:`rules` is set once ``end`` arrives."""

    name: str = "custom"
    rows: int = 0
    cols: int = 0
    spacing: str = "touch"
    sinks: str = "named"
    reflections: bool = False
    ships: list[Ship] | None = None  # None until the block's ``rules`` line
    rules: Rules | None = None

    def feed(self, line: str) -> None:
        """Take one line of the block."""
        word, _, rest = line.partition(" ")
        if word == "rules":
            self.name, self.ships = rest or "custom", []
        elif word == "board":
            self.rows, self.cols = (int(v) for v in rest.split())
        elif word in ("spacing", "sinks"):
            setattr(self, word, rest)
        elif word == "reflections":
            self.reflections = rest == "yes"
        elif word == "ship":
            symbol, _size, shape, name = rest.split(" ", 3)
            self._ships_so_far(word).append(Ship(name, symbol, shapes.parse(shape)))
        elif word == "end":
            self.rules = Rules(
                self.rows,
                self.cols,
                tuple(self._ships_so_far(word)),
                Spacing(self.spacing),
                Sinks(self.sinks),
                self.reflections,
                self.name,
            )

    def _ships_so_far(self, word: str) -> list[Ship]:
        if self.ships is None:
            raise ProtocolError(f"{word!r} before the 'rules' line that opens the rules block")
        return self.ships


def read_result(line: str, rules: Rules) -> Shot:
    """The :class:`Shot` a ``result`` line reports."""
    words = line.split()
    if len(words) < 3 or words[0] != "result":
        raise ProtocolError(f"expected 'result CELL miss|hit|sunk ...', not {_quote(line)}")
    cell = parse_cell(words[1], rules.rows, rules.cols)
    outcome = Outcome(words[2])
    ship = rules.ship_index(words[3]) if len(words) > 3 else None
    mask = 0
    if len(words) > 4:
        for name in words[4].split(","):
            mask |= 1 << parse_cell(name, rules.rows, rules.cols)
    return Shot(cell, outcome, ship, mask)
