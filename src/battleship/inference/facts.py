"""The two things every engine and reader of evidence shares: :class:`Evidence` and :class:`Contradiction`.

(Kept apart so that :mod:`battleship.inference.evidence` and :mod:`battleship.inference.salvos`
can both use them without importing each other.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from battleship.errors import BattleshipError


class Contradiction(BattleshipError):
    """No layout fits the observation: its answers cannot all be true, saying which.

    Examples
    --------
    >>> import battleship as bs
    >>> rules = bs.Rules(1, 3, (bs.Ship.line("Destroyer", "D", 2),))
    >>> bs.posterior(bs.Observation.from_text("xox", rules))
    Traceback (most recent call last):
    ...
    battleship.inference.facts.Contradiction: ...
    """


class GlobalEvidence(BattleshipError):
    """Salvos answered by a count constrain whole layouts: the evidence is more than one per placement."""


@dataclass(frozen=True, eq=False)
class Evidence:
    """What an observation says, in the form the engines read."""

    admissible: np.ndarray  # (placements,) bool
    hits: int  # bitboard of hit cells: every one must be covered
