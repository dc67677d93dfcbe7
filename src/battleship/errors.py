"""Errors that tell the user what went wrong and where."""

from __future__ import annotations


class BattleshipError(ValueError):
    """Base class: bad input that the user can fix."""


class RulesError(BattleshipError):
    """A rules file or fleet that cannot be played."""


class LayoutError(BattleshipError):
    """A layout that breaks the rules (overlap, off-board, spacing)."""


class IllegalShot(BattleshipError):
    """A shot that the referee refuses (repeated or off the board)."""


class NotationError(BattleshipError):
    """Text that does not parse; knows the line and column (1-based) of the problem."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.reason = message
        self.line = line
        self.column = column
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__(where + message)
