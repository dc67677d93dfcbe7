"""Evidence from salvos answered whole ("ships" and "count" answers), split into what the engines read.

Under ``answers = "ships"`` every answer is about one ship at a time: ship ``s`` is hit
``ship_hits[t][s]`` times by salvo ``t``, so a placement of it is admissible when it meets every salvo
exactly that many times; whether and when it sinks follows from those numbers (a sinking announced
must agree with them), and a revealed sinking shows its placement. That is per-placement evidence
like a one-shot game's, and every exact engine reads it as it is.

Under ``answers = "count"`` a salvo's answer is about the whole layout: the ships together meet the
salvo's cells ``hits`` times. A salvo that hit nothing makes its cells misses and one that hit with
every shot makes them hits; the others (*partial* salvos) are global constraints, and so, under
``sunk`` rules, is the number of ships completed by each salvo. Named and revealed sinkings stay per
placement (the ship named sunk by salvo ``t`` lies within the cells fired up to ``t`` and meets salvo
``t``; a ship never named does not lie entirely within the cells fired).

:func:`parts` splits the global constraints into disjoint events, each per-placement evidence an
exact engine counts: which cells of each partial salvo hit (the chosen ones must be covered, the
others are misses) and, under ``sunk`` rules, which ships were completed and where (pinned to their
placement; the other ships may not lie entirely within the fired cells). A consistent layout falls
in exactly one event (its own hits and completed ships), so the counts add up to the exact count.
:meth:`SalvoEvidence.agrees` checks sampled layouts against the global constraints, for rejection.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from battleship.cells import cell_name
from battleship.errors import BattleshipError
from battleship.game import Observation, Volley
from battleship.inference.facts import Contradiction, Evidence
from battleship.rules import Answers, Rules, Sinks
from battleship.stop import Stop
from battleship.tables import tables
from battleship.words import counted


class TooManyParts(BattleshipError):
    """The salvos' hit patterns are too many to count one by one."""


@dataclass(frozen=True)
class Partial:
    """A salvo whose count leaves open which of its cells hit."""

    salvo: int  # from 0
    cells: tuple[int, ...]
    hits: int


@dataclass(frozen=True, eq=False)
class SalvoEvidence:
    """What salvos answered whole say: per-placement evidence, and the constraints on whole layouts."""

    base: Evidence  # every per-placement constraint, and the cells certainly hit
    partial: tuple[Partial, ...]  # count answers that leave open which cells hit
    sinkings: tuple[int, ...] | None  # `sunk` rules, count answers: ships completed by each salvo
    touches: np.ndarray  # (placements, salvos) int: a placement's cells in each salvo
    complete_at: np.ndarray  # (placements,) the salvo completing a placement (all its cells fired), or -1

    @property
    def is_global(self) -> bool:
        """True when some constraint is on whole layouts (the engines cannot read it as it is)."""
        return bool(self.partial) or self.sinkings is not None

    def agrees(self, rows: np.ndarray) -> np.ndarray:
        """Which layouts (rows of placement indices) meet the global constraints (the per-placement ones
        are taken as met: rows drawn from :attr:`base`)."""
        ok = np.ones(len(rows), dtype=bool)
        if len(rows) == 0:
            return ok
        for part in self.partial:
            ok &= self.touches[rows, part.salvo].sum(axis=1) == part.hits
        if self.sinkings is not None:
            done = self.complete_at[rows]
            for salvo, k in enumerate(self.sinkings):
                ok &= (done == salvo).sum(axis=1) == k
        return ok


def whole_answers(observation: Observation) -> bool:
    """True when the observation holds salvos answered whole."""
    return any(not v.shots for v in observation.volleys)


