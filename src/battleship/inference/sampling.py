"""Exact uniform samples of the layouts consistent with an observation, fast, and Monte Carlo on them.

Exact samplers, used together:

- Rejection (fast while the board is open): every ship takes a uniformly random placement among its
  *admissible* ones (placements that the misses and sink announcements allow, from
  :func:`battleship.inference.evidence`); the draw is kept when no two ships clash and every hit is
  covered. Each admissible combination is equally likely, so the kept layouts are exactly uniform
  over the consistent ones: admissibility plus "no clash" plus "every hit covered" is exactly
  consistency (see ``evidence``).
- Paths of the state graph (when rejection's pilot keeps too few draws, straight ships kept apart): one sweep
  counts every state's ways on to the end, then each sample walks from the start taking each edge
  with probability (its ways / the state's ways), in exact integers
  (:func:`battleship.inference.sweep.sample_by_sweep`).
- Numbered (other fleets: ships that may touch, by the row engine; polyominoes): count the consistent layouts with the search engine, draw
  uniform numbers below the count, and walk the search once more to pick out the layouts with those
  numbers (:func:`battleship.inference.select_by_search`); ship by ship on exact counts
  (:func:`sample`) for a fleet of one ship.

Each draws independent exact samples, so mixing them keeps the law exact. Every draw comes from one
:mod:`battleship.rng` stream of the seed: the same seed gives the same layouts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import sweep
from battleship.inference.evidence import Contradiction, Evidence, evidence
from battleship.inference.graph import TooLarge
from battleship.inference.posterior import check_size, engine_counts, engine_total, global_evidence
from battleship.inference.rows import fast_path
from battleship.inference.salvos import SalvoEvidence
from battleship.inference.search import count_by_search, select_by_search
from battleship.inference.watch import flag_of, watched
from battleship.jit import njit
from battleship.rng import below, seed_words, stream
from battleship.rules import Rules
from battleship.stop import OutOfTime, Stop
from battleship.tables import tables, to_words

# Rejection runs a pilot; it carries on only if the pilot's rate promises the rest within
# MAX_TRIES draws (about a third of a second), else the exact samplers take over.
PILOT_TRIES = 50_000
MAX_TRIES = 4_000_000


@njit(cache=True, nogil=True)
def _reject(state, cells, halos, ship_start, members, hits, tries, out, flag):
    """Fill rows of ``out`` by rejection within ``tries`` draws; returns (rows filled, draws used).

    Returns early once ``flag[0]`` is set (the caller checks it).
    """
    nships = ship_start.shape[0] - 1
    nwords = hits.shape[0]
    blocked = np.zeros(nwords, dtype=np.uint64)
    covered = np.zeros(nwords, dtype=np.uint64)
    filled = 0
    used = 0
    while filled < out.shape[0] and used < tries:
        used += 1
        if used % 4096 == 0 and flag[0]:
            break
        blocked[:] = 0
        covered[:] = 0
        ok = True
        for s in range(nships):
            p = members[ship_start[s] + below(state, ship_start[s + 1] - ship_start[s])]
            for w in range(nwords):
                if cells[p, w] & blocked[w]:
                    ok = False
            if not ok:
                break
            for w in range(nwords):
                blocked[w] |= halos[p, w]
                covered[w] |= cells[p, w]
            out[filled, s] = p
        if not ok:
            continue
        for w in range(nwords):
            if hits[w] & ~covered[w]:
                ok = False
        if ok:
            filled += 1
    return filled, used


def draw(
    rules: Rules,
    observation: Observation,
    count: int,
    seed: int = 0,
    deadline: float | None = None,
    stop: Stop | None = None,
) -> np.ndarray:
    """``count`` layouts drawn exactly uniformly from those consistent with ``observation``.

    Rows of placement indices, one per ship in fleet order. Reproducible for a given seed.
    Raises :class:`battleship.inference.Contradiction` when no layout fits. With a ``deadline``
    (``time.perf_counter()``) the state graph is used only if it is compiled already (compiling
    may take longer than the budget); otherwise rejection carries on until then and fewer rows may
    come back. ``stop`` interrupts the work (:class:`battleship.stop.Stopped`).
    """
    sev = global_evidence(rules, observation)
    if sev is not None:
        return _draw_salvos(rules, sev, count, seed, deadline, stop)
    state = stream(np.uint64(seed_words(seed)), np.uint64(0))
    return _draw(rules, evidence(rules, observation), count, state, seed, deadline, stop)


def _draw(
    rules: Rules,
    ev: Evidence,
    count: int,
    state: np.ndarray,
    seed: int,
    deadline: float | None,
    stop: Stop | None,
) -> np.ndarray:
    """:func:`draw` on per-placement evidence, drawing from the random stream ``state``."""
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    tables_ = _rejection_tables(rules, ev, stop)
    filled, used = _reject(state, *tables_[:5], PILOT_TRIES, out, tables_[5])
    if 0 < filled < count and used * count / filled <= MAX_TRIES:
        filled += watched(_reject, state, *tables_[:5], MAX_TRIES, out[filled:], tables_[5], stop=stop)[0]
    if stop is not None:
        stop.check()
    if filled == count:
        return out
    # ships that may touch: the row engine numbers the layouts faster than a graph compiles
    by_graph = sweep.applies(rules) and not fast_path(rules)
    rest = _by_graph(rules, ev, count - filled, state, deadline, stop) if by_graph else None
    if rest is None and by_graph:
        return _keep_rejecting(rules, state, tables_, out, filled, deadline, stop)
    if rest is None:
        check_size(rules, ev)
        rest = _exact_rest(rules, ev, count - filled, seed, deadline, stop)
        if rest is None:  # the search would pass the deadline
            return _keep_rejecting(rules, state, tables_, out, filled, deadline, stop)
    if len(rest) == 0:
        raise Contradiction("no layout fits these shots")
    out[filled:] = rest
    return out


def _by_graph(
    rules: Rules, ev: Evidence, count: int, state: np.ndarray, deadline: float | None, stop: Stop | None
) -> np.ndarray | None:
    """Samples from the state graph, or None where it does not serve (other shapes, too large, or a
    deadline and a graph not compiled yet)."""
    if not sweep.applies(rules):
        return None
    if deadline is not None and not sweep.compiled_for(rules, ev):
        return None
    try:
        return sweep.sample_by_sweep(rules, ev, count, state, stop)
    except TooLarge:
        return None


LARGE_ROUNDS = 25  # rounds of MAX_TRIES draws (about ten seconds) when no deadline is given


def _keep_rejecting(
    rules: Rules, state, tables_, out: np.ndarray, filled: int, deadline: float | None, stop: Stop | None
):
    """Rejection past its usual budget, where the state graph does not serve now (see :func:`draw`)."""
    rounds = 0
    while filled < len(out):
        out_of_time = deadline is not None and time.perf_counter() > deadline
        if out_of_time or (deadline is None and rounds >= LARGE_ROUNDS):
            break
        filled += watched(_reject, state, *tables_[:5], MAX_TRIES, out[filled:], tables_[5], stop=stop)[0]
        if stop is not None:
            stop.check()
        rounds += 1
    if filled == 0:
        raise BattleshipError(
            f"no layout of this {len(rules.fleet)}-ship fleet fitting these shots was found by rejection "
            f"within {rounds * MAX_TRIES:,} draws, and the exact sampler's state graph is not ready for it: "
            "give more time, or use the exact calculator (no --time)"
        )
    return out[:filled]


def _exact_rest(
    rules: Rules,
    ev: Evidence,
    count: int,
    seed: int,
    deadline: float | None,
    stop: Stop | None,
) -> np.ndarray | None:
    """``count`` exact samples when rejection keeps too few and the graph does not serve: numbered
    layouts (the search), or ship by ship for a one-ship fleet; None if the deadline came first."""
    if len(rules.fleet) < 2:
        return _sample(rules, ev, count, seed)
    budget = stop if deadline is None else _until(deadline, stop)
    try:
        total, _ = count_by_search(rules, ev, marginals=False, stop=budget)
        if deadline is not None and budget is not None:
            budget.check()
    except OutOfTime:
        if stop is not None:
            stop.check()  # the caller's own deadline
        return None
    if total == 0:
        raise Contradiction("no layout fits these shots")
    targets = np.random.default_rng(seed).integers(0, total, size=count)
    order = np.argsort(targets, kind="stable")
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    out[order] = select_by_search(rules, ev, targets[order], stop=stop)
    return out


def _until(deadline: float, stop: Stop | None) -> Stop:
    """A stop at ``deadline`` (``time.perf_counter()``), or at ``stop``'s own deadline if sooner.

    (Ctrl-C reaches a kernel through whichever stop watches it.)
    """
    if stop is not None:
        stop.check()
    budget = Stop(max(0.0, deadline - time.perf_counter()))
    if stop is not None and stop.deadline is not None and budget.deadline is not None:
        budget.deadline = min(budget.deadline, stop.deadline)
    return budget


def hit_counts(rules: Rules, rows: np.ndarray) -> np.ndarray:
    """Per cell, how many of the sampled layouts have a ship there."""
    t = tables(rules)
    cells = t.cell_list[rows.ravel()]
    return np.bincount(cells[cells >= 0], minlength=rules.cells)


def _rejection_tables(
    rules: Rules, ev: Evidence, stop: Stop | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What rejection draws from: every ship's admissible placements, the hits, the stop flag."""
    t = tables(rules)
    admissible = [
        np.flatnonzero(ev.admissible[t.start[s] : t.start[s] + t.count[s]]) + t.start[s]
        for s in range(len(rules.fleet))
    ]
    members = np.concatenate(admissible).astype(np.int64)
    ship_start = np.concatenate(([0], np.cumsum([len(a) for a in admissible]))).astype(np.int64)
    return t.cells, t.halos, ship_start, members, to_words(ev.hits, t.nwords), flag_of(stop)


