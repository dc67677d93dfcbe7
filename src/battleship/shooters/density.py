"""DataGenetics' probability-density shooter and the Dunman High paper's superposition shooter: Numba kernels and readable Shooters.

density (DataGenetics): every afloat ship's placements that avoid misses and cells of sunk ships are counted
on each unknown cell they cover. Hits count as open water for placements, and a placement through
``k`` hits not yet explained by a sunk ship weighs ``weight ** k`` (DataGenetics' "heavy score weighting").
The most counted unknown cell is fired at; ties go to the first in reading order (DataGenetics'
implementation), a random one, or the one nearest the centre. With ``skew`` (C. Liam Brown's calculator), one checkerboard
colour scores that many percent more while the fleet's smallest ship may be afloat.

With ``lastship=W`` density looks ahead once one ship is left and the sunk ships' cells are known:
of its W best cells it fires the one after which it would fire fewest shots in all, each candidate
played on by density itself against every placement of the last ship that fits (Bertsekas' rollout,
exact rather than sampled, so no winner's curse; with ties broken by a rule rather than at random
it never plays worse than density on uniform layouts).

With ``twostep=W``, while hunting, of its W best cells density fires the one with most expected hits
this shot and the next under its own model made a probability (each ship on its own, its placements
weighed as density weighs them): measured behind density on standard rules, so ``best`` leaves it out.

superposition (the Dunman High paper, section 5, "a sub-optimal implementation"): the same count with every placement
weighing 1 ("every arrangement of every operational ship"), after two forced-cell rules: a hit with
exactly one unsearched neighbour and no hit neighbour has its ship there; a ship with exactly one
possible arrangement is there. While any hit is not explained by a sunk ship, only unsearched
neighbours of hits are candidates (as the Dunman High paper's code does); while hunting, cells ``(row + col) % n == k``
get the parity ``boost`` (n the smallest operational ship's length, k the residue most shots so far
went to).

Which cells a sunk ship held: under ``revealed`` rules the referee shows them. Under ``named`` rules
the ship's placements through the sinking cell whose cells are all unexplained hits are candidates;
when exactly one remains its cells are marked sunk, otherwise the hits stay unexplained. Under
``sunk`` rules (no name) the same is done over every afloat ship: when all the all-hit placements
through the sinking cell cover the same cells, those cells are a sunk ship and one ship of that
shape is struck off. Under ``none`` rules no ship is known to be sunk, so every ship stays in the
count. With a spacing rule, cells the margin makes water (a straight ship's diagonals under
no-contact, all round a sunk ship) are struck off too. Both shooters play every rules variant and
every fleet, polyominoes included.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.jit import njit
from battleship.rng import kernel_state
from battleship.rules import Rules, Sinks
from battleship.shooters.aim import evidence_view, fill_up, free, is_salvo
from battleship.shooters.choice import (
    HIT,
    IMPOSSIBLE,
    MISS,
    SUNK,
    UNKNOWN,
    choose,
    pattern_factor,
    skew_factor,
    smallest_afloat,
)
from battleship.shooters.options import (
    BOOST,
    LASTSHIP,
    LATTICE,
    SINKS,
    SKEW,
    SPACING,
    SPACING_CODES,
    TIE,
    TWOSTEP,
    WEIGHT,
    Named,
    Options,
    format_spec,
)
from battleship.tables import geometry, tables

if TYPE_CHECKING:
    from battleship.shooters.book import Book

DENSITY, SUPERPOSITION = 0, 1


@njit(cache=True, nogil=True)
def density_map(status, afloat, cell_list, size, start, count, weight):
    """Weighted placement counts on every unknown cell (``status`` per cell: unknown/miss/hit/sunk)."""
    n = status.shape[0]
    density = np.zeros(n, dtype=np.int64)
    for s in range(size.shape[0]):
        if not afloat[s]:
            continue
        for p in range(start[s], start[s] + count[s]):
            w = 1
            ok = True
            for k in range(size[s]):
                st = status[cell_list[p, k]]
                if st != UNKNOWN and st != HIT:  # a miss, a sunk ship's cell, or water by the margin
                    ok = False
                    break
                if st == HIT:
                    w *= weight
            if not ok:
                continue
            for k in range(size[s]):
                cell = cell_list[p, k]
                if status[cell] == UNKNOWN:
                    density[cell] += w
    return density


@njit(cache=True, nogil=True)
def named_placement(status, ship, cell, cell_list, size, start, count):
    """The only all-hit placement of ``ship`` through ``cell``, or -1 when there is none or several."""
    found = -1
    for p in range(start[ship], start[ship] + count[ship]):
        through = False
        all_hit = True
        for k in range(size[ship]):
            c = cell_list[p, k]
            if c == cell:
                through = True
            if status[c] != HIT:
                all_hit = False
        if through and all_hit:
            if found >= 0:
                return -1
            found = p
    return found


@njit(cache=True, nogil=True)
def anonymous_placement(status, afloat, cell, cell_list, size, start, count):
    """After an anonymous "sunk" at ``cell``: the all-hit placement through it, or -1 unless unique.

    Every afloat ship's all-hit placements through the cell are candidates; when they all cover the
    same cells (twins of one shape may both fit) the first is returned: those cells are a sunk ship
    of that shape, whichever of the twins it was.
    """
    found = -1
    for s in range(size.shape[0]):
        if not afloat[s]:
            continue
        for p in range(start[s], start[s] + count[s]):
            through = False
            all_hit = True
            for k in range(size[s]):
                c = cell_list[p, k]
                through |= c == cell
                all_hit &= status[c] == HIT
            if not (through and all_hit):
                continue
            if found < 0:
                found = p
                continue
            if size[s] != size[_ship_of(found, start)]:
                return -1
            for k in range(size[s]):
                if cell_list[p, k] != cell_list[found, k]:
                    return -1
    return found


@njit(cache=True, nogil=True, inline="always")
def _ship_of(p, start):
    """The ship a placement index belongs to (``start`` is ascending)."""
    s = start.shape[0] - 1
    while start[s] > p:
        s -= 1
    return s


@njit(cache=True, nogil=True)
def claim_named(status, ship, cell, cell_list, size, start, count):
    """Mark a named sunk ship's cells when exactly one all-hit placement passes through ``cell``."""
    found = named_placement(status, ship, cell, cell_list, size, start, count)
    if found >= 0:
        for k in range(size[ship]):
            status[cell_list[found, k]] = SUNK


