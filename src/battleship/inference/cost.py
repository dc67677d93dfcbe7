"""How long exact inference will take, known before it starts: what the commands and the front door say.

Exact counting costs anything from a millisecond to hours depending on the rules and the board.
:func:`exact_seconds` is the engines' own estimate of one answer
(:func:`battleship.inference.posterior.work`: the sweep's state graph, the search's candidate
combinations, the row engine's board), with rates measured on this project's 2-core machine;
:func:`game_seconds` is a whole game of exact play in a run of many games. The commands
(:mod:`battleship.cli.estimate`) and :func:`battleship.posterior` use them to say so up front.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.rules import Rules
    from battleship.stop import Stop

SAY_ABOVE = 2.0  # seconds: an answer expected to take longer is announced before it starts


def exact_seconds(rules: Rules, observation: Observation | None = None, repeated: bool = False) -> float:
    """A rough estimate of the seconds one exact count of ``observation``'s layouts takes (open board by default).

    Within a factor of a few: meant to tell a second from a minute from an hour, not to time a run.
    ``repeated``: the cost of each of many counts under the same rules (a game's turns), leaving out
    what is paid once per rules (compiling the sweep engine's state graph).
    """
    from battleship.inference.posterior import work

    needed = work(rules, observation)
    return needed.again if repeated else needed.seconds


# A whole game of exact greedy play (the `optimal` shooter), in a run of many games, costs about
# this many answers of one board as :func:`battleship.inference.posterior.work` foresees them once
# compiled (its ``again``): the mean CPU time of a game over that figure, measured with
# `benchmarks/optimal_game.py --rules R` (docs/design/inference.md, "Speed"): `pirates` 3.1-3.4, Sea
# Battle 3.7, standard 7.0 (the search: not measured, the old figure). A game costs a few answers,
# not one per turn: most turns after the first hits are cheap, and the boards with misses only (a
# deterministic shooter's opening) are answered once per run and kept
# (:func:`battleship.inference.posterior.posterior`). The frontier engine answers as the sweep does
# (the same passes over a compiled graph): the sweep's figure, not measured for it.
GAME_ANSWERS = {"rows": 7.0, "sweep": 3.5, "frontier": 3.5, "search": 10.0}


def _at_once(job: Callable[[Stop | None], Any]) -> Any:
    return job(None)


def game_seconds(rules: Rules, run: Callable[[Callable[[Stop | None], Any]], Any] = _at_once) -> float:
    """A rough estimate of the seconds of exact inference in one game of exact play under ``rules``,
    in a run of many games (what is paid once per rules or once per run left out).

    The sweep engine's graph is compiled first if it is not yet (the run's first game would
    compile it anyway): before that its size is only a likely figure, 2.3 times the real one for
    `pirates`, which made the estimate that much too high. ``run`` runs that compilation, handed
    the job (a function of a :class:`~battleship.stop.Stop`): a command runs it where Ctrl-C stops it.
    """
    from battleship.inference.posterior import posterior, work

    needed = work(rules)
    if needed.engine in ("sweep", "frontier") and needed.once:
        run(lambda stop: posterior(rules, stop=stop))  # the open board: every game starts from it
        needed = work(rules)
    return needed.again * GAME_ANSWERS[needed.engine]


def duration(seconds: float) -> str:
    """Seconds as a person says them: ``40 s``, ``12 min``, ``3 h``, ``5 days`` (as every command says them)."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:,.0f} days"
