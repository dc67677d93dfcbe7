"""A sequential layout generator's exact law, and hit probabilities under it by importance sampling.

The ``sequential``, ``r-blog`` and ``contest`` generators (:mod:`battleship.generators`) place the
ships one by one in fleet order. Each try for ship ``s`` picks one of its groups uniformly (a
direction, an orientation), then a member of that group uniformly, so a placement ``p`` is tried
with probability

    d_s(p) = sum over the groups g of ship s holding p of  1 / (groups of s) * 1 / |g|

A try that clashes with the ships already placed (their cells and, under a spacing margin, their
halos) is drawn again, for that ship only. With ``D_s`` the sum of ``d_s`` over the placements
still legal, ship ``s`` lands on ``p`` with probability ``d_s(p) / D_s``. A ship that fails
``K + 1`` tries in a row (``K = 100,000``: only when it is boxed in) throws the layout away and
starts again, so the layout's law is

    P(layout) = prod_s  d_s(p_s) * (1 - (1 - D_s)^(K + 1)) / D_s   /  Z

where ``Z`` (the sum of the product over the valid layouts) is the chance that one attempt
completes: 1 whenever no ship can be boxed in. This is not a product of one weight per placement,
which is all the exact engines take: ``D_s`` depends on where the earlier ships went.

Hit probabilities under this law come from exact uniform samples of the layouts consistent with
the shots, drawn only from placements the generator can make, each weighed by its ``P`` (the
proposal is uniform, so the weight is ``P`` itself): self-normalised importance sampling, exact as
the samples grow.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import sweep
from battleship.inference.evidence import Contradiction, Evidence, evidence
from battleship.inference.graph import TooLarge
from battleship.inference.sampling import MAX_TRIES, PILOT_TRIES, _reject, _rejection_tables
from battleship.inference.watch import watched
from battleship.jit import njit
from battleship.rng import seed_words, stream
from battleship.rules import Rules
from battleship.tables import tables

SHIP_RETRIES = 100_000  # a ship's clashes before its layout starts again (generators.draw_into)
EXACT_SUFFIX = "-exact"
WEIGHTS_SUFFIX = "-weights"  # the placement weights, where the exact law would be played
# the generators whose plain ``prior=GENERATOR`` plays the exact law: those where it was measured ahead
# of the placement weights (contest: 0.389 shots over 2,000 paired held-out layouts of `pirates`). Under
# the sequential generator the law over 1,000 samples a shot was 1.0 shots behind its weights (300
# paired games): its layouts' probabilities spread so widely that uniform samples estimate it poorly.
LAW_BY_DEFAULT = ("contest",)


@dataclass(frozen=True, eq=False)
class Law:
    """A sequential generator's try probabilities, per ship over the placements it can make."""

    generator: str
    ship_start: np.ndarray  # (S+1,) offsets into support
    support: np.ndarray  # placement indices the generator can try, ship by ship
    chance: np.ndarray  # d_s(p) of each support entry
    tried: np.ndarray  # (placements,) bool: d_s(p) > 0


def sequential_generators() -> tuple[str, ...]:
    """The generators whose layouts are drawn ship by ship, retrying only the ship (exact law known)."""
    return tuple(g for g in ("sequential", "r-blog", "contest") if g in generators.GENERATORS)


def split_prior(text: str) -> tuple[str, str]:
    """A ``prior`` option's generator and how it is to be read: ``"contest-exact"`` ->
    ``("contest", "exact")`` (the generator's exact layout law, or a clear error);
    ``"contest-weights"`` -> ``("contest", "weights")`` (its placement weights); ``"contest"`` ->
    ``("contest", "")`` (the law where the shooter and the rules can play it: :func:`plays_law`).

    A clear error for ``-exact`` on a generator whose law is not known in closed form.
    """
    if text.endswith(WEIGHTS_SUFFIX):
        return text[: -len(WEIGHTS_SUFFIX)], "weights"
    if not text.endswith(EXACT_SUFFIX):
        return text, ""
    name = text[: -len(EXACT_SUFFIX)]
    if name not in sequential_generators():
        choices = ", ".join(g + EXACT_SUFFIX for g in sequential_generators())
        raise BattleshipError(
            f"prior {text!r}: the exact layout law is known for the ship-by-ship generators only ({choices})"
        )
    return name, "exact"


