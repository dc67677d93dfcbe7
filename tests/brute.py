"""Brute-force references written apart from the engines: layouts, answers, posteriors, optimal play.

Everything here is the obvious thing done slowly, from the rules' own words: a ship's placements are
its shape turned and shifted over the board; a layout is placements that neither overlap nor break
the spacing rule (checked cell by cell, not with the rules' halos); the referee (:class:`Game`)
answers shots. The end-to-end tests hold what the commands print against these.
"""

from __future__ import annotations

from functools import cache

from hypothesis import assume
from hypothesis import strategies as st

from battleship.errors import RulesError
from battleship.game import Game, Shot
from battleship.layout import Layout
from battleship.rules import Rules, Ship, Sinks, Spacing

SHAPES = {
    "line": None,  # a straight ship of a drawn length
    "ell": ((0, 0), (1, 0), (1, 1)),
    "tee": ((0, 0), (0, 1), (0, 2), (1, 1)),
    "square": ((0, 0), (0, 1), (1, 0), (1, 1)),
    "ess": ((0, 1), (0, 2), (1, 0), (1, 1)),
}


@st.composite
def tiny_rules(draw, max_side: int = 6, max_ships: int = 4, bent: bool = True) -> Rules:
    """Rules from 3x3 to ``max_side`` square-ish boards, one to ``max_ships`` ships (straight or
    polyominoes), every spacing and sink mode, with or without reflections."""
    rows = draw(st.integers(3, max_side))
    cols = draw(st.integers(3, max_side))
    count = draw(st.integers(1, max_ships))
    fleet = []
    for i in range(count):
        kind = draw(st.sampled_from(list(SHAPES) if bent else ["line"]))
        cells = tuple((0, c) for c in range(draw(st.integers(1, 4)))) if kind == "line" else SHAPES[kind]
        fleet.append(Ship(f"Ship {'ABCD'[i]}", "ABCD"[i], cells))
    spacing = draw(st.sampled_from(list(Spacing)))
    sinks = draw(st.sampled_from(list(Sinks)))
    reflections = draw(st.booleans())
    try:
        return Rules(rows, cols, tuple(fleet), spacing, sinks, reflections, name="tiny")
    except RulesError:
        assume(False)
        raise


def _turns(cells: tuple[tuple[int, int], ...], reflections: bool) -> set[tuple[tuple[int, int], ...]]:
    """Every orientation of a shape, each shifted to the top-left corner."""
    out = set()
    for mirror in (False, True) if reflections else (False,):
        shape = [(r, -c) for r, c in cells] if mirror else list(cells)
        for _ in range(4):
            shape = [(c, -r) for r, c in shape]
            top, left = min(r for r, _ in shape), min(c for _, c in shape)
            out.add(tuple(sorted((r - top, c - left) for r, c in shape)))
    return out


def placements(rules: Rules, ship: Ship) -> list[int]:
    """A ship's placements as bitboards: every orientation at every offset that fits."""
    out = set()
    for shape in _turns(ship.cells, rules.reflections):
        for dr in range(rules.rows):
            for dc in range(rules.cols):
                if all(r + dr < rules.rows and c + dc < rules.cols for r, c in shape):
                    out.add(sum(1 << ((r + dr) * rules.cols + c + dc) for r, c in shape))
    return sorted(out)


def _apart(rules: Rules, a: int, b: int) -> bool:
    """True when two ships on ``a`` and ``b`` keep the spacing rule (and do not overlap)."""
    if a & b:
        return False
    if rules.spacing is Spacing.TOUCH:
        return True
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    if rules.spacing is Spacing.NO_CONTACT:
        steps += ((1, 1), (1, -1), (-1, 1), (-1, -1))
    for cell in range(rules.cells):
        if a >> cell & 1:
            r, c = divmod(cell, rules.cols)
            for dr, dc in steps:
                if (
                    0 <= r + dr < rules.rows
                    and 0 <= c + dc < rules.cols
                    and b >> ((r + dr) * rules.cols + c + dc) & 1
                ):
                    return False
    return True


