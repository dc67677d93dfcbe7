"""The end of a game solved exactly: the fewest expected shots to sink every ship, once few layouts remain.

With the consistent layouts listed, the expected number of shots left under the best play is

    E(S) = 0                                  when every ship cell has been hit,
    E(S) = 1 + min over cells c of  sum over answers a of  P(a) * E(S_a)

where ``S_a`` are the layouts that answer ``a`` to a shot at ``c`` (miss, hit, or the sinking the
rules announce). A cell every layout puts a ship on is fired at first without a search: it must be
fired at some time, and firing it earlier can only tell more. Branches are cut when their partial
sum already exceeds the best cell's, and every state is solved once (memo on the shots and the
layouts left). The search gives up (returns None) past a node budget, so a caller can fall back.
"""

from __future__ import annotations

from battleship.rules import Rules, Sinks


class _OutOfBudget(Exception):
    """The search visited more states than it was allowed."""


def _answer(rules: Rules, ships: tuple[int, ...], shots: int, cell: int) -> object:
    """What the referee answers to a shot at ``cell`` on the layout ``ships`` (masks), after ``shots``."""
    bit = 1 << cell
    for s, mask in enumerate(ships):
        if mask & bit:
            if rules.sinks is Sinks.NONE or mask & ~(shots | bit):
                return "hit"
            return {Sinks.SUNK: "sunk", Sinks.NAMED: ("sunk", s), Sinks.REVEALED: ("sunk", mask)}[rules.sinks]
    return "miss"


class Solver:
    """Expected shots left under the best play, over an explicit list of layouts (tuples of masks)."""

    def __init__(self, rules: Rules, budget: int = 5_000):
        self.rules = rules
        self.budget = budget
        self.memo: dict[tuple[int, frozenset[int]], tuple[float, int]] = {}
        self.visits = 0

    def solve(self, layouts: list[tuple[int, ...]], shots: int) -> tuple[float, int] | None:
        """(expected shots left, best cell) for these layouts after ``shots``; None past the budget."""
        self.layouts = layouts
        self.unions = [sum(ships) for ships in layouts]
        try:
            return self._value(frozenset(range(len(layouts))), shots)
        except _OutOfBudget:
            return None

    def _value(self, left: frozenset[int], shots: int) -> tuple[float, int]:
        key = (shots, left)
        if key in self.memo:
            return self.memo[key]
        self.visits += 1
        if self.visits > self.budget:
            raise _OutOfBudget
        unhit = [self.unions[i] & ~shots for i in left]
        if not unhit[0]:
            return 0.0, -1
        if len(left) == 1:  # known layout: one shot per unhit cell
            return float(bin(unhit[0]).count("1")), (unhit[0] & -unhit[0]).bit_length() - 1
        common = unhit[0]
        anywhere = 0
        for u in unhit:
            common &= u
            anywhere |= u
        if common:  # a sure hit: fire it first
            cell = (common & -common).bit_length() - 1
            value = 1 + self._expect(left, shots, cell, float("inf"))
            self.memo[key] = (value, cell)
            return value, cell
        floor = self._floor(list(left), shots)
        cells = [c for c in range(self.rules.cells) if anywhere >> c & 1]
        cells.sort(key=lambda c: -sum(u >> c & 1 for u in unhit))
        best, best_cell = float("inf"), cells[0]
        for cell in cells:
            value = 1 + self._expect(left, shots, cell, best - 1)
            if value < best:
                best, best_cell = value, cell
                if best <= floor:
                    break
        self.memo[key] = (best, best_cell)
        return best, best_cell

    def _floor(self, group: list[int], shots: int) -> float:
        """A lower bound on a state's value: its unhit ship cells, plus the next shot's least miss chance."""
        unhit = [self.unions[i] & ~shots for i in group]
        floor = bin(unhit[0]).count("1")
        if len(group) == 1 or not floor:
            return float(floor)
        anywhere = 0
        for u in unhit:
            anywhere |= u
        most = max(sum(u >> c & 1 for u in unhit) for c in range(anywhere.bit_length()) if anywhere >> c & 1)
        return floor + 1 - most / len(group)

    def _expect(self, left: frozenset[int], shots: int, cell: int, bound: float) -> float:
        """Expected shots after firing at ``cell``; inf as soon as it must exceed ``bound``."""
        groups: dict[object, list[int]] = {}
        for i in left:
            groups.setdefault(_answer(self.rules, self.layouts[i], shots, cell), []).append(i)
        n = len(left)
        after = shots | 1 << cell
        total = 0.0
        floors = {a: self._floor(g, after) * len(g) / n for a, g in groups.items()}
        slack = sum(floors.values())
        if slack > bound:
            return float("inf")
        for answer, group in groups.items():
            slack -= floors[answer]
            value, _ = self._value(frozenset(group), after)
            total += value * len(group) / n
            if total + slack > bound:
                return float("inf")
        return total