def draw_by_rejection(
    rules: Rules, observation: Observation, count: int, seed: int, tries: int
) -> np.ndarray:
    """Up to ``count`` layouts drawn exactly uniformly by rejection within ``tries`` draws: fewer
    where the hits make consistent draws rare, but never more time than the tries, and the same
    rows for the same seed (a time budget would give as many rows as the machine's speed allows)."""
    sev = global_evidence(rules, observation)
    ev = evidence(rules, observation) if sev is None else sev.base
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    state = stream(np.uint64(seed_words(seed)), np.uint64(0))
    tables_ = _rejection_tables(rules, ev, None)
    filled, _ = _reject(state, *tables_[:5], tries, out, tables_[5])
    return out[:filled] if sev is None else out[:filled][sev.agrees(out[:filled])]


def sample(rules: Rules, observation: Observation, count: int, seed: int = 0) -> np.ndarray:
    """``count`` layouts drawn exactly uniformly from those consistent with ``observation``.

    Ship by ship: draw the ship's placement with probability (its layouts / all layouts), using an
    integer draw so the law is exact, then condition on it. Draws that agree so far share the work.
    Returns rows of placement indices (one per ship, in fleet order).
    """
    sev = global_evidence(rules, observation)
    if sev is not None:
        return _draw_by_parts(rules, sev, count, seed, None)
    return _sample(rules, evidence(rules, observation), count, seed)


