"""Evidence: what an observation says about each placement, in the form the engines read.

A layout is consistent with an observation when replaying the shots on it gives exactly the answers
observed. That condition splits into two parts:

- per placement (:func:`evidence`): a ship's placement may not cover a miss; under ``named`` and
  ``revealed`` rules a ship announced sunk at shot ``t`` must have all its cells hit, the last of
  them at shot ``t`` (and under ``revealed`` be exactly the cells shown), and a ship not announced
  must not be entirely hit; under ``sunk`` rules a placement entirely hit must have been completed
  by a shot that announced a sinking, and a placement through a sinking cell must have been
  completed by that very shot (so each announcement belongs to exactly one ship);
- for the whole layout: ships do not overlap (nor break the spacing rule), and every hit is covered.

The engines (:mod:`battleship.inference.search`, :mod:`battleship.inference.rows`) count the
combinations of admissible placements that satisfy the second part.

Salvos answered whole are read by :mod:`battleship.inference.salvos`: answers by ship are
per-placement evidence like the above; a count that leaves open which cells hit constrains whole
layouts (:class:`GlobalEvidence` here), which the posterior splits into per-placement events.
"""

from __future__ import annotations

import numpy as np

from battleship.cells import cell_name
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.inference import salvos
from battleship.inference.facts import Contradiction, Evidence, GlobalEvidence
from battleship.rules import Rules, Sinks
from battleship.tables import tables


def evidence(rules: Rules, observation: Observation) -> Evidence:
    """Per-placement admissibility and the hits to cover; obvious contradictions raise :class:`Contradiction`."""
    if observation.rules != rules:
        raise BattleshipError("the observation was made under other rules")
    if rules.noise is not None:
        raise BattleshipError(
            f"{rules.name} flips answers: they weigh layouts rather than rule them out "
            "(inference.noisy.noisy_evidence; posterior() and count() read them)"
        )
    if any(not v.shots for v in observation.volleys) or not rules.answered_each:
        return _whole(rules, observation)
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
        # a salvo's shots are fired together: its later shots may follow the last hit
        last_turn = len(observation.volleys[-1].shots) if observation.volleys else 1
        if last_hit < len(observation.shots) - last_turn:
            raise Contradiction(f"every ship cell was hit by shot {last_hit + 1}: the game was over")
    if bin(hits).count("1") > rules.ship_cells:
        raise Contradiction(f"{bin(hits).count('1')} hits, but the fleet has only {rules.ship_cells} cells")

    cells = np.where(t.cell_list >= 0, t.cell_list, n)
    admissible = np.logical_not(miss[cells].any(axis=1))
    if rules.sinks is not Sinks.NONE:
        _sinkings(rules, cells, hit_time, sink_time, announced, admissible)
    for s, ship in enumerate(rules.fleet):
        if not admissible[t.start[s] : t.start[s] + t.count[s]].any():
            raise Contradiction(f"the {ship.name} fits nowhere: {why_nowhere(rules, observation, s)}")
    return Evidence(admissible, hits)


def _whole(rules: Rules, observation: Observation) -> Evidence:
    """The per-placement evidence of salvos answered whole, where that is all they say (``ships``
    answers; counts of none or every shot); else :class:`GlobalEvidence`."""
    found = salvos.read(rules, observation)
    if found.is_global:
        raise GlobalEvidence(
            "salvos answered by a count say how many of their cells hit, not which: that constrains whole "
            "layouts, which inference.posterior, count and the samplers read (inference.salvos splits it)"
        )
    return found.base


def _sinkings(
    rules: Rules,
    cells: np.ndarray,
    hit_time: np.ndarray,
    sink_time: np.ndarray,
    announced: dict[int, tuple[int, int, int]],
    admissible: np.ndarray,
) -> None:
    """Narrow ``admissible`` by what the sink announcements say (and the silence of the others)."""
    t = tables(rules)
    real = t.cell_list >= 0
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
    if rules.sinks is Sinks.SUNK:
        quiet = ~all_hit & (sinks_covered == 0)
        sunk_here = all_hit & sink_at_completion & (sinks_covered == 1)
        admissible &= quiet | sunk_here
    elif rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        for s in range(len(rules.fleet)):
            block = slice(t.start[s], t.start[s] + t.count[s])
            if s in announced:
                time, _cell, shown = announced[s]
                # its own sinking cell and no other: every other one is covered by its own ship
                ok = all_hit[block] & (completed[block] == time) & (sinks_covered[block] == 1)
                if rules.sinks is Sinks.REVEALED:
                    ok &= np.array([m == shown for m in t.masks[block]], dtype=bool)
                admissible[block] &= ok
            else:
                admissible[block] &= ~all_hit[block] & (sinks_covered[block] == 0)


def why_nowhere(rules: Rules, observation: Observation, ship: int) -> str:
    """A short reason a ship has no admissible placement."""
    for time, shot in enumerate(observation.shots):
        if shot.outcome is Outcome.SUNK and shot.ship == ship:
            return f"it was announced sunk by shot {time + 1} at {cell_name(shot.cell, rules.cols)}, and no placement of it through that cell was hit entirely by then"
    return "every placement of it crosses a miss or a ship that is already accounted for"
