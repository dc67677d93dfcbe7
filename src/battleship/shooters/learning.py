"""C. Liam Brown's Learning mode: ``optimal`` with a placement model fitted to recorded layouts as its prior.

``learning:model=FILE`` reads a model written by ``battleship learn``. Where ships may touch every
probability is exact under that prior (:func:`battleship.inference.posterior` with per-placement
weights, the row engine); under a spacing margin too, for straight ships, on the sweep engine's state
graph (compiled once per rules and prior classes). Only where no exact engine fits in time (a board
whose graph would not fit in memory) the shooter draws ``samples`` exact uniform layouts consistent
with the board and weighs each by its prior weight (the product of its placements' weights):
self-normalised importance sampling, which tends to the exact answer as the samples grow. Under a
margin the model is fitted as if ships could touch (:func:`battleship.inference.prior.fitting_rules`).
"""

from __future__ import annotations

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.inference import check_prior, choose_engine, counted_by_rows, evidence, posterior
from battleship.inference.prior import PlacementModel, fitting_rules, load
from battleship.inference.sampling import draw
from battleship.rng import seed_words
from battleship.rules import Rules
from battleship.shooters.optimal import OptimalShooter
from battleship.shooters.options import Options
from battleship.tables import tables


def refusal(rules: Rules) -> str | None:
    """Why learning cannot play ``rules``, or None."""
    if counted_by_rows(fitting_rules(rules)):
        return None
    return (
        "learning fits its prior with the row engine, which counts straight ships on sides up to 16 "
        "(at most 12 ships)"
    )


class LearningShooter(OptimalShooter):
    """Greedy on hit probabilities under a learned placement prior (from a file, or given)."""

    name = "learning"
    refusal = staticmethod(refusal)
    plays_noise = False  # its prior is fitted to honest games, its samples read every answer as true

    def __init__(
        self, options: Options | None = None, model: PlacementModel | None = None, exact: bool = True
    ):
        """``exact=False``: importance sampling under a spacing margin even where the sweep engine
        could count exactly (its state graph costs seconds to compile once per rules and prior: the
        web, whose moves have a deadline, plays it so)."""
        super().__init__(options)
        self._model = model
        self._exact_wanted = exact

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
        super().reset(rules, rng)
        self._prior = model.prior()  # after the reset, which reads the prior option
        open_board = evidence(rules, Observation(rules))
        engine = choose_engine(rules, open_board, check_prior(rules, self._prior))
        self._exact = engine == "rows" or (engine == "sweep" and self._exact_wanted)
        self._seed = int(rng.integers(0, 2**63))  # drawn after the tie-break: exact play is unchanged

    def weights(self, observation: Observation) -> tuple[np.ndarray, np.ndarray, float]:
        """Per cell and per placement, prior-weighted consistent layouts; and their total weight."""
        if self._exact:
            result = posterior(self._rules, observation, prior=self._prior)
            return result.cell_layouts.ravel(), result.placement_layouts, result.layouts
        return self._sampled(observation)

    def _sampled(self, observation: Observation) -> tuple[np.ndarray, np.ndarray, float]:
        """:meth:`weights` estimated from exact uniform samples weighted by the prior."""
        rules, t = self._rules, tables(self._rules)
        seed = seed_words(self._seed * 1_000_003 + observation.fired)
        rows = draw(rules, observation, self.options.samples, seed=seed)
        assert self._prior is not None  # set by reset
        weight = self._prior[rows].prod(axis=1)
        cells = t.cell_list[rows.ravel()]  # (samples * ships, longest ship): -1 pads
        per_cell = np.repeat(np.repeat(weight, rows.shape[1]), cells.shape[1])
        flat = cells.ravel()
        score = np.bincount(flat[flat >= 0], weights=per_cell[flat >= 0], minlength=rules.cells)
        placements = np.bincount(
            rows.ravel(), weights=np.repeat(weight, rows.shape[1]), minlength=len(t.masks)
        )
        return score, placements, float(weight.sum())

    def endgame_shot(self, observation: Observation, total: float) -> int | None:
        """Never: the endgame solver weighs layouts uniformly."""
        return None