def _sample(rules: Rules, ev: Evidence, count: int, seed: int) -> np.ndarray:
    """:func:`sample` on per-placement evidence."""
    check_size(rules, ev)
    t = tables(rules)
    rng = np.random.default_rng(seed)
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)

    def fill(which: np.ndarray, admissible: np.ndarray, ship: int) -> None:
        if ship == len(rules.fleet):
            return
        total, counts = engine_counts(rules, Evidence(admissible, ev.hits))
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


# Salvos answered by a count: rejection on the counts of exact draws of the layouts that meet the
# per-placement evidence, while at most SALVO_TRIES draws promise the samples asked for; else (no
# deadline) the hit patterns are counted and each drawn from exactly.
SALVO_PILOT = 2_000
SALVO_TRIES = 400_000


def _draw_salvos(
    rules: Rules, sev: SalvoEvidence, count: int, seed: int, deadline: float | None, stop: Stop | None
) -> np.ndarray:
    """:func:`draw` for salvos answered by a count (global constraints): exact and uniform."""
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    state = stream(np.uint64(seed_words(seed)), np.uint64(1))
    filled = tried = rounds = 0
    spent = 0.0
    while filled < count:
        size = SALVO_PILOT if rounds == 0 else min(SALVO_TRIES, max(SALVO_PILOT, 4 * tried))
        if deadline is not None and tried:  # a round that fits in the time left
            left = deadline - time.perf_counter()
            size = max(1, min(size, int(left / max(spent / tried, 1e-9))))
        started = time.perf_counter()
        rows = _draw(rules, sev.base, size, state, seed * 1_000_003 + rounds, deadline, stop)
        spent += time.perf_counter() - started
        kept = rows[sev.agrees(rows)][: count - filled]
        out[filled : filled + len(kept)] = kept
        filled += len(kept)
        tried += len(rows)
        rounds += 1
        if filled == count or (deadline is not None and time.perf_counter() > deadline):
            break
        promised = tried * (count - filled) / max(filled, 1 / 4) if filled else float("inf")
        if deadline is None and (promised > SALVO_TRIES or tried >= SALVO_TRIES):
            out[filled:] = _draw_by_parts(rules, sev, count - filled, seed, stop)
            filled = count
    if stop is not None:
        stop.check()
    if filled == 0:
        raise BattleshipError(
            f"no layout fitting these salvos' counts was found among {tried:,} exact draws of the layouts "
            "their misses and sinkings allow: give more time, or use the exact calculator (no --time)"
        )
    return out[:filled]


