"""A small seedable random number generator usable inside Numba kernels, and the games' streams.

Every random stream is identified by ``(seed, index)``: game or layout number ``index`` of a run
seeded with ``seed`` gets the same numbers whatever the number of jobs or the order of work.

A shooter draws the numbers of game ``index`` from ``stream(seed ^ SHOOTER_SALT, index)``, in its
Numba kernel and in its readable class alike, so that both play the very same game wherever it runs
(``play``, ``simulate``, ``compare``, the arena, the web). The class receives that stream as
:func:`game_rng`: a NumPy ``Generator`` like any other (a shooter of your own may call
``rng.permutation``), which also carries the stream's first word; :func:`kernel_state` hands a
class the one-word state its kernel starts from.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from battleship.jit import njit

# the seeds, in plain Python, and so found here as before
from battleship.seeds import GOLDEN, M1, M2, seed_words
from battleship.seeds import SEED_MAX as SEED_MAX
from battleship.seeds import check_seed as check_seed

_GOLDEN = uint64(GOLDEN)
_M1 = uint64(M1)
_M2 = uint64(M2)


@njit(cache=True, nogil=True)
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True, nogil=True)
def stream(seed: np.uint64, index: np.uint64) -> np.ndarray:
    """A fresh one-word state for stream ``index`` of ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = mix64(mix64(uint64(seed)) + uint64(index) * _GOLDEN)
    return state


@njit(cache=True, nogil=True)
def next_u64(state: np.ndarray) -> np.uint64:
    """Next 64 random bits (SplitMix64)."""
    state[0] += _GOLDEN
    return mix64(state[0])


@njit(cache=True, nogil=True)
def below(state: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` (53-bit float method: bias below 2**-40 for n < 2**13)."""
    u = (next_u64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)
    return int(u * n)


@njit(cache=True, nogil=True)
def uniform(state: np.ndarray) -> float:
    """A uniform float in ``[0, 1)``."""
    return (next_u64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def shuffled(state, n):
    """A uniformly random permutation of ``0..n-1`` (Fisher-Yates, drawing from the end)."""
    order = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


# Shooters draw from streams of ``seed ^ SHOOTER_SALT``: a run that draws its layouts with the same
# seed would otherwise hand the shooter the very numbers that placed the ships.
SHOOTER_SALT = np.uint64(0x5EED_0F_5A1_7ED)


def game_word(seed: int, index: int) -> int:
    """The first state word of game ``index``'s shooter stream in a run seeded ``seed``."""
    return int(stream(np.uint64(seed_words(seed)) ^ SHOOTER_SALT, np.uint64(seed_words(index)))[0])


class GameRandom(np.random.Generator):
    """The random numbers of one game: a NumPy Generator seeded from the game's stream, carrying its word."""

    def __init__(self, word: int):
        super().__init__(np.random.PCG64(word))
        self.word = word


def game_rng(seed: int, index: int = 0) -> np.random.Generator:
    """What a shooter's class is reset with for game ``index`` of a run seeded ``seed`` (its kernel's stream)."""
    return GameRandom(game_word(seed, index))


def kernel_state(rng: np.random.Generator) -> np.ndarray:
    """The one-word SplitMix64 state a shooter's class draws from as its kernel does.

    The game's own stream when ``rng`` is :func:`game_rng`'s; from any other Generator, a word
    drawn from it (the same law, other numbers).
    """
    word = getattr(rng, "word", None)
    if word is None:
        word = int(rng.integers(0, 2**64, dtype=np.uint64))
    return np.array([word], dtype=np.uint64)
