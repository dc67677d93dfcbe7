"""Seeds, and SplitMix64 in plain Python: the random streams of :mod:`battleship.rng` without Numba.

A seed is 64 bits (:func:`check_seed`); stream ``index`` of ``seed`` is SplitMix64 started from
``mix64(mix64(seed) + index * GOLDEN)``. :mod:`battleship.rng` draws it in Numba kernels; :class:`Stream`
draws the same numbers in Python, for the few draws that are not worth loading Numba for (one layout).
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError

MASK = 2**64 - 1
SEED_MAX = MASK  # the random streams are seeded with 64 bits: a larger seed would play as a smaller one
GOLDEN = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB


def check_seed(seed: object, name: str = "seed") -> int:
    """A seed the random streams use every bit of (0 to 2^64 - 1), or a one-line error naming ``name``:
    a seed outside would play exactly as one inside (and a bool as 0 or 1)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise BattleshipError(f"{name} is a whole number from 0 to 2^64 - 1, not {seed!r}")
    if not 0 <= int(seed) <= SEED_MAX:
        raise BattleshipError(f"{name} runs from 0 to 2^64 - 1 ({SEED_MAX:,}), not {int(seed):,}")
    return int(seed)


def seed_words(seed: int) -> int:
    """Fold any Python int seed into 64 bits."""
    return int(seed) & MASK


def mix64(z: int) -> int:
    """SplitMix64's finaliser on the low 64 bits of ``z`` (``battleship.rng.mix64``)."""
    z &= MASK
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


class Stream:
    """Stream ``index`` of ``seed``: the numbers ``battleship.rng.stream`` gives a kernel, drawn in Python."""

    def __init__(self, seed: int, index: int):
        self.state = mix64((mix64(seed_words(seed)) + seed_words(index) * GOLDEN) & MASK)

    def next_u64(self) -> int:
        """The next 64 random bits."""
        self.state = (self.state + GOLDEN) & MASK
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by the kernels' 53-bit float method."""
        return int((self.next_u64() >> 11) * (1.0 / 9007199254740992.0) * n)
