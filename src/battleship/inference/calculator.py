"""The calculator: where the ships are, for any board, within an optional time, one policy for every door.

:func:`calculate` counts every consistent layout when the count fits, and otherwise estimates the
probabilities by Monte Carlo on exact uniform samples (C. Liam Brown's Probability mode) within the
time given, saying which it did, why, and how long the exact count would take. ``battleship calc``
and :func:`battleship.posterior <battleship.api.posterior>` ask it, and neither decides again when to
count and when to estimate; the web's calculator and heat maps count and estimate through it within
their own deadlines.

- ``method="auto"`` (the default): exact, unless the engines foresee a count longer than ``seconds``
  (or, without a time, salvos answered by a count that would take more than
  ``SALVO_EXACT_SECONDS``), then the estimate within ``seconds`` (``SALVO_FALLBACK_SECONDS``
  without one); given ``seconds``, the count takes at most ``COUNT_SHARE`` of them, and a count that
  runs out (its forecast was short) is estimated in the time left, saying so;
- ``method="exact"``: every layout counted, whatever it takes (a ``stop`` ends it);
- ``method="sample"``: the estimate within ``seconds``.

:func:`plan` says which it will be before any work (``on_plan`` hears it from :func:`calculate`), so a
front end can say so and show the right progress.

The time is a budget for the whole answer: the sampler's batches run in a thread of their own, and a
batch still under way when the time is up is left to finish on its own (``on_abandon`` hears of it);
the answer is the batches finished. ``stop`` (a :class:`battleship.stop.Stop`) cancels either way.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from battleship.cells import Cell, CellLike, to_cell
from battleship.errors import BattleshipError
from battleship.stop import DEADLINE, OutOfTime, Stop
from battleship.words import counted

if TYPE_CHECKING:
    from battleship.game import Observation
    from battleship.inference.posterior import Posterior

SALVO_EXACT_SECONDS = 120.0  # salvos answered by a count: an exact answer foreseen longer is estimated
SALVO_FALLBACK_SECONDS = 10.0  # ... within this many seconds
# a count given a budget takes at most this share of it; should it run out (its forecast was short), the
# estimate draws for this share of what is left (the rest: its last batch, the caller's own work) ...
COUNT_SHARE, ESTIMATE_SHARE = 0.75, 0.6
MIN_ESTIMATE_SECONDS = 0.1  # ... unless that is less than this: then the answer is out of time
ABANDON_WAIT = 0.2  # seconds a batch under way may take to finish once the budget is spent
FIRST_BATCH, LAST_BATCH = 16, 256  # samples a batch: a small first batch keeps short budgets short


@dataclass(frozen=True, eq=False)
class Answer:
    """Where the ships are: each cell's probability of a ship, and how it was found.

    It reads as a :class:`~battleship.inference.Posterior` does: ``answer["E5"]`` (any cell form) is a
    cell's probability, :meth:`best` the unshot cells most likely to hold a ship (cells that print as
    their names), ``probability`` the whole board; ``exact`` says whether it was counted.
    """

    observation: Observation
    probability: np.ndarray  # rows x cols: P(a ship on the cell)
    exact: bool  # every consistent layout counted (else a Monte Carlo estimate)
    engine: str  # the engine that counted ("rows", "sweep", "search", ...), or "sampling"
    layouts: int | float | None  # the consistent layouts, when counted
    samples: int  # exact uniform samples drawn, when estimated (0 when counted)
    standard_error: np.ndarray | None  # rows x cols, when estimated
    expected: float  # seconds the count was foreseen to take (NaN: not foreseen, a method was asked for)
    why: str  # why it is an estimate ("" when counted)
    seconds: float  # the answer's wall time
    posterior: Posterior | None = field(default=None, repr=False)  # the whole exact answer

    @property
    def over(self) -> bool:
        """Every ship cell has been hit: nothing is left to find (and no cell is worth a shot)."""
        return hits_seen(self.observation) == self.observation.rules.ship_cells

    def best(self) -> list[Cell]:
        """The unshot cells of highest probability (all of them when tied); none once the game is over.

        C. Liam Brown's skew (``battleship calc --skew``) is the density shooter's choice, a shooter's
        idea: ``battleship.shooters.density.best_cells`` applies it to ``probability``."""
        rules, seen = self.observation.rules, self.observation
        if self.over:
            return []
        value = self.probability.ravel()
        open_cells = [c for c in range(rules.cells) if not seen.shot_mask >> c & 1]
        top = max((float(value[c]) for c in open_cells), default=0.0)
        # the density shooter's tolerance (best_cells), so that ties read the same everywhere
        return [Cell(c, rules.cols) for c in open_cells if value[c] >= top * (1 - 1e-12)]

    def __getitem__(self, cell: CellLike) -> float:
        """The probability that ``cell`` (``"E5"``, ``(4, 4)`` or ``44``) holds a ship."""
        return float(self.probability.ravel()[to_cell(cell, self.observation.rules)])

    def __repr__(self) -> str:
        r, best = self.observation.rules, self.best()
        top = f"; best {best[0]} {100 * self[best[0]]:.1f}%" if best else "; the game is over"
        ties = f" (+{len(best) - 1} tied)" if len(best) > 1 else ""
        if self.exact:
            count = f"{self.layouts:,}" if isinstance(self.layouts, int) else f"{self.layouts:.4g} (weighted)"
            how = f"{count} layouts counted ({self.engine})"
        else:
            how = f"estimated from {self.samples:,} exact samples"
        return f"<Answer {r.name} {r.rows}x{r.cols}, {counted(self.observation.fired, 'shot')}: {how}{top}{ties}>"


@dataclass(frozen=True)
class Plan:
    """What the calculator is about to do, said before it starts (``on_plan``)."""

    exact: bool  # counting every layout (else estimating)
    expected: float  # seconds the exact count is foreseen to take (NaN when a method was asked for)
    why: str  # why it estimates ("" when it counts)
    seconds: float | None  # the estimate's budget


def plan(
    observation: Observation,
    seconds: float | None = None,
    method: Literal["auto", "exact", "sample"] = "auto",
    prior: np.ndarray | None = None,
) -> Plan:
    """Whether :func:`calculate` will count or estimate, and why (the engines' own forecast, made only
    for ``method="auto"``: foreseeing a count may take seconds, compiling a state graph's first pass)."""
    from battleship.inference.cost import duration
    from battleship.inference.posterior import work

    if method not in ("auto", "exact", "sample"):
        raise BattleshipError(f"method must be auto, exact or sample, not {method!r}")
    if seconds is not None and not seconds > 0:
        raise BattleshipError(f"a time budget is a number of seconds above 0, not {seconds:g}")
    if method == "sample":
        if seconds is None:
            raise BattleshipError("an estimate needs a time budget (seconds)")
        # no forecast of the count: foreseeing it may compile a graph, which the budget has no time for
        return Plan(False, math.nan, "an estimate was asked for", seconds)
    if method == "exact":  # counted whatever it takes: nothing to decide, so nothing foreseen
        return Plan(True, math.nan, "", None)
    needed = work(observation.rules, observation, prior)
    long = f"counting every layout would take about {duration(needed.seconds)} ({needed.detail})"
    if method == "auto" and _salvos_out_of_reach(observation, needed.seconds):
        return Plan(False, needed.seconds, long, seconds or SALVO_FALLBACK_SECONDS)
    if method == "auto" and seconds is not None and needed.seconds > seconds:
        return Plan(False, needed.seconds, long, seconds)
    return Plan(True, needed.seconds, "", None)


def calculate(
    observation: Observation,
    *,
    seconds: float | None = None,
    method: Literal["auto", "exact", "sample"] = "auto",
    seed: int = 0,
    prior: np.ndarray | None = None,
    stop: Stop | None = None,
    on_plan: Callable[[Plan], None] | None = None,
    on_abandon: Callable[[threading.Thread], None] | None = None,
) -> Answer:
    """Where the ships are given ``observation``: counted exactly when that fits, else estimated (see the
    module for ``method``). ``seconds`` is a budget for the whole answer; ``seed`` makes the estimate's
    samples reproducible (their number depends on the machine's speed); ``prior`` weighs placements
    (counts only); ``on_plan`` hears what it will do before it starts (to say so, or show progress)."""
    start = time.perf_counter()
    chosen = plan(observation, seconds, method, prior)
    if on_plan is not None:
        on_plan(chosen)
    if not chosen.exact:
        if prior is not None:
            raise BattleshipError("a prior is counted exactly only: give no time, or method='exact'")
        assert chosen.seconds is not None  # every estimate has its budget
        budget = chosen.seconds - (time.perf_counter() - start)
        estimate = sample_within(observation, budget, seed, stop, on_abandon)
        return Answer(
            observation, estimate.probability, False, "sampling", None, estimate.samples,
            estimate.standard_error, chosen.expected, chosen.why, time.perf_counter() - start,
        )  # fmt: skip
    from battleship.inference.posterior import posterior

    whole = stop if stop is not None else Stop()
    # a time budget: the count may take most of it, and one that runs out (the forecast was short) leaves
    # the rest to the estimate
    counting = (
        whole if seconds is None or method != "auto" else whole.part(COUNT_SHARE * _left(seconds, start))
    )
    try:
        result = posterior(observation.rules, observation, prior=prior, stop=counting)
    except OutOfTime:
        if counting is whole or prior is not None:
            raise
        whole.check()  # the whole answer's own stop (its deadline, a cancellation) ends it
        return _estimate_after_count(observation, seconds, start, chosen, seed, whole, on_abandon)
    return Answer(
        observation, result.probability, True, result.engine, result.layouts, 0, None,
        chosen.expected, "", time.perf_counter() - start, result,
    )  # fmt: skip


def _left(seconds: float, start: float) -> float:
    """What is left of a budget of ``seconds`` begun at ``start`` (never negative)."""
    return max(0.0, seconds - (time.perf_counter() - start))


def _estimate_after_count(
    observation: Observation,
    seconds: float | None,
    start: float,
    chosen: Plan,
    seed: int,
    stop: Stop,
    on_abandon: Callable[[threading.Thread], None] | None,
) -> Answer:
    """The estimate in what a count out of time left of the budget; :class:`OutOfTime` if too little."""
    assert seconds is not None  # only a count with a budget runs out of time and is estimated
    why = f"the exact count did not finish within {COUNT_SHARE * seconds:.3g} s"
    budget = ESTIMATE_SHARE * _left(seconds, start)
    if budget < MIN_ESTIMATE_SECONDS:
        raise OutOfTime(f"{why}, and too little of the {seconds:g} s was left to estimate")
    estimate = sample_within(observation, budget, seed, stop, on_abandon)
    return Answer(
        observation, estimate.probability, False, "sampling", None, estimate.samples,
        estimate.standard_error, chosen.expected, why, time.perf_counter() - start,
    )  # fmt: skip


def hits_seen(observation: Observation) -> int:
    """Ship cells hit so far, known on their own or counted by the salvos' answers."""
    if any(not v.shots for v in observation.volleys):
        return sum(v.hits for v in observation.volleys)
    return observation.hit_mask.bit_count()


def _salvos_out_of_reach(observation: Observation, expected: float) -> bool:
    """Salvos answered by a count whose exact answer would take longer than SALVO_EXACT_SECONDS."""
    from battleship.inference.posterior import global_evidence

    if global_evidence(observation.rules, observation) is None:
        return False
    return expected > SALVO_EXACT_SECONDS


def sample_within(
    observation: Observation,
    seconds: float,
    seed: int = 0,
    stop: Stop | None = None,
    on_abandon: Callable[[threading.Thread], None] | None = None,
) -> Estimate:
    """Monte Carlo on exact samples drawn in batches until ``seconds`` have passed (the whole answer's
    budget): the batches of ``battleship.inference.sampling.monte_carlo``, the same samples for the
    same seed, but a batch still under way when the time is up is left behind."""
    from battleship.inference.sampling import Estimate, draw, hit_counts

    rules = observation.rules
    started = time.perf_counter()
    deadline = started + max(seconds, 0.0)
    inner = Stop()  # set once the budget is spent: no new batch
    lock = threading.Lock()
    done: list[Estimate] = []
    box: dict[str, BaseException] = {}

    def batches() -> None:
        size = FIRST_BATCH
        try:
            while not inner.requested and not (stop is not None and stop.requested):
                began = time.perf_counter()
                # each batch is told the deadline: where rejection keeps too few draws it goes on rejecting
                # until then rather than compiling the exact sampler's graph, which could take the budget
                rows = draw(rules, observation, size, seed=seed * 1_000_003 + len(done), deadline=deadline)
                if len(rows) == 0:
                    break
                hits = hit_counts(rules, rows).reshape(rules.rows, rules.cols)
                part = Estimate(len(rows), hits / len(rows), hits * 0.0, time.perf_counter() - began)
                with lock:
                    done.append(part)
                size = min(2 * size, LAST_BATCH)
        except BaseException as exc:  # handed to the calling thread
            box["error"] = exc

    worker = threading.Thread(target=batches, name="battleship-samples", daemon=True)
    worker.start()
    while worker.is_alive() and time.perf_counter() < deadline and not (stop is not None and stop.requested):
        worker.join(0.05)
    if stop is not None and stop.requested and int(stop.flag[0]) != DEADLINE:
        stop.check()  # cancelled (a deadline of the stop's own is this budget's end: the answer is due)
    inner.request()
    worker.join(ABANDON_WAIT)
    if worker.is_alive() and on_abandon is not None:
        on_abandon(worker)
    with lock:
        parts = list(done)
    if "error" in box and not parts:
        raise box["error"]
    if not parts:
        raise BattleshipError(
            f"no exact sample was drawn within {seconds:g} s: on this board rejection keeps too few draws and "
            "exact sampling counts the layouts first; give more time, or count exactly"
        )
    n = sum(p.samples for p in parts)
    p = np.asarray(sum(part.probability * part.samples for part in parts)) / n
    return Estimate(n, p, np.sqrt(p * (1 - p) / n), sum(part.seconds for part in parts))


if TYPE_CHECKING:
    from battleship.inference.sampling import Estimate
