"""Shooting when answers lie (``[noise]`` rules): density's count made a likelihood, and when to fire again.

Under noise no answer is certain, so no placement is ruled out by a miss: density's count becomes,
for each ship alone, the weight of its placements through a cell, each weighing the likelihood of
the answers at its cells (``(1 - e) / e`` a hit, ``e / (1 - e)`` a miss, the sinkings as the rules
tell them: :func:`battleship.inference.noisy.noisy_evidence`), divided by the weight of all its
placements: :func:`noisy_density`, the expected number of ships on each cell were the ships placed
apart from one another. Exact greedy play needs nothing new: :func:`battleship.inference.posterior`
weighs every layout by the likelihood itself.

Firing again at a cell can only tell, never hit anything new (a ship cell counts once it has been
fired at). :func:`confirming_cell` fires again when that is worth more than a new cell over the next
two shots: greedy's cell, or of the ``width`` cells fired at whose answers are most in doubt the one
with the most expected hits this shot and the next (the next chosen greedily on the posterior each
answer leaves; greedy's own chance of a ship counting as a hit this shot, a cell fired again none).
"""

from __future__ import annotations

import numpy as np

from battleship.game import Observation, Outcome, Shot
from battleship.inference import posterior
from battleship.inference.noisy import noisy_evidence
from battleship.rules import Rules, Sinks, Telling
from battleship.tables import tables

DOUBT = 0.05  # a cell fired at is in doubt while its chance of a ship lies between this and 1 - this
SURE = 0.999  # a sunk ship's cell this sure is its own: the other ships' placements through it are struck off


def noisy_density(rules: Rules, observation: Observation) -> np.ndarray:
    """Per cell, the sum over ships of the chance that the ship covers it, each ship alone with its
    placements weighed by the likelihood of the answers (see the module docstring)."""
    t = tables(rules.honest())
    found = noisy_evidence(rules, observation)
    weight = found.weight
    fired = observation.shot_mask
    cells = np.where(t.cell_list >= 0, t.cell_list, rules.cells)
    blocks = [slice(int(t.start[s]), int(t.start[s] + t.count[s])) for s in range(len(rules.fleet))]
    # a ship is sunk when every placement the answers leave it is fired at whole (a sinking told truly)
    sunk = [all(t.masks[p] & ~fired == 0 for p in np.flatnonzero(weight[b] > 0) + b.start) for b in blocks]
    # where a sunk ship's placements agree, the cell is its own: other ships' placements there are struck off
    taken = np.zeros(rules.cells + 1)
    for b in (b for b, gone in zip(blocks, sunk, strict=True) if gone):
        np.add.at(taken, cells[b].ravel(), np.repeat(weight[b] / weight[b].sum(), cells.shape[1]))
    taken[rules.cells] = 0.0
    if len(blocks) == 1:  # a lone ship covers every cell a true hit found, and has not ended the game
        must = found.evidence.hits
        going = np.array([t.masks[p] & ~fired != 0 and must & ~t.masks[p] == 0 for p in range(len(weight))])
        weight = np.where(going, weight, 0.0) if (weight * going).sum() > 0 else weight
    share = np.zeros(len(weight))
    for b, gone in zip(blocks, sunk, strict=True):
        w = weight[b] if gone else np.where((taken[cells[b]] >= SURE).any(axis=1), 0.0, weight[b])
        w = w if w.sum() > 0 else weight[b]
        share[b] = w / w.sum()
    out = np.zeros(rules.cells + 1)
    np.add.at(out, cells.ravel(), np.repeat(share, cells.shape[1]))
    return out[:-1]


def answer_chances(
    rules: Rules, observation: Observation, chance: np.ndarray, cell: int
) -> list[tuple[Shot, float]]:
    """The answers a shot at ``cell`` may get, with their chances under the posterior whose cell
    probabilities are ``chance`` (placements: ``observation``'s posterior read again for sinkings)."""
    e = rules.flip
    p = float(chance[cell])
    if observation.is_shot(cell) or rules.sinks is Sinks.NONE:
        hit = p * (1 - e) + (1 - p) * e
        return [(Shot(cell, Outcome.HIT), hit), (Shot(cell, Outcome.MISS), 1 - hit)]
    result = posterior(observation)
    t = tables(rules.honest())
    fired = observation.shot_mask | 1 << cell
    sinkings: dict[object, tuple[Shot, float]] = {}
    completes = 0.0
    for i in range(int(t.through_start[cell]), int(t.through_start[cell + 1])):
        q = int(t.through[i])
        if t.masks[q] & ~fired:
            continue
        share = float(result.placement_layouts[q]) / float(result.layouts)
        ship = int(t.ship_of[q])
        key, shot = {
            Sinks.SUNK: ("sunk", Shot(cell, Outcome.SUNK)),
            Sinks.NAMED: (ship, Shot(cell, Outcome.SUNK, ship)),
            Sinks.REVEALED: (q, Shot(cell, Outcome.SUNK, ship, t.masks[q])),
        }[rules.sinks]
        sinkings[key] = (shot, sinkings.get(key, (shot, 0.0))[1] + share)
        completes += share
    told = 1 - e if rules.noise is not None and rules.noise.sinkings is Telling.NOISY else 1.0
    plain = p - completes
    out = [
        (Shot(cell, Outcome.HIT), plain * (1 - e) + (1 - p) * e),
        (Shot(cell, Outcome.MISS), plain * e + (1 - p) * (1 - e) + completes * (1 - told)),
    ]
    return out + [(shot, share * told) for shot, share in sinkings.values()]


def two_step_value(rules: Rules, observation: Observation, chance: np.ndarray, cell: int) -> float:
    """Expected hits of a shot at ``cell`` and then of greedy's next shot on what its answer leaves."""
    new = not observation.is_shot(cell)
    value = float(chance[cell]) if new else 0.0
    for shot, likely in answer_chances(rules, observation, chance, cell):
        if likely <= 1e-12:
            continue
        after = observation.after(shot)
        try:
            later = posterior(after).probability.ravel()
        except Exception:  # the game would be over whatever the layout: no next shot
            continue
        unfired = np.ones(rules.cells, dtype=bool)
        unfired[[s.cell for s in after.shots]] = False
        if unfired.any():
            value += likely * float(later[unfired].max())
    return value


def confirming_cell(
    rules: Rules, observation: Observation, chance: np.ndarray, greedy: int, width: int
) -> int:
    """``greedy`` (the likeliest new cell), or a cell fired at before when firing there again is worth
    more over the next two shots (see the module docstring): of the ``width`` cells fired at whose
    answers are most in doubt (a chance of a ship between ``DOUBT`` and ``1 - DOUBT``)."""
    if width <= 0 or not observation.shots:
        return greedy
    fired = sorted({s.cell for s in observation.shots})
    doubt = [c for c in fired if DOUBT < float(chance[c]) < 1 - DOUBT]
    doubt = sorted(doubt, key=lambda c: abs(float(chance[c]) - 0.5))[:width]
    if not doubt:
        return greedy
    best, best_value = greedy, two_step_value(rules, observation, chance, greedy)
    for cell in doubt:
        value = two_step_value(rules, observation, chance, cell)
        if value > best_value + 1e-9:
            best, best_value = cell, value
    return best
