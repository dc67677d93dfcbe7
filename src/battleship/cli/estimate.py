"""How long exact inference will take, said before it starts: the one place the commands ask.

Exact counting (``calc``, ``count``, ``replay``, the exact-play shooters) costs anything from a
millisecond to hours depending on the rules and the board. The commands call
:func:`exact_seconds` before they start and say so when the answer is far off, with what to do
instead (``--time`` for Monte Carlo, a smaller board). Until the inference engines give their own
estimate of the work, it is read off the bounds they already compute
(:func:`battleship.inference.posterior.choices`) and the engine they would choose, with rates
measured on this project's 2-core machine; swap the body of :func:`exact_seconds` when they do.
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.rules import Rules

# measured on one core of the project's machine (benchmarks/posterior.py, and the open boards):
ROWS_SECONDS = 0.5  # the row engine counts any board it takes in well under a second
SEARCH_RATE = 3e10  # candidate combinations a second the search gets through (pirates' open board: 2.5 s)
# the profile engine's states grow with the ways a row of cells can be crossed by ships (about
# PROFILE_BASE to the number of columns) times the ways to have placed some of each class of ships:
# Sea Battle's open board (10 columns, 120 class counts) took 51 s, a 12x12 no-edge board with
# ships 5, 4, 4, 3, 3, 2 (36 class counts) 195 to 345 s
PROFILE_BASE = 4.0
PROFILE_SCALE = 51.0 / (120 * PROFILE_BASE**10)


def exact_seconds(rules: Rules, observation: Observation | None = None) -> float:
    """A rough estimate of the seconds one exact count of ``observation``'s layouts takes (open board by default).

    Within a factor of a few: meant to tell a second from a minute from an hour, not to time a run.
    """
    from battleship.game import Observation
    from battleship.inference import evidence
    from battleship.inference.posterior import choices, choose_engine

    ev = evidence(rules, observation or Observation(rules))
    engine = choose_engine(rules, ev)
    if engine == "rows":
        return ROWS_SECONDS
    if engine == "search":
        return choices(rules, ev) / SEARCH_RATE
    classes: dict[int, int] = {}
    for ship in rules.fleet:
        classes[ship.size] = classes.get(ship.size, 0) + 1
    return PROFILE_SCALE * prod(n + 1 for n in classes.values()) * PROFILE_BASE**rules.cols