@njit(cache=True, nogil=True)
def water_around(cell, status, rows, cols, spacing, straight, sunk, out):
    """Unknown cells the spacing rule makes water next to ship cell ``cell``; returns how many (in ``out``).

    Under no-contact a straight ship's cell has water on its diagonals (no other ship may touch it
    and its own ship runs straight); a cell of a ship known to be sunk has water all round (its four
    edge neighbours under no-edge, all eight under no-contact), except its own ship's cells.
    """
    n = 0
    r, c = cell // cols, cell % cols
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if (dr == 0 and dc == 0) or not (0 <= r + dr < rows and 0 <= c + dc < cols):
                continue
            diagonal = dr != 0 and dc != 0
            if sunk:
                wet = spacing == 2 or (spacing == 1 and not diagonal)
            else:
                wet = spacing == 2 and straight and diagonal
            nb = (r + dr) * cols + c + dc
            if wet and status[nb] == UNKNOWN:
                out[n] = nb
                n += 1
    return n


@njit(cache=True, nogil=True)
def all_straight(cell_list, size, start, cols):
    """True when every ship lies in one row or one column (checked on its first placement)."""
    for s in range(size.shape[0]):
        p = start[s]
        row, col = cell_list[p, 0] // cols, cell_list[p, 0] % cols
        same_row = same_col = True
        for k in range(size[s]):
            same_row &= cell_list[p, k] // cols == row
            same_col &= cell_list[p, k] % cols == col
        if not (same_row or same_col):
            return False
    return True


@njit(cache=True, nogil=True)
def mark_margin(status, rows, cols, spacing, straight):
    """Every unknown cell the spacing rule makes water, from scratch, marked ``IMPOSSIBLE``."""
    if spacing == 0:
        return
    out = np.empty(8, dtype=np.int64)
    for cell in range(status.shape[0]):
        if status[cell] == HIT or status[cell] == SUNK:
            for i in range(
                water_around(cell, status, rows, cols, spacing, straight, status[cell] == SUNK, out)
            ):
                status[out[i]] = IMPOSSIBLE


@njit(cache=True, nogil=True)
def _spread(p, sign, w, status, density, geometry):
    """Add (sign 1) or take away (sign -1) placement ``p``'s weight on its unknown cells."""
    cell_list, size, ship_of = geometry[0], geometry[1], geometry[4]
    for k in range(size[ship_of[p]]):
        c = cell_list[p, k]
        if status[c] == UNKNOWN:
            density[c] += sign * w


@njit(cache=True, nogil=True)
def _close(cell, status, density, valid, hits, afloat, power, geometry):
    """A cell became a miss or a sunk-ship cell: placements through it no longer fit."""
    ship_of, through_start, through = geometry[4], geometry[5], geometry[6]
    for i in range(through_start[cell], through_start[cell + 1]):
        p = through[i]
        if valid[p]:
            if afloat[ship_of[p]]:
                _spread(p, -1, power[hits[p]], status, density, geometry)
            valid[p] = False


@njit(cache=True, nogil=True)
def fitting(status, geometry):
    """Per placement: True when it covers no miss and no sunk-ship cell."""
    cell_list, size, ship_of = geometry[0], geometry[1], geometry[4]
    valid = np.ones(cell_list.shape[0], dtype=np.bool_)
    for p in range(cell_list.shape[0]):
        for k in range(size[ship_of[p]]):
            st = status[cell_list[p, k]]
            if st != UNKNOWN and st != HIT:
                valid[p] = False
                break
    return valid


