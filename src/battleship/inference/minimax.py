"""Cheat Battleship solved exactly: the fewest shots that sink the fleet whatever a cheating hider answers.

A cheating hider commits to no layout: it may give any answer that some layout consistent with its
earlier answers gives (:mod:`battleship.inference.hider`). The shooter's worst case over every such
hider is the value of a game of perfect information,

    V(S, H) = 0                                     when every ship cell is hit (H holds a whole fleet),
    V(S, H) = 1 + min over cells c of  max over answers a of  V(S_a, H_a)

over the set ``S`` of layouts still consistent and the cells ``H`` hit so far, where ``S_a`` are
the layouts of ``S`` that answer ``a`` to a shot at ``c`` (miss, hit, or the sinking the rules
announce) and ``H_a`` adds ``c`` on a hit. Sets of layouts are Python ints (a bit per layout), so
splitting one by a cell is two ``&``. The search asks "can the shooter finish within ``k`` shots?"
for ``k`` from a lower bound up (the cells left to hit), with a memo of the bounds each state has
proven; cells every consistent layout leaves empty are never fired, cells whose answers split the
layouts alike are tried once, and without sinking announcements a cell every layout puts a ship on
is fired at once (its answer is forced and tells nothing, and no answer depends on when it is
fired). :class:`Minimax` also answers, for a cheating hider, which answer keeps the game longest.

Small boards only: the states grow fast with the layouts (``MAX_LAYOUTS``); past a budget of states
the search gives up with a clear error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot
from battleship.inference.evidence import evidence
from battleship.inference.posterior import count
from battleship.inference.search import select_by_search
from battleship.rules import Rules, Sinks
from battleship.stop import Stop
from battleship.tables import tables

MAX_LAYOUTS = 5_000  # layouts the exact game against a cheating hider is solved for, at most
DEFAULT_STATES = 2_000_000  # states the search may prove before it gives up


def every_layout(rules: Rules) -> list[tuple[int, ...]]:
    """Every layout of the honest game of ``rules`` as per-ship masks (refused past ``MAX_LAYOUTS``)."""
    base = rules.honest()
    total, _ = count(base)
    if total > MAX_LAYOUTS:
        raise BattleshipError(
            f"{total:,} layouts: the exact game against a cheating hider is solved on small boards "
            f"(at most {MAX_LAYOUTS:,} layouts)"
        )
    masks = tables(base).masks
    if len(base.fleet) == 1:
        return [(masks[p],) for p in range(total)]
    rows = select_by_search(base, evidence(base, Observation(base)), np.arange(total, dtype=np.int64))
    return [tuple(masks[p] for p in row) for row in rows]


@dataclass
class Minimax:
    """The game against a cheating hider over ``layouts`` (per-ship masks), solved as asked."""

    rules: Rules
    layouts: list[tuple[int, ...]]
    budget: int = DEFAULT_STATES
    stop: Stop | None = None
    proven: int = 0  # states whose bound the search has raised or settled
    _low: dict[tuple[int, int], int] = field(default_factory=dict)  # the state needs at least this many
    _high: dict[tuple[int, int], int] = field(default_factory=dict)  # the state is done within this many

    def __post_init__(self) -> None:
        rules = self.rules
        self.all = (1 << len(self.layouts)) - 1
        self._occupied = [0] * rules.cells  # per cell, the layouts with a ship there
        # per placement mask, the layouts that use it (the sinkings' answers)
        self._using: dict[int, int] = {}
        self._ship_of: dict[int, int] = {}
        for i, layout in enumerate(self.layouts):
            for s, mask in enumerate(layout):
                self._using[mask] = self._using.get(mask, 0) | 1 << i
                self._ship_of[mask] = s
                m = mask
                while m:
                    low = m & -m
                    self._occupied[low.bit_length() - 1] |= 1 << i
                    m ^= low
        self._through: list[list[int]] = [[] for _ in range(rules.cells)]  # placement masks through each cell
        for mask in self._using:
            m = mask
            while m:
                low = m & -m
                self._through[low.bit_length() - 1].append(mask)
                m ^= low
        self.ship_cells = rules.ship_cells

    # --- the answers ------------------------------------------------------------------------
    def answers(self, layouts: int, hit: int, cell: int) -> list[tuple[Shot, int]]:
        """Each answer a shot at ``cell`` may get from ``layouts`` (cells ``hit`` so far), with the layouts
        that give it, in a fixed order (miss, hit, then the sinkings)."""
        out: list[tuple[Shot, int]] = []
        missed = layouts & ~self._occupied[cell]
        if missed:
            out.append((Shot(cell, Outcome.MISS), missed))
        struck = layouts & self._occupied[cell]
        if not struck:
            return out
        sinks = self.rules.sinks
        sunk: dict[object, tuple[Shot, int]] = {}
        if sinks is not Sinks.NONE:
            bit = 1 << cell
            for mask in self._through[cell]:
                if mask & ~hit != bit:
                    continue  # this shot would not complete it
                using = struck & self._using[mask]
                if not using:
                    continue
                ship = self._ship_of[mask]
                key, shot = {
                    Sinks.SUNK: ("sunk", Shot(cell, Outcome.SUNK)),
                    Sinks.NAMED: (ship, Shot(cell, Outcome.SUNK, ship)),
                    Sinks.REVEALED: (mask, Shot(cell, Outcome.SUNK, ship, mask)),
                }[sinks]
                before = sunk.get(key, (shot, 0))[1]
                sunk[key] = (shot, before | using)
        plain = struck
        for _, using in sunk.values():
            plain &= ~using
        if plain:
            out.append((Shot(cell, Outcome.HIT), plain))
        out += sorted(sunk.values(), key=lambda a: (a[0].ship or 0, a[0].cells))
        return out

    def children(self, layouts: int, hit: int, cell: int) -> list[tuple[int, int]]:
        """The states each answer to a shot at ``cell`` leads to: (layouts, cells hit)."""
        bit = 1 << cell
        return [
            (s, hit if shot.outcome is Outcome.MISS else hit | bit)
            for shot, s in self.answers(layouts, hit, cell)
        ]

    def cells(self, layouts: int, hit: int) -> Iterator[tuple[int, list[tuple[int, int]]]]:
        """The cells worth a shot (some layout holds a ship there, not hit yet), each with its children,
        cells with the same children tried once, the most even splits first."""
        seen: set[tuple[tuple[int, int], ...]] = set()
        found = []
        for cell in range(self.rules.cells):
            if hit >> cell & 1 or not layouts & self._occupied[cell]:
                continue
            kids = self.children(layouts, hit, cell)
            key = tuple(sorted(kids))
            if key in seen:
                continue
            seen.add(key)
            found.append((max(s.bit_count() for s, _ in kids), cell, kids))
        found.sort(key=lambda f: (f[0], f[1]))
        for _, cell, kids in found:
            yield cell, kids

    def _sure(self, layouts: int, hit: int) -> int:
        """Without sinking announcements, a cell every layout puts a ship on and not hit yet (-1: none)."""
        if self.rules.sinks is not Sinks.NONE:
            return -1
        for cell in range(self.rules.cells):
            if not hit >> cell & 1 and layouts & self._occupied[cell] == layouts:
                return cell
        return -1

    # --- the search ------------------------------------------------------------------------------
    def within(self, layouts: int, hit: int, shots: int) -> bool:
        """True when the shooter can sink the fleet within ``shots`` more, whatever the answers."""
        left = self.ship_cells - hit.bit_count()
        if left == 0:
            return True
        if shots < left:
            return False
        key = (layouts, hit)
        if self._low.get(key, 0) > shots:
            return False
        if self._high.get(key, 1 << 30) <= shots:
            return True
        self._count()
        sure = self._sure(layouts, hit)
        if sure >= 0:
            done = self.within(layouts, hit | 1 << sure, shots - 1)
        else:
            done = any(
                all(self.within(s, h, shots - 1) for s, h in kids) for _, kids in self.cells(layouts, hit)
            )
        if done:
            self._high[key] = min(self._high.get(key, 1 << 30), shots)
        else:
            self._low[key] = max(self._low.get(key, 0), shots + 1)
        return done

    def _count(self) -> None:
        """One more state searched: give up past the budget, and read the stop flag now and then."""
        self.proven += 1
        if self.proven > self.budget:
            raise BattleshipError(
                f"the exact game against a cheating hider needs more than {self.budget:,} states here "
                f"({len(self.layouts):,} layouts): try a smaller board or fleet"
            )
        if self.stop is not None and self.proven % 1024 == 0:
            self.stop.check()

    def value(self, layouts: int | None = None, hit: int = 0) -> int:
        """The fewest shots that sink the fleet from this state whatever the hider answers."""
        layouts = self.all if layouts is None else layouts
        if not layouts:
            raise BattleshipError("no layout is left: the answers contradict one another")
        shots = max(self._low.get((layouts, hit), 0), self.ship_cells - hit.bit_count())
        while not self.within(layouts, hit, shots):
            shots += 1
        return shots

    def best_cells(self, layouts: int, hit: int) -> list[int]:
        """The cells that keep the shooter's worst case at the state's value (all of them, in cell order)."""
        value = self.value(layouts, hit)
        if value == 0:
            return []
        sure = self._sure(layouts, hit)
        if sure >= 0:
            return [sure]
        out = []
        for cell in range(self.rules.cells):
            if hit >> cell & 1 or not layouts & self._occupied[cell]:
                continue
            if all(self.within(s, h, value - 1) for s, h in self.children(layouts, hit, cell)):
                out.append(cell)
        return out

    def state(self, observation: Observation) -> tuple[int, int]:
        """The state an observation leaves: the layouts that answer every shot as it was answered, and
        the cells hit."""
        layouts = self.all
        hit = 0
        for shot in observation.shots:
            for answer, using in self.answers(layouts, hit, shot.cell):
                if answer == Shot(shot.cell, shot.outcome, shot.ship, shot.cells):
                    layouts = using
                    break
            else:
                layouts = 0
            if shot.outcome is not Outcome.MISS:
                hit |= 1 << shot.cell
            if not layouts:
                raise BattleshipError("no layout answers these shots as they were answered")
        return layouts, hit


def game_value(rules: Rules, budget: int = DEFAULT_STATES, stop: Stop | None = None) -> tuple[int, int, int]:
    """The worst case of the best shooter against a cheating hider on these rules, from the first shot:
    ``(shots, layouts, states searched)``."""
    solver = Minimax(rules, every_layout(rules), budget, stop)
    shots = solver.value()
    return shots, len(solver.layouts), solver.proven
