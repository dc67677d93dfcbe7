"""The C# Pirates winner's trial-shot / sink-shot shooter (the C# Pirates winner), as a Numba kernel and a readable Shooter.

Written for ships that may not touch and a referee who never says "sunk". Every cell is unknown,
water, ship (a hit), sunk (a hit of a ship known to be finished) or impossible (unshot, but next to a
finished ship, so no ship can be there).

- Trial shots (no unfinished hit): every afloat ship's placements over unknown cells only are
  counted on each cell they cover; the most counted cell is fired at, ties broken by ``tie`` (first,
  random or centre-most; the C# Pirates winner says the tie-break "is crucial", and its own rule is not published), with
  C. Liam Brown's ``skew`` as an option.
- Sink shots (a run of unfinished hits): the candidates are the unknown cells that extend the run in
  line (all four neighbours of a single hit); each scores the placements of afloat ships longer than
  the run that cover the run and the candidate over unknown cells. The best is fired at.
- A run with no candidate left is a finished ship: its length names it (one afloat ship of that
  length is struck off) and the cells around it (the spacing rule's halo) become impossible.

With ``prior=GENERATOR`` every count weighs each placement by how often that generator draws it
(:func:`battleship.inference.prior.generator_weights`). A placement the generator (almost) never
draws, weighing under ``NEGLIGIBLE``, is first read as absent: a run whose only extensions are such
placements is finished without the shots that would prove its ends, which is where most of the
prior's gain lies. The prior never rules a legal layout out, though: as soon as that bold reading
contradicts the board (a finished run no afloat ship fits, or afloat ships with nowhere left to
lie), the shooter reads the whole game again counting every placement, and plays on so.

Needs straight ships (a finished ship is read off a straight run) and spacing ``no-edge`` or
``no-contact`` (a run of hits is then one ship); it refuses other rules. Where the rules announce a
sinking (any ``sinks`` but ``none``), the run through the sunk cell is finished at once, without the
shots that would otherwise prove its ends.
"""

from __future__ import annotations

import numpy as np

from battleship.cells import cell_name, neighbours
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.inference.prior import generator_weights
from battleship.jit import njit
from battleship.rng import kernel_state
from battleship.rules import Rules, Sinks, Spacing
from battleship.shooters.aim import blocked_status, certain_shots, free, is_salvo
from battleship.shooters.choice import HIT, IMPOSSIBLE, MISS, SUNK, UNKNOWN, choose, skew_factor
from battleship.shooters.options import LATTICE, SINKS, SKEW, SPACING, TIE, Named, Options
from battleship.tables import geometry, tables

# a placement its prior weighs under this (drawn under 1% as often as uniform layouts draw it) is
# first read as absent; weights are 1 without a prior, so nothing is then
NEGLIGIBLE = 0.01


def refusal(rules: Rules) -> str | None:
    """Why trial-sink cannot play ``rules``, or None."""
    if rules.spacing is Spacing.TOUCH:
        return "trial-sink needs ships that may not touch (spacing no-edge or no-contact): it reads a finished ship off a run of hits"
    bent = [s.name for s in rules.fleet if not s.is_straight]
    if bent:
        return f"trial-sink needs straight ships; {', '.join(bent)} is not"
    return None


@njit(cache=True, nogil=True)
def run_from(first, status, rows, cols, run):
    """The run of unfinished hits whose top-left end is ``first``, into ``run``; its length (0: not an end)."""
    r, c = first // cols, first % cols
    if (
        status[first] != HIT
        or (c > 0 and status[first - 1] == HIT)
        or (r > 0 and status[first - cols] == HIT)
    ):
        return 0
    length = 1
    run[0] = first
    # a run is a straight line: grow it east, else south
    if c + 1 < cols and status[first + 1] == HIT:
        while c + length < cols and status[first + length] == HIT:
            run[length] = first + length
            length += 1
    else:
        while r + length < rows and status[first + length * cols] == HIT:
            run[length] = first + length * cols
            length += 1
    return length


@njit(cache=True, nogil=True)
def between(x, first, last, cols):
    """True when ``x`` lies on the straight run from ``first`` to ``last`` (reading order)."""
    if first // cols == last // cols:
        return x // cols == first // cols and first <= x <= last
    return x % cols == first % cols and first <= x <= last


@njit(cache=True, nogil=True)
def extension_scores(status, afloat, run, length, rows, cols, geometry, score, floor):
    """Score each cell that extends ``run``; returns how many cells got a score above zero.

    Placements weighing less than ``floor`` are left out (read as absent).
    """
    cell_list, size, ship_of, through_start, through, weight = (
        geometry[0],
        geometry[1],
        geometry[4],
        geometry[5],
        geometry[6],
        geometry[7],
    )
    score[:] = 0
    found = 0
    first, last = run[0], run[length - 1]
    for end in (first, last):
        r, c = end // cols, end % cols
        for dr, dc in ((-1, 0), (1, 0), (0, 1), (0, -1)):
            if not (0 <= r + dr < rows and 0 <= c + dc < cols):
                continue
            cand = (r + dr) * cols + c + dc
            if status[cand] != UNKNOWN or score[cand] > 0:
                continue
            for i in range(through_start[cand], through_start[cand + 1]):
                p = through[i]
                s = ship_of[p]
                if not afloat[s] or size[s] <= length or weight[p] < floor:
                    continue
                # the run's cells and unknown cells only: a hit of another run would join two ships
                ends = 0
                ok = True
                for k in range(size[s]):
                    x = cell_list[p, k]
                    if x == first or x == last:  # noqa: SIM109 (plain compares for Numba)
                        ends += 1
                    elif status[x] != UNKNOWN and not (status[x] == HIT and between(x, first, last, cols)):
                        ok = False
                        break
                if ok and ends == (1 if length == 1 else 2):
                    score[cand] += weight[p]
            if score[cand] > 0:
                found += 1
    return found


