"""The exact optimum of a small salvo board: the fewest expected turns any strategy can average.

Each turn the shooter fires a set of K free cells (the rules' salvo for a whole fleet, since nobody
fires back; fewer when fewer cells are left) and hears the answer the rules give: every shot on its
own (``each``, in the order of the cells on the board), the hits on each ship (``ships``) or only
their number (``count``), with the sinkings the sink rule announces. The game ends once every ship
cell is hit. :class:`SalvoSolver` is an expectimax over what the shooter knows: the cells fired and
the layouts still consistent with every answer, all layouts equally likely to start with.

Two facts keep it small without changing the answer: cells no consistent layout uses are alike (one
stands for all), and under answers shot by shot one is fired only to fill a salvo (firing a cell that
may hold a ship instead never does worse: it tells at least as much and hits sooner; a count mixes
the cells of a salvo, so there a wasted shot is tried too); once one layout is left, it takes
``ceil(unhit cells / K)`` turns. Salvos
whose lower bound cannot beat the best found so far are not searched. The tests check it against a
plain expectimax that replays every salvo with the referee.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from battleship.cells import iter_cells
from battleship.errors import BattleshipError
from battleship.rules import Answers, Rules, Sinks
from battleship.stop import Stop

Layouts = Sequence[tuple[int, ...]]  # each layout as its ships' bitboards, in fleet order


@dataclass(frozen=True)
class SalvoOptimum:
    """Expected turns under optimal play from the empty board, and a best first salvo."""

    layouts: int
    turns: float
    first_salvo: tuple[int, ...]
    states: int
    seconds: float


def answer(
    rules: Rules, ships: tuple[int, ...], fired: int, salvo: tuple[int, ...], where: Sequence[int] = ()
) -> tuple:
    """What the referee says to ``salvo`` (cells in the order fired) on a layout after ``fired``, as a
    comparable key: equal keys for two layouts mean the shooter cannot tell them apart by it.

    ``where``: the layout's ship index on each cell (-1 for water), when the caller has it."""
    sinks, answers = rules.sinks, rules.answers
    hit = fired & _union(ships)
    if answers is Answers.EACH:
        said: list[object] = []
        for cell in salvo:
            bit = 1 << cell
            if where:
                ship: int | None = where[cell] if where[cell] >= 0 else None
            else:
                ship = next((i for i, m in enumerate(ships) if m & bit), None)
            if ship is None:
                said.append(0)
                continue
            hit |= bit
            sinks_it = hit & ships[ship] == ships[ship] and sinks is not Sinks.NONE
            said.append(_sinking(sinks, ship, ships[ship]) if sinks_it else 1)
        return tuple(said)
    salvo_mask = sum(1 << c for c in salvo)
    per_ship = tuple((m & salvo_mask).bit_count() for m in ships)
    after = hit | (salvo_mask & _union(ships))
    sunk = [i for i, m in enumerate(ships) if after & m == m and hit & m != m]
    told: tuple = ()
    if sinks is Sinks.SUNK:
        told = (len(sunk),)
    elif sinks is not Sinks.NONE:
        told = tuple(_sinking(sinks, i, ships[i]) for i in sunk)
    return (per_ship if answers is Answers.SHIPS else sum(per_ship), told)


def _sinking(sinks: Sinks, ship: int, mask: int) -> tuple:
    """A sinking as the sink rule announces it: unnamed, named, or named with its cells."""
    return (
        ("sunk",) if sinks is Sinks.SUNK else ("sunk", ship) if sinks is Sinks.NAMED else ("sunk", ship, mask)
    )