def read(rules: Rules, observation: Observation) -> SalvoEvidence:
    """The evidence of salvos answered whole; answers that contradict themselves raise
    :class:`Contradiction` naming the salvo."""
    if observation.rules != rules:
        raise BattleshipError("the observation was made under other rules")
    if rules.answered_each:
        raise BattleshipError("these rules answer every shot: read the evidence with inference.evidence")
    if observation.shots:
        raise BattleshipError(
            f"shots answered one by one, but these rules answer a whole salvo ({rules.answers.value})"
        )
    t = tables(rules)
    n = rules.cells
    salvo_of = np.full(n + 1, -1, dtype=np.int64)
    for i, volley in enumerate(observation.volleys):
        _check_volley(rules, i, volley, salvo_of)
    _check_game_over(rules, observation.volleys)
    salvos = len(observation.volleys)
    cells = np.where(t.cell_list >= 0, t.cell_list, n)
    where = salvo_of[cells]
    real = t.cell_list >= 0
    touches = np.zeros((len(cells), salvos + 1), dtype=np.int64)
    rows = np.arange(len(cells))
    for j in range(cells.shape[1]):
        np.add.at(touches, (rows, np.where(real[:, j] & (where[:, j] >= 0), where[:, j], salvos)), 1)
    touches = touches[:, :salvos]
    complete = (~real | (where >= 0)).all(axis=1)
    complete_at = np.where(complete, where.max(axis=1), -1)
    admissible = np.ones(len(cells), dtype=bool)
    if rules.answers is Answers.SHIPS:
        _ships(rules, observation.volleys, touches, complete_at, admissible)
        return SalvoEvidence(Evidence(admissible, observation.hit_mask), (), None, touches, complete_at)
    partial, sinkings = _count(rules, observation.volleys, touches, complete_at, admissible)
    _somewhere(rules, admissible)
    return SalvoEvidence(Evidence(admissible, observation.hit_mask), partial, sinkings, touches, complete_at)


def _check_volley(rules: Rules, i: int, volley: Volley, salvo_of: np.ndarray) -> None:
    """One salvo's cells and answer, as the rules could give them (the salvo numbered from 1 in messages)."""
    n, said = rules.cells, f"salvo {i + 1}"
    if volley.shots:
        raise BattleshipError(f"{said} is answered shot by shot, but these rules answer it whole")
    if not volley.cells:
        raise Contradiction(f"{said} fires at no cell")
    for cell in volley.cells:
        if not 0 <= cell < n:
            raise BattleshipError(f"{said} fires at {cell}, off the {rules.rows}x{rules.cols} board")
        if salvo_of[cell] >= 0:
            again = "twice" if salvo_of[cell] == i else f"again (salvo {salvo_of[cell] + 1} fired at it)"
            raise Contradiction(f"{said} fires at {cell_name(cell, rules.cols)} {again}")
        salvo_of[cell] = i
    if not 0 <= volley.hits <= len(volley.cells):
        raise Contradiction(
            f"{said} fires {counted(len(volley.cells), 'shot')} but is answered {counted(volley.hits, 'hit')}"
        )
    fleet = len(rules.fleet)
    if rules.answers is Answers.SHIPS:
        if len(volley.ship_hits) != fleet or min(volley.ship_hits) < 0:
            raise Contradiction(
                f"{said} gives hits for {len(volley.ship_hits)} ships, not the fleet's {fleet}"
            )
        if sum(volley.ship_hits) != volley.hits:
            raise Contradiction(
                f"{said}: its hits per ship add up to {sum(volley.ship_hits)}, not {volley.hits}"
            )
    elif volley.ship_hits:
        raise Contradiction(f"{said} names the ships hit, but these rules answer with a count")
    if rules.sinks is Sinks.NONE and (volley.sunk_count or volley.sunk):
        raise Contradiction(f"{said} announces a sinking, but these rules never do")
    named = rules.sinks in (Sinks.NAMED, Sinks.REVEALED)
    if not named and (volley.sunk or volley.revealed):
        raise Contradiction(f"{said} names a ship sunk, but these rules do not name them")
    if named:
        if any(not 0 <= s < fleet for s in volley.sunk) or len(set(volley.sunk)) != len(volley.sunk):
            raise Contradiction(f"{said} names ships sunk that are not distinct ships of the fleet")
        if volley.sunk_count != len(volley.sunk):
            raise Contradiction(f"{said} counts {volley.sunk_count} sinkings but names {len(volley.sunk)}")
    if rules.sinks is Sinks.REVEALED and len(volley.revealed) != len(volley.sunk):
        raise Contradiction(f"{said} shows {len(volley.revealed)} sunk ships but names {len(volley.sunk)}")
    if volley.sunk_count > volley.hits:
        raise Contradiction(
            f"{said} sinks {counted(volley.sunk_count, 'ship')} with {counted(volley.hits, 'hit')}"
        )