@njit(cache=True, nogil=True)
def finish(status, afloat, size, run, length, rows, cols, spacing):
    """Mark a finished run sunk, its halo impossible, and strike one afloat ship of its length off."""
    for i in range(length):
        status[run[i]] = SUNK
    for i in range(length):
        r, c = run[i] // cols, run[i] % cols
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                if spacing == 1 and dr != 0 and dc != 0:
                    continue  # no-edge: corners may touch
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    nb = (r + dr) * cols + c + dc
                    if status[nb] == UNKNOWN:
                        status[nb] = IMPOSSIBLE
    for s in range(size.shape[0]):
        if afloat[s] and size[s] == length:
            afloat[s] = False
            return True
    return False


@njit(cache=True, nogil=True)
def sunk_at(cell, status, afloat, rows, cols, geometry, spacing):
    """A sinking announced at ``cell``: finish the run of hits through it; False if none can be that ship."""
    run = np.empty(max(rows, cols), dtype=np.int64)
    first = cell
    if (cell % cols > 0 and status[cell - 1] == HIT) or (cell % cols + 1 < cols and status[cell + 1] == HIT):
        while first % cols > 0 and status[first - 1] == HIT:
            first -= 1
    else:
        while first >= cols and status[first - cols] == HIT:
            first -= cols
    length = run_from(first, status, rows, cols, run)
    return length > 0 and finish(status, afloat, geometry[1], run, length, rows, cols, spacing)


@njit(cache=True, nogil=True)
def trial_scores(status, afloat, geometry, score, floor):
    """Placements of afloat ships over unknown cells only, counted (by prior weight) on each cell they cover.

    Placements weighing less than ``floor`` are left out; returns how many placements were counted.
    """
    cell_list, size, ship_of, weight = geometry[0], geometry[1], geometry[4], geometry[7]
    score[:] = 0
    counted = 0
    for p in range(cell_list.shape[0]):
        s = ship_of[p]
        if not afloat[s] or weight[p] < floor:
            continue
        ok = True
        for k in range(size[s]):
            if status[cell_list[p, k]] != UNKNOWN:
                ok = False
                break
        if ok:
            counted += 1
            for k in range(size[s]):
                score[cell_list[p, k]] += weight[p]
    return counted


@njit(cache=True, nogil=True)
def trial_sink_shot(status, afloat, rows, cols, params, geometry, state, floor):
    """Settle finished runs (updating ``status`` and ``afloat``), then the next cell.

    Placements weighing under ``floor`` are read as absent. Returns -1 when the board contradicts
    the fleet under that reading (no random number is drawn then).
    """
    n = rows * cols
    run = np.empty(max(rows, cols), dtype=np.int64)
    score = np.zeros(n, dtype=np.float64)  # placements counted, each by its prior weight (1: uniform)
    # finish every run that cannot grow, until none is left: finishing only ever removes options
    # from the other runs, so the result is the same whatever order runs are met in
    changed = True
    while changed:
        changed = False
        for first in range(n):
            length = run_from(first, status, rows, cols, run)
            if (
                length
                and extension_scores(status, afloat, run, length, rows, cols, geometry, score, floor) == 0
            ):
                if not finish(status, afloat, geometry[1], run, length, rows, cols, params[SPACING]):
                    return -1
                changed = True
    for first in range(n):
        length = run_from(first, status, rows, cols, run)
        if length:
            extension_scores(status, afloat, run, length, rows, cols, geometry, score, floor)
            return choose(score, np.empty(0, dtype=np.int64), score > 0, rows, cols, params[TIE], state)
    if trial_scores(status, afloat, geometry, score, floor) == 0 and floor > 0:
        return -1  # the afloat ships have nowhere left to lie: the bold reading was wrong
    factor = skew_factor(status, afloat, geometry[1], rows, cols, params[SKEW], params[LATTICE])
    return choose(score, factor, status == UNKNOWN, rows, cols, params[TIE], state)


@njit(cache=True, nogil=True)
def reread(fired, shots, ship_at, status, afloat, rows, cols, params, geometry):
    """The board from scratch after the first ``shots`` of ``fired``, as the readable shooter rebuilds it."""
    status[:] = UNKNOWN
    afloat[:] = True
    left = geometry[1].copy()
    for i in range(shots):
        cell = fired[i]
        ship = ship_at[cell]
        if ship < 0:
            status[cell] = MISS
            continue
        status[cell] = HIT
        left[ship] -= 1
        if left[ship] == 0 and params[SINKS] > 0:
            sunk_at(cell, status, afloat, rows, cols, geometry, params[SPACING])


