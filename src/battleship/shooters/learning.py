"""C. Liam Brown's Learning mode: ``optimal`` with a placement model fitted to recorded layouts as its prior.

``learning:model=FILE`` reads a model written by ``battleship learn``; every probability is then
exact under that prior (:func:`battleship.inference.posterior` with per-placement weights).
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import fast_path, posterior
from battleship.inference.prior import PlacementModel, load
from battleship.rules import Rules
from battleship.shooters.optimal import OptimalShooter
from battleship.shooters.options import Options


def refusal(rules: Rules) -> str | None:
    """Why learning cannot play ``rules``, or None."""
    if fast_path(rules):
        return None
    return (
        "learning weighs layouts by a prior, which only the row engine counts fast: "
        "straight ships that may touch, sides up to 16"
    )


class LearningShooter(OptimalShooter):
    """Greedy on exact hit probabilities under a learned placement prior (from a file, or given)."""

    name = "learning"
    refusal = staticmethod(refusal)

    def __init__(self, options: Options | None = None, model: PlacementModel | None = None):
        super().__init__(options)
        self._model = model

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Load the model and check it was fitted under these rules."""
        if self._model is None and not self.options.model:
            raise BattleshipError("learning needs model=FILE (fit one with: battleship learn LAYOUTS)")
        why = refusal(rules)
        if why:
            raise BattleshipError(why)
        model = self._model if self._model is not None else load(self.options.model)
        if model.rules != rules:
            raise BattleshipError(
                f"the model was fitted under rules {model.rules.name!r}, not {rules.name!r}"
            )
        self._prior = model.prior()
        super().reset(rules, rng)

    def weights(self, observation: Observation) -> tuple[np.ndarray, np.ndarray, float]:
        """Per cell and per placement, prior-weighted consistent layouts; and their total weight."""
        result = posterior(self._rules, observation, prior=self._prior)
        return result.cell_layouts.ravel(), result.placement_layouts, result.layouts

    def endgame_shot(self, observation: Observation, total: float) -> int | None:
        """Never: the endgame solver weighs layouts uniformly."""
        return None
