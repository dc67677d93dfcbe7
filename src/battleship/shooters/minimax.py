"""Against a hider who cheats: the cell whose worst answer leaves the fewest layouts, or exact minimax play.

A cheating hider (``[hider] kind = "adversarial"``) answers each shot with whatever keeps the game
longest, so what a shot is worth is its worst answer. ``minimax`` fires at the cell whose answer
that keeps the most layouts alive keeps the fewest (it removes the most layouts in the worst case),
ties going to the cell most likely to hold a ship, then by the tie rule; with ``exact=N``, on boards
of at most ``N`` layouts in all (:data:`battleship.inference.minimax.MAX_LAYOUTS` at most) it plays
the game solved exactly (:mod:`battleship.inference.minimax`): a cell that keeps the worst case at
the game's value. Against an honest hider it plays too, as a cautious shooter.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import count, posterior
from battleship.inference.hider import answer_counts
from battleship.inference.minimax import Minimax, every_layout
from battleship.rng import kernel_state
from battleship.rules import Rules
from battleship.shooters.choice import choose
from battleship.shooters.options import TIES, Named, Options


@lru_cache(maxsize=4)
def solved_game(rules: Rules) -> Minimax:
    """The exact game of ``rules`` (honest ones), kept between games: the bounds it has proven hold for
    every game of these rules, so a run solves each state once."""
    return Minimax(rules, every_layout(rules))


class MinimaxShooter(Named):
    """Fires where the worst answer leaves fewest layouts; exact minimax play on small boards (``exact=N``)."""

    name = "minimax"

    def __init__(self, options: Options | None = None):
        self.options = options or Options()

    @staticmethod
    def refusal(rules: Rules) -> str | None:
        """Why minimax cannot play ``rules``, or None."""
        if rules.salvo is not None:
            return f"minimax plays the one-shot game only, not the [salvo] rules of {rules.name}"
        return None

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules, seed the tie-break stream and, with ``exact=N`` on a board of at most ``N``
        layouts, build the exact game."""
        why = self.refusal(rules)
        if why:
            raise BattleshipError(why)
        self._rules = rules
        self._base = rules.honest()
        self._state = kernel_state(rng)
        self._solver: Minimax | None = None
        if self.options.exact and count(self._base)[0] <= self.options.exact:
            self._solver = solved_game(self._base)

    def next_shot(self, observation: Observation) -> int:
        """The cell of the smallest worst case (see the module docstring)."""
        rules, base = self._rules, self._base
        honest = Observation(base, observation.shots)
        eligible = np.ones(rules.cells, dtype=np.bool_)
        eligible[[s.cell for s in observation.shots]] = False
        if self._solver is not None:
            best = self._solver.best_cells(*self._solver.state(honest))
            if best:
                eligible &= np.isin(np.arange(rules.cells), best)
        result = posterior(base, honest)
        chance = result.probability.ravel()
        worst = np.full(rules.cells, np.inf)
        for cell in np.flatnonzero(eligible):
            worst[cell] = max(n for _, n in answer_counts(base, honest, int(cell), result))
        least = worst[eligible].min()
        eligible &= worst == least
        score = np.round(chance * 1e12).astype(np.int64)  # ties: the likelier cell, then the tie rule
        cell = choose(
            score,
            np.empty(0, dtype=np.int64),
            eligible,
            rules.rows,
            rules.cols,
            TIES[self.options.tie],
            self._state,
        )
        return int(cell)
