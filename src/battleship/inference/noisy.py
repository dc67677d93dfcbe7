"""Answers that lie: exact posteriors under ``[noise]`` rules, as weighted counts of layouts.

Under noise every answer is flipped with probability ``e`` (``Rules.noise``), so no answer rules a
layout out: each layout ``L`` weighs the likelihood of the answers given ``L``. That likelihood is a
product over the shots, and a shot's answer depends only on the placement that covers its cell (if
any): whether the cell holds a ship, and whether the shot is the one that completes that ship (its
every cell fired at for the first time, the referee's sinking). So, dividing by the likelihood of
the answers had every cell been water (the same for every layout),

    P(answers | L)  is proportional to  the product over the placements p of L of  w(p)

where ``w(p)`` multiplies, over the shots at the cells of ``p``: ``(1 - e) / e`` for a "hit" and
``e / (1 - e)`` for a "miss", except at the shot that completes ``p`` where the rules announce
sinkings: a sinking there weighs 1 if it is ``p``'s (its ship named, its cells shown, as the sink
rule says) and 0 if not; a "miss" there weighs ``e / (1 - e)`` if sinkings flip (``sinkings =
"noisy"``) and 0 if they are told truly; a plain "hit" weighs 0 (a completing shot is a sinking or,
flipped, a miss). A sinking said at a shot that completes no placement through its cell weighs 0,
so every sinking's cell must be covered, by the ship it names. This is a weight per placement, the
form the exact engines already count with float priors: the posterior is the engines' weighted count
(:func:`battleship.inference.posterior`'s path for float priors), times the prior's weights if one
is given. Weights are scaled per ship (its likeliest placement weighs 1), which changes no
probability.

One more thing is known: the game is not over. It ends when every ship cell has been fired at, so a
layout whose every cell has been fired at would have ended it. The posterior of a board where the
game goes on is the weighted count of all the layouts minus that of the layouts inside the cells
fired (a second count, on the placements lying inside them). Where no layout lets the game go on
(the board is the game's last), it is the layouts that the last turn completed: those inside the
cells fired minus those inside the cells fired before the last turn.

Under ``flip = 0`` the weights are certainties: a miss rules out the placements through its cell and
a hit must be covered, as in the honest game (but cells may still be fired at again).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from battleship.cells import cell_name
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome
from battleship.inference.evidence import Contradiction, Evidence
from battleship.rules import Rules, Sinks, Telling
from battleship.stop import Stop
from battleship.tables import tables, to_words

NEVER = np.iinfo(np.int64).max  # the "first fired" time of a cell never fired at
MISS, HIT, SUNK = 0, 1, 2  # answers, coded
# below this share of the weighted count, "the game goes on" is checked by exact integer counts
# (the difference of two float sums is then mostly rounding)
CANCELLATION = 1e-9


@dataclass(frozen=True, eq=False)
class NoisyEvidence:
    """What noisy answers say: placements allowed, cells that must be covered, a weight per placement."""

    evidence: Evidence  # admissible placements (what truthful sinkings rule out) and the sinkings' cells
    weight: np.ndarray  # (placements,) float64: the likelihood ratio, scaled per ship (0 where inadmissible)
    fired: int  # bitboard of every cell fired at
    before: int  # bitboard of the cells fired at before the last turn


@dataclass(frozen=True)
class _Shots:
    """The shots cell by cell: when each was first fired at, how it was first answered, the log-weight of
    every answer at it, and the sinkings by time."""

    first: np.ndarray  # (cells + 1,) int64; the last entry pads short ships (fired at "time -1")
    first_answer: np.ndarray  # (cells + 1,) int8: MISS, HIT or SUNK, -1 for a cell never fired at
    first_term: np.ndarray  # (cells + 1,) float64: the log-weight of the first answer (0 for a sinking)
    terms: np.ndarray  # (cells + 1,) float64: the log-weights of every answer at the cell
    forbid: np.ndarray  # (cells + 1,) bool: a miss that is certain (flip = 0)
    must: int  # cells that must hold a ship: sinkings' cells (and certain hits)
    sinkings: dict[int, tuple[int, int | None, int]]  # time -> (cell, ship or None, cells shown)


def _read_shots(rules: Rules, observation: Observation) -> _Shots:
    """Per cell, what the shots at it said (refusing answers the rules never give)."""
    n, e = rules.cells, rules.flip
    hit_term = math.log((1 - e) / e) if e > 0 else 0.0
    first = np.full(n + 1, NEVER, dtype=np.int64)
    first[n] = -1
    first_answer = np.full(n + 1, -1, dtype=np.int8)
    first_term = np.zeros(n + 1)
    terms = np.zeros(n + 1)
    forbid = np.zeros(n + 1, dtype=bool)
    must = 0
    sinkings: dict[int, tuple[int, int | None, int]] = {}
    named: set[int] = set()
    for time, shot in enumerate(observation.shots):
        cell = shot.cell
        where = f"shot {time + 1} at {cell_name(cell, rules.cols) if 0 <= cell < n else cell}"
        if not 0 <= cell < n:
            raise BattleshipError(f"{where} is off the {rules.rows}x{rules.cols} board")
        is_first = first[cell] == NEVER
        if shot.outcome is Outcome.SUNK:
            _check_sinking(rules, shot.ship, where, is_first, named)
            sinkings[time] = (cell, shot.ship, shot.cells)
            must |= 1 << cell
            term, code = 0.0, SUNK
        elif shot.outcome is Outcome.HIT:
            term, code = hit_term, HIT
            if e == 0:
                must |= 1 << cell
        else:
            term, code = -hit_term, MISS
            if e == 0:
                forbid[cell] = True
        terms[cell] += term
        if is_first:
            first[cell], first_answer[cell], first_term[cell] = time, code, term
    return _Shots(first, first_answer, first_term, terms, forbid, must, sinkings)


def _check_sinking(rules: Rules, ship: int | None, where: str, first: bool, named: set[int]) -> None:
    """Refuse a sinking the rules never announce (a second one of a ship, one at a cell fired before)."""
    if rules.sinks is Sinks.NONE:
        raise Contradiction(f"{where} announces a sinking, but these rules never do")
    if not first:
        raise Contradiction(
            f"{where} announces a sinking at a cell fired at before: no shot there completes a ship"
        )
    if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        if ship is None or not 0 <= ship < len(rules.fleet):
            raise Contradiction(f"{where} sinks a ship without naming one of the fleet")
        if ship in named:
            raise Contradiction(f"{where} sinks the {rules.fleet[ship].name} a second time")
        named.add(ship)


def noisy_evidence(rules: Rules, observation: Observation, prior: np.ndarray | None = None) -> NoisyEvidence:
    """The weight of each placement given noisy answers (see the module docstring), times ``prior``'s (a
    weight per placement, checked by the caller: :func:`battleship.inference.posterior.check_prior`)."""
    if rules.noise is None:
        raise BattleshipError("noisy_evidence reads [noise] rules; these rules answer truly")
    if observation.rules != rules:
        raise BattleshipError("the observation was made under other rules")
    base = rules.honest()
    t = tables(base)
    read = _read_shots(rules, observation)
    cells = np.where(t.cell_list >= 0, t.cell_list, rules.cells)
    times = read.first[cells]
    logw = read.terms[cells].sum(axis=1)
    admissible = ~read.forbid[cells].any(axis=1)
    complete = (times != NEVER).all(axis=1)
    done_at = np.where(complete, times.max(axis=1), -1)
    last_cell = np.take_along_axis(cells, times.argmax(axis=1)[:, None], axis=1)[:, 0]
    if rules.sinks is not Sinks.NONE:
        admissible &= _completions(rules, read, complete, done_at, last_cell, logw)
    if prior is not None:
        with np.errstate(divide="ignore"):  # a placement of prior weight 0 is ruled out
            logw = logw + np.log(np.asarray(prior, dtype=np.float64))
    admissible &= np.isfinite(logw)
    weight = np.zeros(len(logw))
    for s, ship in enumerate(base.fleet):
        block = slice(int(t.start[s]), int(t.start[s] + t.count[s]))
        ok = admissible[block]
        if not ok.any():
            raise Contradiction(f"the {ship.name} fits nowhere: {_why(rules, read, s)}")
        top = logw[block][ok].max()
        weight[block] = np.where(ok, np.exp(logw[block] - top), 0.0)
    fired = observation.shot_mask
    last_turn = len(observation.volleys[-1].cells) if observation.volleys else 1
    before = 0
    for shot in observation.shots[: max(0, len(observation.shots) - last_turn)]:
        before |= 1 << shot.cell  # a cell fired at twice is one cell
    return NoisyEvidence(Evidence(admissible, read.must), weight, fired, before)


def _completions(
    rules: Rules,
    read: _Shots,
    complete: np.ndarray,
    done_at: np.ndarray,
    last_cell: np.ndarray,
    logw: np.ndarray,
) -> np.ndarray:
    """Which placements the sinkings allow, and the completing shots' weights (added to ``logw``).

    A placement completed by a shot weighs that shot's answer as a completion (see the module
    docstring) rather than as a plain hit; one through a sinking's cell must be completed by it.
    """
    t = tables(rules.honest())
    e = rules.flip
    noisy = rules.noise is not None and rules.noise.sinkings is Telling.NOISY
    ok = np.ones(len(complete), dtype=bool)
    answer = np.where(complete, read.first_answer[last_cell], -1)
    logw -= np.where(complete, read.first_term[last_cell], 0.0)
    ok &= ~(complete & (answer == HIT))
    if noisy and e > 0:
        logw += np.where(complete & (answer == MISS), math.log(e / (1 - e)), 0.0)
    else:
        ok &= ~(complete & (answer == MISS))
    sunk_cells = np.zeros(rules.cells + 1, dtype=bool)
    for time, (cell, ship, shown) in read.sinkings.items():
        sunk_cells[cell] = True
        completes = complete & (done_at == time)
        if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
            assert ship is not None
            block = slice(int(t.start[ship]), int(t.start[ship] + t.count[ship]))
            ok[block] &= completes[block]
            if rules.sinks is Sinks.REVEALED:
                ok[block] &= np.array([m == shown for m in t.masks[block]], dtype=bool)
            # another ship completed by this shot would have been the one named
            others = completes.copy()
            others[block] = False
            ok &= ~others
    cells = np.where(t.cell_list >= 0, t.cell_list, rules.cells)
    # a placement through a sinking's cell must be the ship that sinking completed
    through_sink = sunk_cells[cells].any(axis=1)
    own = complete & sunk_cells[last_cell]
    covered_sinks = sunk_cells[cells].sum(axis=1)
    ok &= ~through_sink | (own & (covered_sinks == 1))
    return ok


def _why(rules: Rules, read: _Shots, ship: int) -> str:
    """A short reason a ship has no admissible placement under noise."""
    for time, (cell, named, _) in sorted(read.sinkings.items()):
        if named == ship:
            return f"it was announced sunk by shot {time + 1} at {cell_name(cell, rules.cols)}, and no placement of it was completed by that shot"
    return "every placement of it meets a sinking that is not its own, or a completion the sink rule would have announced"


def inside(rules: Rules, ev: Evidence, cells: int) -> Evidence:
    """The evidence with only the placements lying inside ``cells`` allowed."""
    t = tables(rules.honest())
    outside = to_words(rules.full & ~cells, t.nwords)
    within = ~((t.cells & outside[None, :]) != 0).any(axis=1)
    return Evidence(ev.admissible & within, ev.hits)


# How the posterior module counts: (rules, evidence, float weight per placement or None for exact integer
# counts, stop) -> (total, per-placement counts, engine). Handed in, so that this module reads answers
# and the posterior module, which routes noisy boards here, stays the only one that runs the engines.
Counter = Callable[[Rules, Evidence, np.ndarray | None, Stop | None], tuple[Any, Any, str]]


def _goes_on(rules: Rules, nev: NoisyEvidence, stop: Stop | None, _count: Counter) -> bool:
    """True when some layout the answers allow has a cell not yet fired at (exact integer counts)."""
    total = _count(rules, nev.evidence, None, stop)[0]
    return int(total) > int(_count(rules, inside(rules, nev.evidence, nev.fired), None, stop)[0])


def weighted_counts(
    rules: Rules, observation: Observation, prior: np.ndarray | None, stop: Stop | None, _count: Counter
) -> tuple[float, np.ndarray, str]:
    """The weighted count of the layouts the game can be on (see the module docstring), per placement
    too, and the engine that counted them (counted by ``_count``)."""
    nev = noisy_evidence(rules, observation, prior)
    ev, weight = nev.evidence, nev.weight
    total, counts, engine = _count(rules, ev, weight, stop)
    within = inside(rules, ev, nev.fired)
    done, done_counts, _ = _count(rules, within, weight, stop)
    left = float(total) - float(done)
    if left > CANCELLATION * float(total) or (left > 0 and _goes_on(rules, nev, stop, _count)):
        return left, np.maximum(counts - done_counts, 0.0), engine
    # no layout lets the game go on: the board is the game's last, and the layouts are those it completed
    earlier, earlier_counts, _ = _count(rules, inside(rules, within, nev.before), weight, stop)
    left = float(done) - float(earlier)
    if left <= 0:
        raise Contradiction(
            "no layout fits these answers: every one would have ended the game before the last turn"
        )
    return left, np.maximum(done_counts - earlier_counts, 0.0), engine


def count(rules: Rules, observation: Observation, stop: Stop | None, _count: Counter) -> tuple[int, str]:
    """How many layouts the noisy answers leave possible (of any weight) with the game going on (counted
    by ``_count``)."""
    nev = noisy_evidence(rules, observation)
    total, _, engine = _count(rules, nev.evidence, None, stop)
    done = _count(rules, inside(rules, nev.evidence, nev.fired), None, stop)[0]
    if int(total) > int(done):
        return int(total) - int(done), engine
    earlier = _count(rules, inside(rules, nev.evidence, nev.before), None, stop)[0]
    if int(done) == int(earlier):
        raise Contradiction(
            "no layout fits these answers: every one would have ended the game before the last turn"
        )
    return int(done) - int(earlier), engine
