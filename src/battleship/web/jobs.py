"""The web's heavy work, as plain functions a worker process runs, and the bounded answers that stand in when it is too slow.

Each job takes its inputs (rules, an observation, a seed) and a ``stop``
(:class:`battleship.stop.Stop`, with the request's deadline). Engines that accept ``stop=`` get it;
the others are stopped from outside (:mod:`battleship.web.workers` kills their process).

The stand-ins run in the request's own thread and are bounded whatever the rules: the DataGenetics
density shooter (every placement of every afloat ship counted once) for a move, and the same count
turned into per-ship shares for a heat map. Between the exact count and that, a heat map whose count
runs out of time is estimated by the exact sampler (:func:`sampled`) in the time left. The count and
the sampler's estimate are the library's calculator's (:mod:`battleship.inference.calculator`), as
``battleship calc`` and :func:`battleship.posterior` answer.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Literal

import numpy as np

from battleship import jit
from battleship.cells import cell_name, iter_cells
from battleship.errors import BattleshipError
from battleship.game import Observation, Outcome, choose_salvo
from battleship.inference.calculator import calculate, hits_seen
from battleship.inference.prior import PlacementModel
from battleship.rng import game_rng
from battleship.rules import Rules
from battleship.shooters import make, resolve
from battleship.shooters.choice import HIT, MISS, UNKNOWN
from battleship.shooters.density import best_cells, observed_status
from battleship.shooters.learning import LearningShooter
from battleship.shooters.options import format_spec
from battleship.stop import Stop
from battleship.tables import tables

FALLBACK = "density:skew=20"  # DataGenetics' density with C. Liam Brown's skew: a few ms on any rules
SALVO_FALLBACK = "hunt-target"  # the salvo stand-in where density cannot choose a salvo


def shooter(spec: str, model: PlacementModel | None = None, exact: bool = True):
    """A fresh shooter: a registry spec, or ``learning`` with its fitted model.

    Learning under a spacing margin counts exactly on the sweep engine's state graph, which the
    server compiles ahead (:mod:`battleship.web.graphs`) and the worker has mapped in before the
    move; ``exact=False`` samples instead (importance sampling), where the prior's graph would not fit.
    """
    return LearningShooter(model=model, exact=exact) if spec == "learning" else make(spec)


@functools.lru_cache(maxsize=1024)
def named(spec: str, rules: Rules) -> str:
    """The shooter a spec plays under ``rules`` (``best`` resolved), as the page names it.

    Kept: every view of a game and every move names its level's shooter, and resolving ``best`` (its
    options parsed and checked) cost more than the rest of a move's own work."""
    if spec == "learning":
        return "learning"
    return format_spec(*resolve(spec, rules))


def shot(
    rules: Rules,
    observation: Observation,
    spec: str,
    seed: tuple[int, int],
    model: PlacementModel | None = None,
    exact: bool = True,
    *,
    stop: Stop,
) -> int:
    """The cell the shooter ``spec`` fires at next (run in a worker; an answer that comes, comes in time:
    past the deadline the worker is stopped from outside until shooters read ``stop`` themselves)."""
    chosen = shooter(spec, model, exact)
    chosen.reset(rules, game_rng(*seed))
    return int(chosen.next_shot(observation))


def salvo(
    rules: Rules,
    observation: Observation,
    spec: str,
    seed: tuple[int, int],
    size: int,
    model: PlacementModel | None = None,
    exact: bool = True,
    *,
    stop: Stop,
) -> tuple[tuple[int, ...], str | None]:
    """The ``size`` cells the shooter ``spec`` fires together next (run in a worker), or no cells and
    why not, when the shooter cannot choose a salvo (a cell twice, or one fired at already)."""
    chosen = shooter(spec, model, exact)
    chosen.reset(rules, game_rng(*seed))
    try:
        cells = choose_salvo(chosen, observation, size)
    except BattleshipError as exc:
        return (), f"{named(spec, rules)} cannot choose salvos: {exc}"
    why = illegal_salvo(rules, observation, cells, size)
    return (cells, None) if why is None else ((), f"{named(spec, rules)} cannot choose salvos: {why}")


def illegal_salvo(rules: Rules, observation: Observation, cells: tuple[int, ...], size: int) -> str | None:
    """Why ``cells`` are no salvo of ``size`` here (off the board, repeated, fired at already), or None."""
    if len(cells) != size:
        return f"it chose {len(cells)} cells where the turn fires {size}"
    for i, cell in enumerate(cells):
        if not 0 <= cell < rules.cells:
            return f"it chose cell {cell}, off the board"
        if cell in cells[:i] or observation.is_shot(cell):
            said = "twice" if cell in cells[:i] else "after it was fired at"
            return f"it chose {cell_name(cell, rules.cols)} {said}"
    return None


def quick_salvo(
    rules: Rules, observation: Observation, seed: tuple[int, int], size: int
) -> tuple[tuple[int, ...], str]:
    """The stand-in salvo and the shooter that chose it: the density shooter's cells where it chooses
    salvos, else DataGenetics' hunt/target's (milliseconds either way)."""
    cells, why = salvo(rules, observation, FALLBACK, seed, size, stop=Stop())
    if why is None:
        return cells, FALLBACK
    cells, why = salvo(rules, observation, SALVO_FALLBACK, seed, size, stop=Stop())
    if why is not None:
        raise BattleshipError(why)
    return cells, SALVO_FALLBACK


def quick_shot(rules: Rules, observation: Observation, seed: tuple[int, int]) -> int:
    """The stand-in move: the density shooter's cell (milliseconds on any rules the web plays)."""
    chosen = make(FALLBACK)
    chosen.reset(rules, game_rng(*seed))
    return int(chosen.next_shot(observation))


