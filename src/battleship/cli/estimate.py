"""How long exact inference will take, said before it starts: the one place the commands ask.

Exact counting (``calc``, ``count``, ``replay``, the exact-play shooters) costs anything from a
millisecond to hours depending on the rules and the board. The commands call
:func:`exact_seconds` before they start and say so when the answer is far off, with what to do
instead (``--time`` for Monte Carlo, a smaller board). The figure is the engines' own estimate of
the work (:func:`battleship.inference.work`: the sweep's state graph, the search's candidate
combinations, the row engine's board), with rates measured on this project's 2-core machine.
:func:`game_seconds` is a whole game of exact play in a run of many games.
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


# A whole game of exact greedy play (the `optimal` shooter), in a run of many games, costs about
# this many answers of one board as :func:`battleship.inference.work` foresees them once compiled
# (its ``again``): the mean CPU time of a game over that figure, measured with
# `benchmarks/optimal_game.py --rules R` (docs/inference.md, "Speed"): `pirates` 3.1-3.4, Sea
# Battle 3.7, standard 7.0 (the search: not measured, the old figure). A game costs a few answers,
# not one per turn: most turns after the first hits are cheap, and the boards with misses only (a
# deterministic shooter's opening) are answered once per run and kept
# (:func:`battleship.inference.posterior`).
GAME_ANSWERS = {"rows": 7.0, "sweep": 3.5, "search": 10.0}


def game_seconds(rules: Rules) -> float:
    """A rough estimate of the seconds of exact inference in one game of exact play under ``rules``,
    in a run of many games (what is paid once per rules or once per run left out).

    The sweep engine's graph is compiled first if it is not yet (the run's first game would
    compile it anyway; Ctrl-C stops it): before that its size is only a likely figure, 2.3 times
    the real one for `pirates`, which made the estimate that much too high.
    """
    from battleship.cli.interrupts import current
    from battleship.inference import posterior, work

    needed = work(rules)
    if needed.engine == "sweep" and needed.once:
        s = current()
        s.run(lambda: posterior(rules, stop=s.stop))  # the open board: every game starts from it
        needed = work(rules)
    return needed.again * GAME_ANSWERS[needed.engine]
