"""Errors that tell the user what went wrong and where."""

from __future__ import annotations


class BattleshipError(ValueError):
    """Bad input that the user can fix, said in one line: what is wrong and where.

    The base of every error the package raises on purpose (a ``ValueError``, so code that expects
    one keeps working); the command line prints it without a traceback.

    Examples
    --------
    >>> import battleship as bs
    >>> try:
    ...     bs.preset("nonesuch")
    ... except bs.BattleshipError as exc:
    ...     print(type(exc).__name__, "-", str(exc)[:27])
    RulesError - no preset named 'nonesuch';
    """


class RulesError(BattleshipError):
    """A rules file or fleet that cannot be played.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.Rules(2, 2, (bs.Ship.line("Carrier", "C", 5),))
    Traceback (most recent call last):
    ...
    battleship.errors.RulesError: ship Carrier (1x5) does not fit on a 2x2 board
    """


class LayoutError(BattleshipError):
    """A layout that breaks the rules (overlap, off-board, spacing).

    Examples
    --------
    >>> import battleship as bs
    >>> rules = bs.Rules(1, 3, (bs.Ship.line("Destroyer", "D", 2), bs.Ship.line("Boat", "B", 1)))
    >>> bs.Layout(rules, (0b011, 0b001))
    Traceback (most recent call last):
    ...
    battleship.errors.LayoutError: ...
    """


class IllegalShot(BattleshipError):
    """A shot that the referee refuses: off the board, repeated, after the game, or a salvo of the
    wrong size.

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("standard", seed=7))
    >>> _ = game.fire("E5")
    >>> game.fire("e5")
    Traceback (most recent call last):
    ...
    battleship.errors.IllegalShot: E5 has been fired at already
    """


class NotationError(BattleshipError):
    """Text that does not parse; knows the line and column (from 1) of the problem.

    Parameters
    ----------
    message : str
        What is wrong.
    line, column : int, optional
        Where, from 1.

    Examples
    --------
    >>> import battleship as bs
    >>> try:
    ...     bs.Observation.from_text("....q", bs.Rules(1, 5, (bs.Ship.line("Boat", "B", 1),)))
    ... except bs.NotationError as exc:
    ...     print(exc.line, exc.column, exc.reason[:18])
    1 5 'q' is not allowed
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.reason = message
        self.line = line
        self.column = column
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__(where + message)