def heat_map(
    rules: Rules,
    observation: Observation,
    probability: np.ndarray,
    skew: bool,
    engine: str,
    layouts: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """A heat map's answer: each cell's probability, the best cells (with C. Liam Brown's skew when asked;
    none once the game is over), the engine that counted, the number of layouts left when it counted them
    (exact) or None, and whether the game is over (every ship cell hit, as the calculator says it)."""
    over = hits_seen(observation) == rules.ship_cells
    return {
        "layouts": layouts,
        "probability": [round(float(p), 6) for p in probability],
        "best": [] if over else best_cells(rules, observation, probability, 20 if skew else 0),
        "over": over,
        "engine": engine,
        "exact": layouts is not None,
        **more,
    }


def analysis(
    rules: Rules,
    observation: Observation,
    seconds: float,
    skew: bool = False,
    reason: str | None = None,
    *,
    stop: Stop,
) -> dict[str, Any]:
    """The calculator's heat map within ``seconds`` (run in a worker): every layout counted when the
    engines foresee that it fits and it does, else hit probabilities estimated from layouts drawn exactly
    uniformly among those that fit, its ``note`` saying why. ``reason``: why only the estimate may run
    (a state graph still compiling), said in its note.

    Seed 0: the draws are reproducible, their number is what the machine's speed allows.
    """
    method: Literal["auto", "sample"] = "auto" if reason is None else "sample"
    answer = calculate(observation, seconds=seconds, method=method, seed=0, stop=stop)
    if answer.exact:
        return heat_map(
            rules, observation, answer.probability.ravel(), skew, answer.engine, layouts=str(answer.layouts)
        )
    note = (
        f"{reason or answer.why}: this is the exact sampler's estimate, from {answer.samples:,} layouts "
        "drawn uniformly among those that fit (Monte Carlo)"
    )
    return heat_map(
        rules, observation, answer.probability.ravel(), skew, "sampling", samples=answer.samples, note=note
    )


def estimate(rules: Rules, observation: Observation, skew: bool = False) -> dict[str, Any]:
    """The stand-in heat map: each afloat ship's share of its fitting placements on each cell, summed.

    DataGenetics' count, one ship at a time (placements through hits weigh more, as the density
    shooter weighs them); not exact, because it ignores how the ships constrain each other.
    """
    status, afloat = observed_status(rules, observation)
    whole = any(not v.shots for v in observation.volleys)  # salvos answered whole: what they settle
    if whole:
        status[list(iter_cells(observation.miss_mask))] = MISS
        status[[c for c in iter_cells(observation.hit_mask) if status[c] == UNKNOWN]] = HIT
        afloat[list(observation.sunk_ships)] = False
    t = tables(rules)
    value = np.zeros(rules.cells)
    for s in np.flatnonzero(afloat):
        cells = t.cell_list[t.start[s] : t.start[s] + t.count[s], : t.size[s]]
        seen = status[cells]
        fits = ((seen == UNKNOWN) | (seen == HIT)).all(axis=1)
        weight = np.where(fits, 20.0 ** (seen == HIT).sum(axis=1), 0.0)
        if weight.sum() > 0:
            value += np.bincount(cells.ravel(), np.repeat(weight, cells.shape[1]), rules.cells) / weight.sum()
    value = np.minimum(value, 1.0)
    for shot in observation.shots:
        value[shot.cell] = 0.0 if shot.outcome is Outcome.MISS else 1.0
    if whole:
        value[list(iter_cells(observation.miss_mask))] = 0.0
        value[list(iter_cells(observation.hit_mask))] = 1.0
    return heat_map(rules, observation, value, skew, "estimate")


# ---- whether a mode answers in time under some rules -----------------------------------------------


def positions(rules: Rules) -> list[Observation]:
    """The positions a mode is timed on: the open board, and one hit on the biggest ship of a layout.

    A lone hit is where exact inference works hardest (every ship might be the one hit). The hit is
    fired at a real layout (drawn with a fixed seed), so its answer is one the referee could give.
    """
    from battleship.game import Game
    from battleship.generators import draw, to_layout

    layout = to_layout(rules, draw(rules, "uniform", 0, 1, threads=False)[0])
    biggest = max(range(len(rules.fleet)), key=lambda k: rules.fleet[k].size)
    game = Game(layout, seed=0 if rules.noise is not None else None)  # under noise: the coins of seed 0
    game.fire_salvo([(layout.masks[biggest] & -layout.masks[biggest]).bit_length() - 1])  # its first cell
    return [Observation(rules, ()), game.observation]


def probe(rules: Rules, spec: str, model: PlacementModel | None = None, *, stop: Stop) -> float:
    """The most CPU seconds one move of ``spec`` took over :func:`positions` (run in a worker).

    CPU time, not wall time, so a busy machine does not make rules look slower than they are.
    """
    longest = 0.0
    for n, observation in enumerate(positions(rules)):
        for _attempt in range(2):  # a move that compiled a kernel is timed again: players meet it compiled
            compiled, start = jit.compiles(), time.process_time()
            if rules.salvo is None:
                shot(rules, observation, spec, (3, n), model, stop=stop)
            else:  # a move is a whole salvo (the rules' largest), and a shooter that cannot choose one is refused
                _cells, why = salvo(rules, observation, spec, (3, n), rules.turn_size(), model, stop=stop)
                if why is not None:
                    raise BattleshipError(why)
            seconds = time.process_time() - start
            if jit.compiles() == compiled:
                break
        longest = max(longest, seconds)
    return longest
