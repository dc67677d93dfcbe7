"""Exact Bayesian inference over hidden layouts.

- :mod:`~battleship.inference.evidence`: what an observation says about each placement;
- :mod:`~battleship.inference.sweep` (on :mod:`~battleship.inference.graph`),
  :mod:`~battleship.inference.rows` and :mod:`~battleship.inference.search`: the exact engines that
  count the consistent layouts (straight ships under any spacing rule, on a state graph compiled
  once per rules; straight ships that may touch; any ship shapes, visiting the layouts);
- :mod:`~battleship.inference.posterior`: the entry point, :func:`posterior` and :func:`count`;
- :mod:`~battleship.inference.sampling`: exact uniform samples and Monte Carlo estimates;
- :mod:`~battleship.inference.endgame`: the rest of a game solved exactly (fewest expected shots);
- :mod:`~battleship.inference.prior`: placement priors fitted to recorded layouts.
"""

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
from battleship.inference.sampling import sample
from battleship.inference.search import count_by_search, select_by_search
from battleship.inference.sweep import Estimate, count_by_sweep, estimate, sample_by_sweep

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
