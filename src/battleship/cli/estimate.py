"""How long exact inference will take, said before it starts: the one place the commands ask.

Exact counting (``calc``, ``count``, ``replay``, the exact-play shooters) costs anything from a
millisecond to hours depending on the rules and the board. The commands call
:func:`exact_seconds` before they start and say so when the answer is far off, with what to do
instead (``--time`` for Monte Carlo, a smaller board). The figure is the engines' own estimate of
the work (:func:`battleship.inference.work`: the sweep's state graph, the search's candidate
combinations, the row engine's board), with rates measured on this project's 2-core machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.rules import Rules


def exact_seconds(rules: Rules, observation: Observation | None = None, repeated: bool = False) -> float:
    """A rough estimate of the seconds one exact count of ``observation``'s layouts takes (open board by default).

    Within a factor of a few: meant to tell a second from a minute from an hour, not to time a run.
    ``repeated``: the cost of each of many counts under the same rules (a game's turns), leaving out
    what is paid once per rules (compiling the sweep engine's state graph).
    """
    from battleship.inference import work

    needed = work(rules, observation)
    return needed.again if repeated else needed.seconds