def _moved(mask: int, where: tuple[int, ...]) -> int:
    """``mask`` with bit ``i`` moved to bit ``where[i]``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << where[low.bit_length() - 1]
        mask ^= low
    return out


def _symmetries(rules: Rules, layouts: Layouts) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The board's symmetries that map every layout to a layout: (where each cell goes, where each
    layout goes), the identity first. Mirror images of a state have the same value."""
    rows, cols = rules.rows, rules.cols
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (r, cols - 1 - c),
        lambda r, c: (rows - 1 - r, c),
        lambda r, c: (rows - 1 - r, cols - 1 - c),
    ]
    if rows == cols:
        n = rows
        maps += [
            lambda r, c: (c, r),
            lambda r, c: (c, n - 1 - r),
            lambda r, c: (n - 1 - c, r),
            lambda r, c: (n - 1 - c, n - 1 - r),
        ]
    index = {tuple(ships): i for i, ships in enumerate(layouts)}
    out = []
    for move in maps:
        cells = tuple(
            r * cols + c for r, c in (move(cell // cols, cell % cols) for cell in range(rules.cells))
        )
        images = [index.get(tuple(_moved(m, cells) for m in ships)) for ships in layouts]
        if all(i is not None for i in images):
            out.append((cells, tuple(int(i) for i in images if i is not None)))
    return out


def _ship_on_each_cell(cells: int, ships: tuple[int, ...]) -> list[int]:
    """Each cell's ship index in a layout, -1 for water."""
    out = [-1] * cells
    for i, mask in enumerate(ships):
        for cell in iter_cells(mask):
            out[cell] = i
    return out


def _union(masks: tuple[int, ...]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class SalvoSolver:
    """Expectimax over (cells fired, layouts consistent), memoised; ``budget`` states at most."""

    def __init__(self, rules: Rules, layouts: Layouts, budget: int, stop: Stop | None = None):
        if rules.salvo is None:
            raise BattleshipError("the salvo solver needs salvo rules; the one-shot game has its own solver")
        self.rules = rules
        self.layouts = list(layouts)
        self.occupied = [_union(ships) for ships in self.layouts]
        self.where = [_ship_on_each_cell(rules.cells, ships) for ships in self.layouts]
        self.size = rules.turn_size()  # a whole fleet: nobody fires back
        self.budget = budget
        self.stop = stop
        self.memo: dict[tuple[int, int], tuple[float, tuple[int, ...]]] = {}
        self.solving = 0  # states solved so far (read by a progress line)
        self.symmetries = _symmetries(rules, self.layouts)

    def solve(self) -> tuple[float, tuple[int, ...]]:
        """Expected turns from the empty board over uniform layouts, and a best first salvo."""
        return self.value(0, (1 << len(self.layouts)) - 1)

    def _left(self, fired: int, group: int) -> int:
        """The fewest turns any layout of ``group`` still needs (a lower bound for the group)."""
        least = min((self.occupied[i] & ~fired).bit_count() for i in iter_cells(group))
        return -(-least // self.size)

    def value(self, fired: int, group: int) -> tuple[float, tuple[int, ...]]:
        """Expected turns to finish, the layouts of ``group`` (a bitmask of indices) equally likely."""
        if group & (group - 1) == 0:  # one layout left: hit its cells, K a turn
            unhit = self.occupied[group.bit_length() - 1] & ~fired
            cells = tuple(iter_cells(unhit))
            return float(-(-len(cells) // self.size)), cells[: self.size]
        seen = self.memo.get((fired, group))  # this very state (its images are looked up below)
        if seen is not None:
            return seen
        key = self._canonical(fired, group)
        if key in self.memo:
            self.memo[fired, group] = self.memo[key]
            return self.memo[key]
        self._count()
        best = float("inf")
        choice: tuple[int, ...] = ()
        total = group.bit_count()
        scored = []
        for salvo in self._salvos(fired, group):
            groups = self._split(fired, group, salvo)
            bound = 1 + sum(g.bit_count() * self._left(fired | m, g) for m, g in groups) / total
            scored.append((bound, salvo, groups))
        scored.sort(key=lambda s: s[0])
        for bound, salvo, groups in scored:
            if bound >= best - 1e-12:
                break
            expected = 1.0
            for mask, g in groups:
                expected += g.bit_count() * self.value(fired | mask, g)[0] / total
                if expected >= best - 1e-12:
                    break
            if expected < best - 1e-12:
                best, choice = expected, salvo
        self.memo[key] = self.memo[fired, group] = (best, choice)
        return best, choice

    def _canonical(self, fired: int, group: int) -> tuple[int, int]:
        """The least of the state's images under the board's symmetries: mirror states share one entry
        (their values are equal; the salvo kept is in the first one's frame, used at the root only)."""
        if fired == 0 and group == (1 << len(self.layouts)) - 1:
            return fired, group  # the empty board is its own image
        images = []
        for cells, layouts in self.symmetries:
            images.append((_moved(fired, cells), _moved(group, layouts)))
        return min(images)

    def _count(self) -> None:
        """Count a state solved; refuse past the budget, and look at the stop flag."""
        self.solving += 1
        if self.solving > self.budget:
            raise BattleshipError(
                f"the salvo solver did not finish within {self.budget:,} states "
                f"({len(self.layouts):,} layouts): try a smaller board or fleet, or a larger budget"
            )
        if self.stop is not None:  # a state can take a while (every salvo split over every layout)
            self.stop.check()

    def _salvos(self, fired: int, group: int) -> Iterator[tuple[int, ...]]:
        """Every salvo worth firing: sets of cells some consistent layout uses, filled up with other
        free cells (the lowest) only when too few are left."""
        free = self.rules.full & ~fired
        k = min(self.size, free.bit_count())
        live = 0
        for i in iter_cells(group):
            live |= self.occupied[i]
        live &= free
        cells = list(iter_cells(live))
        dead = list(iter_cells(free & ~live))  # alike for good: no layout of the group, or after, uses one
        # answered shot by shot, a cell that may hold a ship never does worse than a dead one; a count
        # (or the hits per ship) mixes the cells of a salvo, so there a dead cell may be worth firing
        # (a salvo of dead cells only is never worth it: it tells nothing and hits nothing)
        least = min(k, len(cells)) if self.rules.answered_each else max(1, k - len(dead))
        for live_shots in range(min(k, len(cells)), least - 1, -1):
            filler = tuple(dead[: k - live_shots])
            for chosen in itertools.combinations(cells, live_shots):
                yield tuple(sorted(chosen + filler))

    def _split(self, fired: int, group: int, salvo: tuple[int, ...]) -> list[tuple[int, int]]:
        """The layouts of ``group`` not finished by ``salvo``, split by the answer they give to it:
        ``(salvo mask, layouts)`` for each answer."""
        mask = sum(1 << c for c in salvo)
        after = fired | mask
        parts: dict[tuple, int] = {}
        for i in iter_cells(group):
            if self.occupied[i] & ~after == 0:
                continue  # finished: no further turn
            said = answer(self.rules, self.layouts[i], fired, salvo, self.where[i])
            parts[said] = parts.get(said, 0) | 1 << i
        return [(mask, g) for g in parts.values()]


def salvo_optimum(rules: Rules, layouts: Layouts, budget: int, stop: Stop | None = None) -> SalvoOptimum:
    """Solve a small salvo board exactly (see the module docstring); a clear error past ``budget`` states."""
    start = time.perf_counter()
    solver = SalvoSolver(rules, layouts, budget, stop)
    turns, first = solver.solve()
    return SalvoOptimum(len(solver.layouts), turns, first, solver.solving, time.perf_counter() - start)
