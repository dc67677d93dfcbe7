"""Shared test helpers: brute-force references on small rules, a chi-square bound, Hypothesis strategies."""

from __future__ import annotations

import itertools
import math

from hypothesis import assume
from hypothesis import strategies as st

from battleship.errors import RulesError
from battleship.rules import Rules, Ship, Sinks, Spacing

LETTERS = "ABCDEFGH"


def brute_force_layouts(rules: Rules) -> list[tuple[int, ...]]:
    """Every valid layout by trying every combination of placements (obviously right, slow)."""
    out = []
    for combo in itertools.product(*rules.placements):
        ok = all(not a & rules.halo(b) for i, a in enumerate(combo) for b in combo[i + 1 :])
        if ok:
            out.append(combo)
    return out


def chi2_upper(df: int, z: float = 3.719) -> float:
    """Upper quantile of chi-square (Wilson-Hilferty); z = 3.719 is the 1e-4 tail."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


@st.composite
def small_rules(draw, max_side: int = 7, max_ships: int = 4, spacings: tuple = tuple(Spacing)) -> Rules:
    """Straight-ship rules small enough for brute force, every spacing and sink mode."""
    rows = draw(st.integers(3, max_side))
    cols = draw(st.integers(3, max_side))
    lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=max_ships))
    fleet = tuple(Ship.line(f"Ship {LETTERS[i]}", LETTERS[i], n) for i, n in enumerate(lengths))
    spacing = draw(st.sampled_from(list(spacings)))
    sinks = draw(st.sampled_from(list(Sinks)))
    try:
        return Rules(rows, cols, fleet, spacing, sinks)
    except RulesError:
        assume(False)
        raise
