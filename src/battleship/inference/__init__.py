"""Exact Bayesian inference over hidden layouts.

- ``battleship.inference.evidence``: what an observation says about each placement;
- ``battleship.inference.salvos``: salvos answered whole (by ship, by count), a count split
  into disjoint hit patterns the engines count;
- ``battleship.inference.sweep`` (on ``battleship.inference.graph``),
  ``battleship.inference.rows`` and ``battleship.inference.search``: the exact engines that
  count the consistent layouts (straight ships under any spacing rule, on a state graph compiled
  once per rules; straight ships that may touch; any ship shapes, visiting the layouts);
- ``battleship.inference.posterior``: the entry point, :func:`posterior` and :func:`count`;
- ``battleship.inference.sampling``: exact uniform samples and Monte Carlo estimates;
- ``battleship.inference.endgame``: the rest of a game solved exactly (fewest expected shots);
- ``battleship.inference.prior``: placement priors fitted to recorded layouts.

Names are loaded when first used: a board the row engine answers never loads the sweep's state
graph or the samplers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# the functions named like their modules (posterior, evidence) are bound here, after their modules
from battleship.inference.evidence import Contradiction, Evidence, evidence, why_nowhere
from battleship.inference.posterior import (
    Posterior,
    check_prior,
    check_size,
    choose_engine,
    count,
    engine_counts,
    identical_factor,
    occupancy,
    posterior,
    work,
)
from battleship.inference.rows import count_by_rows, fast_path
from battleship.inference.search import count_by_search, select_by_search

# public names loaded when first used -> the module that defines them
_LAZY = {
    "sample": "sampling",
    "Estimate": "sweep",
    "count_by_sweep": "sweep",
    "estimate": "sweep",
    "sample_by_sweep": "sweep",
}

__all__ = [
    "Contradiction",
    "Estimate",
    "Evidence",
    "Posterior",
    "check_prior",
    "check_size",
    "choose_engine",
    "count",
    "count_by_rows",
    "count_by_search",
    "count_by_sweep",
    "engine_counts",
    "estimate",
    "evidence",
    "fast_path",
    "identical_factor",
    "occupancy",
    "posterior",
    "sample",
    "sample_by_sweep",
    "select_by_search",
    "why_nowhere",
    "work",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    else:
        try:  # a submodule (``inference.sweep``) not imported yet
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and editors see
    from battleship.inference.sampling import sample
    from battleship.inference.sweep import Estimate, count_by_sweep, estimate, sample_by_sweep
