"""The simulation lab: many games, their statistics, matches and layout (defence) research.

- ``battleship.lab.runner``: games in reproducible chunks, on threads (:func:`simulate`, :func:`stream`);
- ``battleship.lab.summary``: mean, interval, quantiles and paired differences;
- ``battleship.lab.shots_file``: shots per game streamed to a file, resumable;
- ``battleship.lab.match``: two players alternating, as the Dunman High paper plays them;
- ``battleship.lab.defence``: layouts that a shooter finds last;
- ``battleship.lab.figures``: the DataGenetics charts, heat maps and replay frames;
- ``battleship.lab.limit``: the exact optimum of small boards beside each shooter;
- ``battleship.lab.rivals``: every registered shooter paired against ``best``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# names loaded when first used (the runner loads the Numba kernels): name -> its module
_EXPORTS = {
    "CHUNK": "battleship.lab.runner",
    "SLOW_CHUNK": "battleship.lab.runner",
    "check": "battleship.lab.runner",
    "chunk_size": "battleship.lab.runner",
    "compare": "battleship.lab.runner",
    "is_kernel": "battleship.lab.runner",
    "play_python": "battleship.lab.runner",
    "play_rows": "battleship.lab.runner",
    "simulate": "battleship.lab.runner",
    "stream": "battleship.lab.runner",
    "stream_paired": "battleship.lab.runner",
    "warm_up": "battleship.lab.runner",
    "ShotsFile": "battleship.lab.shots_file",
    "Comparison": "battleship.lab.summary",
    "PairedTally": "battleship.lab.summary",
    "Summary": "battleship.lab.summary",
    "fewest": "battleship.lab.summary",
    "most_shots": "battleship.lab.summary",
    "paired_difference": "battleship.lab.summary",
    "paired_from_sums": "battleship.lab.summary",
    "shots_fired": "battleship.lab.summary",
    "summarise": "battleship.lab.summary",
    "summarise_histogram": "battleship.lab.summary",
    "unit": "battleship.lab.summary",
    "unit_keys": "battleship.lab.summary",
}

__all__ = [
    "CHUNK",
    "SLOW_CHUNK",
    "Comparison",
    "PairedTally",
    "ShotsFile",
    "Summary",
    "check",
    "chunk_size",
    "compare",
    "fewest",
    "is_kernel",
    "most_shots",
    "paired_difference",
    "paired_from_sums",
    "play_python",
    "play_rows",
    "shots_fired",
    "simulate",
    "stream",
    "stream_paired",
    "summarise",
    "summarise_histogram",
    "unit",
    "unit_keys",
    "warm_up",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and editors see
    from battleship.lab.runner import (
        CHUNK,
        SLOW_CHUNK,
        check,
        chunk_size,
        compare,
        is_kernel,
        play_python,
        play_rows,
        simulate,
        stream,
        stream_paired,
        warm_up,
    )
    from battleship.lab.shots_file import ShotsFile
    from battleship.lab.summary import (
        Comparison,
        PairedTally,
        Summary,
        fewest,
        most_shots,
        paired_difference,
        paired_from_sums,
        shots_fired,
        summarise,
        summarise_histogram,
        unit,
        unit_keys,
    )