@njit(cache=True, nogil=True)
def first_unshot(status):
    """The first cell not fired at (unknown, or ruled out by the margin)."""
    for cell in range(status.shape[0]):
        if status[cell] == UNKNOWN or status[cell] == IMPOSSIBLE:
            return cell
    return -1


@njit(cache=True, nogil=True)
def play_trial_sink(state, ship_at, total, rows, cols, params, geometry):
    """Shots trial-sink needs to hit every ship cell (bold reading of the prior first, see the module docstring)."""
    status = np.zeros(rows * cols, dtype=np.int8)
    afloat = np.ones(geometry[1].shape[0], dtype=np.bool_)
    left = geometry[1].copy()
    fired = np.empty(rows * cols, dtype=np.int64)
    floor = NEGLIGIBLE
    shots = hits = 0
    while hits < total:
        cell = trial_sink_shot(status, afloat, rows, cols, params, geometry, state, floor)
        if cell < 0 and floor > 0:
            floor = 0.0
            reread(fired, shots, ship_at, status, afloat, rows, cols, params, geometry)
            cell = trial_sink_shot(status, afloat, rows, cols, params, geometry, state, floor)
        if cell < 0:  # never on a legal board (the tests play every kind); a game still ends
            cell = first_unshot(status)
        fired[shots] = cell
        shots += 1
        ship = ship_at[cell]
        if ship >= 0:
            status[cell] = HIT
            hits += 1
            left[ship] -= 1
            if (
                left[ship] == 0
                and params[SINKS] > 0
                and not sunk_at(cell, status, afloat, rows, cols, geometry, params[SPACING])
                and floor > 0
            ):
                floor = 0.0
                reread(fired, shots, ship_at, status, afloat, rows, cols, params, geometry)
        else:
            status[cell] = MISS
    return shots


class TrialSinkShooter(Named):
    """The C# Pirates winner's trial-shot / sink-shot shooter (see the module docstring)."""

    name = "trial-sink"
    refusal = staticmethod(refusal)

    def __init__(self, options: Options | None = None, **keys):
        self.options = options if options is not None else Options(**keys)

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Check the rules can be played; all other state is read from the observation."""
        why = refusal(rules)
        if why:
            raise BattleshipError(why)
        self._rules = rules
        self._params = self.options.vector(rules)
        self._geometry = geometry(tables(rules), generator_weights(rules, self.options.prior))
        self._state = kernel_state(rng)
        self._floor = NEGLIGIBLE

    def next_shot(self, observation: Observation) -> int:
        """Rebuild the board from the shots (hits, misses and announced sinkings), settle finished ships, pick.

        The prior is read boldly (placements under ``NEGLIGIBLE`` absent) until that contradicts
        the board; from then on, for the rest of the game, every placement counts.
        """
        cell = self._read(observation, self._floor)
        if cell < 0 and self._floor > 0:
            self._floor = 0.0
            cell = self._read(observation, 0.0)
        if cell < 0 and is_salvo(self._rules):
            return self._beside_a_hit(observation)
        if cell < 0:
            raise BattleshipError("the hits seen so far cannot be the fleet's ships under these rules")
        return int(cell)

    def _beside_a_hit(self, observation: Observation) -> int:
        """Under salvo rules, when reading the cells aimed at as water leaves a hit no ship to be part
        of: a free cell next to a hit (the ship goes on there or on a cell aimed at), else the first free."""
        rules = self._rules
        open_cells = free(observation)
        for shot in certain_shots(observation):
            if shot.outcome is Outcome.HIT:
                for cell in neighbours(shot.cell, rules.rows, rules.cols):
                    if open_cells[cell]:
                        return int(cell)
        return int(np.flatnonzero(open_cells)[0])

    def _read(self, observation: Observation, floor: float) -> int:
        """The next cell with placements under ``floor`` read as absent; -1 if the board contradicts that."""
        rules = self._rules
        status = np.zeros(rules.cells, dtype=np.int8)
        afloat = np.ones(len(rules.fleet), dtype=np.bool_)
        for shot in certain_shots(observation):
            status[shot.cell] = MISS if shot.outcome is Outcome.MISS else HIT
            if (
                shot.outcome is Outcome.SUNK
                and rules.sinks is not Sinks.NONE
                and not sunk_at(
                    shot.cell, status, afloat, rules.rows, rules.cols, self._geometry, self._params[SPACING]
                )
            ):
                if floor > 0:
                    return -1
                raise BattleshipError(f"a sinking at {cell_name(shot.cell, rules.cols)} fits no afloat ship")
        # under salvo rules the cells fired at or aimed at whose answers are not known are read as water
        status = blocked_status(status, observation, IMPOSSIBLE)
        return trial_sink_shot(
            status, afloat, rules.rows, rules.cols, self._params, self._geometry, self._state, floor
        )
