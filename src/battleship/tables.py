"""Placements as fixed-width uint64 word arrays, the form the Numba kernels work on."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from battleship.cells import iter_cells
from battleship.rules import Rules


def words_for(cells: int) -> int:
    """Number of 64-bit words that hold a bitboard of ``cells`` bits."""
    return (cells + 63) // 64


def to_words(mask: int, nwords: int) -> np.ndarray:
    """A Python-int bitboard as a uint64 array (word 0 holds cells 0..63)."""
    out = np.empty(nwords, dtype=np.uint64)
    for w in range(nwords):
        out[w] = (mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
    return out


@dataclass(frozen=True, eq=False)
class Tables:
    """Every placement of every ship, flattened: ship ``s`` owns rows ``start[s]:start[s]+count[s]``."""

    nwords: int
    cells: np.ndarray  # (P, nwords) uint64: the placement's cells
    halos: np.ndarray  # (P, nwords) uint64: cells other ships may not use (spacing rule)
    start: np.ndarray  # (S,) int64
    count: np.ndarray  # (S,) int64
    ship_of: np.ndarray  # (P,) int64: which ship a placement belongs to
    cell_list: np.ndarray  # (P, max ship size) int64: the cells of each placement
    size: np.ndarray  # (S,) int64: cells per ship
    symbols: np.ndarray  # (S,) uint8: ship letters
    masks: tuple[int, ...]  # (P,) Python-int bitboards
    through_start: np.ndarray  # (cells+1,) offsets into ``through``
    through: np.ndarray  # placements covering each cell, cell by cell


@lru_cache(maxsize=64)
def tables(rules: Rules) -> Tables:
    """Kernel tables for a rules object (cached)."""
    nwords = words_for(rules.cells)
    masks = [m for ms in rules.placements for m in ms]
    halos = [h for hs in rules.halos for h in hs]
    count = np.array([len(ms) for ms in rules.placements], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    size = np.array([s.size for s in rules.fleet], dtype=np.int64)
    cell_list = np.full((len(masks), int(size.max())), -1, dtype=np.int64)
    for p, m in enumerate(masks):
        cells = list(iter_cells(m))
        cell_list[p, : len(cells)] = cells
    covering: list[list[int]] = [[] for _ in range(rules.cells)]
    for p, m in enumerate(masks):
        for i in iter_cells(m):
            covering[i].append(p)
    through_start = np.concatenate(([0], np.cumsum([len(c) for c in covering]))).astype(np.int64)
    return Tables(
        nwords=nwords,
        cells=np.array([to_words(m, nwords) for m in masks], dtype=np.uint64).reshape(-1, nwords),
        halos=np.array([to_words(h, nwords) for h in halos], dtype=np.uint64).reshape(-1, nwords),
        start=start,
        count=count,
        ship_of=np.repeat(np.arange(len(count), dtype=np.int64), count),
        cell_list=cell_list,
        size=size,
        symbols=np.frombuffer(rules.symbols.encode("ascii"), dtype=np.uint8).copy(),
        masks=tuple(masks),
        through_start=through_start,
        through=np.array([p for c in covering for p in c], dtype=np.int64),
    )


def geometry(t: Tables, weights: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """The placement tables the game kernels read, as one tuple; last, a prior weight per placement."""
    weights = np.ones(len(t.masks), dtype=np.float64) if weights is None else weights.astype(np.float64)
    return (t.cell_list, t.size, t.start, t.count, t.ship_of, t.through_start, t.through, weights)
