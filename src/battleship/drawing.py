"""The layout generators' plans, and a few layouts drawn in plain Python, without loading Numba.

A generator draws each ship as a group, then a placement of that group (:class:`Plan`); the draw
itself is :func:`battleship.generators.draw`, a Numba kernel over any number of layouts. A command
that shows one layout (``battleship layout``) has no other use for Numba, whose import is half a
second: :func:`draw_few` draws the very same layouts from the very same streams in Python (checked
against the kernel, layout for layout, in the tests), for the generators that take every layout a
plan gives (the human-like ones weigh layouts with floating-point features, and stay with the kernel).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from battleship import shapes
from battleship.errors import RulesError
from battleship.layout import Layout
from battleship.rules import Rules, Spacing
from battleship.seeds import Stream
from battleship.tables import tables

GENERATORS = {
    "uniform": "every valid layout equally likely (whole-layout rejection)",
    "sequential": "ship by ship: random orientation, random position, retry the ship on a clash (biased)",
    "r-blog": "The R study's popGrid as written, with its edge off-by-one (biased)",
    "contest": "the C# Pirates contest organiser's board filler: ship by ship, a random direction, "
    "a start that never reaches the last row or column (biased)",
    "edge": "human-like: ships hug the edges (strength=S, default 3)",
    "clustered": "human-like: ships huddle together (strength=S, default 3)",
    "spread": "human-like: ships kept apart from each other (strength=S, default 3)",
}
# human-like generators: a uniform layout is kept with probability exp(strength * (feature - 1)),
# so P(layout) is proportional to exp(strength * feature) over valid layouts (feature in [0, 1])
HUMAN = {"edge": 1, "clustered": 2, "spread": 3}
DEFAULT_STRENGTH = 3.0
MAX_STRENGTH = 12.0


@dataclass(frozen=True, eq=False)
class Plan:
    """How one generator draws each ship: a list of groups per ship, a group then a member."""

    ship_groups: np.ndarray  # (S+1,) offsets into the group arrays
    group_start: np.ndarray  # (G,) offsets into members
    group_count: np.ndarray  # (G,)
    members: np.ndarray  # placement indices (may repeat, to weight a placement)
    restart_on_clash: bool


def _plan(groups_per_ship: list[list[list[int]]], restart: bool) -> Plan:
    ship_groups: list[int] = [0]
    group_start: list[int] = []
    group_count: list[int] = []
    members: list[int] = []
    for groups in groups_per_ship:
        for group in groups:
            group_start.append(len(members))
            group_count.append(len(group))
            members.extend(group)
        ship_groups.append(len(group_start))

    def as_int(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return Plan(as_int(ship_groups), as_int(group_start), as_int(group_count), as_int(members), restart)


def parse_generator(spec: str) -> tuple[str, float]:
    """``"edge:strength=2"`` -> ``("edge", 2.0)``; the strength is 0 for the unbiased generators."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if name not in GENERATORS:
        raise RulesError(f"no layout generator named {name!r}; choose one of {', '.join(GENERATORS)}")
    strength = DEFAULT_STRENGTH if name in HUMAN else 0.0
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if key.strip() != "strength" or not eq or name not in HUMAN:
            raise RulesError(f"generator {spec!r}: only edge, clustered and spread take strength=S")
        try:
            strength = float(value)
        except ValueError:
            raise RulesError(f"generator {spec!r}: strength must be a number, not {value!r}") from None
        if not 0 <= strength <= MAX_STRENGTH:
            raise RulesError(f"generator {spec!r}: strength runs from 0 to {MAX_STRENGTH:g}")
    return name, strength


@lru_cache(maxsize=64)
def plan(rules: Rules, generator: str) -> Plan:
    """The draw plan of a named generator for these rules (human-like ones draw uniformly, then filter)."""
    t = tables(rules)
    starts = [int(s) for s in t.start]
    generator = parse_generator(generator)[0]
    if generator == "uniform" or generator in HUMAN:
        return _plan([[list(range(s, s + int(c)))] for s, c in zip(starts, t.count, strict=True)], True)
    if generator == "sequential":
        groups = []
        for s, ship in enumerate(rules.fleet):
            index = {m: starts[s] + i for i, m in enumerate(rules.placements[s])}
            per_orientation = [
                [index[m] for m in shapes.translations(shape, rules.rows, rules.cols)]
                for shape in shapes.orientations(ship.cells, rules.reflections)
            ]
            groups.append([g for g in per_orientation if g])
        return _plan(groups, False)
    if generator == "r-blog":
        return _plan(_r_blog_groups(rules), False)
    if generator == "contest":
        return _plan(_contest_groups(rules), False)
    raise RulesError(f"no layout generator named {generator!r}; choose one of {', '.join(GENERATORS)}")


def _straight_index(rules: Rules, ship: int, generator: str) -> dict[int, int]:
    """A straight ship's placements by bitboard (their indices in the tables); others are refused."""
    if not rules.fleet[ship].is_straight:
        name = rules.fleet[ship].name
        raise RulesError(f"the {generator} generator places straight ships only; {name} is not straight")
    start = int(tables(rules).start[ship])
    return {m: start + i for i, m in enumerate(rules.placements[ship])}