def _draw_by_parts(rules: Rules, sev: SalvoEvidence, count: int, seed: int, stop: Stop | None) -> np.ndarray:
    """Exact uniform draws over the salvos' hit patterns: each pattern's layouts counted, a pattern
    drawn for every sample in proportion, then the sample from the pattern's layouts."""
    import bisect
    import random

    from battleship.inference.salvos import parts

    events = list(parts(rules, sev, stop))
    ends = list(accumulate(engine_total(rules, ev, stop) for ev in events))
    if not ends or ends[-1] == 0:
        raise Contradiction("no layout fits these salvos")
    pick = random.Random(seed)
    chosen = np.array([bisect.bisect_right(ends, pick.randrange(ends[-1])) for _ in range(count)])
    out = np.empty((count, len(rules.fleet)), dtype=np.int64)
    for j in np.unique(chosen):
        which = np.flatnonzero(chosen == j)
        state = stream(np.uint64(seed_words(seed)), np.uint64(2 + int(j)))
        out[which] = _draw(rules, events[j], len(which), state, seed * 7_919 + int(j), None, stop)
    return out


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate of the hit probabilities, from exact uniform samples."""

    samples: int
    probability: np.ndarray  # rows x cols
    standard_error: np.ndarray  # rows x cols
    seconds: float


def monte_carlo(
    rules: Rules,
    observation: Observation,
    seconds: float | None = None,
    seed: int = 0,
    samples: int | None = None,
    batch: int = 256,
    stop: Stop | None = None,
) -> Estimate:
    """Hit probabilities from exact samples: ``samples`` of them, or as many as ``seconds`` allow.

    With ``samples`` the estimate is reproducible; a time budget (C. Liam Brown's Probability mode) draws
    batches until the time is up, so the count depends on the machine. The budget is a deadline for
    the whole answer (at least one batch is drawn): the state graph's exact sampler serves only if its
    graph is compiled already. ``stop`` interrupts the work (:class:`battleship.stop.Stopped`).
    """
    if (seconds is None) == (samples is None):
        raise ValueError("give seconds or samples")
    start = time.perf_counter()
    hits = np.zeros(rules.cells, dtype=np.int64)
    n = k = 0
    size = 16 if samples is None else samples  # a small first batch keeps short budgets short
    while True:
        deadline = None if seconds is None else start + seconds
        rows = draw(rules, observation, size, seed=seed * 1_000_003 + k, deadline=deadline, stop=stop)
        hits += hit_counts(rules, rows)
        n += len(rows)
        k += 1
        if seconds is None or time.perf_counter() - start >= seconds:  # a count of samples, or time up
            break
        size = min(2 * size, batch)
    p = hits / n
    se = np.sqrt(p * (1 - p) / n)
    shape = (rules.rows, rules.cols)
    return Estimate(n, p.reshape(shape), se.reshape(shape), time.perf_counter() - start)
