"""The posterior entry point: every layout consistent with an observation, counted exactly.

:func:`posterior` reads the evidence (:mod:`battleship.inference.evidence`), picks the faster exact
engine for the rules and the board (:mod:`battleship.inference.rows` for straight ships that may
touch, else :mod:`battleship.inference.search`), and returns a :class:`Posterior`: the number of
layouts and how many of them use each placement and cover each cell. The prior is uniform over
layouts unless per-placement weights are given (:mod:`battleship.inference.prior` fits them).

``posterior(observation)`` is the whole call: the observation knows its rules. The engines' own
form, ``posterior(rules, observation)``, stays for the callers that hold rules apart from the
board (a fitted prior's rules, the open board).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from math import factorial, prod
from typing import Any

import numpy as np

from battleship.cells import Cell, CellLike, cell_name, iter_cells, to_cell
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, Shot
from battleship.inference.evidence import Contradiction, Evidence, evidence
from battleship.inference.rows import count_by_rows, fast_path
from battleship.inference.salvos import SalvoEvidence, whole_answers
from battleship.inference.search import count_by_search
from battleship.rules import Rules
from battleship.stop import Stop
from battleship.tables import tables
from battleship.words import counted


@dataclass(frozen=True, eq=False)
class Posterior:
    """The exact answer: how many layouts fit, and how many of them use each placement and cell.

    ``posterior["E5"]`` (any cell form) is a cell's probability of holding a ship; :meth:`best` the
    unshot cells most likely to; in a notebook it draws itself as a heat map.
    :func:`battleship.posterior <battleship.api.posterior>` computes one, and :attr:`cell_layouts` and
    :attr:`probability` read it per cell.

    Attributes
    ----------
    rules : Rules
        The rules of the board it answers.
    layouts : int or float
        How many layouts fit what was seen (ships told apart); a float only under a float prior,
        where it is their total weight.
    placement_layouts : numpy.ndarray
        Per placement (in the order of :func:`battleship.tables.tables`), how many of those layouts
        use it: int64, or float64 under a float prior.
    engine : str
        The exact engine that counted them (``rows``, ``search``, ``sweep``, ``frontier``).
    observation : Observation or None
        The board it answers (None for one built by hand). A board with misses only is answered
        once for every order of its shots, and names them in cell order.

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("square-6", seed=1))
    >>> _ = game.fire("C3")
    >>> result = bs.posterior(game.observation)
    >>> result
    <Posterior square-6 6x6, 1 shot: 3,365,816 layouts; best A4 57.0% (+1 tied)>
    >>> result.layouts, round(result["A4"], 3), result.best()
    (3365816, 0.57, [A4, D1])
    >>> result.probability.shape
    (6, 6)
    """

    rules: Rules
    layouts: int | float  # a float only under a float prior
    placement_layouts: np.ndarray  # (placements,) int64 (float64 under a float prior): layouts using each
    engine: str
    # the board it answers (None: built by hand); a board with misses only is answered once for every
    # order of its shots, and named with them in cell order
    observation: Observation | None = None

    @property
    def exact(self) -> bool:
        """True: every layout was counted (an estimate, from the calculator within a time, says False)."""
        return True

    @cached_property
    def cell_layouts(self) -> np.ndarray:
        """Per cell, the number of consistent layouts with a ship there (int64, rows x cols)."""
        t = tables(self.rules)
        out = np.zeros(self.rules.cells + 1, dtype=self.placement_layouts.dtype)
        cells = np.where(t.cell_list >= 0, t.cell_list, self.rules.cells)
        np.add.at(out, cells.ravel(), np.repeat(self.placement_layouts, cells.shape[1]))
        grid = out[:-1].reshape(self.rules.rows, self.rules.cols)
        grid.setflags(write=False)  # results may be shared (boards with misses only are cached)
        return grid

    @cached_property
    def probability(self) -> np.ndarray:
        """Per cell, the probability that it holds a ship (rows x cols floats)."""
        return self.cell_layouts / float(self.layouts)  # the count may pass 64 bits

    def placement_probability(self, ship: int) -> np.ndarray:
        """The probability of each placement of ``ship`` (in the order of ``rules.placements[ship]``)."""
        t = tables(self.rules)
        return self.placement_layouts[t.start[ship] : t.start[ship] + t.count[ship]] / float(self.layouts)

    def __getitem__(self, cell: CellLike) -> float:
        """The probability that ``cell`` (``"E5"``, ``(4, 4)`` or ``44``) holds a ship."""
        return float(self.probability.ravel()[to_cell(cell, self.rules)])

    def best(self, observation: Observation | None = None) -> list[Cell]:
        """The unshot cells of highest probability (all of them when tied); [] once every cell is shot.

        Parameters
        ----------
        observation : Observation, optional
            The board whose shots are left out; only for a posterior built by hand (one from
            :func:`posterior` knows its board).

        Returns
        -------
        list of Cell
            The cells, in reading order: each the cell's index (an ``int``) that prints as its
            name, so ``game.fire(result.best()[0])`` and ``print(result.best())`` both work.

        Examples
        --------
        >>> import battleship as bs
        >>> game = bs.Game(bs.generate("standard", seed=7))
        >>> _ = game.fire("E5")
        >>> best = bs.posterior(game.observation).best()
        >>> best, best[0] == 55
        ([F6], True)
        """
        board = observation or self.observation
        counts = self.cell_layouts.ravel()
        shot = np.zeros(self.rules.cells, dtype=bool)
        if board is not None:
            shot[list(iter_cells(board.shot_mask))] = True
        if shot.all():
            return []
        top = counts[~shot].max()
        return [Cell(int(c), self.rules.cols) for c in np.flatnonzero(~shot & (counts == top))]

    def __repr__(self) -> str:
        r = self.rules
        shots = 0 if self.observation is None else self.observation.fired
        best = self.best()
        top = f"; best {cell_name(best[0], r.cols)} {100 * self[best[0]]:.1f}%" if best else ""
        ties = f" (+{len(best) - 1} tied)" if len(best) > 1 else ""
        count = f"{self.layouts:,}" if isinstance(self.layouts, int) else f"{self.layouts:.4g} (weighted)"
        return f"<Posterior {r.name} {r.rows}x{r.cols}, {counted(shots, 'shot')}: {count} layouts{top}{ties}>"

    def _repr_svg_(self) -> str:
        """The heat map: each unknown cell coloured by its probability, the scale beside, the best framed."""
        from battleship.svg import grid_svg

        r = self.rules
        grid = (self.observation or Observation(r)).grid()
        title = f"P(ship), {counted(0 if self.observation is None else self.observation.fired, 'shot')}"
        return grid_svg(
            grid, r.symbols, heat=self.probability.tolist(), framed=frozenset(self.best()), title=title
        )


def _count_by_sweep(*args: Any, **kwargs: Any) -> Any:
    """:func:`battleship.inference.sweep.count_by_sweep`, loaded when first used: the row engine's boards
    (the calculator's standard board) never load the sweep and its state graph."""
    from battleship.inference import sweep

    return sweep.count_by_sweep(*args, **kwargs)


def _count_by_frontier(*args: Any, **kwargs: Any) -> Any:
    """:func:`battleship.inference.frontier.count_by_frontier`, loaded when first used."""
    from battleship.inference import frontier

    return frontier.count_by_frontier(*args, **kwargs)


ENGINES = {
    "rows": count_by_rows,
    "search": count_by_search,
    "sweep": _count_by_sweep,
    "frontier": _count_by_frontier,
}


def _engine_counts(
    engine: str, rules: Rules, ev: Evidence, marginals: bool, weight: np.ndarray | None, stop: Stop | None
) -> tuple[Any, Any, str]:
    """Run ``engine`` (every engine reads the stop flag as it goes); returns (total, counts, engine)."""
    if engine in ("sweep", "frontier"):
        from battleship.inference.graph import TooLarge

        try:
            return (*ENGINES[engine](rules, ev, marginals=marginals, weight=weight, stop=stop), engine)
        except TooLarge:  # found out while compiling: the search answers instead
            check_size(rules, ev, weight)
            engine = "search"
    return (*ENGINES[engine](rules, ev, marginals=marginals, weight=weight, stop=stop), engine)


def count(rules: Rules, observation: Observation | None = None, stop: Stop | None = None) -> tuple[int, str]:
    """The number of layouts consistent with ``observation`` (ships told apart), and the engine used."""
    board = observation or Observation(rules)
    if rules.noise is not None:  # answers that lie weigh layouts (inference.noisy)
        from battleship.inference import noisy

        return noisy.count(rules, board, stop, _placement_counts)
    sev = global_evidence(rules, board)
    if sev is not None:
        total, _, used = salvo_counts(rules, sev, False, None, stop)
        return total, used
    ev = evidence(rules, board)
    check_size(rules, ev)
    engine = choose_engine(rules, ev)
    total, _, used = _engine_counts(engine, rules, ev, False, None, stop)
    return total, used


def _placement_counts(
    rules: Rules, ev: Evidence, weight: np.ndarray | None, stop: Stop | None
) -> tuple[Any, Any, str]:
    """(total, per-placement counts, engine) of ``ev`` in the honest game of ``rules``, weighted by ``weight``
    (exact integers when None); nothing when a ship has no admissible placement. The noisy posterior's
    counts (:mod:`battleship.inference.noisy`)."""
    base = rules.honest()
    t = tables(base)
    for s in range(len(base.fleet)):
        if not ev.admissible[t.start[s] : t.start[s] + t.count[s]].any():
            zeros = np.zeros(len(t.masks), dtype=np.int64 if weight is None else np.float64)
            return 0, zeros, "none"
    engine = choose_engine(base, ev, weight)
    check_size(base, ev, weight, engine)
    return _engine_counts(engine, base, ev, True, weight, stop)


def global_evidence(rules: Rules, observation: Observation) -> SalvoEvidence | None:
    """The salvos' evidence when some of it constrains whole layouts (counts), else None."""
    if rules.answered_each or not whole_answers(observation):
        return None
    from battleship.inference import salvos

    found = salvos.read(rules, observation)
    return found if found.is_global else None


def salvo_counts(
    rules: Rules, sev: SalvoEvidence, marginals: bool, weight: np.ndarray | None, stop: Stop | None
) -> tuple[Any, Any, str]:
    """(total, per-placement counts or None, engine) summed over the salvos' disjoint hit patterns."""
    from battleship.inference.salvos import parts

    total: Any = 0
    counts: Any = None
    used: dict[str, int] = {}
    for ev in parts(rules, sev, stop):
        engine = choose_engine(rules, ev, weight)
        check_size(rules, ev, weight, engine)
        part, part_counts, engine = _engine_counts(engine, rules, ev, marginals, weight, stop)
        used[engine] = used.get(engine, 0) + 1
        total += part
        if marginals:
            counts = part_counts.copy() if counts is None else counts + part_counts
    n = sum(used.values())
    names = "/".join(sorted(used, key=lambda e: -used[e])) or "none"
    if marginals and counts is None:
        t = tables(rules)
        counts = np.zeros(
            len(t.masks), dtype=np.float64 if weight is not None and weight.dtype == np.float64 else np.int64
        )
    return total, counts, f"{names} over {n:,} hit pattern{'s' * (n != 1)} of the salvos"


def posterior(
    rules: Rules | Observation,
    observation: Observation | None = None,
    prior: np.ndarray | None = None,
    cached: bool = True,
    stop: Stop | None = None,
) -> Posterior:
    """The exact posterior over layouts given ``observation``: ``posterior(observation)``, or
    ``posterior(rules)`` for the open board (``posterior(rules, observation)``: the engines' form).

    The prior is uniform over layouts unless ``prior`` gives a weight per placement (in the order of
    :func:`battleship.tables.tables`), a layout then weighing the product of its placements' weights:
    integer weights keep every count exact, float weights give float sums. The open board (no shot,
    any prior) and every board with misses only are computed once per rules and prior and kept (the
    last 1,024) unless ``cached`` is False. ``stop`` (default: never)
    interrupts the work: :class:`battleship.stop.Stopped` or :class:`battleship.stop.OutOfTime`.
    """
    if isinstance(rules, Observation):
        if observation is not None:
            raise BattleshipError("posterior takes one observation (it knows its rules), not two")
        observation = rules
        rules = observation.rules
    board = observation or Observation(rules)
    if rules.noise is not None:  # answers that lie: every layout weighed by their likelihood
        from battleship.inference import noisy

        weight = None if prior is None else check_prior(rules.honest(), prior)
        total, counts, engine = noisy.weighted_counts(rules, board, weight, stop, _placement_counts)
        return Posterior(rules, total, counts, f"{engine}, weighted by the noise", board)
    if cached and not board.hit_mask and board.rules == rules and rules.answered_each:
        return _misses_only(rules, board, prior, stop)  # every game of a shooter starts the same way
    return _posterior(rules, board, prior, stop)


# Boards with misses only, by rules, missed cells and prior: a deterministic shooter fires the same opening
# in every game until its first hit, and those turns are the dearest (they reach nearly every state
# of the sweep's graph), so a run of games computes each once. Least recently used dropped first.
_miss_boards: OrderedDict[tuple[Rules, int, object], Posterior] = OrderedDict()
MISS_BOARDS_KEPT = 1024
_miss_boards_lock = threading.Lock()


def _misses_only(
    rules: Rules, observation: Observation, prior: np.ndarray | None, stop: Stop | None
) -> Posterior:
    """The posterior of a board with misses only (read-only arrays, shared between callers)."""
    weights = None if prior is None else check_prior(rules, prior)
    key = (rules, observation.miss_mask, None if weights is None else (weights.dtype.str, weights.tobytes()))
    with _miss_boards_lock:  # the web's workers share it
        result = _miss_boards.get(key)
        if result is not None:
            _miss_boards.move_to_end(key)
            return result
    # shared by every order of the same misses: it names them in cell order
    board = Observation(rules, tuple(Shot(c, Outcome.MISS) for c in iter_cells(observation.miss_mask)))
    result = dataclasses.replace(_posterior(rules, observation, prior, stop), observation=board)
    result.placement_layouts.setflags(write=False)
    with _miss_boards_lock:
        _miss_boards[key] = result
        if len(_miss_boards) > MISS_BOARDS_KEPT:
            _miss_boards.popitem(last=False)
    return result


def _posterior(
    rules: Rules, observation: Observation, prior: np.ndarray | None, stop: Stop | None
) -> Posterior:
    """:func:`posterior` without the cache."""
    weight = None if prior is None else check_prior(rules, prior)
    sev = global_evidence(rules, observation)
    if sev is not None:
        total, counts, engine = salvo_counts(rules, sev, True, weight, stop)
        if total == 0:
            if prior is not None:
                raise Contradiction("every layout that fits these salvos has prior weight zero")
            raise Contradiction(first_contradiction(rules, observation, stop))
        return Posterior(rules, total, counts, engine, observation)
    ev = evidence(rules, observation)
    engine = choose_engine(rules, ev, weight)
    check_size(rules, ev, weight, engine)
    total, counts, engine = _engine_counts(engine, rules, ev, True, weight, stop)
    if total == 0:
        if prior is not None:
            raise Contradiction("every layout that fits these shots has prior weight zero")
        if whole_answers(observation):
            raise Contradiction(first_contradiction(rules, observation, stop))
        raise Contradiction(
            "no layout fits these shots: "
            + ", ".join(cell_name(c, rules.cols) for c in iter_cells(ev.hits))
            + " cannot all be covered by the fleet under these rules"
            if ev.hits
            else "no layout fits these shots"
        )
    return Posterior(rules, total, counts, engine, observation)


def first_contradiction(rules: Rules, observation: Observation, stop: Stop | None = None) -> str:
    """Why no layout fits salvos answered whole: the first salvo after which none does."""
    for k in range(1, len(observation.volleys) + 1):
        head = Observation(rules, (), observation.volleys[:k])
        sev = global_evidence(rules, head)
        if sev is None:
            ev = evidence(rules, head)
            total = _engine_counts(choose_engine(rules, ev), rules, ev, False, None, stop)[0]
        else:
            total = salvo_counts(rules, sev, False, None, stop)[0]
        if total == 0:
            volley = observation.volleys[k - 1]
            cells = ",".join(cell_name(c, rules.cols) for c in volley.cells)
            return f"no layout fits the salvos: after salvo {k} ({cells}, {counted(volley.hits, 'hit')}) none is left"
    return "no layout fits these salvos"


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
    """The exact engine for these rules and this board: ``"rows"``, ``"sweep"``, ``"frontier"`` or ``"search"``.

    Ships that may touch: the row engine, or the search when it would be faster (few candidate
    combinations). Other straight ships: the sweep, unless its graph would not fit in memory
    (:func:`~battleship.inference.estimate`). Polyominoes: the frontier engine, unless the
    search would be faster (few candidate combinations) or the frontier's graph is known not to fit.
    """
    if fast_path(rules):
        unit = weight is None or (weight.dtype == np.int64 and (weight == 1).all())
        return "search" if unit and choices(rules, ev) < SEARCH_BELOW else "rows"
    from battleship.inference import frontier, sweep

    if sweep.applies(rules) and sweep.estimate(rules, ev, weight).fits:
        return "sweep"
    if (
        not sweep.applies(rules)
        and frontier.applies(rules)
        and choices(rules, ev) >= SEARCH_BELOW
        and not frontier.known_too_large(rules, ev, weight)
    ):
        return "frontier"
    return "search"


def _bound(rules: Rules, ev: Evidence, weight: np.ndarray | None) -> int:
    """An upper bound on the weighted count: the product over ships of choices times top weight."""
    t = tables(rules)
    bound = 1
    for s in range(len(rules.fleet)):
        block = slice(t.start[s], t.start[s] + t.count[s])
        top = 1 if weight is None else max(1, int(weight[block].max()))
        bound *= max(1, int(ev.admissible[block].sum())) * top
    return bound


@dataclass(frozen=True)
class Work:
    """What an exact answer will take, known (roughly) before starting it."""

    engine: str  # the engine that would answer: "rows", "sweep" or "search"
    seconds: float  # rough one-core seconds (compiling the sweep's graph included if not done yet)
    detail: str  # what the figure rests on, for a message
    once: float = 0.0  # the part of ``seconds`` paid once per rules (compiling the sweep's graph)

    @property
    def again(self) -> float:
        """Rough seconds of the same answer once what is paid once per rules is paid (a game's turns)."""
        return self.seconds - self.once

    def beyond(self, seconds: float) -> bool:
        """True when the answer would take far longer (ten times) than ``seconds``."""
        return self.seconds > 10 * seconds


SEARCH_RATE = 1e10  # candidate combinations the search gets through a second, at best
ROWS_SECONDS = 0.05  # the row engine on the open standard board


def counted_by_rows(rules: Rules) -> bool:
    """True when the row engine counts boards under ``rules`` (straight ships that may touch, the
    narrower side at most 16, at most 12 ships): milliseconds a board, no state graph to compile."""
    return fast_path(rules)


def work(rules: Rules, observation: Observation | None = None, prior: np.ndarray | None = None) -> Work:
    """A rough up-front figure for :func:`posterior` on this board, so a command can say before it
    starts that a problem is far beyond what it can finish (and suggest sampling instead).

    The sweep's figure comes from its graph (exact once compiled; otherwise the compiler's first
    pass runs, which takes up to a few seconds on a large board and is reused by the compiler).
    """
    weight = None if prior is None else check_prior(rules, prior)
    board = observation or Observation(rules)
    if rules.noise is not None:  # two weighted counts, sometimes four (inference.noisy)
        from battleship.inference import noisy

        nev = noisy.noisy_evidence(rules, board, weight)
        each = _work(rules.honest(), nev.evidence, nev.weight)
        return Work(
            each.engine, each.once + 2 * each.again, f"two weighted counts, each {each.detail}", each.once
        )
    sev = global_evidence(rules, board)
    if sev is not None:
        return _salvo_work(rules, sev, weight)
    return _work(rules, evidence(rules, board), weight)


PATTERNS_FORESEEN = 4_096  # hit patterns counted up front, at most, to foresee the work
# A hit pattern adds misses and hits to the evidence the patterns share, and costs about this share
# of its foreseen work: measured on `salvo-count` (benchmarks/salvo_inference.py: 2,765 patterns
# counted by the row engine in 21 s of CPU time, where the open board's figure foresees 138 s).
PATTERN_SHARE = 0.2


def _salvo_work(rules: Rules, sev: SalvoEvidence, weight: np.ndarray | None) -> Work:
    """The work of a count over the salvos' hit patterns: each at most the work of the per-placement
    evidence they all share (a pattern only adds misses and hits to it)."""
    from battleship.inference.salvos import TooManyParts, count_parts

    each = _work(rules, sev.base, weight)
    try:
        n = count_parts(rules, sev, limit=PATTERNS_FORESEEN)
        said = f"{n:,} hit pattern{'s' * (n != 1)} of the salvos"
    except TooManyParts:
        n = PATTERNS_FORESEEN * 4  # a guess, past what was counted up front
        said = f"more than {PATTERNS_FORESEEN:,} hit patterns of the salvos"
    detail = f"{said}, each counted by the {each.engine} engine"
    return Work(each.engine, each.once + n * each.again * PATTERN_SHARE, detail, each.once)


def _work(rules: Rules, ev: Evidence, weight: np.ndarray | None) -> Work:
    """:func:`work` on per-placement evidence."""
    engine = choose_engine(rules, ev, weight)
    if engine == "rows":  # the standard board's: neither state-graph engine is imported
        scale = (rules.cells / 100) ** 2 * 2 ** max(0, len(rules.fleet) - 5)
        return Work(engine, ROWS_SECONDS * scale, f"{len(rules.fleet)} ships on {rules.cells} cells")
    from battleship.inference import frontier, sweep

    if engine == "sweep":
        est = sweep.estimate(rules, ev, weight)
        done = "compiled" if est.compiled else "to compile"
        once = 0.0 if est.compiled else est.states * sweep.COMPILE_SECONDS_PER_STATE
        return Work(engine, est.seconds, f"a state graph of about {est.states:,} states ({done})", once)
    if engine == "frontier":
        graph = frontier.graph_if_compiled(rules, ev, weight)
        if graph is not None:
            seconds = graph.states * sweep.SECONDS_PER_STATE
            return Work(engine, seconds, f"a state graph of {graph.states:,} states (compiled)")
        once = frontier.COMPILE_SECONDS
        return Work(engine, once + 0.5, "a state graph to compile (ships that are not straight)", once)
    combos = choices(rules, ev)
    why = "" if sweep.applies(rules) else "ships that are not straight; "
    if sweep.applies(rules):
        why = sweep.estimate(rules, ev, weight).why + "; "
    return Work(engine, combos / SEARCH_RATE, f"{why}the search faces up to {combos:.2e} combinations")


def check_size(
    rules: Rules, ev: Evidence, weight: np.ndarray | None = None, engine: str | None = None
) -> None:
    """Refuse problems whose counts could overflow 64-bit integers in an engine that cannot go past them.

    ``engine``: the one :func:`choose_engine` picked, if the caller knows it already.
    """
    if weight is not None and weight.dtype == np.float64:
        return  # floats do not overflow at these sizes
    if (engine or choose_engine(rules, ev, weight)) in ("sweep", "frontier"):
        return  # exact at any size
    bound = _bound(rules, ev, weight)
    if bound >= 2**62:
        raise BattleshipError(
            f"up to {bound:.3e} layouts: too many for exact 64-bit counting with these ship shapes "
            "(only straight ships are counted past 64 bits); use a smaller board or fleet"
        )


def identical_factor(rules: Rules) -> int:
    """How many distinct-ship layouts make one layout when same-shaped ships are not told apart."""
    seen: dict[tuple[tuple[int, int], ...], int] = {}
    for ship in rules.fleet:
        seen[ship.cells] = seen.get(ship.cells, 0) + 1
    return prod(factorial(n) for n in seen.values())


def engine_counts(rules: Rules, ev: Evidence, stop: Stop | None = None) -> tuple[int, np.ndarray]:
    """Layouts and per-placement counts by the fastest exact engine for ``rules``."""
    total, counts, _ = _engine_counts(choose_engine(rules, ev), rules, ev, True, None, stop)
    return total, counts


def engine_total(rules: Rules, ev: Evidence, stop: Stop | None = None) -> int:
    """Layouts of per-placement evidence by the fastest exact engine, without per-placement counts."""
    engine = choose_engine(rules, ev)
    check_size(rules, ev, None, engine)
    return int(_engine_counts(engine, rules, ev, False, None, stop)[0])


def occupancy(rules: Rules, engine: str | None = None) -> tuple[int, np.ndarray]:
    """The number of layouts of the open board and, per cell, how many cover it (rows x cols).

    ``engine`` forces ``"rows"``, ``"search"`` or ``"sweep"`` (for checking one against another).
    """
    ev = evidence(rules, Observation(rules))
    use = engine or choose_engine(rules, ev)
    if use not in ("sweep", "frontier"):
        check_size(rules, ev)
    if use == "rows" and not fast_path(rules):
        raise BattleshipError("the row engine handles straight ships that may touch, sides up to 16")
    from battleship.inference import frontier, sweep

    if use == "sweep" and not sweep.applies(rules):
        raise BattleshipError("the sweep engine handles straight ships, the narrower side up to 16")
    if use == "frontier" and not frontier.applies(rules):
        raise BattleshipError("the frontier engine handles ships up to 62 cells of reading order long")
    total, counts = ENGINES[use](rules, ev)
    return total, Posterior(rules, total, counts, use, Observation(rules)).cell_layouts
