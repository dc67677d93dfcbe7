"""C. Liam Brown's Learning mode: a placement model fitted to recorded layouts, used as the exact engine's prior.

The engine weighs a layout by a product of one weight per ship placement, over the valid layouts.
The model fits those weights to the record in two steps, both by iterative proportional fitting on
the exact engine (so every frequency below is exact under the fitted prior, interactions between
ships included):

1. Regions: per ship, one factor per cell; a placement weighs the product of its cells' factors.
   They are fitted so that each ship covers each cell as often as in the record (with one
   pseudo-layout of uniform coverage per ``region_smoothing``). A ship-cell pair is seen about a
   hundred times in a few thousand layouts, so this is learned well from little data.
2. Placements: the weights are then scaled so that each placement is used as often as

       (uses + a * f) / (layouts + a)

   where ``f`` is its frequency under the region model and ``a`` the smoothing in
   pseudo-layouts: with few records the region model stands, with many each placement's own count.

Uniform records give weights near 1. The model learns where each ship goes, not how ships sit next
to each other.

Under a spacing margin (no-edge, no-contact) exact weighted counts cost minutes a board, so the fit
counts under :func:`fitting_rules`: the same board and fleet with ships allowed to touch. The weights
then say where each ship goes as the record does, measured as if ships could touch; a shooter plays
them under the real rules (``learning`` weighs exact uniform samples by them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from battleship.errors import BattleshipError
from battleship.files import write_atomically
from battleship.rules import Rules, Spacing, from_toml
from battleship.tables import tables

FORMAT = "battleship-placement-model"
DEFAULT_SMOOTHING = 2000.0
REGION_SMOOTHING = 20.0


@dataclass(frozen=True, eq=False)
class PlacementModel:
    """How often each placement of each ship was used in ``layouts`` recorded layouts."""

    rules: Rules
    counts: np.ndarray  # (placements,) int64, in the tables' placement order
    layouts: int
    smoothing: float = DEFAULT_SMOOTHING
    _prior: np.ndarray | None = field(default=None, repr=False)

    def prior(self) -> np.ndarray:
        """Prior weight per placement for :func:`battleship.inference.posterior` (computed once)."""
        prior = self._prior
        if prior is None:
            prior = _fit(self)
            object.__setattr__(self, "_prior", prior)
        return prior

    def to_json(self) -> str:
        """The model as a JSON document (:func:`from_json` reads it back)."""
        t = tables(self.rules)
        counts = {
            ship.name: self.counts[int(t.start[s]) : int(t.start[s] + t.count[s])].tolist()
            for s, ship in enumerate(self.rules.fleet)
        }
        data = {
            "format": FORMAT,
            "version": 1,
            "rules": self.rules.to_toml(),
            "layouts": self.layouts,
            "smoothing": self.smoothing,
            "counts": counts,
        }
        return json.dumps(data) + "\n"


FIT_ROUNDS = 40
FIT_TOLERANCE = 1e-5


def fitting_rules(rules: Rules) -> Rules:
    """The rules a model is fitted under: ``rules``, with ships allowed to touch (same placements).

    Exact counts weighted by a prior are fast only where ships may touch (the row engine: 50 ms a
    board under standard rules, against about 100 s under ``pirates``' margin by the search).
    """
    return rules if rules.spacing is Spacing.TOUCH else replace(rules, spacing=Spacing.TOUCH)


def _frequency(rules: Rules, weight: np.ndarray) -> np.ndarray:
    """Per placement, its exact frequency under the prior ``weight`` (each ship's sum to 1)."""
    from battleship.inference import posterior

    result = posterior(fitting_rules(rules), prior=weight, cached=False)
    return result.placement_layouts / result.layouts


def _coverage(rules: Rules, frequency: np.ndarray) -> np.ndarray:
    """(ships, cells): how often each ship covers each cell, from placement frequencies."""
    t = tables(rules)
    out = np.zeros((len(rules.fleet), rules.cells + 1))
    cells = np.where(t.cell_list >= 0, t.cell_list, rules.cells)
    np.add.at(
        out, (np.repeat(t.ship_of, cells.shape[1]), cells.ravel()), np.repeat(frequency, cells.shape[1])
    )
    return out[:, : rules.cells]


def _fit(model: PlacementModel) -> np.ndarray:
    """Region factors, then placement scaling, each by iterative proportional fitting."""
    rules, t = model.rules, tables(model.rules)
    uniform = uniform_frequency(fitting_rules(rules))
    n = model.layouts
    seen = _coverage(rules, model.counts.astype(np.float64))
    target_cover = (seen + REGION_SMOOTHING * _coverage(rules, uniform)) / (n + REGION_SMOOTHING)
    log_factor = np.zeros((len(rules.fleet), rules.cells + 1))  # last column: the padding cell
    cells = np.where(t.cell_list >= 0, t.cell_list, rules.cells)
    ships = t.ship_of[:, None]
    size = t.size[t.ship_of][:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(FIT_ROUNDS):
            weight = np.exp(log_factor[ships, cells].sum(axis=1))
            cover = _coverage(rules, _frequency(rules, weight))
            if np.abs(cover - target_cover).max() < FIT_TOLERANCE:
                break
            # a placement spans several cells: a damped step keeps the updates from overshooting
            step = np.where(cover > 0, np.log(target_cover / cover), 0.0) / size.max()
            log_factor[:, : rules.cells] += step
        weight = np.exp(log_factor[ships, cells].sum(axis=1))
        region = _frequency(rules, weight)
        target = (model.counts + model.smoothing * region) / (n + model.smoothing)
        for _ in range(FIT_ROUNDS):
            frequency = _frequency(rules, weight)
            if np.abs(frequency - target).max() < FIT_TOLERANCE:
                break
            weight = np.where(frequency > 0, weight * target / frequency, 0.0)
    weight *= len(weight) / weight.sum()  # the scale does not matter; keep it near 1
    weight.setflags(write=False)
    return weight


@lru_cache(maxsize=16)
def uniform_frequency(rules: Rules) -> np.ndarray:
    """Per placement, the share of uniform layouts of ``rules`` that use it (exact, open board).

    Under the real rules, margin included: a model fitted under :func:`fitting_rules` asks for
    ``uniform_frequency(fitting_rules(rules))``.
    """
    from battleship.inference import posterior

    result = posterior(rules)
    out = result.placement_layouts.astype(np.float64) / float(result.layouts)
    out.setflags(write=False)
    return out


def open_board_shift(model: PlacementModel) -> np.ndarray:
    """Per cell (rows x cols), the open board's hit probability under the model minus uniform.

    Counted under :func:`fitting_rules`, as the model was fitted (exact, 0.1 s, at any spacing).
    """
    from battleship.inference import posterior

    rules = fitting_rules(model.rules)
    return posterior(rules, prior=model.prior()).probability - posterior(rules).probability


def fit(rules: Rules, rows: np.ndarray, smoothing: float = DEFAULT_SMOOTHING) -> PlacementModel:
    """Count each placement's uses in ``rows`` (layouts as rows of placement indices)."""
    if not smoothing > 0:
        raise BattleshipError(f"smoothing must be above 0 (pseudo-layouts), not {smoothing}")
    counts = np.bincount(np.asarray(rows, dtype=np.int64).ravel(), minlength=len(tables(rules).masks))
    return PlacementModel(rules, counts.astype(np.int64), len(rows), float(smoothing))


def from_json(text: str, source: str = "model") -> PlacementModel:
    """Read a model written by :meth:`PlacementModel.to_json`; says what is wrong and where."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BattleshipError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BattleshipError(f'{source}: not a placement model (no "format": "{FORMAT}")')
    rules = from_toml(str(data.get("rules", "")), source=f"{source}: rules")
    t = tables(rules)
    counts = data.get("counts")
    if not isinstance(counts, dict) or set(counts) != {ship.name for ship in rules.fleet}:
        raise BattleshipError(f"{source}: counts must name each ship of the fleet once")
    out = np.zeros(len(t.masks), dtype=np.int64)
    for s, ship in enumerate(rules.fleet):
        values = counts[ship.name]
        if (
            not isinstance(values, list)
            or len(values) != t.count[s]
            or not all(isinstance(v, int) and v >= 0 for v in values)
        ):
            raise BattleshipError(
                f"{source}: counts of {ship.name} must be {int(t.count[s])} whole numbers, not negative"
            )
        out[int(t.start[s]) : int(t.start[s] + t.count[s])] = values
    layouts, smoothing = data.get("layouts"), data.get("smoothing")
    if not isinstance(layouts, int) or layouts < 0:
        raise BattleshipError(f"{source}: layouts must be a whole number")
    if not isinstance(smoothing, int | float) or not smoothing > 0:
        raise BattleshipError(f"{source}: smoothing must be a number above 0")
    return PlacementModel(rules, out, layouts, float(smoothing))


def save(model: PlacementModel, path: Path) -> None:
    """Write the model, replacing the file only once it is complete."""
    write_atomically(path, model.to_json())


def load(path: str | Path) -> PlacementModel:
    """A model from a file (cached while the file is unchanged)."""
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise BattleshipError(f"cannot read model file {path}: {exc.strerror}") from None
    return _load(str(path), stamp)


@lru_cache(maxsize=16)
def _load(path: str, stamp: int) -> PlacementModel:
    from battleship.files import read_text

    return from_json(read_text(path, "model file"), source=path)


GENERATOR_LAYOUTS = 200_000  # layouts drawn to fit a generator's weights (each placement ~1000 times)
GENERATOR_SEED = 20_261_123  # a seed of its own: no reported run uses it
# pseudo-layouts of uniform placements mixed into the generator's draws: a placement the generator
# never drew keeps GENERATOR_SMOOTHING / (GENERATOR_LAYOUTS + GENERATOR_SMOOTHING) of its uniform weight
GENERATOR_SMOOTHING = 200.0
EXACT_REFERENCE_SECONDS = 30.0  # the uniform reference is counted exactly when it takes at most this


def _uniform_reference(rules: Rules) -> np.ndarray:
    """Per placement, its uniform frequency: exact where the open board counts within
    ``EXACT_REFERENCE_SECONDS`` (every preset: the row engine, or the sweep engine's graph), else
    over ``GENERATOR_LAYOUTS`` exact uniform draws (a board whose count would take minutes)."""
    from battleship.inference import work

    if work(rules).seconds <= EXACT_REFERENCE_SECONDS:
        return uniform_frequency(rules)
    from battleship import generators

    rows = generators.draw(rules, "uniform", GENERATOR_SEED + 1, GENERATOR_LAYOUTS)
    return np.bincount(rows.ravel(), minlength=len(tables(rules).masks)) / GENERATOR_LAYOUTS


@lru_cache(maxsize=16)
def generator_weights(rules: Rules, generator: str) -> np.ndarray | None:
    """Per placement, how much more often ``generator`` draws it than uniform layouts do (None: uniform).

    The shooters' ``prior=GENERATOR`` option: the placement's frequency in ``GENERATOR_LAYOUTS``
    layouts drawn by the generator, smoothed with ``GENERATOR_SMOOTHING`` pseudo-layouts of
    uniform ones, over its exact uniform frequency under the same rules (margin included: both
    frequencies must count the same layouts). A placement the generator never draws (the contest
    generator's last column, say) weighs little but never nothing, so a prior never makes a legal
    board impossible; a placement in no legal layout weighs 1 (it is never counted).
    """
    if not generator or generator == "uniform":
        return None
    from battleship import generators
    from battleship.inference.likelihood import split_prior

    name, how = split_prior(generator)
    if how == "exact":
        raise BattleshipError(
            f"prior={generator}: a generator's exact layout law is played by optimal only; "
            f"this shooter weighs placements (prior={name})"
        )
    generator = name

    rows = generators.draw(rules, generator, GENERATOR_SEED, GENERATOR_LAYOUTS)
    drawn = np.bincount(rows.ravel(), minlength=len(tables(rules).masks)).astype(np.float64)
    uniform = _uniform_reference(rules)
    smoothed = (drawn + GENERATOR_SMOOTHING * uniform) / (GENERATOR_LAYOUTS + GENERATOR_SMOOTHING)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(uniform > 0, smoothed / uniform, 1.0)
    out.setflags(write=False)
    return out
