"""Exact two-ply look-ahead: the shot that maximises the expected hits of this shot and the best next one.

Greedy play (``optimal``) fires where a ship is most likely now. Two-ply asks one step more: after
each possible answer to this shot, how good is the best shot that follows? For each of the
``width`` cells greedy ranks highest, its value is

    P(hit now) + sum over the referee's answers a of P(a) * max over unshot cells c' of P(hit at c' | a)

where the answers are miss, hit, and each sinking announcement the rules make (``sunk``, a named
ship, a revealed placement). Every probability is exact (:func:`battleship.inference.posterior`
on the board with that answer added), and since ``P(a) * P(hit at c' | a)`` is the number of
layouts that give answer ``a`` and put a ship on ``c'``, over all layouts, the value times the
number of layouts is a sum of layout counts: it is added up as Python integers, exact past 64
bits, so two cells compare exactly. The miss answer needs no posterior of its own: its layouts are
those left over by the hit answers, cell by cell; and under a uniform prior the sinking of one of
several identical ships afloat stands for all of them (by symmetry). A shot therefore costs one
posterior per candidate and distinct hit-type answer (``width`` of them while hunting).

``endgame=N``: once at most ``N`` layouts remain, the value is instead the exact expected number of
shots greedy play takes after the candidate (:class:`GreedyTree`: Bertsekas' rollout over exact
greedy, computed over every layout, not sampled). Greedy's own cell is always a candidate, so this
never plays worse than greedy (policy improvement); on the small boards of ``battleship limit`` it
comes within 0.05 shots of the optimum (docs/research/lookahead.md). Not used under a ``prior``.

``second=M``: once at most ``M`` layouts remain, the endgame's candidates are played on by that
rollout itself instead of by greedy (:class:`~battleship.inference.rollouttree.RolloutTree`: a
second step of policy improvement, never worse than the first; far dearer: on a 6x6 board a shot
over 1,000 layouts takes up to half a second, so for small boards).

``exact=N``: once at most ``N`` layouts remain, the rest of the game is solved exactly (the endgame
solver of :mod:`battleship.inference.endgame`, as ``optimal:exact=N``): optimal play from there on,
and so no worse than the rest-of-game rollout; past the solver's budget of states, the cell chosen
as above. Not used under a ``prior``.

Options: ``width`` (candidate cells, default 6; ``width=1`` is greedy), ``endgame``, ``second`` and ``exact`` (above), ``plies``
(2, the default, or 1: greedy's best cell until the endgame, so that only the endgame looks ahead),
``early=density`` or ``early=trial-sink`` (that shooter's cell until the endgame, with the same skew
and tie: the look-ahead then changes its play in the endgame only, so a paired comparison with it
measures the endgame alone), ``tie`` (first, centre or
random: the order of cells greedy ranks equal, which is also the order that splits equal two-ply
values), ``skew`` (C. Liam Brown's diagonal skew, in percent, applied to greedy's ranking of the
candidates and to nothing else), ``prior=GENERATOR`` (layouts weighed by how often that generator
draws their placements, as ``optimal`` reads it). Deterministic under ``tie=first``: its opening
repeats from game to game, and boards with misses only are computed once per process. Plays every
rules variant the exact engine plays.
"""

from __future__ import annotations

import threading

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot
from battleship.inference import Posterior, evidence, posterior, select_by_search
from battleship.inference.endgame import Solver
from battleship.inference.greedytree import GreedyTree, new_memo
from battleship.inference.prior import generator_weights
from battleship.inference.rollouttree import RolloutTree
from battleship.rules import Rules, Sinks
from battleship.shooters.aim import one_shot_only, refuse
from battleship.shooters.choice import UNKNOWN, centre_distance, skew_factor
from battleship.shooters.density import observed_status
from battleship.shooters.optimal import endgame_solver, solved_cell
from battleship.shooters.options import Named, Options
from battleship.tables import tables

# Greedy's subtree costs, per rules, kept between games (the lab makes a shooter per game; greedy is
# deterministic, so the same subtrees come back): a fixed table each, for the last two rules played.
# One set per thread: the kernel runs without the GIL, and two threads writing one table could
# leave a slot with one's key and the other's cost.
_local = threading.local()
ROLLOUT_MEMO = 2_000_000  # boards whose rollout counts a thread keeps (about half a GiB at most)


def rollout_memo(rules: Rules, width: int) -> dict:
    """This thread's kept board counts of the rest-of-game rollout under ``rules`` (emptied when large)."""
    memos = getattr(_local, "rollouts", None)
    if memos is None:
        memos = _local.rollouts = {}
    memo = memos.get((rules, width))
    if memo is None or len(memo) > ROLLOUT_MEMO:
        memos.clear()
        memo = memos[(rules, width)] = {}
    return memo


