"""The limit when answers lie, and against a hider who cheats: exact values on small boards.

- :func:`noisy_optimum`: the fewest expected shots any strategy needs under ``[noise]`` rules (every
  answer flipped with probability ``e``), over uniform layouts: an expectimax over what the shooter
  knows. A state is how many times each cell has been fired at and the weight of each layout (its
  prior times the likelihood of the answers, zero once every one of its cells has been fired at,
  which would have ended the game). Its value, counted in layouts' weight (a shot costs the weight
  still in play),

      U(state) = W + min over cells c of  sum over answers a of  U(state after c answered a)

  is ``W`` times the expected shots left. A layout with ``k`` cells not fired at needs ``k`` more
  shots, so ``U >= sum of w * k`` (the bound that cuts the search: a cell is dropped once its
  answers' bounds reach the best so far; the memo keeps exact values and bounds). ``refire`` lets a
  cell be fired at up to ``1 + refire`` times: with ``refire = 0`` no cell is fired twice, and the
  difference between the two optima is what firing again can be worth.
- :func:`capacity_bound`: the channel-capacity lower bound on the shots that identify the layout, as
  in the noisy Battleship studies: ``log2(layouts) / (1 - H(e))`` (each answer carries at most
  ``1 - H(e)`` bits, ``H`` the binary entropy).
- the game value against a cheating hider: :func:`battleship.inference.minimax.game_value`.

Only small boards finish (a few dozen layouts without announcements; the states grow with the
answers' weights, which no two shot orders need share).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from battleship.errors import BattleshipError
from battleship.inference.minimax import every_layout
from battleship.rules import Rules, Sinks, Telling
from battleship.stop import Stop

MAX_LAYOUTS = 500  # layouts the noisy optimum is solved for, at most
DEFAULT_STATES = 3_000_000  # states the search may solve before it gives up
DIGITS = 12  # weights are rounded to this many digits in the memo's keys (orders of shots that give the same)


@dataclass(frozen=True)
class NoisyOptimum:
    """The exact optimum under noise of a small rule set."""

    layouts: int
    shots: float  # fewest expected shots over uniform layouts
    first_cell: int  # a best first shot
    states: int  # states solved
    seconds: float
    refire: int  # times a cell may be fired at again


def capacity_bound(layouts: int, flip: float) -> float:
    """``log2(layouts) / (1 - H(flip))``: the fewest answers that can identify one of ``layouts`` equally
    likely layouts through a channel that flips each answer with probability ``flip``."""
    if flip <= 0:
        return math.log2(layouts)
    entropy = -flip * math.log2(flip) - (1 - flip) * math.log2(1 - flip)
    return math.log2(layouts) / (1 - entropy)


class NoisySolver:
    """The expectimax of :func:`noisy_optimum` over a list of layouts (per-ship masks)."""

    def __init__(
        self,
        rules: Rules,
        layouts: list[tuple[int, ...]],
        refire: int = 0,
        budget: int = DEFAULT_STATES,
        stop: Stop | None = None,
    ):
        if rules.noise is None:
            raise BattleshipError("the noisy optimum is for [noise] rules")
        self.rules, self.refire, self.budget, self.stop = rules, refire, budget, stop
        self.flip = rules.flip
        self.told = 1.0 - self.flip if rules.noise.sinkings is Telling.NOISY else 1.0
        n, cells = len(layouts), rules.cells
        self.layouts = layouts
        self.occupied = np.zeros((n, cells), dtype=bool)
        self.ship_at = np.full((n, cells), -1, dtype=np.int64)
        for i, layout in enumerate(layouts):
            for s, mask in enumerate(layout):
                for c in range(cells):
                    if mask >> c & 1:
                        self.occupied[i, c] = True
                        self.ship_at[i, c] = s
        self.states = 0
        self._memo: dict[tuple[tuple[int, ...], bytes], tuple[float, bool]] = {}

    def _answers(self, weight: np.ndarray, visits: tuple[int, ...], cell: int) -> list[np.ndarray]:
        """The layouts' weights after each answer a shot at ``cell`` may get (not yet cleared of layouts the
        shot ends the game on)."""
        e, rules = self.flip, self.rules
        on = self.occupied[:, cell]
        plain_hit = np.where(on, 1 - e, e)
        out: dict[object, np.ndarray] = {"miss": weight * (1 - plain_hit), "hit": weight * plain_hit}
        if rules.sinks is not Sinks.NONE and visits[cell] == 0:
            fired = np.array([v > 0 for v in visits]) | (np.arange(rules.cells) == cell)
            for i in np.flatnonzero(on & (weight > 0)):
                ship = int(self.ship_at[i, cell])
                if not fired[self.ship_at[i] == ship].all():
                    continue  # this shot does not complete its ship
                key = {Sinks.SUNK: "sunk", Sinks.NAMED: ship, Sinks.REVEALED: self.layouts[i][ship]}[
                    rules.sinks
                ]
                sunk = out.setdefault(("sunk", key), np.zeros_like(weight))
                sunk[i] = weight[i] * self.told
                out["hit"][i] = 0.0
                out["miss"][i] = weight[i] * (1 - self.told)
        return [w for w in out.values() if w.any()]

    def _left(self, visits: tuple[int, ...]) -> np.ndarray:
        """Per layout, its cells not fired at yet."""
        unfired = np.array([v == 0 for v in visits])
        return (self.occupied & unfired).sum(axis=1)

    def solve(
        self, weight: np.ndarray, visits: tuple[int, ...], bound: float = math.inf
    ) -> tuple[float, int]:
        """``(U, best cell)`` of the state, exact when below ``bound`` (else a value at least ``bound``)."""
        left = self._left(visits)
        weight = np.where(left > 0, weight, 0.0)  # a layout fired at whole has ended the game
        total = float(weight.sum())
        if total <= 0:
            return 0.0, -1
        key = (visits, np.round(weight / weight.max(), DIGITS).tobytes())
        scale = float(weight.max())
        known = self._memo.get(key)
        if known is not None and (known[1] or known[0] * scale >= bound):
            return known[0] * scale, -1
        self._count()
        floor = float((weight * left).sum())
        if floor >= bound:
            return floor, -1
        best, best_cell = math.inf, -1
        for cell in self._order(weight, visits):
            after = (*visits[:cell], visits[cell] + 1, *visits[cell + 1 :])
            children = self._answers(weight, visits, cell)
            bounds = [float((w * self._left(after)).sum()) for w in children]
            value = total + sum(bounds)
            if value >= min(best, bound):
                continue
            value = total
            for i, w in enumerate(children):
                rest = sum(bounds[i + 1 :])
                part = self.solve(w, after, min(best, bound) - value - rest)[0]
                value += part
                if value + rest >= min(best, bound):
                    value += rest
                    break
            if value < best:
                best, best_cell = value, cell
        exact = best < bound
        # cut short, the state is worth at least the bound (not the best found: a cell skipped on its answers'
        # bounds may be worth less than that, though no less than the bound)
        value = best if exact else bound
        self._memo[key] = (value / scale, exact)
        return value, best_cell

    def _order(self, weight: np.ndarray, visits: tuple[int, ...]) -> list[int]:
        """Cells worth a shot, likeliest new cells first, then cells fired at before (up to ``refire`` again)."""
        chance = (weight[:, None] * self.occupied).sum(axis=0)
        fresh = [c for c in range(self.rules.cells) if visits[c] == 0 and chance[c] > 0]
        again = [c for c in range(self.rules.cells) if 0 < visits[c] <= self.refire]
        return sorted(fresh, key=lambda c: -chance[c]) + again

    def _count(self) -> None:
        """One more state: give up past the budget, and read the stop flag now and then."""
        self.states += 1
        if self.states > self.budget:
            raise BattleshipError(
                f"the noisy optimum needs more than {self.budget:,} states here ({len(self.layouts):,} layouts): "
                "try a smaller board or fleet"
            )
        if self.stop is not None and self.states % 1024 == 0:
            self.stop.check()


def noisy_optimum(
    rules: Rules, refire: int = 0, budget: int = DEFAULT_STATES, stop: Stop | None = None
) -> NoisyOptimum:
    """Solve the whole game under noise from the empty board (see the module docstring)."""
    if rules.noise is None:
        raise BattleshipError(f"{rules.name} has no [noise]: battleship limit solves its honest game")
    if rules.salvo is not None:
        raise BattleshipError("the noisy optimum is solved for one shot a turn, not for [salvo] rules")
    layouts = every_layout(rules)
    if len(layouts) > MAX_LAYOUTS:
        raise BattleshipError(
            f"{len(layouts):,} layouts: the noisy optimum is solved on small boards (at most {MAX_LAYOUTS:,} layouts)"
        )
    start = time.perf_counter()
    solver = NoisySolver(rules, layouts, refire, budget, stop)
    weight = np.full(len(layouts), 1.0 / len(layouts))
    value, first = solver.solve(weight, (0,) * rules.cells)
    return NoisyOptimum(len(layouts), value, first, solver.states, time.perf_counter() - start, refire)