def _check_game_over(rules: Rules, volleys: tuple[Volley, ...]) -> None:
    """No salvo after the fleet is sunk, and no more hits than the fleet has cells."""
    hits = 0
    for i, volley in enumerate(volleys):
        hits += volley.hits
        if hits > rules.ship_cells:
            raise Contradiction(
                f"salvo {i + 1} brings the hits to {hits}, but the fleet has only {rules.ship_cells} cells"
            )
        if hits == rules.ship_cells and i < len(volleys) - 1:
            raise Contradiction(
                f"salvo {i + 1} hit the last ship cell: the game was over before salvo {i + 2}"
            )
    sunk = [s for v in volleys for s in v.sunk]
    if len(sunk) != len(set(sunk)):
        twice = next(s for s in sunk if sunk.count(s) > 1)
        last = max(i for i, v in enumerate(volleys) if twice in v.sunk)
        raise Contradiction(f"salvo {last + 1} sinks the {rules.fleet[twice].name} a second time")
    if sum(v.sunk_count for v in volleys) > len(rules.fleet):
        raise Contradiction(f"more sinkings are announced than the fleet's {len(rules.fleet)} ships")


def _ships(
    rules: Rules,
    volleys: tuple[Volley, ...],
    touches: np.ndarray,
    complete_at: np.ndarray,
    admissible: np.ndarray,
) -> None:
    """Per-placement evidence of ``ships`` answers; the sinkings announced must be the ones the hits imply."""
    t = tables(rules)
    done = [0] * len(rules.fleet)
    for i, volley in enumerate(volleys):
        completed = []
        for s, ship in enumerate(rules.fleet):
            done[s] += volley.ship_hits[s]
            if done[s] > ship.size:
                raise Contradiction(
                    f"salvo {i + 1} hits the {ship.name} for the {done[s]}th time, but it has {ship.size} cells"
                )
            if done[s] == ship.size and volley.ship_hits[s]:
                completed.append(s)
        _sinkings_agree(rules, i, volley, completed)
    for s, ship in enumerate(rules.fleet):
        block = slice(t.start[s], t.start[s] + t.count[s])
        ok = admissible[block]
        for i, volley in enumerate(volleys):
            ok &= touches[block, i] == volley.ship_hits[s]
            if not ok.any():
                raise Contradiction(
                    f"the {ship.name} fits nowhere: no placement of it is hit {volley.ship_hits[s]} "
                    f"time{'s' * (volley.ship_hits[s] != 1)} by salvo {i + 1} and as the salvos before say"
                )
        if rules.sinks is Sinks.REVEALED:
            _revealed(rules, volleys, s, block, admissible)


def _sinkings_agree(rules: Rules, i: int, volley: Volley, completed: list[int]) -> None:
    """Under ``ships`` answers the hits say which ships a salvo completes: the announcement must agree."""
    if rules.sinks is Sinks.NONE:
        return
    names = ", ".join(rules.fleet[s].name for s in completed) or "none"
    if volley.sunk_count != len(completed):
        raise Contradiction(
            f"salvo {i + 1} announces {volley.sunk_count} sinkings, but its hits complete {len(completed)} ({names})"
        )
    if rules.sinks in (Sinks.NAMED, Sinks.REVEALED) and sorted(volley.sunk) != completed:
        said = ", ".join(rules.fleet[s].name for s in sorted(volley.sunk)) or "none"
        raise Contradiction(f"salvo {i + 1} names {said} sunk, but its hits complete {names}")


