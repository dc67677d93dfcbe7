"""Exact Bayesian inference over hidden layouts.

- :mod:`~battleship.inference.evidence`: what an observation says about each placement;
- :mod:`~battleship.inference.search` and :mod:`~battleship.inference.rows`: two exact engines that
  count the consistent layouts (any rules; straight ships that may touch, fast);
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
)
from battleship.inference.rows import count_by_rows, fast_path
from battleship.inference.sampling import sample
from battleship.inference.search import count_by_search, select_by_search

__all__ = [
    "Contradiction",
    "Evidence",
    "Posterior",
    "check_prior",
    "check_size",
    "choose_engine",
    "count",
    "count_by_rows",
    "count_by_search",
    "engine_counts",
    "evidence",
    "fast_path",
    "identical_factor",
    "occupancy",
    "posterior",
    "sample",
    "select_by_search",
    "why_nowhere",
]
