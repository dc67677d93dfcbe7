"""Exact inference: every layout consistent with an observation, counted, under a uniform prior.

A layout is consistent with an observation when replaying the shots on it gives exactly the answers
observed. That condition splits into two parts:

- per placement (:func:`evidence`): a ship's placement may not cover a miss; under ``named`` and
  ``revealed`` rules a ship announced sunk at shot ``t`` must have all its cells hit, the last of
  them at shot ``t`` (and under ``revealed`` be exactly the cells shown), and a ship not announced
  must not be entirely hit; under ``sunk`` rules a placement entirely hit must have been completed
  by a shot that announced a sinking, and a placement through a sinking cell must have been
  completed by that very shot (so each announcement belongs to exactly one ship);
- for the whole layout: ships do not overlap (nor break the spacing rule), and every hit is covered.

The engines below count the combinations of admissible placements that satisfy the second part.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from math import factorial, prod

import numpy as np
from numba import njit

from battleship.cells import cell_name, iter_cells
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.rules import Rules, Sinks
from battleship.tables import tables


class Contradiction(BattleshipError):
    """No layout fits the observation."""


@dataclass(frozen=True, eq=False)
class Evidence:
    """What an observation says, in the form the engines read."""

    admissible: np.ndarray  # (placements,) bool
    hits: int  # bitboard of hit cells: every one must be covered


def evidence(rules: Rules, observation: Observation) -> Evidence:
    """Per-placement admissibility and the hits to cover; obvious contradictions raise :class:`Contradiction`."""
    if observation.rules != rules:
        raise BattleshipError("the observation was made under other rules")
    t = tables(rules)
    n = rules.cells
    hit_time = np.full(n + 1, -1, dtype=np.int64)  # index n: the padding of short ships
    miss = np.zeros(n + 1, dtype=bool)
    sink_time = np.full(n + 1, -1, dtype=np.int64)
    announced: dict[int, tuple[int, int, int]] = {}  # ship -> (time, cell, revealed mask)
    hits = 0
    seen = set()
    for time, shot in enumerate(observation.shots):
        where = cell_name(shot.cell, rules.cols) if 0 <= shot.cell < n else str(shot.cell)
        if not 0 <= shot.cell < n:
            raise BattleshipError(f"shot {time + 1} at {where} is off the {rules.rows}x{rules.cols} board")
        if shot.cell in seen:
            raise Contradiction(f"shot {time + 1} fires at {where} a second time")
        seen.add(shot.cell)
        if shot.outcome is Outcome.MISS:
            miss[shot.cell] = True
            continue
        hit_time[shot.cell] = time
        hits |= 1 << shot.cell
        if shot.outcome is Outcome.SUNK:
            if rules.sinks is Sinks.NONE:
                raise Contradiction(
                    f"shot {time + 1} at {where} announces a sinking, but these rules never do"
                )
            sink_time[shot.cell] = time
            if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
                if shot.ship is None or not 0 <= shot.ship < len(rules.fleet):
                    raise Contradiction(
                        f"shot {time + 1} at {where} sinks a ship without naming one of the fleet"
                    )
                if shot.ship in announced:
                    name = rules.fleet[shot.ship].name
                    raise Contradiction(f"shot {time + 1} at {where} sinks the {name} a second time")
                announced[shot.ship] = (time, shot.cell, shot.cells)
    if observation.shots and bin(hits).count("1") == rules.ship_cells:
        last_hit = max(i for i, s in enumerate(observation.shots) if s.outcome is not Outcome.MISS)
        if last_hit != len(observation.shots) - 1:
            raise Contradiction(f"every ship cell was hit by shot {last_hit + 1}: the game was over")
    if bin(hits).count("1") > rules.ship_cells:
        raise Contradiction(f"{bin(hits).count('1')} hits, but the fleet has only {rules.ship_cells} cells")

    cells = np.where(t.cell_list >= 0, t.cell_list, n)
    real = t.cell_list >= 0
    covers_miss = miss[cells].any(axis=1)
    times = np.where(real, hit_time[cells], 0)
    all_hit = (~real | (hit_time[cells] >= 0)).all(axis=1)
    completed = np.where(all_hit, times.max(axis=1), -1)
    sinks_covered = (real & (sink_time[cells] >= 0)).sum(axis=1)
    sink_at_completion = np.zeros(len(cells), dtype=bool)
    ok_completion = all_hit & (completed >= 0)
    sink_at_completion[ok_completion] = (
        sink_time[np.take_along_axis(cells, times.argmax(axis=1)[:, None], axis=1)[:, 0]][ok_completion]
        == completed[ok_completion]
    )
    admissible = ~covers_miss
    if rules.sinks is Sinks.SUNK:
        quiet = ~all_hit & (sinks_covered == 0)
        sunk_here = all_hit & sink_at_completion & (sinks_covered == 1)
        admissible &= quiet | sunk_here
    elif rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        for s in range(len(rules.fleet)):
            block = slice(t.start[s], t.start[s] + t.count[s])
            if s in announced:
                time, _cell, shown = announced[s]
                ok = all_hit[block] & (completed[block] == time)
                if rules.sinks is Sinks.REVEALED:
                    ok &= np.array([m == shown for m in t.masks[block]], dtype=bool)
                admissible[block] &= ok
            else:
                admissible[block] &= ~all_hit[block] & (sinks_covered[block] == 0)
    for s, ship in enumerate(rules.fleet):
        if not admissible[t.start[s] : t.start[s] + t.count[s]].any():
            raise Contradiction(f"the {ship.name} fits nowhere: {why_nowhere(rules, observation, s)}")
    return Evidence(admissible, hits)


def why_nowhere(rules: Rules, observation: Observation, ship: int) -> str:
    """A short reason a ship has no admissible placement."""
    for time, shot in enumerate(observation.shots):
        if shot.outcome is Outcome.SUNK and shot.ship == ship:
            return f"it was announced sunk by shot {time + 1} at {cell_name(shot.cell, rules.cols)}, and no placement of it through that cell was hit entirely by then"
    return "every placement of it crosses a miss or a ship that is already accounted for"


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _room(lists, lengths, cells):
    """``room[d]``: how many cells the ships from depth ``d`` on cover (their sizes summed)."""
    nships = lengths.shape[0]
    room = np.zeros(nships + 1, dtype=np.int64)
    for d in range(nships - 1, -1, -1):
        size = 0
        if lengths[d] > 0:
            for w in range(cells.shape[1]):
                size += int(_popcount(cells[lists[d, 0], w]))
        room[d] = room[d + 1] + size
    return room


@njit(cache=True, nogil=True, inline="always")
def _fits(cells, p, blocked):
    """True when placement ``p`` uses no blocked cell."""
    for w in range(cells.shape[1]):
        if cells[p, w] & blocked[w]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _place(cells, halos, hits, room, p, depth, blocked, covered):
    """Put placement ``p`` at ``depth`` (the next level's blocked and covered cells); False if the branch is dead.

    Dead: a hit no placed ship covers lies in a placed ship's halo (no ship can reach it), or the
    ships left cover fewer cells than the hits left.
    """
    need = 0
    dead = False
    for w in range(cells.shape[1]):
        blocked[depth + 1, w] = blocked[depth, w] | halos[p, w]
        covered[depth + 1, w] = covered[depth, w] | cells[p, w]
        open_hits = hits[w] & ~covered[depth + 1, w]
        if open_hits & blocked[depth + 1, w]:
            dead = True
        need += int(_popcount(open_hits))
    return not dead and need <= room[depth + 1]


@njit(cache=True, nogil=True)
def _enumerate(order, lists, lengths, cells, halos, hits, weight, out_counts):
    """Depth-first over ships in ``order``; counts layouts covering ``hits`` and, per placement, its layouts."""
    nships = order.shape[0]
    nwords = cells.shape[1]
    choice = np.full(nships, -1, dtype=np.int64)
    picked = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    covered = np.zeros((nships + 1, nwords), dtype=np.uint64)
    room = _room(lists, lengths, cells)
    total = weight[0] * 0  # the weights' number type: int64 counts, or float64 under a prior
    depth = 0
    while depth >= 0:
        choice[depth] += 1
        if choice[depth] >= lengths[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = lists[depth, choice[depth]]
        if not _fits(cells, p, blocked[depth]):
            continue
        picked[depth] = p
        if depth == nships - 1:
            ok = True
            for w in range(nwords):
                if hits[w] & ~(covered[depth, w] | cells[p, w]):
                    ok = False
                    break
            if ok:
                w = weight[picked[0]]
                for d in range(1, nships):
                    w *= weight[picked[d]]
                total += w
                for d in range(nships if out_counts.shape[0] > 0 else 0):
                    out_counts[picked[d]] += w
            continue
        if _place(cells, halos, hits, room, p, depth, blocked, covered):
            depth += 1
    return total


@njit(cache=True, nogil=True)
def _pair_tables(xs, ys, cells, halos, ncells):
    """Bitsets over the last two ships' lists: conflicts both ways, and which of ``ys`` cover each cell."""
    nx, ny = xs.shape[0], ys.shape[0]
    nwx, nwy = (nx + 63) // 64, (ny + 63) // 64
    nwords = cells.shape[1]
    conflict_xy = np.zeros((nx, nwy), dtype=np.uint64)
    conflict_yx = np.zeros((ny, nwx), dtype=np.uint64)
    for i in range(nx):
        for j in range(ny):
            for w in range(nwords):
                if cells[ys[j], w] & halos[xs[i], w]:
                    conflict_xy[i, j // 64] |= np.uint64(1) << np.uint64(j % 64)
                    conflict_yx[j, i // 64] |= np.uint64(1) << np.uint64(i % 64)
                    break
    cover_y = np.zeros((ncells, nwy), dtype=np.uint64)
    for j in range(ny):
        for c in range(ncells):
            if cells[ys[j], c // 64] >> np.uint64(c % 64) & np.uint64(1):
                cover_y[c, j // 64] |= np.uint64(1) << np.uint64(j % 64)
    return conflict_xy, conflict_yx, cover_y


@njit(cache=True, nogil=True)
def _nth_bit(bits, n):
    """Position of the ``n``-th (from 0) set bit of a multi-word bitset."""
    for w in range(bits.shape[0]):
        k = int(_popcount(bits[w]))
        if n < k:
            x = bits[w]
            for _ in range(n):
                x &= x - np.uint64(1)
            return 64 * w + int(_popcount((x & (~x + np.uint64(1))) - np.uint64(1)))
        n -= k
    return -1


@njit(cache=True, nogil=True)
def _enumerate_pairs(lists, lengths, cells, halos, hits, ncells, out_counts, targets, out_rows):
    """As :func:`_enumerate` with unit weights, the last two ships counted together with bitsets.

    At a node where only two ships are left, the pairs of their placements that fit are counted
    with one AND and popcount per placement of the first instead of a loop over the second.
    ``targets`` (sorted, may be empty) selects layouts by their number in this visiting order:
    row ``i`` of ``out_rows`` gets layout ``targets[i]``, in depth order (exact sampling).
    """
    nships = lengths.shape[0]
    nwords = cells.shape[1]
    want = out_counts.shape[0] > 0
    xs = lists[nships - 2, : lengths[nships - 2]]
    ys = lists[nships - 1, : lengths[nships - 1]]
    nx, ny = xs.shape[0], ys.shape[0]
    nwx, nwy = (nx + 63) // 64, (ny + 63) // 64
    conflict_xy, conflict_yx, cover_y = _pair_tables(xs, ys, cells, halos, ncells)
    valid_y = np.zeros(nwy, dtype=np.uint64)
    valid_x = np.zeros(nwx, dtype=np.uint64)
    m = np.zeros(nwy, dtype=np.uint64)
    left = np.zeros(nwords, dtype=np.uint64)
    choice = np.full(nships, -1, dtype=np.int64)
    picked = np.full(nships, -1, dtype=np.int64)
    blocked = np.zeros((nships + 1, nwords), dtype=np.uint64)
    covered = np.zeros((nships + 1, nwords), dtype=np.uint64)
    room = _room(lists, lengths, cells)
    total = 0
    leaf = nships - 2
    depth = 0
    next_target = 0
    while depth >= 0:
        if depth == leaf:
            # the two ships left: which of their placements fit, then the pairs
            valid_y[:] = 0
            for j in range(ny):
                if _fits(cells, ys[j], blocked[depth]):
                    valid_y[j // 64] |= np.uint64(1) << np.uint64(j % 64)
            uncovered = False
            for w in range(nwords):
                if hits[w] & ~covered[depth, w]:
                    uncovered = True
            valid_x[:] = 0
            node = 0
            for i in range(nx):
                p = xs[i]
                if not _fits(cells, p, blocked[depth]):
                    continue
                valid_x[i // 64] |= np.uint64(1) << np.uint64(i % 64)
                for w in range(nwy):
                    m[w] = valid_y[w] & ~conflict_xy[i, w]
                if uncovered:
                    for w in range(nwords):
                        left[w] = hits[w] & ~covered[depth, w] & ~cells[p, w]
                        while left[w]:
                            low = left[w] & (~left[w] + np.uint64(1))
                            c = 64 * w + int(_popcount(low - np.uint64(1)))
                            for k in range(nwy):
                                m[k] &= cover_y[c, k]
                            left[w] ^= low
                found = 0
                for w in range(nwy):
                    found += int(_popcount(m[w]))
                if found == 0:
                    continue
                while next_target < targets.shape[0] and targets[next_target] < total + node + found:
                    out_rows[next_target, :leaf] = picked[:leaf]
                    out_rows[next_target, leaf] = p
                    out_rows[next_target, leaf + 1] = ys[_nth_bit(m, targets[next_target] - total - node)]
                    next_target += 1
                node += found
                if want:
                    out_counts[p] += found
                    if uncovered:  # few pairs: credit the second ship's placements one by one
                        for w in range(nwy):
                            bits = m[w]
                            while bits:
                                low = bits & (~bits + np.uint64(1))
                                out_counts[ys[64 * w + int(_popcount(low - np.uint64(1)))]] += 1
                                bits ^= low
            if want and not uncovered and node > 0:
                for j in range(ny):
                    if valid_y[j // 64] >> np.uint64(j % 64) & np.uint64(1):
                        c = 0
                        for w in range(nwx):
                            c += int(_popcount(valid_x[w] & ~conflict_yx[j, w]))
                        out_counts[ys[j]] += c
            if want:
                for d in range(leaf):
                    out_counts[picked[d]] += node
            total += node
            depth -= 1
            continue
        choice[depth] += 1
        if choice[depth] >= lengths[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        p = lists[depth, choice[depth]]
        if not _fits(cells, p, blocked[depth]):
            continue
        picked[depth] = p
        if _place(cells, halos, hits, room, p, depth, blocked, covered):
            depth += 1
    return total


def _search_lists(rules: Rules, ev: Evidence):
    """The admissible placements per ship, fewest first, as the search kernels read them."""
    t = tables(rules)
    groups = [
        np.flatnonzero(ev.admissible[t.start[s] : t.start[s] + t.count[s]]) + t.start[s]
        for s in range(len(rules.fleet))
    ]
    order = np.argsort([len(g) for g in groups], kind="stable")
    width = max(len(g) for g in groups)
    lists = np.full((len(groups), width), -1, dtype=np.int64)
    lengths = np.zeros(len(groups), dtype=np.int64)
    for d, s in enumerate(order):
        lists[d, : len(groups[s])] = groups[s]
        lengths[d] = len(groups[s])
    hits = np.array([(ev.hits >> (64 * w)) & (2**64 - 1) for w in range(t.nwords)], dtype=np.uint64)
    return order, lists, lengths, hits


_EMPTY = np.zeros(0, dtype=np.int64)  # no marginals wanted, or no layouts to select
_NO_ROWS = np.zeros((0, 0), dtype=np.int64)


def count_by_search(rules: Rules, ev: Evidence, marginals: bool = True, weight: np.ndarray | None = None):
    """Layouts and per-placement layout counts, by visiting every consistent layout (any rules)."""
    t = tables(rules)
    order, lists, lengths, hits = _search_lists(rules, ev)
    weight = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    counts = np.zeros(len(t.masks) if marginals else 0, dtype=weight.dtype)
    if len(order) >= 2 and weight.dtype == np.int64 and (weight == 1).all():
        total = _enumerate_pairs(
            lists, lengths, t.cells, t.halos, hits, rules.cells, counts, _EMPTY, _NO_ROWS
        )
    else:
        total = _enumerate(order, lists, lengths, t.cells, t.halos, hits, weight, counts)
    return (float(total) if weight.dtype == np.float64 else int(total)), counts


def select_by_search(rules: Rules, ev: Evidence, targets: np.ndarray) -> np.ndarray:
    """The consistent layouts numbered ``targets`` (sorted) in the search's visiting order.

    Rows of placement indices in fleet order. With targets drawn uniformly below the number of
    layouts this is exact uniform sampling, at the cost of one counting pass. Needs two ships or more.
    """
    t = tables(rules)
    order, lists, lengths, hits = _search_lists(rules, ev)
    rows = np.full((len(targets), len(order)), -1, dtype=np.int64)
    _enumerate_pairs(lists, lengths, t.cells, t.halos, hits, rules.cells, _EMPTY, targets, rows)
    out = np.empty_like(rows)
    out[:, order] = rows
    return out


@dataclass(frozen=True, eq=False)
class Posterior:
    """The exact answer: how many layouts fit, and how many of them use each placement and cell."""

    rules: Rules
    layouts: int | float  # a float only under a float prior
    placement_layouts: np.ndarray  # (placements,) int64 (float64 under a float prior): layouts using each
    engine: str

    @cached_property
    def cell_layouts(self) -> np.ndarray:
        """Per cell, the number of consistent layouts with a ship there (int64, rows x cols)."""
        t = tables(self.rules)
        out = np.zeros(self.rules.cells + 1, dtype=self.placement_layouts.dtype)
        cells = np.where(t.cell_list >= 0, t.cell_list, self.rules.cells)
        np.add.at(out, cells.ravel(), np.repeat(self.placement_layouts, cells.shape[1]))
        grid = out[:-1].reshape(self.rules.rows, self.rules.cols)
        grid.setflags(write=False)  # results may be shared (the open board is cached)
        return grid

    @cached_property
    def probability(self) -> np.ndarray:
        """Per cell, the probability that it holds a ship (rows x cols floats)."""
        return self.cell_layouts / self.layouts

    def placement_probability(self, ship: int) -> np.ndarray:
        """The probability of each placement of ``ship`` (in the order of ``rules.placements[ship]``)."""
        t = tables(self.rules)
        return self.placement_layouts[t.start[ship] : t.start[ship] + t.count[ship]] / self.layouts

    def best(self, observation: Observation) -> list[int]:
        """The unshot cells of highest probability (all of them when tied)."""
        counts = self.cell_layouts.ravel()
        open_cells = [c for c in range(self.rules.cells) if not observation.is_shot(c)]
        if not open_cells:
            return []
        top = max(counts[c] for c in open_cells)
        return [c for c in open_cells if counts[c] == top]


def count(rules: Rules, observation: Observation | None = None) -> tuple[int, str]:
    """The number of layouts consistent with ``observation`` (ships told apart), and the engine used."""
    ev = evidence(rules, observation or Observation(rules))
    check_size(rules, ev)
    if choose_engine(rules, ev) == "rows":
        return count_by_rows(rules, ev, marginals=False)[0], "rows"
    return count_by_search(rules, ev, marginals=False)[0], "search"


def posterior(
    rules: Rules, observation: Observation | None = None, prior: np.ndarray | None = None, cached: bool = True
) -> Posterior:
    """The exact posterior over layouts given ``observation``.

    The prior is uniform over layouts unless ``prior`` gives a weight per placement (in the order of
    :func:`battleship.tables.tables`), a layout then weighing the product of its placements' weights:
    integer weights keep every count exact, float weights give float sums. The open board (no shot,
    uniform prior) is computed once per rules unless ``cached`` is False.
    """
    observation = observation or Observation(rules)
    if cached and not observation.shots and prior is None and observation.rules == rules:
        return _open_board(rules)  # every game starts here: computed once per rules
    return _posterior(rules, observation, prior)


@lru_cache(maxsize=32)
def _open_board(rules: Rules) -> Posterior:
    """The posterior before any shot (read-only arrays, shared)."""
    result = _posterior(rules, Observation(rules), None)
    result.placement_layouts.setflags(write=False)
    return result


def _posterior(rules: Rules, observation: Observation, prior: np.ndarray | None) -> Posterior:
    """:func:`posterior` without the cache."""
    ev = evidence(rules, observation)
    weight = None if prior is None else check_prior(rules, prior)
    check_size(rules, ev, weight)
    engine = choose_engine(rules, ev, weight)
    count_with = count_by_rows if engine == "rows" else count_by_search
    total, counts = count_with(rules, ev, weight=weight)
    if total == 0:
        if prior is not None:
            raise Contradiction("every layout that fits these shots has prior weight zero")
        raise Contradiction(
            "no layout fits these shots: "
            + ", ".join(cell_name(c, rules.cols) for c in iter_cells(ev.hits))
            + " cannot all be covered by the fleet under these rules"
            if ev.hits
            else "no layout fits these shots"
        )
    return Posterior(rules, total, counts, engine)


def check_prior(rules: Rules, prior: np.ndarray) -> np.ndarray:
    """A prior as the engines take it: one finite non-negative weight per placement, int64 or float64."""
    t = tables(rules)
    prior = np.asarray(prior)
    if prior.shape != (len(t.masks),):
        raise BattleshipError(
            f"a prior needs one weight per placement ({len(t.masks)}), not shape {prior.shape}"
        )
    if not np.isfinite(prior).all() or (prior < 0).any():
        raise BattleshipError("prior weights must be finite and not negative")
    if np.issubdtype(prior.dtype, np.integer):
        return prior.astype(np.int64)
    return prior.astype(np.float64)


# the search visits about 10^10 candidate combinations a second at most; below this many the
# search beats the row engine's fixed cost (measured on standard games: 10^8 -> 7.5 ms against 27 ms)
SEARCH_BELOW = 5 * 10**8


def choices(rules: Rules, ev: Evidence) -> int:
    """The product over ships of their admissible placements: an upper bound on the layouts."""
    t = tables(rules)
    out = 1
    for s in range(len(rules.fleet)):
        out *= int(ev.admissible[t.start[s] : t.start[s] + t.count[s]].sum())
    return out


def choose_engine(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> str:
    """``"rows"`` when it applies and the search would be slower, else ``"search"``."""
    if not fast_path(rules):
        return "search"
    unit = weight is None or (weight.dtype == np.int64 and (weight == 1).all())
    return "search" if unit and choices(rules, ev) < SEARCH_BELOW else "rows"


def check_size(rules: Rules, ev: Evidence, weight: np.ndarray | None = None) -> None:
    """Refuse problems whose counts could overflow 64-bit integers (their product of choices is the bound)."""
    if weight is not None and weight.dtype == np.float64:
        return  # floats do not overflow at these sizes
    t = tables(rules)
    bound = 1
    for s in range(len(rules.fleet)):
        block = slice(t.start[s], t.start[s] + t.count[s])
        top = 1 if weight is None else max(1, int(weight[block].max()))
        bound *= max(1, int(ev.admissible[block].sum())) * top
    if bound >= 2**62:
        raise BattleshipError(
            f"up to {bound:.3e} layouts: too many for exact 64-bit counting; use a smaller board or fleet"
        )


# ---- the fast engine: straight ships that may touch -------------------------------------------
#
# Every ship lies along a row or down a column. For one choice of orientations, enumerate the
# placements of the column ships (the minority: the board is transposed when most ships lie in
# columns); the row ships then lie within single rows, which are independent. A left-to-right
# pass over a row counts, for every subset of the row ships, the ways to put that subset in the row
# covering its uncovered hits; a subset convolution down the rows counts the layouts. The same pass
# run backwards, weighted by the ways the other rows hold the other ships (prefix and suffix
# products over rows), gives every row placement's count.


@njit(cache=True, nogil=True)
def _row_forward(r, cols, free, must, hz, lengths, pidx_row, weight, f):
    """``f[c][A]``: ways to fill columns < c of row ``r`` with the row ships of subset ``A``."""
    nsub = f.shape[1]
    f[:, :] = 0
    f[0, 0] = 1
    for c in range(cols):
        for a in range(nsub):
            v = f[c, a]
            if v == 0:
                continue
            if not must >> c & 1:
                f[c + 1, a] += v
            for j in range(hz.shape[0]):
                if a >> j & 1:
                    continue
                length = lengths[hz[j]]
                if c + length > cols or pidx_row[hz[j], r, c] < 0:
                    continue
                piece = ((1 << length) - 1) << c
                if free & piece == piece:
                    f[c + length, a | (1 << j)] += v * weight[pidx_row[hz[j], r, c]]


@njit(cache=True, nogil=True)
def _row_kernel(r, cols, free, must, hz, lengths, pidx_row, weight, f, g, kernel):
    """Row ``r`` with free cells ``free``: ``kernel[j * cols + c][X]`` counts the ways the row holds row
    ship ``j`` at column ``c`` while the ships of ``X`` lie in other rows (so a placement's layouts are
    ``kernel . other``); returns nothing, fills ``f`` (forward ways) on the way."""
    nsub = f.shape[1]
    full = nsub - 1
    _row_forward(r, cols, free, must, hz, lengths, pidx_row, weight, f)
    # g[c][B]: ways to fill columns >= c with exactly the row ships of B
    g[:, :] = 0
    g[cols, 0] = 1
    for c in range(cols - 1, -1, -1):
        for b in range(nsub):
            v = 0 if must >> c & 1 else g[c + 1, b]
            for j in range(hz.shape[0]):
                if not b >> j & 1:
                    continue
                length = lengths[hz[j]]
                if c + length > cols or pidx_row[hz[j], r, c] < 0:
                    continue
                piece = ((1 << length) - 1) << c
                if free & piece == piece:
                    v += g[c + length, b & ~(1 << j)] * weight[pidx_row[hz[j], r, c]]
            g[c, b] = v
    kernel[:, :] = 0
    for j in range(hz.shape[0]):
        length = lengths[hz[j]]
        for c in range(cols - length + 1):
            piece = ((1 << length) - 1) << c
            if pidx_row[hz[j], r, c] < 0 or free & piece != piece:
                continue
            row = kernel[j * cols + c]
            w = weight[pidx_row[hz[j], r, c]]
            for a in range(nsub):
                if a >> j & 1 or f[c, a] == 0:
                    continue
                rest = full & ~a & ~(1 << j)
                b = rest
                while True:
                    if g[c + length, b]:
                        row[rest & ~b] += f[c, a] * g[c + length, b] * w
                    if b == 0:
                        break
                    b = (b - 1) & rest


@njit(cache=True, nogil=True, inline="always")
def _convolve(x, y, out):
    """Subset convolution: ``out[S] = sum over A within S of x[S - A] * y[A]``."""
    for s in range(out.shape[0]):
        total = x[0] * 0
        a = s
        while True:
            total += x[s & ~a] * y[a]
            if a == 0:
                break
            a = (a - 1) & s
        out[s] = total


@njit(cache=True, nogil=True, inline="always")
def _slot(r, free, row, memo):
    """The slot of row ``r`` with free cells ``free``: its ways are computed the first time only.

    ``row`` is what a row pass reads (cols, hitrow, hz, lengths, pidx_row, weight, scratch f);
    ``memo`` the slots so far (slot_of, way_rows, key_of, a one-cell counter).
    """
    cols, hitrow, hz, lengths, pidx_row, weight, f = row
    slot_of, way_rows, key_of, nslots = memo
    at = slot_of[r, free]
    if at < 0:
        at = nslots[0]
        nslots[0] += 1
        slot_of[r, free] = at
        key_of[at] = r * slot_of.shape[1] + free
        _row_forward(r, cols, free, hitrow[r] & free, hz, lengths, pidx_row, weight, f)
        way_rows[at, :] = f[cols, :]
    return at


@njit(cache=True, nogil=True, inline="always")
def _dot_full(x, y, full):
    """``sum over B of x[B] * y[full - B]``: the count once ``x`` and ``y`` split every row ship."""
    total = x[0] * 0
    b = full
    while True:
        if x[b] != 0:
            total += x[b] * y[full & ~b]
        if b == 0:
            break
        b = (b - 1) & full
    return total


@njit(cache=True, nogil=True)
def _split(rows, cols, lengths, vertical, pidx_row, pidx_col, hitrow, weight, counts):
    """Layouts with the ships flagged ``vertical`` down columns and the rest along rows; adds to ``counts``.

    The column ships but the last are enumerated; the last one's placements are handled together:
    each changes only the rows it crosses, so with the prefix and suffix over the other rows its
    layouts cost a convolution per row it crosses, and the row placements' weights from every
    placement of it are gathered in two passes over the rows (``below`` and ``above``).
    """
    nships = lengths.shape[0]
    nh = 0
    for s in range(nships):
        if not vertical[s]:
            nh += 1
    hz = np.empty(nh, dtype=np.int64)
    vt = np.empty(nships - nh, dtype=np.int64)
    i = k = 0
    for s in range(nships):
        if vertical[s]:
            vt[k] = s
            k += 1
        else:
            hz[i] = s
            i += 1
    nv = vt.shape[0]
    nsub = 1 << nh
    full = nsub - 1
    rowfull = (1 << cols) - 1
    want = counts.shape[0] > 0  # an empty counts array asks for the total only
    # the admissible column placements of each vertical ship: (top, col, placement)
    vlist = np.empty((nv, rows * cols, 3), dtype=np.int64)
    vcount = np.zeros(nv, dtype=np.int64)
    for d in range(nv):
        s = vt[d]
        for r in range(rows):
            for c in range(cols):
                if pidx_col[s, r, c] >= 0:
                    vlist[d, vcount[d], 0] = r
                    vlist[d, vcount[d], 1] = c
                    vlist[d, vcount[d], 2] = pidx_col[s, r, c]
                    vcount[d] += 1
    # a row's free cells lose at most one bit per column ship: that bounds the distinct rows met
    per_row = 0
    term = 1
    for j in range(nv + 1):
        per_row += term
        term = term * (cols - j) // (j + 1)
    capacity = rows * min(per_row, rowfull + 1)
    slot_of = np.full((rows, rowfull + 1), -1, dtype=np.int64)
    way_rows = np.zeros((capacity, nsub), dtype=weight.dtype)
    acc = np.zeros((capacity, nsub), dtype=weight.dtype)
    key_of = np.zeros(capacity, dtype=np.int64)
    nslots = np.zeros(1, dtype=np.int64)
    f = np.zeros((cols + 1, nsub), dtype=weight.dtype)
    h = np.zeros((cols + 1, nsub), dtype=weight.dtype)
    used = np.zeros((nv + 1, rows), dtype=np.int64)
    choice = np.full(nv + 1, -1, dtype=np.int64)
    base = np.zeros(rows, dtype=np.int64)
    prefix = np.zeros((rows + 1, nsub), dtype=weight.dtype)
    suffix = np.zeros((rows + 1, nsub), dtype=weight.dtype)
    other = np.zeros(nsub, dtype=weight.dtype)
    tmp = np.zeros(nsub, dtype=weight.dtype)
    starts = np.zeros((rows + 1, nsub), dtype=weight.dtype)  # by top row: last ship's M * suffix
    ends = np.zeros((rows + 1, nsub), dtype=weight.dtype)  # by bottom row: prefix * last ship's M
    below = np.zeros((rows + 1, nsub), dtype=weight.dtype)
    above = np.zeros((rows + 1, nsub), dtype=weight.dtype)
    maxlen = 1
    for d in range(nv):
        maxlen = max(maxlen, lengths[vt[d]])
    inner_pre = np.zeros((maxlen + 1, nsub), dtype=weight.dtype)
    inner_suf = np.zeros((maxlen + 1, nsub), dtype=weight.dtype)
    mod = np.zeros(maxlen, dtype=np.int64)
    row = (cols, hitrow, hz, lengths, pidx_row, weight, f)
    memo = (slot_of, way_rows, key_of, nslots)
    total = weight[0] * 0
    leaf = nv - 1 if nv > 0 else 0
    depth = 0
    while depth >= 0:
        if depth == leaf:
            for r in range(rows):
                base[r] = _slot(r, rowfull & ~used[depth, r], row, memo)
            prefix[0, :] = 0
            prefix[0, 0] = 1
            for r in range(rows):
                _convolve(prefix[r], way_rows[base[r]], prefix[r + 1])
            suffix[rows, :] = 0
            suffix[rows, 0] = 1
            for r in range(rows - 1, -1, -1):
                _convolve(suffix[r + 1], way_rows[base[r]], suffix[r])
            vw = weight[0] * 0 + 1  # the enumerated column ships' weight
            for d in range(leaf if nv > 0 else 0):
                vw *= weight[vlist[d, choice[d], 2]]
            if nv == 0:
                found = prefix[rows, full]
                total += found
                if want and found > 0:
                    for r in range(rows):
                        _convolve(prefix[r], suffix[r + 1], other)
                        for x in range(nsub):
                            acc[base[r], x] += other[x]
                depth -= 1
                continue
            last = vt[nv - 1]
            length = lengths[last]
            starts[:, :] = 0
            ends[:, :] = 0
            gathered = weight[0] * 0
            for k in range(vcount[nv - 1]):
                top, col, p = vlist[nv - 1, k, 0], vlist[nv - 1, k, 1], vlist[nv - 1, k, 2]
                clash = False
                for r in range(top, top + length):
                    if used[depth, r] >> col & 1:
                        clash = True
                        break
                if clash:
                    continue
                for i in range(length):
                    r = top + i
                    mod[i] = _slot(r, rowfull & ~used[depth, r] & ~(1 << col), row, memo)
                inner_pre[0, :] = prefix[top]
                for i in range(length):
                    _convolve(inner_pre[i], way_rows[mod[i]], inner_pre[i + 1])
                wl = weight[p] * vw
                found = _dot_full(inner_pre[length], suffix[top + length], full) * wl
                total += found
                if not want or found == 0:
                    continue
                counts[p] += found
                gathered += found
                inner_suf[length, :] = suffix[top + length]
                for i in range(length - 1, -1, -1):
                    _convolve(inner_suf[i + 1], way_rows[mod[i]], inner_suf[i])
                for i in range(length):
                    _convolve(inner_pre[i], inner_suf[i + 1], other)
                    for x in range(nsub):
                        acc[mod[i], x] += wl * other[x]
                # the rows above and below this placement: M * suffix by top row, prefix * M by bottom row
                m_only = inner_suf[0]  # rows top.. with this placement, then the suffix below it
                for x in range(nsub):
                    starts[top, x] += wl * m_only[x]
                    ends[top + length - 1, x] += wl * inner_pre[length, x]
            if want and gathered > 0:
                for d in range(leaf):
                    counts[vlist[d, choice[d], 2]] += gathered
                # below[r]: placements starting under row r, with the rows between; above[r]: ending over it
                below[rows - 1, :] = 0
                for r in range(rows - 2, -1, -1):
                    _convolve(below[r + 1], way_rows[base[r + 1]], tmp)
                    for x in range(nsub):
                        below[r, x] = tmp[x] + starts[r + 1, x]
                above[0, :] = 0
                for r in range(1, rows):
                    _convolve(above[r - 1], way_rows[base[r - 1]], tmp)
                    for x in range(nsub):
                        above[r, x] = tmp[x] + ends[r - 1, x]
                for r in range(rows):
                    _convolve(prefix[r], below[r], other)
                    _convolve(above[r], suffix[r + 1], tmp)
                    for x in range(nsub):
                        acc[base[r], x] += other[x] + tmp[x]
            depth -= 1
            continue
        choice[depth] += 1
        if choice[depth] >= vcount[depth]:
            choice[depth] = -1
            depth -= 1
            continue
        top, col = vlist[depth, choice[depth], 0], vlist[depth, choice[depth], 1]
        length = lengths[vt[depth]]
        ok = True
        for r in range(top, top + length):
            if used[depth, r] >> col & 1:
                ok = False
                break
        if not ok:
            continue
        for r in range(rows):
            used[depth + 1, r] = used[depth, r]
        for r in range(top, top + length):
            used[depth + 1, r] |= 1 << col
        depth += 1
    if want:
        kernel = np.zeros((max(1, nh) * cols, nsub), dtype=weight.dtype)
        for at in range(nslots[0]):
            r, free = key_of[at] // (rowfull + 1), key_of[at] % (rowfull + 1)
            nonzero = False
            for x in range(nsub):
                if acc[at, x] != 0:
                    nonzero = True
                    break
            if not nonzero:
                continue
            _row_kernel(r, cols, free, hitrow[r] & free, hz, lengths, pidx_row, weight, f, h, kernel)
            for j in range(nh):
                length = lengths[hz[j]]
                for c in range(cols - length + 1):
                    p = pidx_row[hz[j], r, c]
                    piece = ((1 << length) - 1) << c
                    if p < 0 or free & piece != piece:
                        continue
                    m = weight[0] * 0
                    for x in range(nsub):
                        m += kernel[j * cols + c, x] * acc[at, x]
                    counts[p] += m
    return total


@njit(cache=True, nogil=True)
def _count_rows(lengths, frames_rows, frames_cols, pidx_row, pidx_col, hitrow, weight, twins, start, counts):
    """Every orientation split; frame 0 is the board, frame 1 its transpose. Returns the layout count.

    ``twins`` names two ships that are interchangeable here (same shape, same admissible placements,
    same weights; -1 when none): a split with one of them down a column and the other along a row
    is the mirror image of the split with the two swapped, so it is computed once and counted twice,
    its placement counts swapped between the twins' blocks.
    """
    nships = lengths.shape[0]
    total = weight[0] * 0
    vertical = np.zeros(nships, dtype=np.bool_)
    a, b = twins[0], twins[1]
    tmp = np.zeros(counts.shape[0], dtype=counts.dtype)
    for vset in range(1 << nships):
        mirrored = a >= 0 and (vset >> a & 1) != (vset >> b & 1)
        if mirrored and vset >> b & 1:
            continue  # counted with its mirror image, which has the first twin down a column
        skip = False
        nv = 0
        for s in range(nships):
            vertical[s] = vset >> s & 1
            if vertical[s]:
                nv += 1
                if lengths[s] == 1:
                    skip = True  # a one-cell ship is counted once, along a row
        if skip:
            continue
        frame = 0 if 2 * nv <= nships else 1
        if frame == 1:
            for s in range(nships):
                vertical[s] = not vertical[s] and lengths[s] > 1
            # one-cell ships stay "along a row" in the transposed frame too
        out = tmp if mirrored else counts
        if mirrored:
            tmp[:] = 0
        found = _split(
            frames_rows[frame],
            frames_cols[frame],
            lengths,
            vertical,
            pidx_row[frame],
            pidx_col[frame],
            hitrow[frame],
            weight,
            out,
        )
        total += found
        if mirrored:
            total += found
            for p in range(tmp.shape[0]):
                counts[p] += tmp[p]
            for p in range(tmp.shape[0]):  # the mirror image: the twins' blocks swapped
                q = p
                if start[a] <= p < start[a + 1]:
                    q = p - start[a] + start[b]
                elif start[b] <= p < start[b + 1]:
                    q = p - start[b] + start[a]
                counts[q] += tmp[p]
    return total


def _twins(rules: Rules, ev: Evidence, weight: np.ndarray) -> np.ndarray:
    """Two ships that are interchangeable under this evidence and weights, or (-1, -1)."""
    t = tables(rules)
    for a in range(len(rules.fleet)):
        for b in range(a + 1, len(rules.fleet)):
            if rules.fleet[a].cells != rules.fleet[b].cells or rules.fleet[a].size == 1:
                continue
            block_a = slice(t.start[a], t.start[a] + t.count[a])
            block_b = slice(t.start[b], t.start[b] + t.count[b])
            if (ev.admissible[block_a] == ev.admissible[block_b]).all() and (
                weight[block_a] == weight[block_b]
            ).all():
                return np.array([a, b], dtype=np.int64)
    return np.array([-1, -1], dtype=np.int64)


def _frames(rules: Rules, ev: Evidence):
    """Placement indices by (ship, row, col) along rows and down columns, for the board and its transpose."""
    t = tables(rules)
    rows, cols = rules.rows, rules.cols
    side = max(rows, cols)
    nships = len(rules.fleet)
    pidx_row = np.full((2, nships, side, side), -1, dtype=np.int64)
    pidx_col = np.full((2, nships, side, side), -1, dtype=np.int64)
    for p in np.flatnonzero(ev.admissible):
        s = int(t.ship_of[p])
        first = int(t.cell_list[p, 0])
        r, c = divmod(first, cols)
        along_row = t.size[s] == 1 or int(t.cell_list[p, 1]) == first + 1
        if along_row:
            pidx_row[0, s, r, c] = p
            (pidx_row if t.size[s] == 1 else pidx_col)[1, s, c, r] = p
        else:
            pidx_col[0, s, r, c] = p
            pidx_row[1, s, c, r] = p
    hitrow = np.zeros((2, side), dtype=np.int64)
    for cell in iter_cells(ev.hits):
        r, c = divmod(cell, cols)
        hitrow[0, r] |= 1 << c
        hitrow[1, c] |= 1 << r
    return (
        np.array([rows, cols], dtype=np.int64),
        np.array([cols, rows], dtype=np.int64),
        pidx_row,
        pidx_col,
        hitrow,
    )


def fast_path(rules: Rules) -> bool:
    """True when the row engine applies: straight ships that may touch, sides up to 16."""
    return (
        rules.spacing.value == "touch"
        and all(s.is_straight for s in rules.fleet)
        and max(rules.rows, rules.cols) <= 16
        and len(rules.fleet) <= 12
    )


def count_by_rows(rules: Rules, ev: Evidence, marginals: bool = True, weight: np.ndarray | None = None):
    """Layouts and per-placement layout counts by the row engine (see :func:`fast_path`)."""
    t = tables(rules)
    frames_rows, frames_cols, pidx_row, pidx_col, hitrow = _frames(rules, ev)
    lengths = t.size.astype(np.int64)
    weight = np.ones(len(t.masks), dtype=np.int64) if weight is None else weight
    counts = np.zeros(len(t.masks) if marginals else 0, dtype=weight.dtype)
    twins = _twins(rules, ev, weight)
    start = np.append(t.start, len(t.masks)).astype(np.int64)
    total = _count_rows(
        lengths, frames_rows, frames_cols, pidx_row, pidx_col, hitrow, weight, twins, start, counts
    )
    return (float(total) if weight.dtype == np.float64 else int(total)), counts


def identical_factor(rules: Rules) -> int:
    """How many distinct-ship layouts make one layout when same-shaped ships are not told apart."""
    seen: dict[tuple, int] = {}
    for ship in rules.fleet:
        seen[ship.cells] = seen.get(ship.cells, 0) + 1
    return prod(factorial(n) for n in seen.values())


def _engine(rules: Rules, ev: Evidence) -> tuple[int, np.ndarray]:
    """Layouts and per-placement counts by the fastest exact engine for ``rules``."""
    return (count_by_rows if choose_engine(rules, ev) == "rows" else count_by_search)(rules, ev)


def sample(rules: Rules, observation: Observation, count: int, seed: int = 0) -> np.ndarray:
    """``count`` layouts drawn exactly uniformly from those consistent with ``observation``.

    Ship by ship: draw the ship's placement with probability (its layouts / all layouts), using an
    integer draw so the law is exact, then condition on it. Draws that agree so far share the work.
    Returns rows of placement indices (one per ship, in fleet order).
    """
    ev = evidence(rules, observation)
    check_size(rules, ev)
    t = tables(rules)
    rng = np.random.default_rng(seed)
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)

    def fill(which: np.ndarray, admissible: np.ndarray, ship: int) -> None:
        if ship == len(rules.fleet):
            return
        total, counts = _engine(rules, Evidence(admissible, ev.hits))
        if total == 0:
            raise Contradiction("no layout fits these shots")
        block = counts[t.start[ship] : t.start[ship] + t.count[ship]]
        cumulative = np.cumsum(block)
        draws = np.array([int(rng.integers(0, total)) for _ in which], dtype=np.int64)
        chosen = np.searchsorted(cumulative, draws, side="right") + t.start[ship]
        for p in np.unique(chosen):
            group = which[chosen == p]
            out[group, ship] = p
            narrowed = admissible.copy()
            narrowed[t.start[ship] : t.start[ship] + t.count[ship]] = False
            narrowed[p] = True
            fill(group, narrowed, ship + 1)

    if count > 0:
        fill(np.arange(count), ev.admissible.copy(), 0)
    return out


def occupancy(rules: Rules, engine: str | None = None) -> tuple[int, np.ndarray]:
    """The number of layouts of the open board and, per cell, how many cover it (rows x cols).

    ``engine`` forces ``"rows"`` or ``"search"`` (for checking one against the other).
    """
    ev = evidence(rules, Observation(rules))
    check_size(rules, ev)
    use = engine or ("rows" if fast_path(rules) else "search")
    if use == "rows" and not fast_path(rules):
        raise BattleshipError("the row engine handles straight ships that may touch, sides up to 16")
    total, counts = (count_by_rows if use == "rows" else count_by_search)(rules, ev)
    return total, Posterior(rules, total, counts, use).cell_layouts