def _revealed(
    rules: Rules, volleys: tuple[Volley, ...], s: int, block: slice, admissible: np.ndarray
) -> None:
    """A revealed sinking shows the ship's placement."""
    t = tables(rules)
    for i, volley in enumerate(volleys):
        if s in volley.sunk:
            shown = volley.revealed[volley.sunk.index(s)]
            admissible[block] &= np.array([m == shown for m in t.masks[block]], dtype=bool)
            if not admissible[block].any():
                raise Contradiction(
                    f"salvo {i + 1} shows the {rules.fleet[s].name} on cells that are not one placement of it "
                    "agreeing with the salvos"
                )


def _count(
    rules: Rules,
    volleys: tuple[Volley, ...],
    touches: np.ndarray,
    complete_at: np.ndarray,
    admissible: np.ndarray,
) -> tuple[tuple[Partial, ...], tuple[int, ...] | None]:
    """Per-placement evidence of ``count`` answers, and the global constraints left."""
    t = tables(rules)
    partial = []
    for i, volley in enumerate(volleys):
        if volley.hits == 0:
            admissible &= touches[:, i] == 0
        elif volley.hits < len(volley.cells):
            partial.append(Partial(i, volley.cells, volley.hits))
            admissible &= touches[:, i] <= volley.hits  # no ship meets a salvo more often than it hit
    sinkings: tuple[int, ...] | None = None
    if rules.sinks is Sinks.SUNK:
        counts = np.array([v.sunk_count for v in volleys] + [0], dtype=np.int64)
        admissible &= (complete_at < 0) | (counts[complete_at] > 0)
        if counts.any():
            sinkings = tuple(int(k) for k in counts[:-1])
    elif rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        when = {s: i for i, v in enumerate(volleys) for s in v.sunk}
        for s, ship in enumerate(rules.fleet):
            block = slice(t.start[s], t.start[s] + t.count[s])
            if s not in when:
                admissible[block] &= complete_at[block] < 0
                continue
            admissible[block] &= complete_at[block] == when[s]
            if not admissible[block].any():
                raise Contradiction(
                    f"salvo {when[s] + 1} sinks the {ship.name}, but no placement of it lies within the cells "
                    "fired by then, meets that salvo and misses the salvos that hit nothing"
                )
            if rules.sinks is Sinks.REVEALED:
                _revealed(rules, volleys, s, block, admissible)
    return tuple(partial), sinkings


def _somewhere(rules: Rules, admissible: np.ndarray) -> None:
    """Every ship needs an admissible placement."""
    t = tables(rules)
    for s, ship in enumerate(rules.fleet):
        if not admissible[t.start[s] : t.start[s] + t.count[s]].any():
            raise Contradiction(
                f"the {ship.name} fits nowhere: every placement of it crosses a salvo that hit nothing"
                " or lies within the cells fired with no sinking announced for it"
            )


# ---- the disjoint events ------------------------------------------------------------------------
MAX_PARTS = 200_000  # hit patterns counted one by one at most (past that: Monte Carlo)


def parts(
    rules: Rules, sev: SalvoEvidence, stop: Stop | None = None, limit: int = MAX_PARTS
) -> Iterator[Evidence]:
    """Disjoint per-placement events whose layouts are exactly the consistent ones (see the module).

    Events that plainly hold no layout (a hit no admissible placement covers, a ship with nowhere
    to go) are left out. Raises :class:`TooManyParts` past ``limit`` events.
    """
    if not sev.is_global:
        yield sev.base
        return
    t = tables(rules)
    n = rules.cells
    cells = np.where(t.cell_list >= 0, t.cell_list, n)
    through = np.zeros((n + 1, len(cells)), dtype=bool)
    for j in range(cells.shape[1]):
        through[cells[:, j], np.arange(len(cells))] = True
    through = through[:n]
    blocks = [slice(t.start[s], t.start[s] + t.count[s]) for s in range(len(rules.fleet))]
    made = 0
    for admissible, hits in _completions(rules, sev, blocks):
        for ev in _assignments(rules, sev.partial, 0, admissible, hits, through, blocks):
            made += 1
            if made > limit:
                raise TooManyParts(
                    f"the salvos' answers leave more than {limit:,} hit patterns to count one by one: estimate "
                    "by Monte Carlo instead (inference.sampling.monte_carlo; calc --time)"
                )
            if stop is not None and made % 64 == 0:
                stop.check()
            yield ev