def layouts(rules: Rules, cap: int = 5000) -> list[tuple[int, ...]] | None:
    """Every valid layout (masks in fleet order), or None past ``cap`` of them."""
    each = [placements(rules, ship) for ship in rules.fleet]
    out: list[tuple[int, ...]] = []

    def place(i: int, masks: tuple[int, ...]) -> bool:
        if i == len(each):
            out.append(masks)
            return len(out) <= cap
        return all(place(i + 1, (*masks, m)) for m in each[i] if all(_apart(rules, m, b) for b in masks))

    return out if place(0, ()) else None


def answers(rules: Rules, masks: tuple[int, ...], cells: list[int]) -> tuple[Shot, ...]:
    """The referee's answers to ``cells`` fired in order at the layout ``masks`` (fewer when the
    game ends first: every ship was sunk before the last of them)."""
    game = Game(Layout(rules, masks))
    out = []
    for cell in cells:
        if game.over:
            break
        out.append(game.fire(cell))
    return tuple(out)


def consistent(rules: Rules, every: list[tuple[int, ...]], shots: tuple[Shot, ...]) -> list[tuple[int, ...]]:
    """The layouts that answer ``shots`` (cells in order) exactly as they were answered."""
    cells = [s.cell for s in shots]
    return [m for m in every if answers(rules, m, cells) == shots]


def optimum(rules: Rules, every: list[tuple[int, ...]]) -> float:
    """The fewest expected shots to sink every ship over uniform layouts: plain minimax on the referee.

    A state is the layouts still possible and the cells fired at; every cell some possible layout
    puts a ship on is tried (a cell none does is a sure miss, never worth a shot, and a cell fired at
    that no possible layout covers changes nothing to come, so it is dropped from the state).
    """
    games = [Layout(rules, m) for m in every]

    @cache
    def answer(i: int, hit: int, cell: int) -> Shot:
        """Layout ``i``'s answer to ``cell`` once its cells ``hit`` are hit (all its answer depends on)."""
        game = Game(games[i])
        for c in range(rules.cells):
            if hit >> c & 1:
                game.fire(c)
        return game.fire(cell)

    @cache
    def value(left: frozenset[int], fired: int) -> float:
        """Expected shots left; ``fired`` holds only cells some layout of ``left`` puts a ship on."""
        ships = 0
        for i in left:
            ships |= games[i].occupied
        if not ships & ~fired:
            return 0.0
        best = float("inf")
        for cell in range(rules.cells):
            if fired >> cell & 1 or not ships >> cell & 1:
                continue
            groups: dict[Shot, set[int]] = {}
            for i in left:
                groups.setdefault(answer(i, fired & games[i].occupied, cell), set()).add(i)
            after = fired | 1 << cell
            total = 1
            for g in groups.values():
                still = 0
                for i in g:
                    still |= games[i].occupied
                total += len(g) / len(left) * value(frozenset(g), after & still)
            best = min(best, total)
        return best

    return value(frozenset(range(len(games))), 0)


def greedy_mean(rules: Rules, every: list[tuple[int, ...]]) -> float:
    """Exact greedy play (the cell most possible layouts put a ship on, the first such in reading
    order) on every layout, its shots averaged."""
    total = 0
    for masks in every:
        game, left = Game(Layout(rules, masks)), list(every)
        while not game.over:
            fired = game.observation.shot_mask
            counts = [sum(1 for m in left if sum(m) >> c & 1) for c in range(rules.cells)]
            cell = max((c for c in range(rules.cells) if not fired >> c & 1), key=lambda c: (counts[c], -c))
            game.fire(cell)
            left = consistent(rules, left, game.observation.shots)
        total += len(game.observation.shots)
    return total / len(every)