def plays_law(rules: Rules, text: str) -> bool:
    """Whether a shooter that can play a generator's exact law (exact greedy play) plays it under the
    option ``prior=text``: always for ``GENERATOR-exact`` (rules it cannot play are refused then),
    never for ``GENERATOR-weights``, and for a plain ``GENERATOR`` whenever the law is known and
    these rules allow it (straight ships) and the law was measured ahead of the weights
    (:data:`LAW_BY_DEFAULT`): the generator's exact prior wherever it is known to help, its placement
    weights otherwise."""
    generator, how = split_prior(text)
    if how:
        return how == "exact"
    if generator not in LAW_BY_DEFAULT or generator not in sequential_generators():
        return False
    try:
        check(rules, generator)
    except BattleshipError:
        return False
    return True


@lru_cache(maxsize=32)
def law(rules: Rules, generator: str) -> Law:
    """The try probabilities ``d_s`` of a ship-by-ship generator under these rules (from its draw plan)."""
    if generator not in sequential_generators():
        raise BattleshipError(f"the {generator} generator does not place ships one by one; no exact law")
    plan = generators.plan(rules, generator)
    t = tables(rules)
    chance = np.zeros(len(t.masks))
    for s in range(len(rules.fleet)):
        first, last = int(plan.ship_groups[s]), int(plan.ship_groups[s + 1])
        for g in range(first, last):
            begin, count = int(plan.group_start[g]), int(plan.group_count[g])
            for m in plan.members[begin : begin + count]:
                chance[int(m)] += 1.0 / ((last - first) * count)
    support = [
        np.flatnonzero(chance[t.start[s] : t.start[s] + t.count[s]]) + t.start[s] for s in range(len(t.count))
    ]
    flat = np.concatenate(support).astype(np.int64)
    ship_start = np.concatenate(([0], np.cumsum([len(a) for a in support]))).astype(np.int64)
    tried = chance > 0
    for a in (flat, ship_start, chance, tried):
        a.setflags(write=False)
    return Law(generator, ship_start, flat, chance[flat], tried)


@njit(cache=True, nogil=True)
def _log_weights(rows, cells, halos, ship_start, support, chance, retries, out):
    """Per row (placements in fleet order), the log of the law's product (before ``1 / Z``)."""
    nships = ship_start.shape[0] - 1
    nwords = cells.shape[1]
    blocked = np.zeros(nwords, dtype=np.uint64)
    for i in range(rows.shape[0]):
        blocked[:] = 0
        total = 1.0
        for s in range(nships):
            p = rows[i, s]
            legal = 0.0
            mine = 0.0
            for j in range(ship_start[s], ship_start[s + 1]):
                q = support[j]
                free = True
                for w in range(nwords):
                    if cells[q, w] & blocked[w]:
                        free = False
                        break
                if free:
                    legal += chance[j]
                    if q == p:
                        mine = chance[j]
            if mine == 0.0:  # never tried, or clashing with an earlier ship
                total = 0.0
                break
            total *= mine / legal
            if legal < 1e-3:  # a ship that may run out of retries: (1 - D)^(K+1) is not negligible
                total *= -np.expm1((retries + 1) * np.log1p(-legal))
            for w in range(nwords):
                blocked[w] |= halos[p, w]
        out[i] = np.log(total) if total > 0.0 else -np.inf


def log_weights(rules: Rules, generator: str, rows: np.ndarray) -> np.ndarray:
    """Per layout (rows of placement indices, fleet order): log of its probability under the generator,
    up to the constant ``-log Z`` (``Z`` = 1 when no ship can be boxed in); ``-inf`` where it is never drawn."""
    t, g = tables(rules), law(rules, generator)
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1, len(rules.fleet))
    out = np.empty(len(rows))
    _log_weights(rows, t.cells, t.halos, g.ship_start, g.support, g.chance, SHIP_RETRIES, out)
    return out