def count_parts(rules: Rules, sev: SalvoEvidence, limit: int = MAX_PARTS) -> int:
    """How many events :func:`parts` yields (raises :class:`TooManyParts` past ``limit``)."""
    return sum(1 for _ in parts(rules, sev, limit=limit))


def _plausible(admissible: np.ndarray, hits: int, through: np.ndarray, blocks: list[slice]) -> bool:
    """Every ship has somewhere to go and every hit some admissible placement through it."""
    if any(not admissible[b].any() for b in blocks):
        return False
    cell = 0
    while hits >> cell:
        if hits >> cell & 1 and not (through[cell] & admissible).any():
            return False
        cell += 1
    return True


def _assignments(
    rules: Rules,
    partial: tuple[Partial, ...],
    i: int,
    admissible: np.ndarray,
    hits: int,
    through: np.ndarray,
    blocks: list[slice],
) -> Iterator[Evidence]:
    """Every choice of the hit cells of the partial salvos from ``i`` on (depth first)."""
    if i == len(partial):
        yield Evidence(admissible, hits)
        return
    part = partial[i]
    known = [c for c in part.cells if hits >> c & 1]
    open_cells = [c for c in part.cells if not hits >> c & 1]
    need = part.hits - len(known)
    if not 0 <= need <= len(open_cells):
        return
    for chosen in combinations(open_cells, need):
        missed = [c for c in open_cells if c not in chosen]
        narrowed = admissible & ~through[missed].any(axis=0) if missed else admissible
        more = hits
        for c in chosen:
            more |= 1 << c
        if more.bit_count() > rules.ship_cells or not _plausible(narrowed, more, through, blocks):
            continue
        yield from _assignments(rules, partial, i + 1, narrowed, more, through, blocks)


def _completions(rules: Rules, sev: SalvoEvidence, blocks: list[slice]) -> Iterator[tuple[np.ndarray, int]]:
    """Under ``sunk`` rules with counts: every choice of the ships completed, and where, as many in
    each salvo as announced (the others may not lie within the fired cells); else the base alone."""
    base = sev.base
    if sev.sinkings is None:
        yield base.admissible, base.hits
        return
    t = tables(rules)
    need = np.array(sev.sinkings, dtype=np.int64)
    open_ = base.admissible & (sev.complete_at < 0)
    done = [np.flatnonzero(base.admissible[b] & (sev.complete_at[b] >= 0)) + b.start for b in blocks]
    ships = len(rules.fleet)

    def pick(
        s: int, left: np.ndarray, used: int, pinned: list[tuple[int, int]]
    ) -> Iterator[tuple[np.ndarray, int]]:
        if left.sum() > ships - s:
            return
        if s == ships:
            admissible = open_.copy()
            for ship, p in pinned:
                admissible[blocks[ship]] = False
                admissible[p] = True
            yield admissible, base.hits | used
            return
        yield from pick(s + 1, left, used, pinned)  # not completed
        for p in done[s]:
            salvo, mask = int(sev.complete_at[p]), t.masks[p]
            if left[salvo] == 0 or mask & used:
                continue
            left[salvo] -= 1
            yield from pick(s + 1, left, used | mask, [*pinned, (s, int(p))])
            left[salvo] += 1

    yield from pick(0, need.copy(), 0, [])