@njit(cache=True, nogil=True)
def forced_cell(status, afloat, valid, rows, cols, geometry):
    """The Dunman High paper's forced cells: a hit's only open neighbour, or an unsearched cell of a ship's only arrangement."""
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    for cell in range(status.shape[0]):
        if status[cell] != HIT:
            continue
        r, c = cell // cols, cell % cols
        open_cells = 0
        last = -1
        hit_next = False
        for dr, dc in ((-1, 0), (1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                nb = (r + dr) * cols + c + dc
                if status[nb] == UNKNOWN:
                    open_cells += 1
                    last = nb
                elif status[nb] == HIT:
                    hit_next = True
        if open_cells == 1 and not hit_next:
            return last
    for s in range(size.shape[0]):
        if not afloat[s]:
            continue
        only = -1
        for p in range(start[s], start[s] + count[s]):
            if valid[p]:
                if only >= 0:
                    only = -2
                    break
                only = p
        if only >= 0:
            for k in range(size[s]):
                if status[cell_list[only, k]] == UNKNOWN:
                    return cell_list[only, k]
    return -1


@njit(cache=True, nogil=True)
def superposition_pick(density, status, afloat, valid, rows, cols, params, geometry, state):
    """The Dunman High paper's superposition choice, given the arrangement counts (``density`` with weight 1)."""
    forced = forced_cell(status, afloat, valid, rows, cols, geometry)
    if forced >= 0:
        return forced
    n = status.shape[0]
    eligible = np.zeros(n, dtype=np.bool_)
    targeting = False
    for cell in range(n):
        if status[cell] != HIT:
            continue
        r, c = cell // cols, cell % cols
        for dr, dc in ((-1, 0), (1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols and status[(r + dr) * cols + c + dc] == UNKNOWN:
                eligible[(r + dr) * cols + c + dc] = True
                targeting = True
    if targeting:
        factor = np.empty(0, dtype=np.int64)
    else:
        for cell in range(n):
            eligible[cell] = status[cell] == UNKNOWN
        factor = pattern_factor(status, rows, cols, smallest_afloat(afloat, geometry[1]), params[BOOST])
    return choose(density, factor, eligible, rows, cols, params[TIE], state)


@njit(cache=True, nogil=True)
def density_pick(density, status, afloat, rows, cols, params, geometry, state, open_cells, plain):
    """DataGenetics' choice: the unknown cell of highest density (with C. Liam Brown's skew when asked for).

    ``open_cells`` is ``status == UNKNOWN`` and ``plain`` an empty factor, kept by the caller (no allocation per shot).
    """
    return choose(
        density,
        _skew(status, afloat, rows, cols, params, geometry, plain),
        open_cells,
        rows,
        cols,
        params[TIE],
        state,
    )


@njit(cache=True, nogil=True)
def _skew(status, afloat, rows, cols, params, geometry, plain):
    """The skew's factor per cell as the options ask (``plain``, empty, when there is none)."""
    if params[SKEW] <= 0:
        return plain
    return skew_factor(status, afloat, geometry[1], rows, cols, params[SKEW], params[LATTICE])


@njit(cache=True, nogil=True)
def last_ship(status, afloat, size):
    """The only afloat ship once every sunk ship's cells are known (every hit is then its), else -1."""
    ship, sunk_cells, known = -1, 0, 0
    for s in range(size.shape[0]):
        if not afloat[s]:
            sunk_cells += size[s]
        elif ship >= 0:
            return -1
        else:
            ship = s
    for c in range(status.shape[0]):
        known += status[c] == SUNK
    return ship if known == sunk_cells else -1


@njit(cache=True, nogil=True)
def _fits(p, s, status, cell_list, size, hits):
    """Placement ``p`` of ship ``s`` lies on unknown or hit cells only and covers all ``hits`` hits."""
    covered = 0
    for k in range(size[s]):
        st = status[cell_list[p, k]]
        if st != UNKNOWN and st != HIT:
            return False
        covered += st == HIT
    return covered == hits


@njit(cache=True, nogil=True)
def _finish(first, p, s, status, afloat, params, geometry, state, margin):
    """Shots density fires, ``first`` first, to sink the last ship ``s`` lying at placement ``p``."""
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    spacing, straight, rows, cols = margin
    board = status.copy()
    left = 0
    for k in range(size[s]):
        left += board[cell_list[p, k]] == UNKNOWN
    out = np.empty(8, dtype=np.int64)
    plain = np.empty(0, dtype=np.int64)
    cell, shots = first, 0
    while True:
        shots += 1
        board[cell] = MISS
        for k in range(size[s]):
            if cell_list[p, k] == cell:
                board[cell] = HIT
                left -= 1
        if left == 0:
            return shots
        if board[cell] == HIT:
            for i in range(water_around(cell, board, rows, cols, spacing, straight, False, out)):
                board[out[i]] = IMPOSSIBLE
        density = density_map(board, afloat, cell_list, size, start, count, params[WEIGHT])
        cell = density_pick(
            density, board, afloat, rows, cols, params, geometry, state, board == UNKNOWN, plain
        )


@njit(cache=True, nogil=True)
def candidates(cell, density, status, afloat, params, geometry, margin, width):
    """The cells a look-ahead weighs: density's own ``cell`` first, then the unknown cells density
    ranks next (skew included, ties in reading order), ``width`` in all."""
    factor = _skew(status, afloat, margin[2], margin[3], params, geometry, np.empty(0, dtype=np.int64))
    rank = density * factor if factor.shape[0] else density * 100  # density_pick's ranking
    order = np.argsort(-rank, kind="mergesort")
    out = np.empty(max(width, 0), dtype=np.int64)
    found = 0
    for j in range(-1, order.shape[0]):
        c = cell if j < 0 else order[j]
        if found >= width:
            break
        if status[c] != UNKNOWN or (j >= 0 and c == cell):
            continue
        out[found] = c
        found += 1
    return out[:found]


@njit(cache=True, nogil=True)
def last_ship_pick(cell, status, afloat, params, geometry, state, margin):
    """``cell`` (density's), or with ``lastship`` W and one ship left: of density's W best cells, the
    one after which density fires fewest shots in all over every placement of that ship that fits.

    Bertsekas' rollout over density, computed exactly: with the other ships' cells known, the last
    ship's fitting placements are equally likely on uniform layouts. Density's own cell is tried
    first and kept on a tie, so the choice never does worse than density there (exactly so when ties
    follow a rule: each rollout draws random ties from a copy of ``state``, leaving the game's own
    stream as density leaves it, so a random tie later in the game may differ from its rollout's).
    """
    if params[LASTSHIP] <= 0 or cell < 0:
        return cell  # density's hot path: nothing more to read
    s = last_ship(status, afloat, geometry[1])
    if s < 0:
        return cell
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    density = density_map(status, afloat, cell_list, size, start, count, params[WEIGHT])
    hits = 0
    for c in range(status.shape[0]):
        hits += status[c] == HIT
    best, best_total = cell, -1
    for c in candidates(cell, density, status, afloat, params, geometry, margin, params[LASTSHIP]):
        total = 0
        for p in range(start[s], start[s] + count[s]):
            if _fits(p, s, status, cell_list, size, hits):
                total += _finish(c, p, s, status, afloat, params, geometry, state.copy(), margin)
        if best_total < 0 or total < best_total:
            best, best_total = c, total
    return best


@njit(cache=True, nogil=True)
def ship_chances(status, afloat, geometry, weight):
    """Per afloat ship and cell, the chance it covers the cell in density's per-ship model: each ship
    on its own, its fitting placements weighing ``weight`` per hit they pass through (as density
    counts them), normalised ship by ship. Also, per ship, the total weight (0: no placement fits)."""
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    chance = np.zeros((size.shape[0], status.shape[0]), dtype=np.float64)
    totals = np.zeros(size.shape[0], dtype=np.float64)
    for s in range(size.shape[0]):
        if not afloat[s]:
            continue
        for p in range(start[s], start[s] + count[s]):
            w = _placement_weight(p, s, status, cell_list, size, weight)
            if w == 0.0:
                continue
            totals[s] += w
            for k in range(size[s]):
                if status[cell_list[p, k]] == UNKNOWN:
                    chance[s, cell_list[p, k]] += w
        if totals[s] > 0:
            chance[s] /= totals[s]
    return chance, totals


@njit(cache=True, nogil=True, inline="always")
def _placement_weight(p, s, status, cell_list, size, weight):
    """``weight`` to the power of the hits placement ``p`` passes through; 0.0 when it does not fit."""
    w = 1.0
    for k in range(size[s]):
        st = status[cell_list[p, k]]
        if st != UNKNOWN and st != HIT:
            return 0.0
        if st == HIT:
            w *= weight
    return w


@njit(cache=True, nogil=True)
def hit_chance(chance, afloat, cell):
    """The chance some afloat ship covers ``cell``, the ships on their own: 1 - prod(1 - p_s)."""
    miss = 1.0
    for s in range(afloat.shape[0]):
        if afloat[s]:
            miss *= 1.0 - chance[s, cell]
    return 1.0 - miss


@njit(cache=True, nogil=True)
def best_hit_chance(status, afloat, geometry, weight):
    """The highest hit chance over the unknown cells (0 when none is left)."""
    chance, _ = ship_chances(status, afloat, geometry, weight)
    best = 0.0
    for c in range(status.shape[0]):
        if status[c] == UNKNOWN:
            best = max(best, hit_chance(chance, afloat, c))
    return best


@njit(cache=True, nogil=True)
def _answered(status, afloat, cell, answer, ship, p, geometry, margin):
    """The board after the referee answers a shot at ``cell``: ``answer`` MISS, HIT, or SUNK of
    ``ship`` (named: its cells marked when only one all-hit placement fits; shown: placement ``p``'s)."""
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    spacing, straight, rows, cols = margin
    board = status.copy()
    left = afloat.copy()
    board[cell] = MISS if answer == MISS else HIT
    if answer == SUNK:
        left[ship] = False
        if p >= 0:
            for k in range(size[ship]):
                board[cell_list[p, k]] = SUNK
        else:
            claim_named(board, ship, cell, cell_list, size, start, count)
    mark_margin(board, rows, cols, spacing, straight)
    return board, left


@njit(cache=True, nogil=True)
def two_step_value(cell, status, afloat, params, geometry, margin):
    """Expected hits from ``cell`` and the best next cell, in density's per-ship model: P(hit) plus,
    over the referee's answers (miss; hit; under named or shown sinkings, each ship's sinking, or each
    shown placement), P(answer) x the best hit chance on the board that answer leaves. A hit is put
    down to ship s in proportion to p_s; it sinks s with the weight of s's placements through the cell
    whose other cells are all hits. Without named or shown sinkings a sinking counts as a hit."""
    cell_list, size, start, count = geometry[0], geometry[1], geometry[2], geometry[3]
    weight, sinks = float(params[WEIGHT]), params[SINKS]
    chance, _ = ship_chances(status, afloat, geometry, weight)
    hit = hit_chance(chance, afloat, cell)
    value = hit
    if hit < 1.0:
        board, left = _answered(status, afloat, cell, MISS, -1, -1, geometry, margin)
        value += (1.0 - hit) * best_hit_chance(board, left, geometry, weight)
    if hit <= 0.0:
        return value
    share = 0.0
    for s in range(afloat.shape[0]):
        if afloat[s]:
            share += chance[s, cell]
    plain_hit = 0.0
    for s in range(afloat.shape[0]):
        if not afloat[s] or chance[s, cell] <= 0.0:
            continue
        answered = hit * chance[s, cell] / share  # the chance the hit is ship s's
        through = 0.0  # weight of s's fitting placements through the cell
        sunk = 0.0  # of those, the ones the shot would sink
        for p in range(start[s], start[s] + count[s]):
            w = _placement_weight(p, s, status, cell_list, size, weight)
            covers = _covers(p, s, cell, cell_list, size)
            through += w if covers else 0.0
            if covers and w > 0.0 and _sinks_at(p, s, cell, status, cell_list, size):
                sunk += w
        for p in range(start[s], start[s] + count[s]):
            if sinks != 3 or sunk == 0.0 or not _sinks_at(p, s, cell, status, cell_list, size):
                continue
            w = _placement_weight(p, s, status, cell_list, size, weight)
            if w > 0.0:
                board, left = _answered(status, afloat, cell, SUNK, s, p, geometry, margin)
                value += answered * w / through * best_hit_chance(board, left, geometry, weight)
        if sinks == 2 and sunk > 0.0:
            board, left = _answered(status, afloat, cell, SUNK, s, -1, geometry, margin)
            value += answered * sunk / through * best_hit_chance(board, left, geometry, weight)
        plain_hit += answered * (1.0 - sunk / through) if sinks >= 2 else answered
    if plain_hit > 0.0:
        board, left = _answered(status, afloat, cell, HIT, -1, -1, geometry, margin)
        value += plain_hit * best_hit_chance(board, left, geometry, weight)
    return value


@njit(cache=True, nogil=True, inline="always")
def _covers(p, s, cell, cell_list, size):
    """Placement ``p`` of ship ``s`` covers ``cell``."""
    for k in range(size[s]):
        if cell_list[p, k] == cell:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _sinks_at(p, s, cell, status, cell_list, size):
    """Placement ``p`` of ship ``s`` covers ``cell`` and every other cell of it is a hit already."""
    through = False
    for k in range(size[s]):
        c = cell_list[p, k]
        if c == cell:
            through = True
        elif status[c] != HIT:
            return False
    return through


@njit(cache=True, nogil=True)
def two_step_pick(cell, density, status, afloat, params, geometry, state, margin):
    """``cell`` (density's), or with ``twostep`` W while hunting (no hit unexplained by a sunk ship):
    of density's W best cells (its own first), the one of highest :func:`two_step_value`; a tie keeps
    the earlier in density's order. Left to ``lastship`` once that look-ahead plays (one ship left,
    the sunk ships' cells known).

    Not while targeting: there the per-ship model lets every afloat ship claim the same hits, so it
    puts off a sure hit that would sink a ship for a neighbour it overrates (8 shots a game worse
    on standard rules when it looked ahead there too).
    """
    if params[TWOSTEP] <= 0 or cell < 0:
        return cell
    if params[LASTSHIP] > 0 and last_ship(status, afloat, geometry[1]) >= 0:
        return cell
    for c in range(status.shape[0]):
        if status[c] == HIT:
            return cell  # targeting: the per-ship model lets every ship claim the same hits
    best, best_value = cell, -1.0
    for c in candidates(cell, density, status, afloat, params, geometry, margin, params[TWOSTEP]):
        v = two_step_value(c, status, afloat, params, geometry, margin)
        if v > best_value + 1e-12:
            best, best_value = c, v
    return best


@njit(cache=True, nogil=True)
def play_density(state, ship_at, total, rows, cols, params, geometry, mode, forced):
    """Shots the density (``mode`` 0) or superposition (1) shooter needs to hit every ship cell.

    The first shots are ``forced`` (cells, in order; empty for a whole game): a rollout replays a
    game's shots so far and a candidate cell, then lets the shooter play on.

    The counts are kept up to date shot by shot: a shot changes only the placements through its cell.
    Equal, to the integer, to :func:`density_map` recounted from scratch (tested).
    """
    cell_list, size, start, ship_of, through_start, through = (
        geometry[0],
        geometry[1],
        geometry[2],
        geometry[4],
        geometry[5],
        geometry[6],
    )
    sinks = params[SINKS]
    weight = params[WEIGHT] if mode == DENSITY else 1
    n = rows * cols
    nplace = cell_list.shape[0]
    status = np.zeros(n, dtype=np.int8)
    afloat = np.ones(size.shape[0], dtype=np.bool_)
    valid = np.ones(nplace, dtype=np.bool_)
    hits_in = np.zeros(nplace, dtype=np.int64)
    power = np.ones(int(size.max()) + 1, dtype=np.int64)
    for k in range(1, power.shape[0]):
        power[k] = power[k - 1] * weight
    density = np.zeros(n, dtype=np.int64)
    open_cells = np.ones(n, dtype=np.bool_)
    plain = np.empty(0, dtype=np.int64)  # no scaling
    for p in range(nplace):
        _spread(p, 1, 1, status, density, geometry)
    left = size.copy()
    margin = (params[SPACING], all_straight(cell_list, size, start, cols), rows, cols)
    shots = hits = 0
    while hits < total:
        if shots < forced.shape[0]:
            cell = forced[shots]
        elif mode == DENSITY:
            cell = density_pick(
                density, status, afloat, rows, cols, params, geometry, state, open_cells, plain
            )
            cell = two_step_pick(cell, density, status, afloat, params, geometry, state, margin)
            cell = last_ship_pick(cell, status, afloat, params, geometry, state, margin)
        else:
            cell = superposition_pick(density, status, afloat, valid, rows, cols, params, geometry, state)
        shots += 1
        open_cells[cell] = False
        ship = ship_at[cell]
        if ship < 0:
            _close(cell, status, density, valid, hits_in, afloat, power, geometry)
            status[cell] = MISS
            continue
        for i in range(through_start[cell], through_start[cell + 1]):
            p = through[i]
            if valid[p] and afloat[ship_of[p]]:
                _spread(p, -1, power[hits_in[p]], status, density, geometry)
        status[cell] = HIT
        for i in range(through_start[cell], through_start[cell + 1]):
            p = through[i]
            if valid[p]:
                hits_in[p] += 1
                if afloat[ship_of[p]]:
                    _spread(p, 1, power[hits_in[p]], status, density, geometry)
        _wet(cell, False, status, density, valid, hits_in, afloat, power, geometry, open_cells, margin)
        hits += 1
        left[ship] -= 1
        if left[ship] == 0 and sinks >= 1:
            _announced(
                ship,
                cell,
                sinks,
                ship_at,
                status,
                density,
                valid,
                hits_in,
                afloat,
                power,
                geometry,
                open_cells,
                margin,
            )
    return shots


@njit(cache=True, nogil=True)
def _announced(
    ship, cell, sinks, ship_at, status, density, valid, hits_in, afloat, power, geometry, open_cells, margin
):
    """The shot at ``cell`` sank ``ship``: strike off what the sink rule tells, mark the cells it shows sunk.

    ``sunk`` (no name): a ship of the only run of hits that fits, if one does; ``named``: that ship,
    its cells when exactly one all-hit placement through the cell is left; ``revealed``: that ship
    and the cells the referee shows.
    """
    cell_list, size, start, count, ship_of = geometry[0], geometry[1], geometry[2], geometry[3], geometry[4]
    found = -1
    if sinks == 1:
        found = anonymous_placement(status, afloat, cell, cell_list, size, start, count)
        if found < 0:
            return
        ship = ship_of[found]
    elif sinks == 2:
        found = named_placement(status, ship, cell, cell_list, size, start, count)
    for p in range(start[ship], start[ship] + count[ship]):
        if valid[p]:
            _spread(p, -1, power[hits_in[p]], status, density, geometry)
    afloat[ship] = False
    if sinks == 3:
        cells = np.nonzero(ship_at == ship)[0]
    elif found >= 0:
        cells = cell_list[found, : size[ship]]
    else:
        return
    for c in cells:
        _close(c, status, density, valid, hits_in, afloat, power, geometry)
        status[c] = SUNK
    for c in cells:
        _wet(c, True, status, density, valid, hits_in, afloat, power, geometry, open_cells, margin)


@njit(cache=True, nogil=True)
def _wet(cell, sunk, status, density, valid, hits_in, afloat, power, geometry, open_cells, margin):
    """Close the cells the spacing rule makes water next to ``cell`` (``margin``: spacing, straight, rows, cols)."""
    spacing, straight, rows, cols = margin
    if spacing == 0:
        return
    out = np.empty(8, dtype=np.int64)
    for i in range(water_around(cell, status, rows, cols, spacing, straight, sunk, out)):
        _close(out[i], status, density, valid, hits_in, afloat, power, geometry)
        status[out[i]] = IMPOSSIBLE
        open_cells[out[i]] = False


def observed_status(rules: Rules, observation: Observation) -> tuple[np.ndarray, np.ndarray]:
    """Per cell unknown/miss/hit/sunk, and which ships are afloat, from the observation alone."""
    t = tables(rules)
    status = np.zeros(rules.cells, dtype=np.int8)
    afloat = np.ones(len(rules.fleet), dtype=np.bool_)
    for shot in observation.shots:
        status[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
        if shot.outcome is Outcome.SUNK and rules.sinks is Sinks.SUNK:
            found = anonymous_placement(status, afloat, shot.cell, t.cell_list, t.size, t.start, t.count)
            if found >= 0:
                afloat[t.ship_of[found]] = False
                status[t.cell_list[found, : t.size[t.ship_of[found]]]] = SUNK
        if shot.outcome is Outcome.SUNK and shot.ship is not None:
            afloat[shot.ship] = False
            if rules.sinks is Sinks.REVEALED:
                for c in range(rules.cells):
                    if shot.cells >> c & 1:
                        status[c] = SUNK
            else:
                claim_named(status, shot.ship, shot.cell, t.cell_list, t.size, t.start, t.count)
    straight = all(ship.is_straight for ship in rules.fleet)
    mark_margin(status, rules.rows, rules.cols, SPACING_CODES[rules.spacing], straight)
    return status, afloat


def best_cells(
    rules: Rules, observation: Observation, probability: np.ndarray, skew: int = 0, lattice: int = 0
) -> list[int]:
    """The unshot cells of highest probability; with ``skew`` (percent), C. Liam Brown's diagonal skew applied first."""
    value = np.asarray(probability, dtype=np.float64).ravel()
    if skew:
        status, afloat = observed_status(rules, observation)
        factor = skew_factor(status, afloat, tables(rules).size, rules.rows, rules.cols, skew, lattice)
        if len(factor):
            value = value * factor
    open_cells = [c for c in range(rules.cells) if not observation.is_shot(c)]
    if not open_cells:
        return []
    top = max(value[c] for c in open_cells)
    return [c for c in open_cells if value[c] >= top * (1 - 1e-12)]


def opening_book(name: str, options: Options, rules: Rules) -> Book:
    """The shipped opening book ``book=1`` plays for ``rules``: one built for the shooter's other
    options (see :mod:`battleship.shooters.book`), or a one-line error."""
    from battleship.shooters.book import book_for

    if is_salvo(rules):
        raise BattleshipError(
            f"{name}: book=1 plays one shot a turn; under the [salvo] rules of {rules.name} leave it out"
        )
    own = format_spec(name, dataclasses.replace(options, book=0, given=options.given_keys - {"book"}))
    return book_for(rules, own)


class DensityShooter(Named):
    """DataGenetics' probability density shooter (see the module docstring). Plays every rules variant;
    under ``[noise]`` its count weighs each placement by the likelihood of the answers
    (:func:`battleship.shooters.noisy.noisy_density`)."""

    name = "density"
    mode = DENSITY
    plays_noise = True  # the noisy count (shooters.noisy)

    def __init__(self, options: Options | None = None, **keys):
        self.options = options if options is not None else Options(**keys)

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Remember the rules; all other state is read from the observation."""
        if is_salvo(rules) and self.mode == DENSITY and (self.options.lastship or self.options.twostep):
            key = "lastship" if self.options.lastship else "twostep"
            raise BattleshipError(
                f"density: {key}={getattr(self.options, key)} looks ahead one shot a turn; under the [salvo] "
                f"rules of {rules.name} leave it out"
            )
        if rules.noise is not None:
            _refuse_under_noise(self.name, self.options, rules)
        self._rules = rules
        self._params = self.options.vector(rules)
        self._state = kernel_state(rng)
        self._book = opening_book(self.name, self.options, rules) if self.options.book else None
        t = tables(rules)
        straight = all_straight(t.cell_list, t.size, t.start, rules.cols)
        self._margin = (SPACING_CODES[rules.spacing], straight, rules.rows, rules.cols)

    def next_shot(self, observation: Observation) -> int:
        """The cell this shooter's scores put first."""
        if is_salvo(self._rules):
            return self.next_salvo(observation, 1)[0]
        if self._book is not None and len(observation.shots) <= self._book.deepest:
            cell = self._book.cell(observation.text())
            if cell is not None:
                return cell
        if self._rules.noise is not None:
            return self._noisy_cell(observation)
        status, afloat, density, g = self._scores(observation)
        if self.mode == DENSITY:
            cell = self._density_cell(density, status, afloat, g, status == UNKNOWN)
            cell = two_step_pick(cell, density, status, afloat, self._params, g, self._state, self._margin)
            cell = last_ship_pick(cell, status, afloat, self._params, g, self._state, self._margin)
        else:
            valid = fitting(status, g)
            rules = self._rules
            cell = superposition_pick(
                density, status, afloat, valid, rules.rows, rules.cols, self._params, g, self._state
            )
        if cell < 0:
            raise BattleshipError("no cell is left to fire at: the observation contradicts the rules")
        return int(cell)

    def next_salvo(self, observation: Observation, size: int) -> list[int]:
        """Salvo rules: the ``size`` cells the scores put first, from one count over what is known cell
        by cell (:func:`battleship.shooters.aim.certain_shots`), ties split by the tie rule.

        Density's one-ship look-ahead (``lastship``) plays one shot a turn and is not used here; the
        superposition shooter aims the rest of a salvo as if the cells already chosen held no ship.
        """
        rules = self._rules
        status, afloat, density, g = self._scores(evidence_view(observation))
        open_cells = (status == UNKNOWN) & free(observation)
        cells: list[int] = []
        for _ in range(size):
            if self.mode == DENSITY:
                cell = self._density_cell(density, status, afloat, g, open_cells)
            else:
                blocked = status.copy()
                blocked[~open_cells & (status == UNKNOWN)] = IMPOSSIBLE
                valid = fitting(status, g)
                cell = superposition_pick(
                    density, blocked, afloat, valid, rules.rows, rules.cols, self._params, g, self._state
                )
            if cell < 0:
                break
            cells.append(int(cell))
            open_cells[cell] = False
        return cells + fill_up(observation, cells, size)

    def _noisy_cell(self, observation: Observation) -> int:
        """Under noise: the new cell of highest noisy count (skewed and tied as asked), or with ``confirm`` a
        cell again when the look-ahead says so (:mod:`battleship.shooters.noisy`)."""
        from battleship.shooters.noisy import confirming_cell, noisy_density

        rules = self._rules
        score = noisy_density(rules, observation)
        status, afloat = observed_status(rules, observation)
        factor = skew_factor(
            status,
            afloat,
            tables(rules).size,
            rules.rows,
            rules.cols,
            self.options.skew,
            self.options.lattice,
        )
        eligible = np.ones(rules.cells, dtype=np.bool_)
        eligible[[s.cell for s in observation.shots]] = False
        cell = int(choose(score, factor, eligible, rules.rows, rules.cols, self._params[TIE], self._state))
        if cell < 0:
            raise BattleshipError("no cell is left to fire at: every cell has been fired at")
        if self.options.confirm:
            from battleship.inference import posterior

            chance = posterior(observation).probability.ravel()
            cell = confirming_cell(rules, observation, chance, cell, self.options.confirm)
        return cell

    def _scores(
        self, observation: Observation
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
        """What is known cell by cell, the ships afloat, the density map over them and the geometry."""
        rules, t = self._rules, tables(self._rules)
        status, afloat = observed_status(rules, observation)
        weight = self.options.weight if self.mode == DENSITY else 1
        density = density_map(status, afloat, t.cell_list, t.size, t.start, t.count, weight)
        return status, afloat, density, geometry(t)

    def _density_cell(
        self,
        density: np.ndarray,
        status: np.ndarray,
        afloat: np.ndarray,
        g: tuple[np.ndarray, ...],
        open_cells: np.ndarray,
    ) -> int:
        """The density shooter's pick among ``open_cells`` (ties split by its tie rule)."""
        rules = self._rules
        plain = np.empty(0, dtype=np.int64)
        return int(
            density_pick(
                density,
                status,
                afloat,
                rules.rows,
                rules.cols,
                self._params,
                g,
                self._state,
                open_cells,
                plain,
            )
        )


class SuperpositionShooter(DensityShooter):
    """The Dunman High paper's practical optimal strategy: forced cells, then the most arranged cell, parity boosted."""

    name = "superposition"
    mode = SUPERPOSITION
    plays_noise = False  # its forced cells read every answer as true


def _refuse_under_noise(name: str, options: Options, rules: Rules) -> None:
    """Refuse, in one line, density's options that read every answer as true."""
    for key in ("lastship", "twostep", "book"):
        if getattr(options, key):
            raise BattleshipError(
                f"{name}: {key}={getattr(options, key)} reads every answer as true; under the [noise] rules of "
                f"{rules.name} leave it out"
            )