@njit(cache=True, nogil=True)
def _tally(rows, weight, cell_list, size, ship_of, cells_out, placements_out):
    """Weighted occupancy: per cell and per placement, the sum of the weights of the rows using it."""
    for i in range(rows.shape[0]):
        w = weight[i]
        if w == 0.0:
            continue
        for s in range(rows.shape[1]):
            p = rows[i, s]
            placements_out[p] += w
            for k in range(size[ship_of[p]]):
                cells_out[cell_list[p, k]] += w


@dataclass(frozen=True)
class Weighted:
    """Importance-weighted occupancy of sampled layouts (weights sum to ``total``)."""

    cells: np.ndarray  # (cells,)
    placements: np.ndarray  # (placements,)
    total: float
    samples: int
    effective: float  # Kish's effective sample size


def weighted_occupancy(rules: Rules, generator: str, rows: np.ndarray) -> Weighted:
    """Cell and placement occupancy of ``rows`` weighed by the generator's law (scaled to the largest)."""
    t = tables(rules)
    logw = log_weights(rules, generator, rows)
    top = logw.max(initial=-np.inf)
    weight = np.exp(logw - top) if np.isfinite(top) else np.zeros(len(rows))
    cells = np.zeros(rules.cells)
    placements = np.zeros(len(t.masks))
    _tally(rows, weight, t.cell_list, t.size, t.ship_of, cells, placements)
    total = float(weight.sum())
    effective = total**2 / float((weight**2).sum()) if total > 0 else 0.0
    return Weighted(cells, placements, total, len(rows), effective)


def restricted(rules: Rules, ev: Evidence, generator: str) -> Evidence:
    """The evidence with the placements the generator never tries ruled out (their layouts weigh 0)."""
    return Evidence(ev.admissible & law(rules, generator).tried, ev.hits)


def draw_possible(rules: Rules, ev: Evidence, count: int, seed: int) -> np.ndarray:
    """``count`` layouts drawn exactly uniformly from those ``ev`` allows: rejection while it keeps
    enough draws, else paths of the sweep engine's state graph (straight ships)."""
    state = stream(np.uint64(seed_words(seed)), np.uint64(0))
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    tables_ = _rejection_tables(rules, ev, None)
    filled, used = _reject(state, *tables_[:5], PILOT_TRIES, out, tables_[5])
    if filled == count:
        return out
    if filled and used * count / filled <= MAX_TRIES:
        more = watched(_reject, state, *tables_[:5], MAX_TRIES, out[filled:], tables_[5], stop=None)[0]
        if filled + more == count:
            return out
    try:
        rest = sweep.sample_by_sweep(rules, ev, count, state)
    except TooLarge:
        rest = None
    if rest is None:
        raise BattleshipError("the exact sampler's state graph cannot hold this board; no exact prior here")
    if len(rest) == 0:
        raise Contradiction("no layout the generator can draw fits these shots")
    return rest


def check(rules: Rules, generator: str) -> None:
    """Refuse, saying why, rules that :func:`importance` cannot play under ``generator``'s law."""
    if not sweep.applies(rules):
        raise BattleshipError("an exact generator prior needs straight ships (the sweep engine's sampler)")
    law(rules, generator)  # the generator's own refusals (r-blog under a margin, bent ships)


def importance(rules: Rules, observation: Observation, generator: str, samples: int, seed: int) -> Weighted:
    """Hit and placement weights of the layouts consistent with ``observation`` under ``generator``'s law,
    from ``samples`` exact uniform samples of the consistent layouts it can draw, weighed by the law.

    A board no layout of the generator fits (it drew none of them) is answered as if layouts were
    uniform: a prior never makes a legal board unplayable."""
    check(rules, generator)
    ev = evidence(rules, observation)
    try:
        rows = draw_possible(rules, restricted(rules, ev, generator), samples, seed)
    except Contradiction:  # a board the generator could not have drawn: every consistent layout alike
        rows = draw_possible(rules, ev, samples, seed)
        t = tables(rules)
        cells, placements = np.zeros(rules.cells), np.zeros(len(t.masks))
        _tally(rows, np.ones(len(rows)), t.cell_list, t.size, t.ship_of, cells, placements)
        return Weighted(cells, placements, float(len(rows)), len(rows), float(len(rows)))
    return weighted_occupancy(rules, generator, rows)
