"""The simulation lab: many games, their statistics, matches and layout (defence) research.

- :mod:`~battleship.lab.runner`: games in reproducible chunks, on threads (:func:`simulate`, :func:`stream`);
- :mod:`~battleship.lab.summary`: mean, interval, quantiles and paired differences;
- :mod:`~battleship.lab.shots_file`: shots per game streamed to a file, resumable;
- :mod:`~battleship.lab.match`: two players alternating, as the Dunman High paper plays them;
- :mod:`~battleship.lab.defence`: layouts that a shooter finds last;
- :mod:`~battleship.lab.figures`: the DataGenetics charts, heat maps and replay frames;
- :mod:`~battleship.lab.limit`: the exact optimum of small boards beside each shooter;
- :mod:`~battleship.lab.rivals`: every registered shooter paired against ``best``.
"""

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
    paired_difference,
    paired_from_sums,
    shots_fired,
    summarise,
    summarise_histogram,
    unit,
    unit_keys,
)

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
