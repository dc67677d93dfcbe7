"""How long exact inference will take, said before it starts: the commands' side of
:mod:`battleship.inference.cost`, where the estimates live (the library's front door says the same).

The commands call :func:`exact_seconds` before they start and say so when the answer is far off,
with what to do instead (``--time`` for Monte Carlo, a smaller board); :func:`game_seconds` is a
whole game of exact play in a run of many games, its graph compiled where Ctrl-C stops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battleship.inference.cost import GAME_ANSWERS, exact_seconds

if TYPE_CHECKING:
    from battleship.rules import Rules

__all__ = ["GAME_ANSWERS", "exact_seconds", "game_seconds"]


def game_seconds(rules: Rules) -> float:
    """:func:`battleship.inference.cost.game_seconds`, compiling the sweep's graph (if it must) under the
    command's interrupt session, so that Ctrl-C stops it."""
    from battleship.cli.interrupts import current
    from battleship.inference.cost import game_seconds as seconds_of_a_game

    s = current()
    return seconds_of_a_game(rules, run=lambda job: s.run(lambda: job(s.stop)))