def greedy_memo(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """This thread's kept subtree costs of greedy play under ``rules``."""
    memos = getattr(_local, "memos", None)
    if memos is None:
        memos = _local.memos = {}
    memo = memos.get(rules)
    if memo is None:
        if len(memos) >= 2:
            memos.clear()
        memo = memos[rules] = new_memo()
    return memo


def answers(
    rules: Rules,
    observation: Observation,
    cell_layouts: int | float,
    placements: np.ndarray,
    cell: int,
    symmetric: bool = True,
) -> list[tuple[Shot, int]]:
    """The hit-type answers a shot at ``cell`` may get, each once with how many answers it stands for:
    hit (if some layout leaves the ship afloat), then each possible sinking announcement.

    ``cell_layouts`` is the posterior count of layouts with a ship on ``cell``, ``placements`` that
    of layouts using each placement: a placement through ``cell`` whose other cells are all hits
    already, and which some layout uses, sinks its ship. With ``symmetric`` (a uniform prior), the
    sinking of one of several identical ships afloat stands for all of them: swapping their names
    maps the layouts of one announcement onto the other's, cell counts and all.
    """
    if not cell_layouts:
        return []
    if rules.sinks is Sinks.NONE:
        return [(Shot(cell, Outcome.HIT), 1)]
    t = tables(rules)
    hits = observation.hit_mask
    sinking: dict[object, tuple[Shot, set[int]]] = {}
    sunk = 0
    for i in range(t.through_start[cell], t.through_start[cell + 1]):
        p = int(t.through[i])
        s = int(t.ship_of[p])
        cells = [int(x) for x in t.cell_list[p, : t.size[s]]]
        if not placements[p] or not all(hits >> x & 1 for x in cells if x != cell):
            continue
        sunk += placements[p].item()
        mask = sum(1 << x for x in cells)
        shape = rules.placements[s] if symmetric else s  # identical ships have the same placements
        key: object
        if rules.sinks is Sinks.SUNK:
            key, shot = "sunk", Shot(cell, Outcome.SUNK)
        elif rules.sinks is Sinks.NAMED:
            key, shot = shape, Shot(cell, Outcome.SUNK, s)
        else:
            key, shot = (shape, mask), Shot(cell, Outcome.SUNK, s, mask)
        # "sunk" names no ship: one answer, whichever ship it was; a name or mask keyed by shape
        # stands for each identical ship it could be
        sinking.setdefault(key, (shot, set()))[1].add(0 if rules.sinks is Sinks.SUNK else s)
    # exact counts compare exactly; a float prior's sums may differ from the whole by rounding
    left = cell_layouts > sunk if isinstance(cell_layouts, int) else cell_layouts > sunk * (1 + 1e-9)
    afloat = [(Shot(cell, Outcome.HIT), 1)] if left else []
    return [*afloat, *((shot, len(ships)) for shot, ships in sinking.values())]


def open_counts(rules: Rules, observation: Observation, prior: np.ndarray | None) -> tuple[Posterior, list]:
    """The posterior, and per cell the layouts with a ship there (0 on shot cells) as Python numbers."""
    result = posterior(rules, observation, prior=prior)
    counts = result.cell_layouts.ravel().tolist()
    shot = observation.shot_mask
    return result, [0 if shot >> c & 1 else n for c, n in enumerate(counts)]


def two_ply_value(
    rules: Rules,
    observation: Observation,
    counts: list,
    placements: np.ndarray,
    prior: np.ndarray | None,
    cell: int,
) -> object:
    """Layouts x (P(hit at ``cell``) + expected best hit chance of the next shot): an exact count.

    ``counts`` and ``placements`` are the posterior of ``observation`` (per cell, 0 on shot cells;
    per placement); a layout-weighted count under a float ``prior``.
    """
    value = counts[cell]
    hit_cells = [0] * len(counts)  # per cell, the layouts that give a hit-type answer and a ship there
    for shot, times in answers(rules, observation, counts[cell], placements, cell, prior is None):
        _, after = open_counts(rules, observation.after(shot), prior)
        value += times * max(after)
        hit_cells = [a + times * b for a, b in zip(hit_cells, after, strict=True)]
    # the layouts that miss: those left over, cell by cell, once the hit answers' are taken
    misses = [n - h for n, h in zip(counts, hit_cells, strict=True)]
    misses[cell] = 0
    value += max(misses)
    return value


class TwoPlyShooter(Named):
    """Exact two-ply look-ahead over greedy's best cells (see the module docstring)."""

    name = "twoply"
    refusal = one_shot_only("twoply", "its look-ahead scores this shot and the next")

    def __init__(self, options: Options | None = None):
        self.options = options or Options()
        early = self.options.early
        # without an endgame (none is played under a prior) the early shooter would play the whole game
        if early and self.options.prior:
            raise BattleshipError(f"twoply: early={early} with a prior: give one or the other")
        if early and not self.options.endgame:
            raise BattleshipError(f"twoply: early={early} plays until the endgame: give endgame=N too")

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules, the prior and the tie-break stream."""
        refuse(self.refusal, rules)
        self._rules = rules
        self._rng = rng
        self._prior = generator_weights(rules, self.options.prior)
        self._early = None
        self._solver: Solver | None = None
        if self.options.early:
            from battleship.shooters.registry import spec

            self._early = spec(self.options.early).make(
                Options(skew=self.options.skew, lattice=self.options.lattice, tie=self.options.tie)
            )
            self._early.reset(rules, rng)

    def candidates(self, observation: Observation, counts: list) -> list[int]:
        """Greedy's ``width`` best unknown cells, best first (skewed as asked; ties as ``tie`` says)."""
        rules, options = self._rules, self.options
        status, afloat = observed_status(rules, observation)
        factor = [100] * rules.cells
        if options.skew:
            size = tables(rules).size
            skewed = skew_factor(status, afloat, size, rules.rows, rules.cols, options.skew, options.lattice)
            factor = skewed.tolist() if len(skewed) else factor  # empty: the smallest ship is sunk
        cells = [c for c in range(rules.cells) if status[c] == UNKNOWN]
        if not cells:  # cells only the margins rule out are all that is left (never with a ship afloat)
            cells = [c for c in range(rules.cells) if not observation.is_shot(c)]
        if options.tie == "random":
            order = self._rng.permutation(rules.cells).tolist()
        elif options.tie == "centre":
            order = [centre_distance(c, rules.rows, rules.cols) for c in range(rules.cells)]
        else:
            order = [0] * rules.cells
        cells.sort(key=lambda c: (-counts[c] * factor[c], order[c], c))
        return cells[: max(1, options.width)]

    def next_shot(self, observation: Observation) -> int:
        """The candidate of highest two-ply value (the first in greedy's order when equal)."""
        rules = self._rules
        result, counts = open_counts(rules, observation, self._prior)
        exact = self._prior is None and len(rules.fleet) > 1 and result.layouts <= self.options.exact
        if exact:
            if self._solver is None:  # one a game, as optimal's endgame keeps it
                self._solver = endgame_solver(rules, self.options.exact)
            cell = solved_cell(self._solver, rules, observation, int(result.layouts))
            if cell is not None:
                return cell
        endgame = self._prior is None and self.options.endgame and result.layouts <= self.options.endgame
        if self._early is not None and not endgame:
            return self._early.next_shot(observation)
        cells = self.candidates(observation, counts)
        if len(cells) == 1:
            return cells[0]
        if endgame:
            return self.rest_of_game(observation, result, cells)
        if self.options.plies == 1:
            return cells[0]
        values = [
            two_ply_value(rules, observation, counts, result.placement_layouts, self._prior, c) for c in cells
        ]
        return cells[max(range(len(cells)), key=lambda i: (values[i], -i))]

    def rest_of_game(self, observation: Observation, result: Posterior, cells: list[int]) -> int:
        """The candidate after which greedy play ends the game in fewest expected shots (the first when equal)."""
        rules = self._rules
        total = int(result.layouts)
        if len(rules.fleet) == 1:
            rows = np.flatnonzero(result.placement_layouts)[:, None]
        else:
            rows = select_by_search(rules, evidence(rules, observation), np.arange(total, dtype=np.int64))
        tree = GreedyTree(rules, rows, greedy_memo(rules))
        shot = np.zeros(rules.cells, dtype=np.bool_)
        shot[[s.cell for s in observation.shots]] = True
        everyone = np.arange(total)
        if total <= self.options.second:  # played on by the rollout over greedy, not by greedy
            rollout = RolloutTree(tree, self.options.width, rollout_memo(rules, self.options.width))
            costs = [rollout.after(everyone, shot, c) for c in cells]
        else:
            costs = [tree.after(everyone, shot, c) for c in cells]
        return cells[min(range(len(cells)), key=lambda i: (costs[i], i))]