def _r_blog_groups(rules: Rules) -> list[list[list[int]]]:
    """Every (direction, row, col) that the R study's test accepts, as placements, one group per ship."""
    if rules.spacing is not Spacing.TOUCH:
        raise RulesError(
            "the r-blog generator lets ships touch; it cannot place ships under spacing "
            + rules.spacing.value
        )
    out = []
    for s, ship in enumerate(rules.fleet):
        index = _straight_index(rules, s, "r-blog")
        size, group = ship.size, []
        for row in range(rules.rows):
            for col in range(rules.cols):
                if col + 1 + size < rules.cols:  # R: col+ship.sizes[k] < ncol(grid), 1-based col
                    group.append(index[sum(1 << (row * rules.cols + col + i) for i in range(size))])
                if row + 1 + size < rules.rows:  # R: row+ship.sizes[k] < nrow(grid)
                    group.append(index[sum(1 << ((row + i) * rules.cols + col) for i in range(size))])
        if not group:
            raise RulesError(
                f"The R study's placement test never accepts {ship.name} (size {size}) on a "
                f"{rules.rows}x{rules.cols} board: it needs size + 2 cells of room"
            )
        out.append([group])
    return out


def _contest_groups(rules: Rules) -> list[list[list[int]]]:
    """The NBattleshipCodingContest ``RandomBoardFiller``'s draw, one group per direction per ship.

    Each try picks a direction, then a start along the ship's axis as ``rand.Next(side - length)``
    (so the last start that fits is never drawn: horizontal ships never reach the last column,
    vertical ones never the last row) and across it as ``rand.Next(side)``; a try that breaks the
    spacing rule is drawn again. Ships are drawn in fleet order (the contest's 5, 4, 3, 3, 2 is the
    standard fleet's order). Under the ``pirates`` rules this is the contest's own generator.
    """
    out = []
    for s, ship in enumerate(rules.fleet):
        index = _straight_index(rules, s, "contest")
        size = ship.size
        across = [
            index[sum(1 << (r * rules.cols + c + i) for i in range(size))]
            for r in range(rules.rows)
            for c in range(max(1, rules.cols - size))
            if c + size <= rules.cols
        ]
        down = [
            index[sum(1 << ((r + i) * rules.cols + c) for i in range(size))]
            for r in range(max(1, rules.rows - size))
            for c in range(rules.cols)
            if r + size <= rules.rows
        ]
        groups = [g for g in (across, down) if g]
        if not groups:
            raise RulesError(f"the contest generator cannot place {ship.name} on this board")
        out.append(groups)
    return out


SHIP_TRIES = 100_000  # tries at one ship, past which a generator that retries it starts the layout again
PLAIN_TRIES = 1_000_000  # tries past which draw_few leaves a layout to the kernel (seconds in Python)


def draw_few(rules: Rules, generator: str, seed: int, count: int, first: int = 0) -> np.ndarray | None:
    """Layouts ``first .. first + count`` as :func:`battleship.generators.draw` draws them (rows of
    placement indices), in plain Python; None for a human-like generator, or when a layout takes more
    than ``PLAIN_TRIES`` tries (a tightly packed fleet: the kernel's work)."""
    name, _strength = parse_generator(generator)
    if name in HUMAN:
        return None
    t, p = tables(rules), plan(rules, name)
    words = t.halos.shape[1]
    halos = [sum(int(h[w]) << (64 * w) for w in range(words)) for h in t.halos]  # as the masks are
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    for i in range(count):
        state, tries = Stream(seed, first + i), [0]
        while (row := _draw_once(state, p, t.masks, halos, tries)) is None:
            if tries[0] > PLAIN_TRIES:
                return None
        out[i] = row
    return out


def _draw_once(
    state: Stream, p: Plan, masks: tuple[int, ...], halos: list[int], tries: list[int]
) -> list[int] | None:
    """One attempt at a layout, step for step as the kernel's ``draw_into``: each ship a group, then a
    member; a clash restarts the layout (or retries the ship). The placements, or None to start again;
    ``tries`` counts every draw."""
    blocked, row = 0, []
    for s in range(len(p.ship_groups) - 1):
        ship_tries = 0
        while True:
            tries[0] += 1
            if tries[0] > PLAIN_TRIES:
                return None
            lo = int(p.ship_groups[s])
            g = lo + state.below(int(p.ship_groups[s + 1]) - lo)
            m = int(p.members[int(p.group_start[g]) + state.below(int(p.group_count[g]))])
            if not masks[m] & blocked:
                row.append(m)
                blocked |= halos[m]
                break
            ship_tries += 1
            if p.restart_on_clash or ship_tries > SHIP_TRIES:  # a clash, or boxed in by earlier ships
                return None
    return row


def to_layout(rules: Rules, row: np.ndarray) -> Layout:
    """A row of placement indices as a :class:`~battleship.layout.Layout`."""
    masks = tables(rules).masks
    return Layout(rules, tuple(masks[int(p)] for p in row))
